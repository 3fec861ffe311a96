import Dispatch
import Foundation
import Testing
@_spi(Testing) import Ripple

/// One runtime used by many OS threads at once: no write is lost, batches are atomic to every reader, effects and
/// derivation bodies never overlap, nodes created and dropped anywhere leave exactly the held ones behind, and
/// scheduled effects and `values` end on the final value.
///
/// Each test runs at 1, 2, 4 and 8 threads (more threads than cores is intended) with small iteration counts, so that
/// the suite stays quick in a debug build and under ThreadSanitizer. For a long run, set RIPPLE_STRESS_ITERATIONS to
/// the number of iterations per thread; RIPPLE_STRESS_SEED replays the operation sequences of a failed churn run.
/// Worker threads cannot report to Swift Testing, so they record broken invariants in a ``Violations`` log that the
/// test expects to be empty.
@Suite(.serialized, .timeLimit(.minutes(10))) struct ThreadStressTests {
    @Test(arguments: [1, 2, 4, 8])
    func concurrentUpdatesLoseNoIncrementAndTheEffectSeesEveryCount(threads: Int) async {
        let iterations = Stress.iterations(quick: 2_000)
        let total = threads * iterations
        let runtime = Runtime()
        let bodies = OverlapDetector()
        let violations = Violations()
        // The logs of the effect and the derivations are plain, unsynchronized state: effects and derivation bodies
        // never overlap, so ThreadSanitizer would report any run that is not ordered after the previous one.
        let (counter, doubled, tripled, effect, seen, doubledRuns, tripledRuns) = withIsolatedRuntime(
            using: runtime
        ) {
            let counter = atom(0)
            let doubledRuns = RunLog<Void>()
            let doubled = derive {
                bodies.running {
                    doubledRuns.values.append(())
                    return counter.value * 2
                }
            }
            // Unobserved: recomputed by whichever reader thread finds it stale.
            let tripledRuns = RunLog<Int>()
            let tripled = derive {
                bodies.running {
                    let value = counter.value * 3
                    tripledRuns.values.append(value)
                    return value
                }
            }
            let seen = RunLog<Int>()
            let effect = Effect {
                bodies.running {
                    let count = counter.value
                    if doubled.value != 2 * count {
                        violations.record("the effect saw doubled \(doubled.value) with count \(count)")
                    }
                    seen.values.append(count)
                }
            }
            return (counter, doubled, tripled, effect, seen, doubledRuns, tripledRuns)
        }
        let written = Locked<[Int]>([])
        await runOnThreads(threads) { _ in
            var mine: [Int] = []
            mine.reserveCapacity(iterations)
            for _ in 0..<iterations {
                let count = counter.update { value in
                    value += 1
                    return value
                }
                // Read your own write: the read comes after the update in the one order of the runtime's calls.
                let read = doubled.value
                if read < 2 * count || read % 2 != 0 {
                    violations.record("read doubled \(read) after writing \(count)")
                }
                let lazy = tripled.value
                if lazy < 3 * count || lazy % 3 != 0 {
                    violations.record("read tripled \(lazy) after writing \(count)")
                }
                if let last = mine.last, count <= last {
                    violations.record("update returned \(count) after \(last) on the same thread")
                }
                mine.append(count)
            }
            written.withLock { $0 += mine }
        }
        #expect(violations.messages == [])
        #expect(bodies.overlaps == 0)
        #expect(counter.value == total)
        #expect(doubled.value == 2 * total)
        // Each update saw a distinct count: together they are exactly 1...total.
        #expect(firstDifference(written.withLock { $0.sorted() }, Array(1...total)) == nil)
        // A write outside a batch runs its effects before any other call (include/ripple.h): no count is skipped.
        #expect(firstDifference(seen.values, Array(0...total)) == nil)
        #expect(doubledRuns.values.count == total + 1)
        #expect(tripled.value == 3 * total)
        // Each recomputation of tripled saw a newer count than the one before.
        #expect(firstNonIncrease(tripledRuns.values) == nil)
        #expect(tripledRuns.values.last == 3 * total)
        #expect(runtime.liveNodeCount == 4)
        #expect(runtime.checkInvariants() == nil)
        withExtendedLifetime(effect) {}
    }

    @Test(arguments: [1, 2, 4, 8])
    func batchedPairsAreSeenWholeByEveryReader(threads: Int) async {
        let iterations = Stress.iterations(quick: 1_500)
        // Even-numbered threads write and read; odd-numbered ones only read, twice as often.
        let writers = (threads + 1) / 2
        let runtime = Runtime()
        let violations = Violations()
        let (a, b, sum, lazySum, pair, pairEffect, sumEffect) = withIsolatedRuntime(using: runtime) {
            let a = atom(0)
            let b = atom(0)
            let sum = derive { a.value + b.value }
            let lazySum = derive { a.value + b.value }  // unobserved: readers recompute it
            let pair = derive { (a.value, b.value) }
            let pairEffect = CountingEffect {
                let (x, y) = pair.value
                if x + y != 0 || a.value != x || b.value != y || sum.value != 0 {
                    violations.record("the effect saw a \(a.value), b \(b.value), pair (\(x), \(y)), sum \(sum.value)")
                }
            }
            // sum is 0 after every batch: by equality cut-off, this effect never runs again.
            let sumEffect = CountingEffect { _ = sum.value }
            return (a, b, sum, lazySum, pair, pairEffect, sumEffect)
        }
        await runOnThreads(threads) { index in
            let writes = index % 2 == 0
            for iteration in 1...iterations {
                if writes {
                    let x = (index / 2) * iterations + iteration  // distinct over all writes: each batch is a change
                    runtime.batch {
                        a.value = x
                        b.value = -x
                    }
                }
                for _ in 0..<(writes ? 1 : 2) {
                    let total = sum.value
                    if total != 0 { violations.record("sum read \(total)") }
                    let lazyTotal = lazySum.value
                    if lazyTotal != 0 { violations.record("lazySum read \(lazyTotal)") }
                    let inBatch = runtime.batch { (a.value, b.value) }
                    if inBatch.0 + inBatch.1 != 0 { violations.record("a batch read \(inBatch)") }
                    let (x, y) = pair.value
                    if x + y != 0 { violations.record("pair read (\(x), \(y))") }
                }
            }
        }
        #expect(violations.messages == [])
        #expect(a.value + b.value == 0)
        #expect(pair.value == (a.value, b.value))
        // One run at creation, then exactly one per batch (each batch changes both atoms).
        #expect(pairEffect.runs == 1 + writers * iterations)
        #expect(sumEffect.runs == 1)
        #expect(lazySum.value == 0)
        #expect(runtime.liveNodeCount == 7)
        #expect(runtime.checkInvariants() == nil)
    }

    @Test(arguments: [1, 2, 4, 8])
    func nodesCreatedAndDroppedOnManyThreadsLeaveExactlyTheHeldOnes(threads: Int) async {
        let iterations = Stress.iterations(quick: 800)
        let seed = Stress.seed
        let runtime = Runtime()
        let violations = Violations()
        let bodies = OverlapDetector()
        let scheduler = ThreadScheduler()
        let drainer = Task { await scheduler.runJobsUntilStopped() }
        let (a, b, shared, watcher) = withIsolatedRuntime(using: runtime) {
            let a = atom(0)
            let b = atom(0)
            let shared = derive { a.value - b.value }
            // Re-run by hand from the threads, besides the runs that writes trigger.
            let watcher = Effect {
                bodies.running {
                    if shared.value != a.value - b.value { violations.record("the watcher saw shared \(shared.value)") }
                }
            }
            return (a, b, shared, watcher)
        }
        let baseNodes = runtime.liveNodeCount
        let baseEdges = runtime.liveEdgeCount
        let kept = Locked<[ChurnItem]>([])
        await runOnThreads(threads) { index in
            var random = SplitMix64(seed: seed &+ UInt64(index) &* 0x9E37_79B9)
            var held: [ChurnItem] = []
            withIsolatedRuntime(using: runtime) {
                let churn = Churn(
                    a: a, b: b, shared: shared, watcher: watcher, runtime: runtime, scheduler: scheduler,
                    bodies: bodies, violations: violations)
                for _ in 0..<iterations {
                    churn.step(&random, held: &held)
                    if held.count > 6 { churn.drop(held.removeFirst(), random: &random) }
                }
            }
            kept.withLock { $0 += held }
        }
        _ = await scheduler.stop(drainer)
        let comment = Comment(rawValue: "seed \(seed) (RIPPLE_STRESS_SEED=\(seed) replays the operations)")
        #expect(violations.messages == [], comment)
        #expect(bodies.overlaps == 0, comment)
        #expect(runtime.checkInvariants() == nil, comment)
        #expect(runtime.liveNodeCount == baseNodes + kept.withLock { $0.reduce(0) { $0 + $1.nodes } }, comment)
        kept.withLock { $0 = [] }
        #expect(runtime.liveNodeCount == baseNodes, comment)
        #expect(runtime.liveEdgeCount == baseEdges, comment)
        #expect(runtime.checkInvariants() == nil, comment)
        // The graph still works after the churn.
        let seen = withIsolatedRuntime(using: runtime) {
            let seen = RunLog<Int>()
            let effect = Effect { seen.values.append(shared.value) }
            a.value += 1
            withExtendedLifetime(effect) {}
            return seen.values
        }
        #expect(seen.count == 2 && seen.last == seen.first.map { $0 + 1 }, comment)
        #expect(runtime.liveNodeCount == baseNodes, comment)
        withExtendedLifetime(watcher) {}
    }

    @Test(arguments: [1, 2, 4, 8])
    func scheduledEffectDrainedOnItsOwnThreadEndsOnTheFinalCount(threads: Int) async {
        let iterations = Stress.iterations(quick: 2_000)
        let total = threads * iterations
        let runtime = Runtime()
        let scheduler = ThreadScheduler()
        let drainer = Task { await scheduler.runJobsUntilStopped() }
        let bodies = OverlapDetector()
        let (counter, scheduled, seen, synchronous) = withIsolatedRuntime(using: runtime) {
            let counter = atom(0)
            let seen = Locked<[Int]>([])
            let scheduled = Effect(on: scheduler) {
                bodies.running {
                    let count = counter.value
                    seen.withLock { $0.append(count) }
                }
            }
            let synchronous = CountingEffect {
                bodies.running { _ = counter.value }
            }
            return (counter, scheduled, seen, synchronous)
        }
        await runOnThreads(threads) { _ in
            for _ in 0..<iterations { counter.update { $0 += 1 } }
        }
        let jobs = await scheduler.stop(drainer)
        let values = seen.withLock { $0 }
        #expect(counter.value == total)
        #expect(values.last == total)
        // A scheduled run happens only when what it read changed since the last one: the counts strictly increase.
        #expect(firstNonIncrease(values) == nil)
        #expect(values.count <= total + 1)
        #expect(values.count <= jobs)
        #expect(synchronous.runs == total + 1)
        #expect(bodies.overlaps == 0)
        #expect(runtime.liveNodeCount == 3)
        #expect(runtime.checkInvariants() == nil)
        withExtendedLifetime(scheduled) {}
    }

    @Test(arguments: [1, 2, 4, 8])
    func concurrentWritesBetweenTwoDrainsCoalesceIntoOneRun(threads: Int) async {
        let iterations = Stress.iterations(quick: 1_000)
        let runtime = Runtime()
        let scheduler = ManualScheduler()
        let (counter, effect, seen) = withIsolatedRuntime(using: runtime) {
            let counter = atom(0)
            let seen = Recorder<Int>()
            let effect = Effect(on: scheduler) { seen.append(counter.value) }
            return (counter, effect, seen)
        }
        #expect(scheduler.drain() == 1)
        var expected = [0]
        for round in 1...3 {
            await runOnThreads(threads) { _ in
                for _ in 0..<iterations { counter.update { $0 += 1 } }
            }
            #expect(scheduler.pending == 1)
            #expect(scheduler.drain() == 1)
            expected.append(round * threads * iterations)
            #expect(seen.values == expected)
        }
        #expect(scheduler.pending == 0)
        withExtendedLifetime(effect) {}
    }

    @Test(arguments: [1, 2, 4, 8])
    func valuesWrittenByManyThreadsIncreaseToTheFinalCount(threads: Int) async {
        let iterations = Stress.iterations(quick: 2_000)
        let total = threads * iterations
        let runtime = Runtime()
        let (counter, doubled) = withIsolatedRuntime(using: runtime) {
            let counter = atom(0)
            return (counter, derive { counter.value * 2 })
        }
        let consumer = collectValues(counter.values, until: total)
        let doubledConsumer = collectValues(doubled.values, until: 2 * total)
        #expect(runtime.liveNodeCount == 4)  // the atom, the derivation and their observers
        await runOnThreads(threads) { _ in
            for _ in 0..<iterations { counter.update { $0 += 1 } }
        }
        let received = await consumer.value
        #expect(received.last == total)
        #expect(firstNonIncrease(received) == nil)
        let receivedDoubled = await doubledConsumer.value
        #expect(receivedDoubled.last == 2 * total)
        #expect(firstNonIncrease(receivedDoubled) == nil)
        #expect(receivedDoubled.allSatisfy { $0 % 2 == 0 })
        #expect(runtime.liveNodeCount == 2)  // the consumers stopped: their observers are gone
        #expect(runtime.checkInvariants() == nil)
    }

    @Test(arguments: [1, 2, 4, 8])
    func valuesFinishWhenTheLastWriterThreadReleasesTheAtom(threads: Int) async {
        let iterations = Stress.iterations(quick: 1_500)
        let total = threads * iterations
        let runtime = Runtime()
        // The test keeps the atom only in this slot (and weakly): the writer threads take their own references, and
        // the last one to finish empties the slot, so the atom is freed on a writer thread.
        let slot = Slot(withIsolatedRuntime(using: runtime) { atom(0) })
        let watched = WeakBox(slot.value)
        let consumer = collectValues(slot.value!.values, until: nil)
        let running = Locked(threads)
        await runOnThreads(threads) { _ in
            guard let counter = slot.value else { return }
            for _ in 0..<iterations { counter.update { $0 += 1 } }
            let last = running.withLock { count in
                count -= 1
                return count == 0
            }
            if last { slot.value = nil }
        }
        let received = await consumer.value  // the loop ends: the sequence finished
        #expect(watched.object == nil)
        #expect(received.last == total)
        #expect(firstNonIncrease(received) == nil)
        #expect(runtime.liveNodeCount == 0)
        #expect(runtime.checkInvariants() == nil)
    }
}

// MARK: - Support

/// Where two long sequences first differ, described briefly (nil when they are equal), so that a failure does not
/// print thousands of numbers.
private func firstDifference(_ actual: [Int], _ expected: [Int]) -> String? {
    if actual == expected { return nil }
    let common = min(actual.count, expected.count)
    let index = (0..<common).first { actual[$0] != expected[$0] } ?? common
    let found = index < actual.count ? "\(actual[index])" : "the end"
    let wanted = index < expected.count ? "\(expected[index])" : "the end"
    return "\(actual.count) values, \(expected.count) expected; at index \(index): \(found) instead of \(wanted)"
}

/// Where a sequence first fails to increase strictly, described briefly (nil when it increases throughout).
private func firstNonIncrease(_ values: [Int]) -> String? {
    guard let index = values.indices.dropFirst().first(where: { values[$0 - 1] >= values[$0] }) else { return nil }
    return "\(values[index - 1]) then \(values[index]) at index \(index) of \(values.count)"
}

/// Starts observing `values` now and returns the task that receives them until `last` (or until they finish). The
/// task holds the only iterator: when it returns, the observation stops.
private func collectValues(_ values: NodeValues<Int>, until last: Int?) -> Task<[Int], Never> {
    let iterator = values.makeAsyncIterator()
    return Task {
        var iterator = iterator
        var received: [Int] = []
        while let value = await iterator.next() {
            received.append(value)
            if value == last { break }
        }
        return received
    }
}

/// Detects bodies (effects, derivations) running at once on two threads. A body running inside another on the same
/// thread (an effect reading a derivation that recomputes) is nesting, not overlap.
private final class OverlapDetector: Sendable {
    private let owner = Locked<UInt>(0)
    private let overlapCount = Locked(0)

    /// How many times a body started while another thread was inside one.
    var overlaps: Int {
        overlapCount.withLock { $0 }
    }

    /// Runs `body` as a body that no other thread's body may overlap.
    func running<Result>(_ body: () -> Result) -> Result {
        #if canImport(Glibc)
        let me = UInt(pthread_self())
        #else
        let me = UInt(bitPattern: pthread_self())
        #endif
        let (entered, current) = owner.withLock { owner in
            defer { if owner == 0 { owner = me } }
            return (owner == 0, owner)
        }
        if !entered && current != me { overlapCount.withLock { $0 += 1 } }
        defer { if entered { owner.withLock { $0 = 0 } } }
        return body()
    }
}

/// A synchronous effect that counts its runs.
private final class CountingEffect: Sendable {
    private let effect: Effect
    private let counter: Locked<Int>

    /// How many times the body ran.
    var runs: Int {
        counter.withLock { $0 }
    }

    init(_ body: @escaping @Sendable () -> Void) {
        let counter = Locked(0)
        self.counter = counter
        effect = Effect {
            body()
            counter.withLock { $0 += 1 }
        }
    }
}

/// What a churn thread holds, and how many graph nodes that keeps alive.
private struct ChurnItem: Sendable {
    let derivation: Derivation<Int>?
    let effect: Effect?
    let probe: CancelProbe?
    let nodes: Int
}

/// Set once an effect's `cancel()` returned: a run after that is a violation.
private final class CancelProbe: Sendable {
    let cancelled = Locked(false)
}

/// The operations of the churn test, over shared atoms `a`, `b` and `shared = a - b`.
private struct Churn {
    let a: AtomObject<Int>
    let b: AtomObject<Int>
    let shared: Derivation<Int>
    let watcher: Effect
    let runtime: Runtime
    let scheduler: ThreadScheduler
    let bodies: OverlapDetector
    let violations: Violations

    func step(_ random: inout SplitMix64, held: inout [ChurnItem]) {
        switch random.next() % 10 {
        case 0, 1:
            a.update { $0 += 1 }
        case 2:
            b.value = Int(random.next() % 4)  // often equal: no write
        case 3:
            runtime.batch {
                a.update { $0 += 2 }
                b.update { $0 -= 1 }
            }
        case 4:
            let (a, b, bodies) = (a, b, bodies)
            let derivation = derive { bodies.running { a.value * 2 + b.value } }
            let consistent = runtime.batch { derivation.value == a.value * 2 + b.value }
            if !consistent { violations.record("a new derivation disagreed with its sources") }
            if random.next() % 2 == 0 {
                held.append(ChurnItem(derivation: derivation, effect: nil, probe: nil, nodes: 1))
            }
        case 5:
            held.append(chainEffect())
            if random.next() % 2 == 0 { drop(held.removeLast(), random: &random) }
        case 6:
            held.append(sharedEffect())
        case 7:
            held.append(scheduledEffect())
        case 8:
            if !held.isEmpty {
                drop(held.remove(at: Int(random.next() % UInt64(held.count))), random: &random)
            }
        default:
            _ = shared.value
            let consistent = runtime.batch { shared.value == a.value - b.value }
            if !consistent { violations.record("shared disagreed with its sources inside a batch") }
            switch random.next() % 8 {
            case 0:
                if let broken = runtime.checkInvariants() {
                    violations.record("checkInvariants during the churn: \(broken)")
                }
            case 1:
                watcher.run()
            default:
                break
            }
        }
    }

    /// Drops an item: cancels its effect first half of the time, else lets the release stop it.
    func drop(_ item: ChurnItem, random: inout SplitMix64) {
        if let effect = item.effect, random.next() % 2 == 0 {
            effect.cancel()
            item.probe?.cancelled.withLock { $0 = true }
            if !effect.isCancelled { violations.record("isCancelled was false after cancel()") }
        }
    }

    /// An effect over a two-derivation chain that only the effect keeps alive: three nodes.
    private func chainEffect() -> ChurnItem {
        let (a, b, bodies) = (a, b, bodies)
        let base = derive { bodies.running { a.value * 2 } }
        let top = derive { bodies.running { base.value + b.value } }
        let probe = CancelProbe()
        let effect = Effect(checkedBody("chain", probe: probe) { top.value == a.value * 2 + b.value })
        return ChurnItem(derivation: nil, effect: effect, probe: probe, nodes: 3)
    }

    /// An effect over the shared derivation: one node.
    private func sharedEffect() -> ChurnItem {
        let (a, b, shared) = (a, b, shared)
        let probe = CancelProbe()
        let effect = Effect(checkedBody("shared", probe: probe) { shared.value == a.value - b.value })
        return ChurnItem(derivation: nil, effect: effect, probe: probe, nodes: 1)
    }

    /// An effect whose runs go to the scheduler's thread: one node.
    private func scheduledEffect() -> ChurnItem {
        let (a, b, shared) = (a, b, shared)
        let probe = CancelProbe()
        let effect = Effect(on: scheduler, checkedBody("scheduled", probe: probe) { shared.value == a.value - b.value })
        return ChurnItem(derivation: nil, effect: effect, probe: probe, nodes: 1)
    }

    /// The body of a churn effect: it must not overlap another body, must not run once `cancel()` has returned, and
    /// must find `consistent()` true (it reads while holding the graph, so it sees one state).
    private func checkedBody(
        _ kind: String, probe: CancelProbe, consistent: @escaping @Sendable () -> Bool
    ) -> @Sendable () -> Void {
        let (bodies, violations) = (bodies, violations)
        return {
            bodies.running {
                if probe.cancelled.withLock({ $0 }) {
                    violations.record("a \(kind) effect ran after cancel()")
                }
                if !consistent() { violations.record("a \(kind) effect saw values that disagree") }
            }
        }
    }
}
