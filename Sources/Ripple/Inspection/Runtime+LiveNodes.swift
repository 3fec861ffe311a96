// Inspection/: seeing inside a runtime (its live nodes, its graph, its changes). Built on the engine's listing of
// live nodes and edges (rp_graph_nodes, rp_node_dependencies, rp_node_subscribers) and on what each node says of
// itself (`RippleNode.kindName`, `valueDescription`, `creationSite`).
internal import CRipple
internal import CRippleThreadState

extension Runtime {
    /// Every live node of this runtime, in creation order, retained for the caller, with the engine's handle of
    /// each. Taken while the graph is held, so that no node is freed meanwhile; a node whose deinit has begun is
    /// left out. Use these handles, not `node.handle`, while inspecting: a node is listed as soon as
    /// rp_node_create has made it, but its creator stores `handle` only after that call returns and the graph is
    /// released, so another thread can see it still empty.
    func liveNodesWithHandles() -> [(node: RippleNode, handle: rp_node_t)] {
        batch {
            var count = 0
            var status = rp_graph_nodes(graph, nil, 0, &count)
            var handles = [rp_node_t](repeating: rp_node_t(), count: count)
            if status == .RP_OK { status = rp_graph_nodes(graph, &handles, count, &count) }
            if _slowPath(status != .RP_OK) { fail(status, "listing the nodes of", node: nil) }
            return handles.compactMap { handle in retainedNode(handle).map { (node: $0, handle: handle) } }
        }
    }

    /// The node object behind a live handle, retained, or nil when its deinit has begun. Called while the graph is
    /// held.
    func retainedNode(_ handle: rp_node_t) -> RippleNode? {
        var data: UnsafeMutableRawPointer?
        guard rp_node_data(graph, handle, &data) == .RP_OK, let data, ripple_object_try_retain(data) else {
            return nil
        }
        return Unmanaged<RippleNode>.fromOpaque(data).takeRetainedValue()
    }
}
