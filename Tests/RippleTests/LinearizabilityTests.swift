import Foundation
import Testing
@_spi(Testing) import Ripple

/// Concurrent operations on one runtime (writes, `update`, batches, reads of atoms, of derivations and inside a
/// batch) are linearizable: thousands of short histories recorded from real OS threads are each checked against the
/// sequential model of the atoms (``AtomsModel``) with the Wing & Gong / Lowe search (``checkLinearizability``).
///
/// The quick default runs 1000 histories at each thread count. For a long run set RIPPLE_LINEARIZABILITY_HISTORIES
/// to the number of histories per thread count; RIPPLE_LINEARIZABILITY_SEED replays the planned operations of a
/// failed run (the interleaving is the OS scheduler's). The checker's own tests below show that it rejects
/// histories that are not linearizable, so a passing run means something.
@Suite(.serialized, .timeLimit(.minutes(10))) struct LinearizabilityTests {
    @Test(arguments: [2, 4, 8])
    func concurrentOperationsOnAtomsAndDerivationsAreLinearizable(threads: Int) async {
        // About 16 to 24 operations per history: short enough for the checker, long enough to overlap.
        let recorder = HistoryRecorder(
            threads: threads, histories: LinearizabilityRun.histories,
            operationsPerThread: threads == 2 ? 8 : 24 / threads, seed: LinearizabilityRun.seed)
        let subject = AtomsUnderTest(AtomValues(a: 0, b: 0, c: 0))
        let histories = await recorder.record(on: subject)
        var failures: [String] = []
        var failed = 0
        let concurrent = histories.count { $0.isConcurrent }
        for history in histories {
            let verdict = checkLinearizability(history.events, from: history.initial, model: AtomsModel.self)
            if verdict.isLinearizable { continue }
            failed += 1
            if failures.count < 3 {
                failures.append(
                    "history \(history.index) from \(history.initial):\n"
                        + describeHistory(history.events, verdict: verdict))
            }
        }
        let comment = Comment(
            rawValue: "seed \(recorder.seed) (RIPPLE_LINEARIZABILITY_SEED=\(recorder.seed) replays the operations), "
                + "\(threads) threads, \(concurrent) of \(histories.count) histories concurrent, "
                + "\(failed) not linearizable:\n"
                + failures.joined(separator: "\n"))
        #expect(failed == 0, comment)
        #expect(histories.count == recorder.histories)
        // The pauses inside operations make overlapping operations the rule even with one free core; a run of only
        // sequential histories would have checked nothing about concurrency.
        #expect(concurrent > 0, comment)
        print("LinearizabilityTests: \(threads) threads, \(concurrent) of \(histories.count) histories concurrent")
        #expect(subject.runtime.checkInvariants() == nil, comment)
        // Four atoms, three derivations, two effects: nothing leaked, nothing freed early.
        #expect(subject.runtime.liveNodeCount == 9)
        subject.keepObserving()
    }

    // MARK: The checker, on hand-built histories

    @Test func aReadOverlappingAWriteMaySeeEitherValueInOrder() {
        // a = 1 runs from 1 to 6; meanwhile the other thread reads 0, then 1.
        let events = [
            event(0, .write(atom: 0, value: 1), .none, 1, 6),
            event(1, .read(atom: 0), .value(0), 2, 3),
            event(1, .read(atom: 0), .value(1), 4, 5),
        ]
        #expect(check(events) == .linearizable(order: [1, 0, 2]))
    }

    @Test func aReadCannotGoBackToTheOldValueAfterSeeingTheNewOne() {
        // Both reads overlap the write, but once a read has returned 1, a later read cannot return 0.
        let events = [
            event(0, .write(atom: 0, value: 1), .none, 1, 6),
            event(1, .read(atom: 0), .value(1), 2, 3),
            event(1, .read(atom: 0), .value(0), 4, 5),
        ]
        #expect(check(events) == .notLinearizable(longestPrefix: [0, 1]))
    }

    @Test func aReadAfterACompletedWriteCannotBeStale() {
        let events = [
            event(0, .write(atom: 0, value: 1), .none, 1, 2),
            event(1, .read(atom: 0), .value(0), 3, 4),
        ]
        #expect(check(events) == .notLinearizable(longestPrefix: [0]))
    }

    @Test func aReadCannotReturnAValueNeverWritten() {
        let events = [
            event(0, .write(atom: 0, value: 1), .none, 1, 4),
            event(1, .read(atom: 0), .value(7), 2, 3),
        ]
        #expect(check(events) == .notLinearizable(longestPrefix: [0]))
    }

    @Test func twoOverlappingIncrementsMustSeeEachOther() {
        // Linearizable: the inner one first.
        let ordered = [
            event(0, .increment(atom: 1, by: 1), .value(2), 1, 4),
            event(1, .increment(atom: 1, by: 1), .value(1), 2, 3),
        ]
        #expect(check(ordered) == .linearizable(order: [1, 0]))
        // A lost update: both returned 1.
        let lost = [
            event(0, .increment(atom: 1, by: 1), .value(1), 1, 4),
            event(1, .increment(atom: 1, by: 1), .value(1), 2, 3),
        ]
        #expect(check(lost) == .notLinearizable(longestPrefix: [0]))
    }

    @Test func aBatchIsSeenWholeOrNotAtAll() {
        let whole = [
            event(0, .batchWrite(first: 0, firstValue: 1, second: 1, secondValue: 1), .none, 1, 8),
            event(1, .batchRead(first: 0, second: 1), .pair(0, 0), 2, 3),
            event(1, .readSnapshot(.observed), .snapshot(AtomValues(a: 1, b: 1, c: 0)), 4, 5),
            event(1, .readSnapshot(.lazy), .snapshot(AtomValues(a: 1, b: 1, c: 0)), 6, 7),
        ]
        #expect(check(whole) == .linearizable(order: [1, 0, 2, 3]))
        let torn = [
            event(0, .batchWrite(first: 0, firstValue: 1, second: 1, secondValue: 1), .none, 1, 4),
            event(1, .batchRead(first: 0, second: 1), .pair(1, 0), 2, 3),
        ]
        #expect(check(torn) == .notLinearizable(longestPrefix: [0]))
        let tornSnapshot = [
            event(0, .batchWrite(first: 0, firstValue: 1, second: 1, secondValue: 1), .none, 1, 4),
            event(1, .readSnapshot(.lazy), .snapshot(AtomValues(a: 0, b: 1, c: 0)), 2, 3),
        ]
        #expect(check(tornSnapshot) == .notLinearizable(longestPrefix: [0]))
    }

    @Test func aCopyReadsItsSourceAtTheSameInstantItWrites() {
        // c = b + 1 overlaps b = 5: it may read 0 or 5, but the c it returns must match the b it read.
        let before = [
            event(0, .write(atom: 1, value: 5), .none, 1, 6),
            event(1, .copy(atom: 2, from: 1, plus: 1), .value(1), 2, 3),
            event(1, .batchRead(first: 1, second: 2), .pair(5, 1), 4, 5),
        ]
        #expect(check(before) == .linearizable(order: [1, 0, 2]))
        let inconsistent = [
            event(0, .write(atom: 1, value: 5), .none, 1, 6),
            event(1, .copy(atom: 2, from: 1, plus: 1), .value(6), 2, 3),
            event(1, .batchRead(first: 1, second: 2), .pair(5, 1), 4, 5),
        ]
        #expect(check(inconsistent) == .notLinearizable(longestPrefix: [0, 1]))
    }

    @Test func theEffectMaintainedSumChangesWithTheWriteThatTriggersIt() {
        // sum = a + b is part of each write: once b = 4 has returned, sum cannot still be 0.
        let current = [
            event(0, .write(atom: 1, value: 4), .none, 1, 2),
            event(1, .readSum, .value(4), 3, 4),
        ]
        #expect(check(current) == .linearizable(order: [0, 1]))
        let stale = [
            event(0, .write(atom: 1, value: 4), .none, 1, 2),
            event(1, .readSum, .value(0), 3, 4),
        ]
        #expect(check(stale) == .notLinearizable(longestPrefix: [0]))
    }

    @Test func theSearchStaysShortOnWideHistories() {
        // 32 increments all overlapping, returning 1...32 in a shuffled order: one linearization, found without
        // trying the 32! orders (the memoized search visits each reachable point once).
        var random = SplitMix64(seed: 15)
        let results = Array(1...32).shuffled(using: &random)
        let events = results.enumerated().map { index, result in
            event(index, .increment(atom: 0, by: 1), .value(result), index, 100 + index)
        }
        let expected = results.indices.sorted { results[$0] < results[$1] }
        #expect(check(events) == .linearizable(order: expected))
    }

    // MARK: The recorder and the checker together, on a race they must catch

    @Test func aRacyIncrementRecordedFromTwoThreadsIsRejected() async {
        // `a.value += 1` is a read and then a write. Forced to interleave with an update on another thread, it
        // loses that update; recorded as if it were one atomic increment, the history must be rejected.
        let subject = AtomsUnderTest(AtomValues(a: 0, b: 0, c: 0))
        let clock = HistoryClock()
        let racyHasRead = Latch()
        let updateHasReturned = Latch()
        let racy = Task {
            await runOnThread(stackSize: StackSize.small) {
                let call = clock.tick()
                let read = subject.value(of: 0)
                racyHasRead.open()
                updateHasReturned.wait()
                subject.write(read + 1, to: 0)
                let response = clock.tick()
                return event(0, .increment(atom: 0, by: 1), .value(read + 1), call, response)
            }
        }
        let atomic = await runOnThread(stackSize: StackSize.small) {
            racyHasRead.wait()
            let call = clock.tick()
            let outcome = subject.perform(.increment(atom: 0, by: 1))
            let response = clock.tick()
            updateHasReturned.open()
            return event(1, .increment(atom: 0, by: 1), outcome, call, response)
        }
        let events = [await racy.value, atomic]
        #expect(events.map(\.outcome) == [.value(1), .value(1)])
        #expect(subject.values == AtomValues(a: 1, b: 0, c: 0))
        #expect(check(events) == .notLinearizable(longestPrefix: [0]))
    }
}

/// The size and seed of the randomized runs.
private enum LinearizabilityRun {
    /// RIPPLE_LINEARIZABILITY_HISTORIES: histories per thread count for a long run; 1000 by default.
    static let histories = ProcessInfo.processInfo.environment["RIPPLE_LINEARIZABILITY_HISTORIES"]
        .flatMap { Int($0) } ?? 1000

    /// RIPPLE_LINEARIZABILITY_SEED, or a fresh seed that failing expectations print.
    static let seed: UInt64 = ProcessInfo.processInfo.environment["RIPPLE_LINEARIZABILITY_SEED"]
        .flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
}

/// A hand-built event on thread `thread`, called at `call` and returning at `response`.
private func event(
    _ thread: Int, _ operation: AtomOperation, _ outcome: AtomOutcome, _ call: Int, _ response: Int
) -> HistoryEvent<AtomsModel> {
    HistoryEvent(thread: thread, operation: operation, outcome: outcome, call: call, response: response)
}

/// Checks `events` from all atoms at 0, printing the history when the test fails.
private func check(_ events: [HistoryEvent<AtomsModel>]) -> LinearizabilityVerdict {
    checkLinearizability(events, from: AtomValues(a: 0, b: 0, c: 0), model: AtomsModel.self)
}

/// A one-shot gate between two OS threads: `wait` spins (yielding) until `open` has been called.
private final class Latch: Sendable {
    private let isOpen = Locked(false)

    func open() {
        // The lock orders it with the read in `wait`: what the opener did before is visible after the wait.
        isOpen.withLock { $0 = true }
    }

    func wait() {
        while !isOpen.withLock({ $0 }) { sched_yield() }
    }
}
