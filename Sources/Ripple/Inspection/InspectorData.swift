// What the inspector page (the RippleInspector module) reads of a runtime and a trace, as Ripple's SPI: the page's
// writer lives in a module of its own because it needs Foundation, which Ripple does not import.

/// Every live node of a runtime and what each one read, taken in one hold of the graph (as
/// ``Runtime/graphDescription()`` takes them): for the inspector page.
///
/// ```swift
/// @_spi(Inspector) import Ripple
/// let graph = Runtime.current.inspectorGraph()
/// print(graph.nodes.count, graph.dependencies.count)
/// ```
///
/// Threading: a plain value, `Sendable`.
@_spi(Inspector) public struct InspectorGraph: Sendable {
    /// Every live node, in creation order.
    public let nodes: [LiveNode]
    /// For each node, the positions in ``nodes`` of what it read in its last run, in read order.
    public let dependencies: [[Int]]
    /// Each node's identity, in the order of ``nodes``: what ``TraceEvent/nodeID`` names.
    public let identifiers: [ObjectIdentifier]
}

extension Runtime {
    /// Every live node and its dependencies, for the inspector page. Reads no node through the graph.
    ///
    /// ```swift
    /// @_spi(Inspector) import Ripple
    /// let graph = Runtime.current.inspectorGraph()
    /// print(graph.nodes.map(\.label))
    /// ```
    ///
    /// Threading and lifetime: as for ``graphDescription()``.
    @_spi(Inspector) public func inspectorGraph() -> InspectorGraph {
        let inspected = inspectGraph()
        return InspectorGraph(
            nodes: inspected.nodes, dependencies: inspected.dependencies, identifiers: inspected.identifiers)
    }
}

extension CausalTrace {
    /// For each of `events`, the index of the event it hangs below in ``render()``, or nil for a root.
    ///
    /// ```swift
    /// @_spi(Inspector) import Ripple
    /// let trace = CausalTrace()
    /// let parents = CausalTrace.causalParents(of: trace.events)
    /// print(parents.count)  // 0
    /// ```
    ///
    /// - Parameter events: events in the order a runtime told them.
    @_spi(Inspector) public static func causalParents(of events: [TraceEvent]) -> [Int?] {
        parents(of: events)
    }

    /// The line ``render()`` shows for `event`.
    ///
    /// ```swift
    /// @_spi(Inspector) import Ripple
    /// let trace = CausalTrace()
    /// print(trace.events.map(CausalTrace.renderedLine(for:)))  // []
    /// ```
    ///
    /// - Parameter event: an event a runtime told.
    @_spi(Inspector) public static func renderedLine(for event: TraceEvent) -> String {
        line(for: event)
    }
}
