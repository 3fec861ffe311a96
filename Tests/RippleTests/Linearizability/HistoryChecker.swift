/// A linearizability checker for short concurrent histories: the Wing & Gong search with Lowe's memoization, the
/// algorithm behind Jepsen's Knossos and porcupine.
///
/// A history is linearizable when its operations can be put in one sequential order that (1) keeps every operation
/// that returned before another was called ahead of it, and (2) gives every operation the result the sequential
/// model gives at that point. The search walks the calls and returns in time order, tentatively linearizing a
/// pending operation whose recorded result the model reproduces, and backtracks when it meets the return of an
/// operation it could not place. Lowe's cache of (set of linearized operations, model state) pairs already explored
/// prunes the search: two paths that linearized the same operations into the same state have the same future.
/// The search is iterative (an explicit stack), so a deep history cannot overflow the machine stack.

/// A sequential specification: the state the operations act on and what each one returns.
protocol SequentialModel {
    associatedtype State: Hashable
    associatedtype Operation
    associatedtype Outcome: Equatable

    /// Applies `operation` to `state` as if it ran alone: the state after it and the result it returns.
    static func apply(_ operation: Operation, to state: State) -> (state: State, outcome: Outcome)
}

/// One completed operation of a concurrent history: what it did, what it returned, and when it was called and
/// returned on a clock that totally orders every call and return of the history.
struct HistoryEvent<Model: SequentialModel> {
    /// The thread that ran it, for printing.
    var thread: Int
    var operation: Model.Operation
    var outcome: Model.Outcome
    /// The clock reading taken just before the operation started.
    var call: Int
    /// The clock reading taken just after the operation returned; greater than `call`.
    var response: Int
}

extension HistoryEvent: Sendable where Model.Operation: Sendable, Model.Outcome: Sendable {}

/// The checker's answer for one history.
enum LinearizabilityVerdict: Equatable {
    /// The history is linearizable; `order` is one witness: the events' indices in linearization order.
    case linearizable(order: [Int])
    /// No linearization exists. `longestPrefix` is the longest order of events the search managed to linearize
    /// before every path failed: the events after it are where the history went wrong.
    case notLinearizable(longestPrefix: [Int])

    var isLinearizable: Bool {
        if case .linearizable = self { return true }
        return false
    }
}

/// Decides whether `events`, started from `initial`, are linearizable with respect to `Model`.
///
/// Histories hold at most 64 events (the set of linearized events is a bit set in a `UInt64`); the timestamps of
/// all calls and responses must be distinct.
func checkLinearizability<Model: SequentialModel>(
    _ events: [HistoryEvent<Model>], from initial: Model.State, model: Model.Type = Model.self
) -> LinearizabilityVerdict {
    precondition(events.count <= 64, "a history holds at most 64 events: the linearized set is a UInt64 bit set")
    var timeline = Timeline(events)
    var state = initial
    var linearized: UInt64 = 0
    // Each frame is a call the search linearized, with the state before it, so that backtracking can undo it.
    var stack: [(entry: Int, stateBefore: Model.State)] = []
    stack.reserveCapacity(events.count)
    var explored = Set<ExploredPoint<Model.State>>()
    var longestPrefix: [Int] = []
    var entry = timeline.first
    while !timeline.isEmpty {
        let event = timeline.event[entry]
        if timeline.isCall[entry] {
            let (next, outcome) = Model.apply(events[event].operation, to: state)
            let withEvent = linearized | (1 << UInt64(event))
            if outcome == events[event].outcome,
                explored.insert(ExploredPoint(linearized: withEvent, state: next)).inserted
            {
                stack.append((entry, state))
                state = next
                linearized = withEvent
                timeline.lift(entry)
                if stack.count > longestPrefix.count { longestPrefix = stack.map { timeline.event[$0.entry] } }
                entry = timeline.first
                continue
            }
            entry = timeline.next[entry]
        } else {
            // The return of an event not yet linearized: it had to take effect before this point, and no call
            // before it could be linearized next, so this path is dead. Undo the last choice and try the call
            // after that one instead.
            guard let frame = stack.popLast() else { return .notLinearizable(longestPrefix: longestPrefix) }
            state = frame.stateBefore
            linearized &= ~(1 << UInt64(timeline.event[frame.entry]))
            timeline.unlift(frame.entry)
            entry = timeline.next[frame.entry]
        }
    }
    return .linearizable(order: stack.map { timeline.event[$0.entry] })
}

/// A point of the search: Lowe's memoization key.
private struct ExploredPoint<State: Hashable>: Hashable {
    var linearized: UInt64
    var state: State
}

/// The calls and returns of a history in time order, as a doubly linked list whose entries can be lifted out (a
/// call together with its return, when the search linearizes the call) and put back in reverse order, as in Knuth's
/// dancing links. Entry 0 is the head sentinel and the last entry the tail sentinel.
private struct Timeline {
    var next: [Int]
    var previous: [Int]
    /// For each entry, the index of its event.
    let event: [Int]
    let isCall: [Bool]
    /// For a call entry, the entry of its return.
    let response: [Int]
    private let tail: Int

    init<Model: SequentialModel>(_ events: [HistoryEvent<Model>]) {
        let moments = events.indices
            .flatMap { [(time: events[$0].call, event: $0, isCall: true), (events[$0].response, $0, false)] }
            .sorted { $0.time < $1.time }
        precondition(
            zip(moments, moments.dropFirst()).allSatisfy { $0.time != $1.time },
            "the calls and returns of a history need distinct timestamps")
        tail = moments.count + 1
        event = [-1] + moments.map(\.event) + [-1]
        isCall = [false] + moments.map(\.isCall) + [false]
        var responseEntry = Array(repeating: -1, count: tail + 1)
        var callEntry = Array(repeating: -1, count: events.count)
        for (offset, moment) in moments.enumerated() {
            if moment.isCall {
                callEntry[moment.event] = offset + 1
            } else {
                precondition(callEntry[moment.event] != -1, "event \(moment.event) returns before it is called")
                responseEntry[callEntry[moment.event]] = offset + 1
            }
        }
        response = responseEntry
        next = Array(1...tail) + [tail]
        previous = Array(-1..<tail)
    }

    var first: Int { next[0] }
    var isEmpty: Bool { next[0] == tail }

    /// Takes the call `entry` and its return out of the list.
    mutating func lift(_ entry: Int) {
        unlink(entry)
        unlink(response[entry])
    }

    /// Puts back the call `entry` and its return, undoing the most recent `lift` not yet undone.
    mutating func unlift(_ entry: Int) {
        relink(response[entry])
        relink(entry)
    }

    private mutating func unlink(_ entry: Int) {
        next[previous[entry]] = next[entry]
        previous[next[entry]] = previous[entry]
    }

    private mutating func relink(_ entry: Int) {
        next[previous[entry]] = entry
        previous[next[entry]] = entry
    }
}
