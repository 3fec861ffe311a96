internal import CRipple

/// What inspection shows of a runtime's live nodes, taken in one hold of the graph: each node as a ``LiveNode``,
/// in creation order, and what each one reads, in read order, as positions in `nodes`. Both the live-node report
/// and the graph description are made from it, so they always agree.
struct InspectedGraph {
    /// Every live node, in creation order.
    var nodes: [LiveNode]

    /// Each node's identity, in the order of `nodes`: to match the nodes of trace events.
    var identifiers: [ObjectIdentifier]

    /// For each node, the positions of the nodes it read in its last run, in the order it read them. A dependency
    /// whose deinit had begun is left out, as the node itself is.
    var dependencies: [[Int]]

    /// The position of the node asked about, if it was live.
    var focus: Int?

    /// For each node, the positions of the nodes that read it, in creation order: the dependencies reversed
    /// (the engine's subscriber lists have no set order, and the same edges are already here).
    var readers: [[Int]] {
        var readers = [[Int]](repeating: [], count: nodes.count)
        for (reader, read) in dependencies.enumerated() {
            for dependency in read { readers[dependency].append(reader) }
        }
        return readers
    }

    /// The positions of the focus, of everything it reads directly or not (upstream) and of everything that
    /// reads it directly or not (downstream), in creation order. Empty when the focus was not live.
    func focusAndItsConnections() -> [Int] {
        guard let focus else { return [] }
        let shown = Self.closure(from: focus, along: dependencies).union(Self.closure(from: focus, along: readers))
        return shown.sorted()
    }

    /// `start` and every position reachable from it along `edges` (`dependencies`: upstream; `readers`:
    /// downstream).
    static func closure(from start: Int, along edges: [[Int]]) -> Set<Int> {
        var reached: Set = [start]
        var pending = [start]
        while let position = pending.popLast() {
            for next in edges[position] where reached.insert(next).inserted { pending.append(next) }
        }
        return reached
    }
}

extension Runtime {
    /// Takes what inspection shows of every live node while the graph is held exclusively, so that nothing runs,
    /// changes or is freed meanwhile. Reads nothing through the graph: no dependency is recorded and no
    /// derivation is brought up to date (each shows the value it last computed).
    func inspectGraph(focusingOn focus: RippleNode? = nil) -> InspectedGraph {
        // The nodes stay retained until the graph is released: when ours is the last reference (a node being
        // freed on another thread), its deinit then runs outside the inspection, not in the middle of it. Edges
        // are matched by the engine's handles (see `liveNodesWithHandles()`).
        var retained: [(node: RippleNode, handle: rp_node_t)] = []
        let inspected = batch { () -> InspectedGraph in
            retained = liveNodesWithHandles()
            var positions: [UInt64: Int] = [:]
            for (position, entry) in retained.enumerated() { positions[Self.key(of: entry.handle)] = position }
            return InspectedGraph(
                nodes: retained.map { LiveNode(describing: $0.node) },
                identifiers: retained.map { ObjectIdentifier($0.node) },
                dependencies: retained.map { entry in
                    dependencyHandles(of: entry.handle, node: entry.node).compactMap { positions[Self.key(of: $0)] }
                },
                focus: focus.flatMap { focus in retained.firstIndex { $0.node === focus } }
            )
        }
        withExtendedLifetime(retained) {}
        return inspected
    }

    /// What the node behind `handle` read in its last run, in read order. Called while the graph is held.
    private func dependencyHandles(of handle: rp_node_t, node: RippleNode) -> [rp_node_t] {
        var count = 0
        var status = rp_node_dependencies(graph, handle, nil, 0, &count)
        var handles = [rp_node_t](repeating: rp_node_t(), count: count)
        if status == .RP_OK, count > 0 { status = rp_node_dependencies(graph, handle, &handles, count, &count) }
        if _slowPath(status != .RP_OK) { fail(status, "listing what it reads, for inspection, of", node: node) }
        return Array(handles.prefix(count))
    }

    /// A live node's handle as a dictionary key (the graph tag is the same for every node of this graph).
    private static func key(of handle: rp_node_t) -> UInt64 {
        UInt64(handle.slot) << 32 | UInt64(handle.generation)
    }
}

extension LiveNode {
    /// What inspection shows of `node`. Called while the graph is held: the value is the stored one.
    init(describing node: RippleNode) {
        self.init(
            label: node.label, kind: node.kindName, creationSite: node.creationSite,
            valueDescription: node.valueDescription
        )
    }
}
