/// Prints a history for a failure message: one line per event in call order, with the times renumbered from 0 in
/// the history's own order of calls and responses, so that overlaps are easy to see.
func describeHistory<Model: SequentialModel>(
    _ events: [HistoryEvent<Model>], verdict: LinearizabilityVerdict
) -> String where Model.Operation: CustomStringConvertible, Model.Outcome: CustomStringConvertible {
    let times = events.flatMap { [$0.call, $0.response] }.sorted()
    let rank = Dictionary(uniqueKeysWithValues: times.enumerated().map { ($1, $0) })
    let width = String(times.count).count
    func padded(_ number: Int) -> String {
        String(repeating: " ", count: width - String(number).count) + String(number)
    }
    var lines = events.indices.sorted { events[$0].call < events[$1].call }.map { index in
        let event = events[index]
        let interval = "[\(padded(rank[event.call]!)), \(padded(rank[event.response]!))]"
        return "  #\(padded(index)) thread \(event.thread) \(interval) \(event.operation) -> \(event.outcome)"
    }
    switch verdict {
    case let .linearizable(order):
        lines.append("  linearizable in the order " + order.map { "#\($0)" }.joined(separator: " "))
    case let .notLinearizable(prefix):
        lines.append(
            "  not linearizable; the longest order found: "
                + (prefix.isEmpty ? "(none)" : prefix.map { "#\($0)" }.joined(separator: " ")))
    }
    return lines.joined(separator: "\n")
}
