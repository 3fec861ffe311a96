import Foundation
import Testing

@testable import Ripple

/// A model-based random test of async derivations: random writes, reads, refreshes and completions of chosen runs,
/// each checked against a small reference of SEMANTICS.md ("Async derivations"). The seed is in every failure.
///
/// The derivation's body reads `a`, registers its run and waits on that run's gate; once the test opens the gate it
/// reads `b` and returns `a * 100 + b`. The test waits for each run it predicts to register before going on, and
/// for each run it completes to finish (its result offered), so every step is deterministic.
@Suite struct AsyncModelTests {
    @Test(arguments: 0..<24)
    func randomOperationsMatchTheReference(seed: UInt64) async throws {
        var random = SplitMix64(seed: seed)
        let observed = seed % 3 != 0
        try await withIsolatedRuntime { () async throws in
            let a = atom(0), b = atom(0)
            let runs = RunRegistry()
            let derivation = derive { () async -> Int in
                let gate = runs.register(a: a.value)
                await gate.wait()
                return a.value * 100 + b.value
            }
            let log = AwaitableLog<AsyncPhase<Int>>()
            var render: Effect? = observed ? Effect { log.append(derivation.phase) } : nil
            var model = AsyncReference(observed: observed)
            var refreshes: [Task<Void, Never>] = []
            try await runs.waitUntil(count: model.runs.count, seed: seed)

            for step in 0..<60 {
                let context = "seed \(seed), step \(step)"
                switch random.next() % 6 {
                case 0, 1:
                    let value = Int(random.next() % 3)
                    let target = random.next() % 2 == 0 ? "a" : "b"
                    (target == "a" ? a : b).value = value
                    model.write(target, value)
                case 2:
                    let phase = derivation.phase
                    #expect(phase == model.read(), "\(context): read")
                case 3:
                    refreshes.append(Task { await derivation.refresh() })
                    model.refresh()
                default:
                    let open = model.runs.indices.filter { !model.opened.contains($0) }
                    guard let index = open.randomElement(using: &random) else { continue }
                    let run = runs.run(at: index)
                    run.gate.open()
                    await run.finished()
                    model.opened.insert(index)
                    model.complete(index)
                    if model.refreshesWaiting == 0 {
                        for refresh in refreshes { await refresh.value }
                        refreshes = []
                    }
                }
                try await runs.waitUntil(count: model.runs.count, seed: seed)
                #expect(runs.count == model.runs.count, "\(context): runs started")
                #expect(runs.startValues == model.runs.map(\.a), "\(context): what each run read")
                if observed {
                    #expect(log.values == model.log, "\(context): the effect's phases")
                }
            }
            // Everything finishes: open every gate, then no refresh is left waiting.
            for index in 0..<runs.count { runs.run(at: index).gate.open() }
            render?.cancel()
            render = nil
            for refresh in refreshes {
                refresh.cancel()
                await refresh.value
            }
            for index in 0..<runs.count { await runs.run(at: index).finished() }
        }
    }
}

/// What the reference knows of each run.
private struct ModelRun {
    /// The value of `a` it read at its start, and of `b` when it finished.
    let a: Int
    var b: Int?
    var completed: Bool { b != nil }
}

/// The reference: which runs start, which results apply, and what an observing effect sees.
private struct AsyncReference {
    let observed: Bool
    var a = 0, b = 0
    var phase: AsyncPhase<Int> = .suspending
    var runs: [ModelRun] = []
    /// A re-validation found the current run stale (a refused result): the next one starts a run whatever the
    /// values are by then.
    var latchedStale = false
    var log: [AsyncPhase<Int>] = []
    /// The runs whose gates the test opened.
    var opened: Set<Int> = []
    /// Calls of refresh() still waiting for a result: they observe the derivation meanwhile.
    var refreshesWaiting = 0

    init(observed: Bool) {
        self.observed = observed
        if observed {
            log.append(.suspending)  // the effect's first run reads the phase: run 0 starts
            startRun()
        }
    }

    /// Whether the current run is stale: none yet, or something it read has another value now (a write and a
    /// write back before anyone re-validates is no change).
    var stale: Bool {
        guard let current = runs.last else { return true }
        return latchedStale || a != current.a || (current.b.map { $0 != b } ?? false)
    }

    mutating func write(_ target: String, _ value: Int) {
        if target == "a" { a = value } else { b = value }
        // The write's flush re-validates the observers: the effect, and a refresh() waiting for its run.
        if observed || refreshesWaiting > 0, stale { startRun() }
    }

    mutating func read() -> AsyncPhase<Int> {
        if stale { startRun() }
        return phase
    }

    mutating func refresh() {
        startRun()
        refreshesWaiting += 1
    }

    mutating func complete(_ index: Int) {
        let isCurrent = index == runs.count - 1
        let wasStale = isCurrent && stale
        runs[index].b = b
        guard isCurrent else { return }  // superseded: its result is refused
        if wasStale {
            latchedStale = true  // refused; the node stays stale
            runs[index].b = nil  // what it read after the await was not recorded as current
            return
        }
        set(.success(runs[index].a * 100 + b))
        refreshesWaiting = 0  // they return now: the test waits for them
    }

    private mutating func startRun() {
        runs.append(ModelRun(a: a))
        latchedStale = false
        set(.suspending)
    }

    private mutating func set(_ next: AsyncPhase<Int>) {
        if next == phase { return }
        phase = next
        if observed { log.append(next) }
    }
}

/// The runs the derivation started, in order: what each read, its gate, and its task.
private final class RunRegistry: @unchecked Sendable {
    // Guarded by `lock`.
    private let lock = NSLock()
    private var entries: [(a: Int, gate: Gate<Void>, run: AsyncRun)] = []
    private let started = AwaitableLog<Int>()

    struct Entry {
        let gate: Gate<Void>
        let run: AsyncRun
        /// Waits until the run's task ended: its result was offered, and the effects it made due ran.
        func finished() async {
            await run.runningTask?.value
        }
    }

    /// Called by the body of a run, on its task: the run's gate.
    func register(a: Int) -> Gate<Void> {
        let gate = Gate<Void>()
        let run = AsyncRun.current!
        lock.withLock { entries.append((a, gate, run)) }
        started.append(a)
        return gate
    }

    var count: Int { lock.withLock { entries.count } }
    var startValues: [Int] { lock.withLock { entries.map(\.a) } }

    func run(at index: Int) -> Entry {
        lock.withLock { Entry(gate: entries[index].gate, run: entries[index].run) }
    }

    /// Waits until `count` runs registered; fails the test (rather than hanging) if they do not within 60 s. The
    /// limit only turns a hang into a failure: under ThreadSanitizer, beside the thread-stress suites on two cores,
    /// a run's task can wait over 10 s for a thread of the cooperative pool.
    func waitUntil(count: Int, seed: UInt64) async throws {
        let started = self.started
        let arrived = await firstOf(
            { await started.waitUntil(count: count) },
            orFailAfter: .seconds(60))
        #expect(arrived, "seed \(seed): \(count) runs expected, \(self.count) started")
        if !arrived { throw CancellationError() }
    }
}

/// Whether `operation` finished before `limit` passed: a guard that turns a hang into a failure, never the thing
/// a test measures. The loser keeps running in the background.
func firstOf(_ operation: @escaping @Sendable () async -> Void, orFailAfter limit: Duration) async -> Bool {
    let once = Once()
    return await withCheckedContinuation { continuation in
        Task {
            await operation()
            if once.claim() { continuation.resume(returning: true) }
        }
        Task {
            try? await Task.sleep(for: limit)
            if once.claim() { continuation.resume(returning: false) }
        }
    }
}

/// True for the first caller of `claim()` only.
final class Once: Sendable {
    private let claimed = Locked(false)

    func claim() -> Bool {
        claimed.withLock { wasClaimed in
            defer { wasClaimed = true }
            return !wasClaimed
        }
    }
}
