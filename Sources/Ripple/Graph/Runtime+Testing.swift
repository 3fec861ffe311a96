internal import CRipple

// Test hooks, from the engine's own accounting. Not API: reached with `@_spi(Testing) import Ripple`.
@_spi(Testing)
extension Runtime {
    /// How many nodes the graph holds (created and not yet freed).
    ///
    /// ```swift
    /// let runtime = Runtime()
    /// withIsolatedRuntime(using: runtime) { _ = atom(1) }   // the atom is freed at once
    /// #expect(runtime.liveNodeCount == 0)
    /// ```
    ///
    /// Threading: from any thread.
    public var liveNodeCount: Int {
        stats().live_nodes
    }

    /// How many change hooks each atom write of this runtime tests for (`RuntimeState.changeHookCount`): the
    /// hooks installed (``onChange(_:)``, an ``UndoHistory``, the lifecycle's update hooks), plus one while a
    /// transaction is open. Zero: every write takes the fast path, which a persisted atom does not change.
    ///
    /// ```swift
    /// let runtime = Runtime()
    /// #expect(runtime.changeHookCount == 0)
    /// ```
    ///
    /// Threading: from any thread.
    public var changeHookCount: Int {
        batch { state.pointee.changeHookCount }
    }

    /// How many dependency edges the graph holds.
    ///
    /// ```swift
    /// let a = atom(1)
    /// let e = Effect { _ = a.value }
    /// #expect(Runtime.current.liveEdgeCount == 1)
    /// ```
    ///
    /// Threading: from any thread.
    public var liveEdgeCount: Int {
        stats().live_edges
    }

    /// The bytes of the engine's arena blocks handed out to node records and edge arrays (`rp_graph_stats`): what
    /// the graph's nodes and edges take in the engine, without the Swift objects. Used by ripple-bench's memory rows.
    ///
    /// ```swift
    /// let before = runtime.engineBytesInUse
    /// let node = withIsolatedRuntime(using: runtime) { atom(1) }
    /// #expect(runtime.engineBytesInUse > before)
    /// ```
    ///
    /// Threading: from any thread.
    public var engineBytesInUse: Int {
        stats().arena_bytes_in_use
    }

    /// Validates every invariant of the engine's graph: nil when all hold, else a description of the first broken
    /// one.
    ///
    /// ```swift
    /// #expect(runtime.checkInvariants() == nil)
    /// ```
    ///
    /// Threading: from any thread, outside derivations and effects.
    public func checkInvariants() -> String? {
        var message = [CChar](repeating: 0, count: 512)
        let status = _rp_graph_check(graph, &message, message.count)
        if status == .RP_OK { return nil }
        let text = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        return text.isEmpty ? String(cString: rp_status_string(status)) : text
    }

    private func stats() -> (live_nodes: Int, live_edges: Int, arena_bytes_in_use: Int) {
        var stats = rp_graph_stats_t()
        let status = rp_graph_stats(graph, &stats)
        if _slowPath(status != .RP_OK) { fail(status, "reading statistics", node: nil) }
        return (Int(stats.live_nodes), Int(stats.live_edges), Int(stats.arena_bytes_in_use))
    }
}
