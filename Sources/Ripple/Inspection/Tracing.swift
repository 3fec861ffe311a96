internal import CRipple

/// One thing a runtime did, as a tracer sees it: a write, a commit, a recompute (an equality cut-off when nothing
/// changed), an effect run or an async result, with the dependency whose change caused it.
///
/// Install a tracer with ``Runtime/startTracing(_:)-((TraceEvent)->Void)`` to receive every event in the order it happens, or use
/// ``CausalTrace`` to print them as trees of causes.
///
/// ```swift
/// Runtime.current.startTracing { event in
///     print(event.kind, event.node, event.cause ?? "-", event.value ?? "")
/// }
/// ```
///
/// Threading: a plain value, `Sendable`.
public struct TraceEvent: Sendable, Equatable {
    /// What happened.
    public enum Kind: Sendable, Equatable {
        /// An atom was written (before anything re-validates).
        case write
        /// A written atom was committed: its readers see the new value (`changed` false: it was written back).
        case commit
        /// A derivation computed (an async derivation: started a run). `changed` false is an equality cut-off:
        /// nothing downstream re-runs for it.
        case recompute
        /// An effect is about to run; what its run writes, and what that causes, follows.
        case run
        /// A run of an async derivation delivered its result.
        case result
        /// A derivation was marked to compute again although nothing it read changed (``Derivation/refresh()``),
        /// before anything re-validates; its recompute follows, with no cause.
        case refresh
    }

    /// What happened.
    public let kind: Kind
    /// The label of the node it happened to.
    public let node: String
    /// The node it happened to, to tell apart nodes with the same label.
    public let nodeID: ObjectIdentifier
    /// The label of the dependency whose change caused a recompute or a run (the first one re-validation found
    /// changed); nil for a first compute or run, an explicit ``Effect/run()`` or ``Derivation/refresh()``, a write
    /// or a disposed dependency.
    public let cause: String?
    /// The cause's node, to tell apart nodes with the same label.
    public let causeID: ObjectIdentifier?
    /// The effect or derivation whose body was running when it happened (a write made by an effect), or nil.
    public let within: ObjectIdentifier?
    /// False for a commit of a value written back, and for a recompute or result equal to the value before.
    public let changed: Bool
    /// The node's value after the event, as text, when its type is `CustomStringConvertible`.
    public let value: String?
    /// For a write: the value the atom's readers saw before it, as text.
    public let previousValue: String?
    /// For a write made with ``AtomObject/set(_:fileID:line:)``: where (`"<fileID>:<line>"`).
    public let site: String?
    /// For a write: true when it is a rollback, a ``Runtime/transaction(_:)`` that threw writing back the value
    /// from before one of its writes.
    public let rollsBack: Bool
}

extension Runtime {
    /// Sends every event of this runtime to `tracer`, in the order they happen, until ``stopTracing()``; replaces
    /// a tracer installed before.
    ///
    /// The tracer runs synchronously on the thread that holds the graph, in the middle of the engine's work: it
    /// must not read or write nodes, or wait for another thread that uses this runtime. Without a tracer, the
    /// engine pays one branch at each point it would tell one.
    ///
    /// ```swift
    /// let runtime = Runtime.current
    /// runtime.startTracing { event in log.append(event) }
    /// quantity.value = 5
    /// runtime.stopTracing()
    /// ```
    ///
    /// - Parameter tracer: receives each event.
    ///
    /// Threading: from any thread. Lifetime: the runtime keeps `tracer` until ``stopTracing()``.
    public func startTracing(_ tracer: @escaping @Sendable (TraceEvent) -> Void) {
        batch { self.tracer = tracer }
        let status = rp_graph_set_tracer(graph, { context, _, event in
            let runtime = Unmanaged<Runtime>.fromOpaque(context.unsafelyUnwrapped).takeUnretainedValue()
            runtime.tell(event.pointee)
        }, opaqueSelf)
        if _slowPath(status != .RP_OK) { fail(status, "tracing", node: nil) }
    }

    /// Sends every event of this runtime to `trace` (``CausalTrace/record(_:)``), which groups them into trees of
    /// causes.
    ///
    /// ```swift
    /// let trace = CausalTrace()
    /// Runtime.current.startTracing(trace)
    /// quantity.value = 5
    /// print(trace.render())
    /// ```
    ///
    /// - Parameter trace: collects the events.
    ///
    /// Threading and lifetime: as for ``startTracing(_:)-((TraceEvent)->Void)``.
    public func startTracing(_ trace: CausalTrace) {
        startTracing { event in trace.record(event) }
    }

    /// Stops sending events to the tracer, and releases it.
    ///
    /// ```swift
    /// Runtime.current.stopTracing()
    /// ```
    ///
    /// Threading: from any thread.
    public func stopTracing() {
        let status = rp_graph_set_tracer(graph, nil, nil)
        if _slowPath(status != .RP_OK) { fail(status, "tracing", node: nil) }
        batch { tracer = nil }
    }

    /// Builds the event the engine told and hands it to the tracer. Called while the graph is held.
    private func tell(_ event: rp_trace_event_t) {
        guard let tracer, let data = event.data else { return }
        let node = Unmanaged<RippleNode>.fromOpaque(data).takeUnretainedValue()
        let cause = event.cause_data.map { Unmanaged<RippleNode>.fromOpaque($0).takeUnretainedValue() }
        let within = evaluatingNode.map(ObjectIdentifier.init)
        let kind: TraceEvent.Kind =
            switch event.kind {
            case .RP_TRACE_WRITE: .write
            case .RP_TRACE_COMMIT: .commit
            case .RP_TRACE_COMPUTE: .recompute
            case .RP_TRACE_RUN: .run
            case .RP_TRACE_RESOLVE: .result
            case .RP_TRACE_INVALIDATE: .refresh
            }
        tracer(
            TraceEvent(
                kind: kind, node: node.label, nodeID: ObjectIdentifier(node), cause: cause?.label,
                causeID: cause.map(ObjectIdentifier.init), within: within, changed: event.changed,
                value: kind == .run ? nil : node.valueDescription,
                previousValue: kind == .write ? node.committedValueDescription : nil,
                site: kind == .write ? state.pointee.writeSite : nil,
                rollsBack: kind == .write && transactionJournal.isRollingBack))
    }
}
