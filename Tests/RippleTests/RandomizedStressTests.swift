import Dispatch
import Foundation
import Testing
@_spi(Testing) import Ripple

/// Random operations on one shared runtime from several OS threads at once, then exact invariants: nothing leaked,
/// no body ran once its node's deinit had begun, every `values` consumer finished, the graph is consistent.
///
/// Each worker thread draws its operations from a seeded generator: it writes and batches, creates derivations,
/// effects and deferred effects (drained by a thread of their own), starts `values` consumers and ends them by
/// cancelling their task, by freeing their node or by breaking out of the loop, runs effects again by hand, and
/// nests isolated runtimes, one of them evaluating the shared runtime again inside its own effect. Items it holds
/// are dropped at random, by cancelling or by releasing the last reference.
///
/// The quick default takes a few seconds (also under ThreadSanitizer and AddressSanitizer, where scripts/test runs
/// it). RIPPLE_STRESS_ITERATIONS sets the operations per thread for a long run; RIPPLE_STRESS_SEED replays a
/// seed's operation sequences (the thread interleaving still varies). The seed is printed at the start and in
/// every failed expectation.
@Suite(.serialized) struct RandomizedStressTests {
    @Test func randomOperationsOnManyThreadsLeaveNothingBehind() async {
        let threads = 4
        let iterations = Stress.iterations(quick: 1_500)
        let seed = Stress.seed
        print("RandomizedStressTests: seed \(seed), \(threads) threads, \(iterations) operations each")
        let seedNote = "seed \(seed) (RIPPLE_STRESS_SEED=\(seed) replays the operations)"
        let comment = Comment(rawValue: seedNote)

        let runtime = Runtime()
        let (a, b, sum) = inRuntime(runtime) {
            let a = atom(0)
            let b = atom(0)
            return (a, b, derive { a.value + b.value })
        }
        _ = sum.value  // computed now, so that its two edges are part of the baseline
        let baseNodes = runtime.liveNodeCount
        let baseEdges = runtime.liveEdgeCount
        let scheduler = ThreadScheduler()
        let drainer = Task { await scheduler.runJobsUntilStopped() }
        let world = StressWorld(runtime: runtime, a: a, b: b, sum: sum, scheduler: scheduler)

        // Bounded only so that a deadlock fails the test instead of hanging the suite.
        let bound = 60 + Double(threads * iterations) / 100
        let returned = await returnsInTime(seconds: bound) {
            joinThreads(threads) { index in
                var random = SplitMix64(seed: seed &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15)
                var held: [StressItem] = []
                withIsolatedRuntime(using: runtime) {
                    for _ in 0..<iterations {
                        world.step(&random, held: &held)
                        if held.count > 8 { world.drop(held.removeFirst(), random: &random) }
                    }
                    while let item = held.popLast() { world.drop(item, random: &random) }
                }
            }
        }
        #expect(returned, "the workers did not finish: a deadlock; \(seedNote)")
        guard returned else { return }  // threads are stuck: the invariants below cannot be checked

        // Every consumer ends: its task was cancelled, its node freed or its loop broken out of.
        let consumersEnded = await returnsInTime(seconds: bound) { world.waitForConsumers() }
        #expect(consumersEnded, "a values consumer never finished; \(seedNote)")
        _ = await scheduler.stop(drainer)

        print("RandomizedStressTests: \(world.consumersStarted) consumers, \(world.probes.count) nodes watched")
        #expect(world.violations.messages == [], comment)
        #expect(world.consumersStarted > 0, comment)
        #expect(world.consumersFinished == world.consumersStarted, comment)
        #expect(world.probes.stillAlive == 0, "nodes the workers created are still alive; \(seedNote)")
        #expect(runtime.liveNodeCount == baseNodes, comment)
        #expect(runtime.liveEdgeCount == baseEdges, comment)
        #expect(runtime.checkInvariants() == nil, comment)
        #expect(sum.value == a.value + b.value, comment)
    }
}

// MARK: - The operations

/// What a worker holds, until it drops it.
private enum StressItem {
    case derivation(Derivation<Int>)
    case effect(Effect)
    case consumer(Task<Void, Never>)
}

/// The shared runtime and its three nodes (`sum = a + b`; `a` and `b` only grow), and what the workers record.
private final class StressWorld: Sendable {
    let runtime: Runtime
    let a: AtomObject<Int>
    let b: AtomObject<Int>
    let sum: Derivation<Int>
    let scheduler: ThreadScheduler
    let violations = Violations()
    let probes = ProbeRegistry()
    private let consumers = Locked<[Task<Void, Never>]>([])
    private let finished = Locked(0)

    init(runtime: Runtime, a: AtomObject<Int>, b: AtomObject<Int>, sum: Derivation<Int>, scheduler: ThreadScheduler) {
        self.runtime = runtime
        self.a = a
        self.b = b
        self.sum = sum
        self.scheduler = scheduler
    }

    var consumersStarted: Int { consumers.withLock { $0.count } }
    var consumersFinished: Int { finished.withLock { $0 } }

    /// One random operation.
    func step(_ random: inout SplitMix64, held: inout [StressItem]) {
        switch random.next() % 16 {
        case 0, 1:
            a.update { $0 += 1 }
        case 2:
            runtime.batch {
                a.update { $0 += 1 }
                b.update { $0 += 2 }
                if sum.value != a.value + b.value { violations.record("sum disagreed inside a batch") }
            }
        case 3:
            let derivation = makeDerivation(scale: Int(random.next() % 3) + 1)
            if derivation.value < 0 { violations.record("a derivation read a negative value") }
            if random.next() % 2 == 0 { held.append(.derivation(derivation)) }
        case 4:
            held.append(.effect(makeEffect(deferred: false)))
        case 5:
            held.append(.effect(makeEffect(deferred: true)))
        case 6, 7:
            held.append(.consumer(startConsumer(&random, held: &held)))
        case 8:
            // A consumer of a fresh atom that this thread frees after a few writes: its sequence finishes.
            var counter: AtomObject<Int>? = atom(0)
            let consumer = startConsumer(of: counter!.values, breakingAfter: nil)
            for _ in 0..<Int(random.next() % 4) { counter!.update { $0 += 1 } }
            counter = nil
            held.append(.consumer(consumer))
        case 9:
            if !held.isEmpty { drop(held.remove(at: Int(random.next() % UInt64(held.count))), random: &random) }
        case 10:
            for case .effect(let effect) in held.shuffled(using: &random).prefix(1) { effect.run() }
        case 11:
            nestedIsolatedRuntime()
        case 12:
            shortLivedChain(&random)
        case 13:
            reentrantRuntimes()
        case 14:
            if random.next() % 4 == 0, let broken = runtime.checkInvariants() {
                violations.record("checkInvariants during the run: \(broken)")
            }
        default:
            b.update { $0 += 1 }
            let total = sum.value
            if total < 0 { violations.record("sum read \(total)") }
        }
    }

    /// Drops an item: an effect is cancelled half of the time (else its release stops it); a consumer's task is
    /// cancelled; a derivation's last reference goes.
    func drop(_ item: StressItem, random: inout SplitMix64) {
        switch item {
        case .derivation:
            break
        case .effect(let effect):
            if random.next() % 2 == 0 { effect.cancel() }
        case .consumer(let task):
            task.cancel()
        }
    }

    /// Waits (blocking: call it on a thread of its own) until every consumer task has returned.
    func waitForConsumers() {
        let done = DispatchSemaphore(value: 0)
        let tasks = consumers.withLock { $0 }
        Task.detached {
            for task in tasks { await task.value }
            done.signal()
        }
        done.wait()
    }

    /// A derivation over the shared atoms whose body checks it does not run once its deinit has begun.
    private func makeDerivation(scale: Int) -> Derivation<Int> {
        let (a, b, probe, violations) = (a, b, probes.make(), violations)
        let derivation = derive {
            if probe.deinitBegan { violations.record("a derivation body ran after its deinit began") }
            return a.value * scale + b.value
        }
        probe.arm(derivation)
        return derivation
    }

    /// A synchronous or deferred effect over the shared derivation, checking the same.
    private func makeEffect(deferred: Bool) -> Effect {
        let (a, b, sum, probe, violations) = (a, b, sum, probes.make(), violations)
        let body: @Sendable () -> Void = {
            if probe.deinitBegan { violations.record("an effect body ran after its deinit began") }
            if sum.value != a.value + b.value { violations.record("an effect saw sum disagree with a + b") }
        }
        let effect = deferred ? Effect(on: scheduler, body) : Effect(body)
        probe.arm(effect)
        return effect
    }

    /// A consumer of `a`, `sum` or a held derivation; it runs until cancelled, its node is freed, or it broke out.
    private func startConsumer(_ random: inout SplitMix64, held: inout [StressItem]) -> Task<Void, Never> {
        let breakAfter = random.next() % 3 == 0 ? Int(random.next() % 3) + 1 : nil
        switch random.next() % 3 {
        case 0:
            return startConsumer(of: a.values, breakingAfter: breakAfter)
        case 1:
            return startConsumer(of: sum.values, breakingAfter: breakAfter)
        default:
            let derivation = makeDerivation(scale: 2)
            if random.next() % 2 == 0 { held.append(.derivation(derivation)) }  // else it goes at once
            return startConsumer(of: derivation.values, breakingAfter: breakAfter)
        }
    }

    /// Values of nodes that only grow: each one must be larger than the one before.
    private func startConsumer(of values: NodeValues<Int>, breakingAfter limit: Int?) -> Task<Void, Never> {
        let iterator = values.makeAsyncIterator()
        let (violations, finished) = (violations, finished)
        let task = Task.detached {
            var iterator = iterator
            var last = Int.min
            var received = 0
            while let value = await iterator.next() {
                if value <= last { violations.record("values went from \(last) to \(value)") }
                last = value
                received += 1
                if let limit, received == limit { break }
            }
            finished.withLock { $0 += 1 }
        }
        consumers.withLock { $0.append(task) }
        return task
    }

    /// A fresh runtime for a moment: its own atom, derivation and effect, with exact results; freed afterwards.
    private func nestedIsolatedRuntime() {
        let weakRuntime = WeakRuntime()
        withIsolatedRuntime {
            weakRuntime.runtime = Runtime.current
            let x = atom(1)
            let doubled = derive { x.value * 2 }
            let seen = RunLog<Int>()
            let effect = Effect { seen.values.append(doubled.value) }
            x.value = 5
            a.update { $0 += 1 }  // the shared runtime, written from inside another runtime's scope
            if seen.values != [2, 10] { violations.record("a nested runtime's effect saw \(seen.values)") }
            withExtendedLifetime(effect) {}
        }
        if weakRuntime.runtime != nil { violations.record("a nested runtime outlived its scope") }
    }

    /// A chain only an effect keeps alive, then released: three nodes in and out of the shared graph.
    private func shortLivedChain(_ random: inout SplitMix64) {
        let (a, b) = (a, b)
        let base = makeDerivation(scale: 1)
        let top = derive { base.value + b.value }
        probes.make().arm(top)
        let effect = makeEffectReading(top)
        if random.next() % 2 == 0 { a.update { $0 += 1 } }
        if random.next() % 2 == 0 { effect.cancel() }
    }

    private func makeEffectReading(_ node: Derivation<Int>) -> Effect {
        let (probe, violations) = (probes.make(), violations)
        let effect = Effect {
            if probe.deinitBegan { violations.record("a chain effect ran after its deinit began") }
            _ = node.value
        }
        probe.arm(effect)
        return effect
    }

    /// The shared runtime evaluating again inside a second runtime's effect, itself run inside the shared
    /// runtime's effect: `trigger` (shared) writes the second runtime's atom, whose effect runs `inner` (shared).
    /// Inside a batch of the shared runtime, so that every thread takes the two graphs in the same order.
    private func reentrantRuntimes() {
        let (a, b, violations) = (a, b, violations)
        let weakRuntime = WeakRuntime()
        runtime.batch {
            let innerRuns = Locked(0)
            let inner = Effect {
                _ = a.value
                innerRuns.withLock { $0 += 1 }
            }
            let (relay, relayEffect) = withIsolatedRuntime { () -> (AtomObject<Int>, Effect) in
                weakRuntime.runtime = Runtime.current
                let relay = atom(0)
                return (relay, Effect { if relay.value > 0 { inner.run() } })
            }
            let trigger = Effect { relay.value = b.value + 1 }  // its first run, now, runs inner again
            if innerRuns.withLock({ $0 }) != 2 { violations.record("inner ran \(innerRuns.withLock { $0 }) times") }
            withExtendedLifetime((trigger, relayEffect)) {}
        }
        if weakRuntime.runtime != nil { violations.record("the second runtime outlived its nodes") }
    }
}

// MARK: - Support

/// Runs `body(index)` on `count` new threads and returns once all have returned (a blocking join).
private func joinThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let start = StartLine(count)
    let done = DispatchSemaphore(value: 0)
    for index in 0..<count {
        let thread = Thread {
            start.wait()
            body(index)
            done.signal()
        }
        thread.stackSize = StackSize.small
        thread.start()
    }
    for _ in 0..<count { done.wait() }
}

/// Watches one node: whether its deinit has begun (a weak reference reads nil once armed), and at the end whether
/// it is gone.
private final class LifeProbe: @unchecked Sendable {
    private let lock = NSLock()
    private weak var node: AnyObject?
    private var armed = false

    /// Starts watching `node`, right after its creation.
    func arm(_ node: AnyObject) {
        lock.withLock {
            self.node = node
            armed = true
        }
    }

    /// True once the watched node's deinit has begun (never before `arm`).
    var deinitBegan: Bool {
        lock.withLock { armed && node == nil }
    }

    var isAlive: Bool {
        lock.withLock { node != nil }
    }
}

/// Every probe made during the run.
private final class ProbeRegistry: Sendable {
    private let probes = Locked<[LifeProbe]>([])

    func make() -> LifeProbe {
        let probe = LifeProbe()
        probes.withLock { $0.append(probe) }
        return probe
    }

    /// How many probes were made.
    var count: Int {
        probes.withLock { $0.count }
    }

    /// How many watched nodes are still alive.
    var stillAlive: Int {
        probes.withLock { $0.filter(\.isAlive).count }
    }
}

/// A runtime held weakly, to check it was freed.
private final class WeakRuntime: @unchecked Sendable {
    weak var runtime: Runtime?
}
