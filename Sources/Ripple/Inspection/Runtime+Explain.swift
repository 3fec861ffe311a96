internal import CRippleThreadState

// "Why didn't it run?": a node's reason, from the events a CausalTrace recorded and the graph as it is now.
// The checks run in order, each one the first that can hold: a run, no write, an open batch (a transaction's
// rollback will be checked beside it), a cancelled effect, no dependency on the writes, a write back,
// laziness, an equality cut-off, a scheduler.

extension Runtime {
    /// Why `node` did or did not run or recompute after the writes `trace` recorded (since it started, or since
    /// its ``CausalTrace/removeAll()``), with the nodes involved, each named by its label and where it was created.
    ///
    /// ```swift
    /// let quantity = atom(4, label: "quantity")
    /// let price = atom(4, label: "price")
    /// let total = derive(label: "total") { price.value * 2 }
    /// let trace = CausalTrace()
    /// Runtime.current.startTracing(trace)
    /// quantity.value = 5
    /// print(Runtime.current.explain(total, since: trace))
    /// // total (MyApp/Cart.swift:3) did not run: it does not depend on what was written (quantity …); …
    /// ```
    ///
    /// The reasons, checked in this order: it ran (and why); nothing was written; the writes are inside a batch
    /// that has not ended; the effect was cancelled; it does not depend on any written atom
    /// (and what it reads); the written atom was written back to its value; it is a derivation no effect
    /// observes (lazy); an equality cut-off upstream stopped the change (where, old and new values); it is an
    /// effect bound to a scheduler, whose run is pending there. For an async derivation, a run superseded by a
    /// later one before it delivered is named with the write that started the later one.
    ///
    /// - Parameters:
    ///   - node: the node asked about.
    ///   - trace: the trace installed with ``startTracing(_:)-(CausalTrace)`` before the writes.
    /// - Returns: the reason.
    ///
    /// Threading: from any thread; it holds the graph for a moment, as ``graphDescription()`` does, and reads
    /// no node through it (nothing runs or is brought up to date).
    public func explain(_ node: RippleNode, since trace: CausalTrace) -> Explanation {
        let events = trace.events
        let batchOpen = ripple_thread_state_batch_depth() > 0
        let inspected = inspectGraph(focusingOn: node)
        var names: [ObjectIdentifier: String] = [:]
        for (position, live) in inspected.nodes.enumerated() {
            names[inspected.identifiers[position]] = Self.name(label: live.label, site: live.creationSite)
        }
        let context = ExplanationContext(
            node: node, events: events, graph: inspected, names: names, batchOpen: batchOpen)
        return Explanation(node: Self.name(label: node.label, site: node.creationSite), reason: context.reason())
    }

    /// A node's label, then where it was created when that differs from the label.
    static func name(label: String, site: String?) -> String {
        guard let site, site != label else { return label }
        return "\(label) (\(site))"
    }
}

/// What ``Runtime/explain(_:since:)`` looks at: the node, the recorded events and the graph taken after them.
private struct ExplanationContext {
    let node: RippleNode
    let events: [TraceEvent]
    let graph: InspectedGraph
    let names: [ObjectIdentifier: String]
    let batchOpen: Bool

    var id: ObjectIdentifier { ObjectIdentifier(node) }

    func name(of event: TraceEvent) -> String { names[event.nodeID] ?? event.node }

    func reason() -> Explanation.Reason {
        if let superseded = supersededRun() { return superseded }
        if let last = events.lastIndex(where: { $0.nodeID == id && [.recompute, .run, .result].contains($0.kind) }) {
            return .ran(cause: CausalTrace.line(for: events[last]))
        }
        let writes = events.filter { $0.kind == .write }
        if writes.isEmpty { return .nothingWritten }
        if let pending = uncommittedWrites() { return pending }
        if (node as? Effect)?.isCancelled == true { return .cancelled }
        guard let focus = graph.focus else { return .unknown }  // left the graph
        let upstream = InspectedGraph.closure(from: focus, along: graph.dependencies)
        let upstreamIDs = Set(upstream.map { graph.identifiers[$0] })
        guard writes.contains(where: { upstreamIDs.contains($0.nodeID) }) else {
            var written: [String] = []
            for write in writes where !written.contains(name(of: write)) { written.append(name(of: write)) }
            let reads = graph.dependencies[focus].map {
                Runtime.name(label: graph.nodes[$0].label, site: graph.nodes[$0].creationSite)
            }
            return .independent(written: written, reads: reads)
        }
        let commits = events.filter { $0.kind == .commit && upstreamIDs.contains($0.nodeID) }
        if !commits.contains(where: \.changed) {
            if let rolledBack = rolledBackWrites(upstreamOf: upstreamIDs) { return .rolledBack(writes: rolledBack) }
            if let back = commits.last { return .writtenBack(atom: name(of: back), value: back.value ?? "…") }
        }
        if isLazy(focus) { return .unobserved }
        for (index, event) in events.enumerated().reversed()
        where [.recompute, .result].contains(event.kind) && !event.changed && event.nodeID != id
            && upstreamIDs.contains(event.nodeID)
        {
            let new = event.value ?? "…"
            return .equalityCutOff(node: name(of: event), oldValue: valueBefore(index) ?? new, newValue: new)
        }
        if node.scheduler != nil { return .pendingOnScheduler }
        return .unknown
    }

    /// The writes whose commit has not come: they wait for the end of the batch they were made in.
    func uncommittedWrites() -> Explanation.Reason? {
        var pending: [String] = []
        for (index, write) in events.enumerated() where write.kind == .write {
            let committed = events[(index + 1)...].contains { $0.kind == .commit && $0.nodeID == write.nodeID }
            if !committed, !pending.contains(name(of: write)) { pending.append(name(of: write)) }
        }
        return pending.isEmpty || !batchOpen ? nil : .batchNotEnded(writes: pending)
    }

    /// The atoms upstream (in `upstreamIDs`) that a transaction rolled back, in the order of their first write;
    /// nil when none was.
    func rolledBackWrites(upstreamOf upstreamIDs: Set<ObjectIdentifier>) -> [String]? {
        // A rollback writes back newest first: the order of the writes themselves is the one their author knows.
        let rolledBackIDs = Set(events.filter { $0.kind == .write && $0.rollsBack }.map(\.nodeID))
        var rolledBack: [String] = []
        for write in events where write.kind == .write && !write.rollsBack && rolledBackIDs.contains(write.nodeID)
            && upstreamIDs.contains(write.nodeID) && !rolledBack.contains(name(of: write))
        {
            rolledBack.append(name(of: write))
        }
        return rolledBack.isEmpty ? nil : rolledBack
    }

    /// For an async derivation: its last run that a later run started before it delivered, named by the write
    /// at the root of the later run's causes.
    func supersededRun() -> Explanation.Reason? {
        guard node.kindName == "async derivation" else { return nil }
        let parents = CausalTrace.parents(of: events)
        var started: Int?
        var superseding: Int?
        for (index, event) in events.enumerated() where event.nodeID == id {
            switch event.kind {
            case .recompute:
                if started != nil { superseding = index }
                started = index
            case .result: started = nil
            default: break
            }
        }
        guard var root = superseding else { return nil }
        while let parent = parents[root] { root = parent }
        return .superseded(by: CausalTrace.line(for: events[root]))
    }

    /// Whether the node at `position` is a derivation that no effect (nor any other eager reader) reaches.
    func isLazy(_ position: Int) -> Bool {
        let lazyKinds = ["derivation", "async derivation"]
        guard lazyKinds.contains(graph.nodes[position].kind) else { return false }
        let downstream = InspectedGraph.closure(from: position, along: graph.readers)
        return downstream.allSatisfy { lazyKinds.contains(graph.nodes[$0].kind) }
    }

    /// The value the node of the event at `index` had before it, from the last earlier event of that node.
    func valueBefore(_ index: Int) -> String? {
        let nodeID = events[index].nodeID
        return events[..<index].last { $0.nodeID == nodeID && $0.value != nil && $0.kind != .write }?.value
    }
}
