import RippleBenchShapes

/// Rows whose floor column is the same work written by hand in Swift (async write→success, store action→effect):
/// each column's time per operation as a figure, and Ripple over hand.
extension Row {
    /// Takes `hand` as the floor column; stores and returns its nanoseconds per operation as `figure`.
    mutating func takeHandWritten(_ hand: ShapeResult, operations: Int, figure: String) -> Double {
        floorMilliseconds = hand.milliseconds
        failures += hand.failures.map { "by hand: \($0)" }
        return takeNanoseconds(of: hand, operations: operations, figure: figure)
    }

    /// Takes `ripple` as the Swift column; stores and returns its nanoseconds per operation as `figure`.
    mutating func takeSwift(_ ripple: ShapeResult, operations: Int, figure: String) -> Double {
        takeSwift(ripple)
        return takeNanoseconds(of: ripple, operations: operations, figure: figure)
    }

    /// When both columns ran: stores Ripple over hand and adds it to `notes`.
    mutating func takeSwiftOverHand(notes: inout [String]) {
        guard let ratio = swiftOverFloor else { return }
        figures["swiftOverHand"] = ratio
        notes.append("Ripple/hand \(format(ratio))x")
    }

    private mutating func takeNanoseconds(of result: ShapeResult, operations: Int, figure: String) -> Double {
        let ns = result.milliseconds * 1e6 / Double(operations)
        figures[figure] = ns
        return ns
    }
}
