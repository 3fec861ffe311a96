// Ripple and Swift's Observation, both ways, with the toolchain's public Observation API only
// (`withObservationTracking(_:onChange:)` and `ObservationRegistrar`; its didSet-side tracking is SPI that the
// Apple SDKs do not ship).
//
// Ripple → Observation (this file). A read of an atom, a derivation or an async derivation made outside any
// evaluation asks the probe whether Observation is tracking on this thread. Only then does the node get a relay:
// an effect that reads the node (without keeping it alive, like a `values` observer) and owns the one
// `ObservationRegistrar` that Observation records the read with. The relay runs after every committed change of
// the node (once per batch, never for a derivation that recomputed to an equal value) and then announces a
// mutation to its registrar, which fires the trackers' `onChange`. Observation's `onChange` is one-shot, so a
// relay notifies once per tracked read: a change that no tracked read preceded removes the relay instead.
//
// Observation → Ripple: ObservedProperties.swift.
internal import CRipple
// Imported publicly, as in RippleNode+Reads.swift and for the same reason: the probe below is inlinable, so that a
// read outside evaluations asks it from the reader (`RippleNode.copiesOutsideEvaluation()`) rather than from a
// function of its own. No public declaration mentions their types; `import Ripple` does not make them visible.
public import CRippleThreadState
public import Observation

/// Tells whether Observation is tracking reads on this thread, without recording anything Observation would keep
/// or notify.
///
/// Observation's thread-local access list is not reachable from outside its module, but its registrar's `access`
/// records a key path in it only while `withObservationTracking` runs, and recording hashes the key path. The
/// probe's key path has a subscript argument whose hash sets a thread-local flag, so one `access` call (a thread-
/// local load and a branch inside Observation when nothing tracks) answers the question. Inside a tracking scope the
/// probe is recorded too, on a registrar that never announces a change: Observation drops it with the scope's
/// other registrations.
///
/// `@unchecked Sendable`: its stored properties are immutable, and a key path without captured mutable state
/// (this one's argument is an empty value) is safe to share; `KeyPath` is simply not declared `Sendable`.
@usableFromInline
final class ObservationProbe: Observable, @unchecked Sendable {
    /// The argument of the probe's key path: its hash is the signal.
    struct Signal: Hashable, Sendable {
        static func == (lhs: Signal, rhs: Signal) -> Bool { true }
        func hash(into hasher: inout Hasher) {
            ripple_thread_state_set_observation_probed(true)
        }
    }

    subscript(signal: Signal) -> Int { 0 }

    // The key path first: a field after the registrar (a type of another module) sits at an offset the probe
    // would have to load.
    @usableFromInline let keyPath: KeyPath<ObservationProbe, Int> = \ObservationProbe.[Signal()]
    @usableFromInline let registrar = ObservationRegistrar()

    /// The one probe. Each runtime keeps a reference (`Runtime.observationProbe`), so that a read does not check
    /// that this static is initialized.
    static let shared = ObservationProbe()

    /// Whether the calling thread is inside `withObservationTracking`'s `apply` closure; `probe` is ``shared``.
    @inlinable @inline(__always)
    static func isTracking(_ probe: Unmanaged<ObservationProbe>) -> Bool {
        ripple_thread_state_set_observation_probed(false)
        probe._withUnsafeGuaranteedRef { probe in probe.registrar.access(probe, keyPath: probe.keyPath) }
        return ripple_thread_state_observation_probed()
    }

    /// ``isTracking(_:)`` without clearing the flag first, for a caller whose `true` takes a path that asks
    /// ``isTracking(_:)`` again (`RippleNode.copiesOutsideEvaluation()`): only the probe's hash sets the flag, so
    /// a flag still clear after the probe means Observation is not tracking, and a flag set before (by an earlier
    /// probe that found tracking) costs one read the general path, whose probe clears it. Saves the store before
    /// the probe and the register that kept the flag's address across Observation's call.
    @inlinable @inline(__always)
    static func mayBeTracking(_ probe: Unmanaged<ObservationProbe>) -> Bool {
        probe._withUnsafeGuaranteedRef { probe in probe.registrar.access(probe, keyPath: probe.keyPath) }
        return ripple_thread_state_observation_probed()
    }
}

/// The bridge from one Ripple node to Observation's trackers: an effect reading the node, and the registrar that
/// tracked reads are recorded with. Owned by its runtime's `observationRelays`.
///
/// `@unchecked Sendable` (its observer's body captures it): its mutable state (`isArmed`, `observer`, `hasRun`) is
/// touched only while its runtime's graph is held, by tracked reads (`holdingGraph`) and by the observer's runs;
/// `registrar` is Sendable and `key` immutable.
final class ObservationRelay: Observable, @unchecked Sendable {
    /// The node relayed; weak: a tracked read does not keep a node alive.
    weak var node: RippleNode?
    let key: ObjectIdentifier
    let registrar = ObservationRegistrar()
    /// A tracked read happened since the last notification: the next change notifies.
    var isArmed = true
    /// The effect that reads the node; nil once removed.
    var observer: Effect?
    private var hasRun = false

    /// What trackers record: the relay's only observable property.
    var changes: Int { 0 }

    init(node: RippleNode) {
        self.node = node
        key = ObjectIdentifier(node)
    }

    /// Starts relaying: the observer's first run reads the node. Called while the graph is held.
    func start(in runtime: Runtime) {
        let label = node.map { "Observation of \($0.label)" } ?? "Observation"
        observer = Effect(observingIn: runtime, label: label) { [self] in run(in: runtime) }
    }

    /// The observer's body: re-read the node (the dependency), then notify the trackers of the change.
    private func run(in runtime: Runtime) {
        guard let node else { return remove(from: runtime) }
        node.recordRead()
        if !hasRun {
            hasRun = true
            return
        }
        guard isArmed else { return remove(from: runtime) }  // nobody read it under tracking since the last change
        isArmed = false
        notify(in: runtime)
    }

    /// Fires the trackers' `onChange`, as an untracked reader outside any evaluation: what it reads is neither a
    /// dependency of the observer nor a read inside this runtime's evaluation (a tracker may read any runtime, and
    /// a tracker that re-tracks records its reads with Observation).
    ///
    /// The thread holds the graph meanwhile, like in a batch, and is marked so: an `@Observable` property the
    /// tracker writes reaches this runtime's `observing` readers once the write is done (ObservedProperties.swift).
    private func notify(in runtime: Runtime) {
        let outer = EvaluationThreadState.innermost
        let outerBatch = ripple_thread_state_batching()
        EvaluationThreadState.innermost = nil
        ripple_thread_state_set_batching(runtime.opaqueSelf)
        _ = rp_untracked_begin(runtime.graph)
        registrar.withMutation(of: self, keyPath: \.changes) {}
        _ = rp_untracked_end(runtime.graph)
        ripple_thread_state_set_batching(outerBatch)
        EvaluationThreadState.innermost = outer
    }

    /// Leaves the graph and the runtime's table. Called while the graph is held.
    func remove(from runtime: Runtime) {
        if runtime.observationRelays[key] === self { runtime.observationRelays[key] = nil }
        observer?.cancel()
        observer = nil
    }
}

extension RippleNode {
    /// A read outside any evaluation while Observation is tracking on this thread (`ObservationProbe.isTracking`):
    /// records it with Observation. Called by ``beginRead()`` before the read.
    @inline(never)
    final func recordObservedRead() {
        runtime.holdingGraph {
            let relay = runtime.observationRelay(for: self)
            relay.isArmed = true
            relay.registrar.access(relay, keyPath: \.changes)
        }
    }
}

extension Runtime {
    /// The relay of `node`, created (and started) on first use. Called while the graph is held.
    fileprivate func observationRelay(for node: RippleNode) -> ObservationRelay {
        let key = ObjectIdentifier(node)
        if let relay = observationRelays[key] {
            if relay.node === node { return relay }
            relay.remove(from: self)  // an earlier node at the same address
        }
        let relay = ObservationRelay(node: node)
        observationRelays[key] = relay
        relay.start(in: self)
        return relay
    }
}
