import Foundation

/// Runs many short concurrent histories of ``AtomOperation``s on one ``AtomsUnderTest`` from real OS threads and
/// records each operation's call and response times, arguments and result, for ``checkLinearizability(_:from:model:)``.
///
/// All threads meet at a barrier before each history, and the last to arrive resets the atoms to the history's
/// initial values, so histories do not overlap and each starts from a known state. The operations of every history
/// are planned from the seed before the threads start; in the timed window a thread only reads the clock, runs its
/// operation, reads the clock and stores the result in its own preallocated slot, spinning or yielding where the
/// plan says so. A seed replays the planned operations, not the interleaving: that is up to the OS scheduler.
///
/// Pauses inside an operation's interval (between a clock reading and the operation) are there because two cores
/// shared with other work rarely run two of the threads at the same instant: a thread that yields there lets the
/// others run operations inside its interval, so the recorded histories overlap and the checker must order
/// concurrent operations, on any machine. Where cores are free, the spinning barrier also starts the threads within
/// nanoseconds of each other and the operations run in parallel.
struct HistoryRecorder {
    var threads: Int
    var histories: Int
    var operationsPerThread: Int
    var seed: UInt64

    /// One history of a run: the state it started from and its events (thread by thread, in program order).
    struct History {
        var index: Int
        var initial: AtomValues
        var events: [HistoryEvent<AtomsModel>]

        /// Whether two of its operations ran at overlapping times: the history is concurrent, not sequential.
        var isConcurrent: Bool {
            events.indices.contains { first in
                events.indices.contains { second in
                    first < second && events[first].call < events[second].response
                        && events[second].call < events[first].response
                }
            }
        }
    }

    /// Runs the histories on `subject` and returns them in order.
    func record(on subject: AtomsUnderTest) async -> [History] {
        // Copies the threads capture (not `self`).
        let operationsPerThread = operationsPerThread
        let histories = histories
        var random = SplitMix64(seed: seed)
        let initials = (0..<histories).map { _ in
            AtomValues(
                a: Int.random(in: 0..<10, using: &random), b: Int.random(in: 0..<10, using: &random),
                c: Int.random(in: 0..<10, using: &random))
        }
        let logs = (0..<threads).map { _ in
            ThreadLog(
                (0..<(histories * operationsPerThread)).map { _ in
                    PlannedOperation(
                        operation: .random(using: &random), before: .random(using: &random),
                        leadIn: .random(using: &random), leadOut: .random(using: &random))
                })
        }
        let clock = HistoryClock()
        let barrier = RoundBarrier(parties: threads)
        await withTaskGroup(of: Void.self) { group in
            for log in logs {
                group.addTask {
                    await runOnThread(stackSize: StackSize.small) {
                        for history in 0..<histories {
                            barrier.arrive { subject.reset(to: initials[history]) }
                            for slot in (history * operationsPerThread)..<((history + 1) * operationsPerThread) {
                                log.run(slot, on: subject, clock: clock)
                            }
                        }
                    }
                }
            }
        }
        return (0..<histories).map { history in
            let slots = (history * operationsPerThread)..<((history + 1) * operationsPerThread)
            let events = logs.indices.flatMap { thread in
                slots.map { slot in logs[thread].event(at: slot, thread: thread) }
            }
            return History(index: history, initial: initials[history], events: events)
        }
    }
}

/// A global clock whose readings totally order every call and response of a run.
///
/// Each reading is an increment of one counter under a lock (its readings are totally ordered), so when an operation's response reading is
/// below another's call reading, the first operation's effects happen before the second's begin.
final class HistoryClock: Sendable {
    private let counter = Locked(0)

    func tick() -> Int {
        counter.withLock { value in
            defer { value += 1 }
            return value
        }
    }
}

/// What a thread does before an operation, so that threads drift against each other and the overlaps vary.
enum Pause {
    case none
    case spin(iterations: Int)
    case yield

    static func random(using random: inout some RandomNumberGenerator) -> Pause {
        switch Int.random(in: 0..<8, using: &random) {
        case 0, 1, 2, 3: return .none
        case 4, 5: return .spin(iterations: Int.random(in: 1...500, using: &random))
        default: return .yield
        }
    }

    func wait() {
        switch self {
        case .none: break
        case let .spin(iterations):
            var sum = 0
            for iteration in 0..<iterations { sum &+= iteration }
            keepAlive(sum)
        case .yield: sched_yield()
        }
    }
}

/// Keeps the compiler from removing a spin loop whose result nothing else uses.
@inline(never) private func keepAlive(_ value: Int) {
    _ = value
}

/// An operation planned for one slot of a thread's run, and what was recorded when it ran.
struct PlannedOperation {
    var operation: AtomOperation
    /// Before the call is recorded.
    var before: Pause
    /// After the call is recorded, before the operation: inside its interval.
    var leadIn: Pause
    /// After the operation, before its response is recorded: inside its interval.
    var leadOut: Pause
    var call = 0
    var response = 0
    var outcome = AtomOutcome.none
}

/// One thread's planned operations for the whole run, in preallocated storage that it fills in as it runs them.
///
/// Contract that makes it `Sendable`: while the threads run, only the thread that owns the log reads or writes its
/// slots; the other readers come after that thread has finished (the task group's join orders them after it).
final class ThreadLog: @unchecked Sendable {
    private let slots: UnsafeMutableBufferPointer<PlannedOperation>

    init(_ planned: [PlannedOperation]) {
        slots = .allocate(capacity: planned.count)
        _ = slots.initialize(from: planned)
    }

    deinit {
        slots.deinitialize()
        slots.deallocate()
    }

    /// Runs the operation planned for `slot` and records its times and result.
    func run(_ slot: Int, on subject: AtomsUnderTest, clock: HistoryClock) {
        slots[slot].before.wait()
        let call = clock.tick()
        slots[slot].leadIn.wait()
        let outcome = subject.perform(slots[slot].operation)
        slots[slot].leadOut.wait()
        let response = clock.tick()
        slots[slot].call = call
        slots[slot].response = response
        slots[slot].outcome = outcome
    }

    func event(at slot: Int, thread: Int) -> HistoryEvent<AtomsModel> {
        let planned = slots[slot]
        return HistoryEvent(
            thread: thread, operation: planned.operation, outcome: planned.outcome, call: planned.call,
            response: planned.response)
    }
}

/// A reusable barrier for a fixed number of threads that spin (yielding) until all have arrived; the last to arrive
/// runs an action before it releases the others.
final class RoundBarrier: Sendable {
    private let parties: Int
    private let arrived = makeSpinCounter()
    private let round = makeSpinCounter()

    init(parties: Int) {
        self.parties = parties
    }

    func arrive(lastArrival action: () -> Void) {
        // Read before arriving: the round cannot advance until this thread has arrived.
        let current = round.load()
        if arrived.increment() == parties {
            // Nobody arrives for the next round before the release below, which also publishes this reset.
            arrived.store(0)
            action()
            // Pairs with the acquiring loads of the waiting threads: they see the action's writes.
            round.store(current + 1)
        } else {
            // Spin first: a thread that is on a core when the round opens starts within nanoseconds of the
            // others, which is what makes their operations overlap. Yield after that, for the threads that
            // outnumber the cores.
            var spins = 0
            while round.load() == current {
                spins += 1
                if spins > 20_000 { sched_yield() }
            }
        }
    }
}
