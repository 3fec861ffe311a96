/// A ready-made tracer that answers "why did this run?": it records a runtime's events and renders them as trees,
/// each write at a root and, below it, what it caused.
///
/// ```swift
/// let trace = CausalTrace()
/// Runtime.current.startTracing(trace)
/// quantity.set(5)
/// print(trace.render())
/// // write quantity (Cart.swift:12) 4 → 5
/// // └ total recomputed: quantity changed → 20
/// //   ├ display ran: total changed
/// //   └ expensive recomputed: total changed → false (equal: stops here)
/// ```
///
/// An event hangs below the last event of its cause (a recompute or run below the write or recompute of the
/// dependency that changed), a write made by an effect below that effect's run, a first compute below the body
/// that read it; a written-back atom shows as "written back: no change". Commits that changed something are not
/// shown: the write stands for them.
///
/// Threading: ``record(_:)`` may be called from any thread; ``render()`` and ``events`` give what was recorded so
/// far. Lifetime: it keeps every event until ``removeAll()``.
public final class CausalTrace {
    // `recorded` is touched only under the lock, for an append or a copy.
    private let lock = ParkingLock()
    private var recorded: [TraceEvent] = []

    /// An empty trace.
    ///
    /// ```swift
    /// let trace = CausalTrace()
    /// ```
    public init() {}

    deinit {
        lock.deallocate()
    }

    /// Keeps `event`: what ``Runtime/startTracing(_:)-(CausalTrace)`` hands it.
    ///
    /// ```swift
    /// Runtime.current.startTracing { event in trace.record(event) }
    /// ```
    ///
    /// - Parameter event: the event, in the order the runtime told it.
    public func record(_ event: TraceEvent) {
        lock.withLock { recorded.append(event) }
    }

    /// Every event recorded so far, in order.
    ///
    /// ```swift
    /// #expect(trace.events.map(\.kind) == [.write, .commit, .recompute])
    /// ```
    public var events: [TraceEvent] {
        lock.withLock { recorded }
    }

    /// Forgets every event recorded so far.
    ///
    /// ```swift
    /// trace.removeAll()
    /// ```
    public func removeAll() {
        lock.withLock { recorded = [] }
    }

    /// The events recorded so far as trees of causes, one line per event, a tree per root (a write made outside
    /// any body, a first compute, an async result), in order.
    ///
    /// ```swift
    /// print(trace.render())
    /// ```
    public func render() -> String {
        let recorded = events
        let parents = Self.parents(of: recorded)
        var nodes: [(line: String, children: [Int])] = []
        var roots: [Int] = []
        var position: [Int: Int] = [:]  // an event's index in `recorded` -> its line in `nodes`
        for (index, event) in recorded.enumerated() where !Self.isHidden(event) {
            position[index] = nodes.count
            nodes.append((Self.line(for: event), []))
            if let parent = parents[index].flatMap({ position[$0] }) {
                nodes[parent].children.append(nodes.count - 1)
            } else {
                roots.append(nodes.count - 1)
            }
        }
        var lines: [String] = []
        func draw(_ index: Int, prefix: String, branch: String) {
            lines.append(prefix + branch + nodes[index].line)
            let children = nodes[index].children
            let inner = prefix + (branch == "├ " ? "│ " : branch.isEmpty ? "" : "  ")
            for (position, child) in children.enumerated() {
                draw(child, prefix: inner, branch: position == children.count - 1 ? "└ " : "├ ")
            }
        }
        for root in roots { draw(root, prefix: "", branch: "") }
        return lines.joined(separator: "\n")
    }

    /// A commit that changed something is not shown: the write stands for it.
    static func isHidden(_ event: TraceEvent) -> Bool {
        event.kind == .commit && event.changed
    }

    /// For each event, the index of the event it hangs below (its cause), or nil for a root; hidden events
    /// (``isHidden(_:)``) are nobody's parent. The rule of ``render()``, shared with ``Runtime/explain(_:since:)``.
    static func parents(of events: [TraceEvent]) -> [Int?] {
        var parents: [Int?] = []
        parents.reserveCapacity(events.count)
        var lastEvent: [ObjectIdentifier: Int] = [:]
        var refreshed: Set<ObjectIdentifier> = []
        for (index, event) in events.enumerated() {
            if isHidden(event) {
                parents.append(lastEvent[event.nodeID])
                continue
            }
            let parent: Int? =
                switch event.kind {
                case .write, .refresh: event.within.flatMap { lastEvent[$0] }
                case .commit: lastEvent[event.nodeID]
                case .recompute where event.cause == nil && refreshed.contains(event.nodeID):
                    lastEvent[event.nodeID]  // the refresh stands for its cause
                case .recompute, .run: event.causeID.flatMap { lastEvent[$0] } ?? event.within.flatMap { lastEvent[$0] }
                case .result: nil
                }
            if event.kind == .refresh { refreshed.insert(event.nodeID) } else { refreshed.remove(event.nodeID) }
            parents.append(parent)
            lastEvent[event.nodeID] = index
        }
        return parents
    }

    static func line(for event: TraceEvent) -> String {
        let value = event.value ?? "…"
        let equal = event.changed ? "" : " (equal: stops here)"
        switch event.kind {
        case .write:
            let site = event.site.map { " (\($0))" } ?? ""
            return "write \(event.node)\(site) \(event.previousValue ?? "…") → \(value)"
        case .commit:  // render() shows only a write back; the inspector page lists the others too
            return event.changed ? "commit \(event.node) → \(value)" : "\(event.node) written back: no change"
        case .recompute:
            guard let cause = event.cause else { return "\(event.node) computed → \(value)\(equal)" }
            return "\(event.node) recomputed: \(cause) changed → \(value)\(equal)"
        case .run:
            guard let cause = event.cause else { return "\(event.node) ran" }
            return "\(event.node) ran: \(cause) changed"
        case .result:
            return "\(event.node) result → \(value)\(equal)"
        case .refresh:
            return "refresh \(event.node)"
        }
    }
}

// `recorded` is read and written only under the lock (every access above takes it); the events are Sendable.
extension CausalTrace: @unchecked Sendable {}
