// Observation → Ripple: the `@Observable` properties a derivation's or an effect's body reads inside `observing { }`
// become a dependency (Observing.swift).
//
// `observing` runs its closure inside `withObservationTracking`. When the closure read observable properties, the
// evaluating node also reads a hidden source node made for that call (`ObservedProperties`), and the tracking's
// `onChange` writes that source. Observation calls `onChange` before the new value is stored (at willSet), on the
// writer's thread, so the write reaches Ripple only once it is complete:
//   - inside an evaluation (an effect or a derivation body) or a `Runtime.batch` of the dependent's runtime on the
//     writer's thread, the source is written at once: the engine runs the dependents when that evaluation or batch
//     ends, after the write;
//   - on the main actor, the source waits in `PendingObservedWrites` until the writer's job is over (a main-actor
//     job enqueued then), or until the main actor next reads a node outside an evaluation or writes: all of them
//     come after the write, and applying it then keeps such reads from seeing a value from before it;
//   - anywhere else, nothing tells when the write is done: Ripple traps, saying how to write it instead.
// A source lives as long as its dependent reads it (its readers retain it): the next run makes a new one, and a
// stale `onChange` (Observation's trackings cannot be cancelled through its public API) finds its source gone.
internal import CRipple
internal import CRippleThreadState
internal import Observation

/// The hidden source standing for the `@Observable` properties one run of a body read.
///
/// `@unchecked Sendable`: the tracking's `onChange` holds it weakly and may fire on any thread. `readerLabel` is
/// immutable, `isPending` is touched only on the main actor (`PendingObservedWrites`), and the node's engine state
/// only while its graph is held (`announce` runs inside `holdingGraph`).
final class ObservedProperties: RippleNode, @unchecked Sendable {
    /// Waiting in `PendingObservedWrites`. Touched only on the main actor.
    var isPending = false
    /// The label of the derivation or effect whose run made this source, for the trap message.
    private let readerLabel: String

    init(runtime: Runtime, readerLabel: String) {
        self.readerLabel = readerLabel
        super.init(
            runtime: runtime, extras: .labeled("Observation properties read by \(readerLabel)"), fileID: "", line: 0)
        createNode(.RP_KIND_SOURCE)
    }

    override var kindName: String { "observed properties" }

    /// Observation announced that a property the run read is about to change (its `onChange`).
    func willChange() {
        let runtime = self.runtime
        let host = runtime.opaqueSelf
        if EvaluationThreadState.innermost == host || ripple_thread_state_batching() == host {
            return runtime.holdingGraph { announce() }
        }
        guard MainActorCheck.isCurrent else { failUnfinishedWrite() }
        MainActor.assumeIsolated { PendingObservedWrites.add(self) }
    }

    /// Writes the source: its reader is marked. Called while the graph is held.
    func announce() {
        if isDisposed { return }
        let status = rp_source_set(graph, handle)
        if _slowPath(status != .RP_OK) { runtime.fail(status, "writing", node: self) }
    }

    private func failUnfinishedWrite() -> Never {
        fatalError(
            """
            Ripple: an @Observable property that \(readerLabel) \
            reads was written on a thread other than the main actor's, outside any batch or effect of its runtime. \
            Observation reports a write before the value is stored, and only the end of a batch (or of the \
            main actor's job) tells Ripple that it is complete. Write the property on the main actor, or inside \
            `runtime.batch { ... }` (or an effect) of the runtime that reads it.
            """)
    }
}

/// Writes of `@Observable` properties made on the main actor outside a batch, announced to Ripple at willSet and
/// waiting for the write to be over. Applied by a main-actor job enqueued with the first of them (any job runs
/// after the writer's), or earlier, for one runtime, by the main actor's next read of one of its nodes outside an
/// evaluation or its next write, batch or update there (any of which comes after the write): a derivation read then
/// must not show a value computed before the write.
enum PendingObservedWrites {
    @MainActor private static var sources: [ObservedProperties] = []

    @MainActor static func add(_ source: ObservedProperties) {
        if source.isPending { return }
        source.isPending = true
        if sources.isEmpty { Task { @MainActor in apply(only: nil) } }
        sources.append(source)
        ripple_pending_observed_writes_add(1)
    }

    /// Whether some writes wait: one load, what Ripple's reads outside evaluations and its batches check first.
    @inline(__always)
    static var arePending: Bool {
        ripple_pending_observed_writes_load() != 0
    }

    /// Applies the waiting writes read by nodes of `runtime`, if this is the main actor. Only that runtime's: the
    /// caller is about to use its graph anyway, and taking another runtime's graph here could invert the order in
    /// which a thread crossing runtimes takes them.
    @inline(never)
    static func apply(in runtime: Runtime) {
        guard MainActorCheck.isCurrent else { return }  // other threads wait for the main actor's job to end
        MainActor.assumeIsolated { apply(only: runtime) }
    }

    /// Writes the waiting sources of `runtime` (all of them when nil: the job enqueued with the first one), in one
    /// batch per runtime, so that one change runs its dependents once.
    @MainActor private static func apply(only runtime: Runtime?) {
        while let target = runtime ?? sources.first?.runtime {
            let due = sources.filter { $0.runtime === target }
            if due.isEmpty { return }
            sources.removeAll { $0.runtime === target }
            ripple_pending_observed_writes_add(-due.count)
            target.holdingGraph {
                for source in due {
                    source.isPending = false
                    source.announce()
                }
            }
            if runtime != nil { return }
        }
    }
}

extension Runtime {
    /// `observing(_:)` inside an evaluation of this runtime: runs `read` inside `withObservationTracking` and, when
    /// it read observable properties, makes a hidden source for them a dependency of the evaluating node.
    func observingInEvaluation<T>(_ read: () -> T) -> T {
        var properties: ObservedProperties?
        let result = withObservationTracking(read, onChange: onObservedChange(&properties))
        // Only when `read` read observable properties: the onChange autoclosure is evaluated only then.
        properties?.recordRead()
        return result
    }

    /// The `onChange` of one tracked read: a new hidden source, read by the evaluating node.
    private func onObservedChange(_ properties: inout ObservedProperties?) -> @Sendable () -> Void {
        let reader = evaluatingNode.map { $0 is SubscriberNode ? "a subscriber" : $0.label } ?? "a subscriber"
        let source = ObservedProperties(runtime: self, readerLabel: reader)
        properties = source
        return { [weak source] in source?.willChange() }
    }
}
