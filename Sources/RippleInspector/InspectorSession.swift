@_spi(Inspector) import Ripple

/// What the inspector page shows, as the JSON its script reads: the live nodes and their edges, and the events a
/// trace recorded with the index of each one's cause (the tree ``CausalTrace/render()`` draws).
struct InspectorSession: Encodable {
    /// A node as the page draws it.
    struct Node: Encodable {
        /// The label.
        let label: String
        /// "atom", "derivation", "effect", ...
        let kind: String
        /// The stored value as text, if it has one.
        let value: String?
        /// Where it was created.
        let site: String?
    }

    /// An event as the page lists it.
    struct Event: Encodable {
        /// "write", "commit", "recompute", "run", "result" or "refresh".
        let kind: String
        /// The node's position in `nodes`, or -1 for a node no longer live.
        let node: Int
        /// The node's label (a node no longer live has no position).
        let label: String
        /// The index of the event it hangs below, or -1 for a root.
        let parent: Int
        /// False for an equality cut-off or a write back.
        let changed: Bool
        /// The value after it, as text.
        let value: String?
        /// For a write, the value before it.
        let previous: String?
        /// The line `CausalTrace.render()` shows for it.
        let line: String
    }

    /// Every live node, in creation order.
    let nodes: [Node]
    /// Each edge as [from, to]: from a node to a node that read it.
    let edges: [[Int]]
    /// Every recorded event, in order.
    let events: [Event]

    /// The session of `graph` and `events`.
    init(graph: InspectorGraph, events: [TraceEvent]) {
        nodes = graph.nodes.map {
            Node(label: $0.label, kind: $0.kind, value: $0.valueDescription, site: $0.creationSite)
        }
        var edges: [[Int]] = []
        for (reader, read) in graph.dependencies.enumerated() {
            for dependency in read { edges.append([dependency, reader]) }
        }
        self.edges = edges
        var positions: [ObjectIdentifier: Int] = [:]
        for (position, identifier) in graph.identifiers.enumerated() { positions[identifier] = position }
        let parents = CausalTrace.causalParents(of: events)
        self.events = events.enumerated().map { index, event in
            Event(
                kind: "\(event.kind)", node: positions[event.nodeID] ?? -1, label: event.node,
                parent: parents[index] ?? -1, changed: event.changed, value: event.value,
                previous: event.previousValue, line: CausalTrace.renderedLine(for: event))
        }
    }
}
