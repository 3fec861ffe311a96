import Foundation
@_spi(Testing) import Ripple
import RippleBenchC

/// Async derivations end to end (the `async` rows): the time from an atom write to the `.success` of the run it
/// starts, as an effect sees it, against the same done by hand (a task per write, a lock, a continuation); and the
/// memory of an async derivation.
///
/// Each iteration writes the atom, then suspends on a continuation that the observer of the result resumes (the
/// effect on Ripple's side, the task itself by hand) once it saw `.success` of the value for that write: no sleep,
/// no clock polling. The body does not wait for anything: the time is the machinery's (the graph's flush, the run's
/// task, its tracked read, the result delivered as a write and the effect it runs), not the body's.
public enum RippleAsync {
    public static let defaultIterations = 10_000
    public static let defaultSamples = 5
    public static let defaultMemoryCount = 10_000
    /// Untimed iterations before the samples.
    static let warmUp = 200

    /// What the body computes from the atom's value (distinct for distinct inputs, so each write's result is new).
    @inline(__always)
    static func expected(_ input: Int) -> Int { input &* 2 &+ 1 }

    /// Ripple: an atom, an async derivation whose body reads it and returns `expected(atom)`, and an effect that
    /// hands each phase it sees to the observer. `samples` timed loops of `iterations` write-and-wait rounds, after
    /// the warm-up; the fastest in milliseconds. `value` is the last result, `count` the successes the effect saw.
    public static func ripple(iterations: Int = defaultIterations, samples: Int = defaultSamples) async -> ShapeResult {
        let verifier = Verifier()
        let observer = PhaseObserver()
        let runtime = Runtime()
        let (source, derivation, effect) = withIsolatedRuntime(using: runtime) {
            let source = atom(0)
            let derivation = derive { () async -> Int in expected(source.value) }
            let effect = Effect { observer.saw(derivation.phase) }  // its first run starts the first run
            return (source, derivation, effect)
        }
        let (milliseconds, input) = await rounds(iterations: iterations, samples: samples, observer: observer) {
            source.value = $0
        }
        let runs = 1 + warmUp + max(samples, 1) * iterations
        let seen = observer.counts
        verifier.expect(derivation.phase == .success(expected(input)), "phase \(derivation.phase), expected success(\(expected(input)))")
        verifier.expect(derivation.lastValue == expected(input), "lastValue \(String(describing: derivation.lastValue))")
        verifier.expect(seen.successes == runs, "the effect saw \(seen.successes) successes, expected \(runs)")
        verifier.expect(seen.suspendings == runs, "the effect saw \(seen.suspendings) suspending phases, expected \(runs)")
        verifier.expect(seen.failures == 0, "the effect saw \(seen.failures) failures")
        withExtendedLifetime(effect) {}
        return ShapeResult(
            milliseconds: milliseconds, operations: iterations, value: Double(derivation.phase.value ?? -1),
            count: seen.successes, failures: verifier.failures)
    }

    /// The same by hand: a lock-protected input and result; each write cancels the previous task and starts one
    /// that reads the input, computes `expected(input)`, stores it if no newer write came, and hands it to the
    /// observer, which resumes the waiting writer. Timed as `ripple`.
    public static func handWritten(iterations: Int = defaultIterations, samples: Int = defaultSamples) async
        -> ShapeResult
    {
        let verifier = Verifier()
        let observer = PhaseObserver()
        let state = HandWrittenAsync(observer: observer)
        state.write(0)
        let (milliseconds, input) = await rounds(iterations: iterations, samples: samples, observer: observer) {
            state.write($0)
        }
        let runs = 1 + warmUp + max(samples, 1) * iterations
        let seen = observer.counts
        verifier.expect(state.phase == .success(expected(input)), "phase \(state.phase), expected success(\(expected(input)))")
        verifier.expect(seen.successes == runs, "the observer saw \(seen.successes) successes, expected \(runs)")
        verifier.expect(seen.suspendings == runs, "the observer saw \(seen.suspendings) suspending phases, expected \(runs)")
        return ShapeResult(
            milliseconds: milliseconds, operations: iterations, value: Double(state.phase.value ?? -1),
            count: seen.successes, failures: verifier.failures)
    }

    /// The rounds both sides time, once the first result (of input 0) is on its way: each writes the next input
    /// with `write` and waits until `observer` saw its result. `warmUp` untimed rounds, then `samples` loops of
    /// `iterations` rounds; the fastest loop in milliseconds, and the last input written.
    private static func rounds(
        iterations: Int, samples: Int, observer: PhaseObserver, write: (Int) -> Void
    ) async -> (milliseconds: Double, input: Int) {
        await observer.wait(for: expected(0))
        var input = 0
        func round() async {
            input += 1
            write(input)
            await observer.wait(for: expected(input))
        }
        for _ in 0..<warmUp { await round() }
        let milliseconds = await fastest(samples: samples) {
            for _ in 0..<iterations { await round() }
        }
        return (milliseconds, input)
    }

    /// Bytes per async derivation, each reading an atom of its own, created and read once, then awaited until its run
    /// succeeded (so each has a phase and a finished run): the process heap (malloc's bytes in use: the Swift
    /// object, its engine node and edge, its closure and its finished run and task), the engine's own accounting
    /// (`rp_graph_stats`: node records and edge arrays in use) and the resident size. A plain derivation reading one
    /// atom, read once, is measured the same way as the reference.
    public static func memory(count: Int = defaultMemoryCount) async -> AsyncMemory {
        var memory = AsyncMemory()
        let verifier = Verifier()
        let runtime = Runtime()
        // Each kind reads atoms of its own, so that each pays for its atoms' first subscriber arrays.
        let atoms = withIsolatedRuntime(using: runtime) { (0..<count).map { atom($0) } }
        let asyncAtoms = withIsolatedRuntime(using: runtime) { (0..<count).map { atom($0) } }
        var derivations: [Derivation<Int>] = []
        var asyncDerivations: [AsyncDerivation<Int>] = []
        derivations.reserveCapacity(count)
        asyncDerivations.reserveCapacity(count)

        let h0 = rb_heap_in_use(), e0 = runtime.engineBytesInUse
        withIsolatedRuntime(using: runtime) {
            for source in atoms {
                let derivation = derive { expected(source.value) }
                _ = derivation.value
                derivations.append(derivation)
            }
        }
        let h1 = rb_heap_in_use(), e1 = runtime.engineBytesInUse, r1 = rb_resident_bytes()
        withIsolatedRuntime(using: runtime) {
            for source in asyncAtoms {
                let derivation = derive { () async -> Int in expected(source.value) }
                _ = derivation.phase  // starts its run
                asyncDerivations.append(derivation)
            }
        }
        for (index, derivation) in asyncDerivations.enumerated() {
            let value = try? await derivation.value
            verifier.expect(value == expected(index), "async derivation \(index): \(String(describing: value))")
        }
        let h2 = rb_heap_in_use(), e2 = runtime.engineBytesInUse, r2 = rb_resident_bytes()

        verifier.expect(runtime.liveNodeCount == 4 * count, "\(runtime.liveNodeCount) live nodes, expected \(4 * count)")
        verifier.expect(runtime.liveEdgeCount == 2 * count, "\(runtime.liveEdgeCount) live edges, expected \(2 * count)")
        for (index, derivation) in asyncDerivations.enumerated() {
            verifier.expect(derivation.phase == .success(expected(index)), "async derivation \(index): \(derivation.phase)")
        }
        memory.heapPerDerivation = Double(h1 - h0) / Double(count)
        memory.enginePerDerivation = Double(e1 - e0) / Double(count)
        memory.heapPerAsync = Double(h2 - h1) / Double(count)
        memory.enginePerAsync = Double(e2 - e1) / Double(count)
        memory.residentPerAsync = Double(Int(r2) - Int(r1)) / Double(count)
        memory.failures = verifier.failures
        withExtendedLifetime((atoms, asyncAtoms, derivations, asyncDerivations)) {}
        return memory
    }
}

/// Bytes per node of `RippleAsync.memory`.
public struct AsyncMemory: Sendable, Equatable {
    /// Malloc's bytes in use per async derivation (Swift object, engine node and edge, closure, finished run).
    public var heapPerAsync = 0.0
    /// The engine's arena bytes in use per async derivation (node record and its edge).
    public var enginePerAsync = 0.0
    /// The process's resident size per async derivation.
    public var residentPerAsync = 0.0
    /// The same two figures for a plain derivation reading one atom, read once.
    public var heapPerDerivation = 0.0
    public var enginePerDerivation = 0.0
    public var failures: [String] = []

    public init() {}
}

/// Sees the phases of one async value (from an effect, or the hand-written task) and resumes the writer waiting
/// for a given `.success`. Everything is guarded by the lock; the continuation is resumed outside it.
final class PhaseObserver: @unchecked Sendable {
    private let lock = NSLock()
    private var lastSuccess: Int?
    private var awaited: Int?
    private var continuation: CheckedContinuation<Void, Never>?
    private var successes = 0
    private var suspendings = 0
    private var failures = 0

    func saw(_ phase: AsyncPhase<Int>) {
        let ready: CheckedContinuation<Void, Never>? = lock.withLock {
            switch phase {
            case .suspending:
                suspendings += 1
                return nil
            case .failure:
                failures += 1
                return nil
            case .success(let value):
                successes += 1
                lastSuccess = value
                guard value == awaited, let continuation else { return nil }
                self.continuation = nil
                return continuation
            }
        }
        ready?.resume()
    }

    /// Suspends until the last success seen is `value` (at once if it already is).
    func wait(for value: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready: Bool = lock.withLock {
                if lastSuccess == value { return true }
                awaited = value
                self.continuation = continuation
                return false
            }
            if ready { continuation.resume() }
        }
    }

    var counts: (successes: Int, suspendings: Int, failures: Int) {
        lock.withLock { (successes, suspendings, failures) }
    }
}

/// An async value written by hand: a write cancels the task in flight and starts a new one, which computes the
/// value from the input and stores it unless a newer write superseded it. State guarded by the lock.
final class HandWrittenAsync: @unchecked Sendable {
    private let lock = NSLock()
    private var input = 0
    private var generation = 0
    private var result: Int?
    private var task: Task<Void, Never>?
    private let observer: PhaseObserver

    init(observer: PhaseObserver) {
        self.observer = observer
    }

    func write(_ value: Int) {
        let previous: Task<Void, Never>? = lock.withLock {
            input = value
            generation += 1
            result = nil
            let current = generation
            let previous = task
            task = Task.detached { [self] in run(current) }
            return previous
        }
        previous?.cancel()
        observer.saw(.suspending)
    }

    private func run(_ current: Int) {
        let input = lock.withLock { self.input }
        let value = RippleAsync.expected(input)
        let stored: Bool = lock.withLock {
            guard generation == current, !Task.isCancelled else { return false }
            result = value
            return true
        }
        if stored { observer.saw(.success(value)) }
    }

    var phase: AsyncPhase<Int> {
        lock.withLock { result.map { .success($0) } ?? .suspending }
    }
}
