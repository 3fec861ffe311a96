import Dispatch
import Foundation
import Ripple

// Helpers for the tests that use one runtime from many OS threads (ThreadStressTests, RandomizedStressTests, the
// cancellation and teardown regressions).

/// Sizes and seeds of the stress runs, read once from the environment.
enum Stress {
    /// RIPPLE_STRESS_ITERATIONS: iterations per thread for a long run; nil for the quick default.
    static let requestedIterations: Int? = ProcessInfo.processInfo.environment["RIPPLE_STRESS_ITERATIONS"]
        .flatMap { Int($0) }

    /// RIPPLE_STRESS_SEED, or a fresh seed that failing expectations print.
    static let seed: UInt64 = ProcessInfo.processInfo.environment["RIPPLE_STRESS_SEED"]
        .flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)

    /// Iterations per thread: `quick` unless RIPPLE_STRESS_ITERATIONS is set.
    static func iterations(quick: Int) -> Int {
        requestedIterations ?? quick
    }
}

/// Runs `body(index)` for each index in `0..<threads`, each on its own new OS thread; the threads start their bodies
/// together and the call returns once every body has returned.
func runOnThreads(_ threads: Int, _ body: @escaping @Sendable (Int) -> Void) async {
    let arrived = StartLine(threads)
    await withTaskGroup(of: Void.self) { group in
        for index in 0..<threads {
            group.addTask {
                await runOnThread(stackSize: StackSize.small) {
                    arrived.wait()
                    body(index)
                }
            }
        }
    }
}

/// Holds threads until all of them have arrived, so that their work overlaps.
final class StartLine: Sendable {
    private let expected: Int
    private let arrived = makeSpinCounter()

    init(_ expected: Int) {
        self.expected = expected
    }

    func wait() {
        _ = arrived.increment()
        while arrived.load() < expected { sched_yield() }
    }
}

/// Broken invariants seen on worker threads, where `#expect` has no test to report to. Keeps the first few.
final class Violations: Sendable {
    private let state = Locked<[String]>([])

    /// The first broken invariants recorded (at most 10), in order.
    var messages: [String] {
        state.withLock { $0 }
    }

    func record(_ message: String) {
        state.withLock { messages in
            if messages.count < 10 { messages.append(message) }
        }
    }
}

/// A value that threads share, behind a lock. An `NSLock` rather than `Synchronization.Mutex`: on Linux the mutex
/// waits on a futex that ThreadSanitizer does not see, so it would report the test's own state as racing.
final class Locked<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// Runs `body` synchronously with `runtime` as the current runtime, from synchronous and asynchronous tests alike: a
/// synchronous function, so it always calls the synchronous `withIsolatedRuntime(using:_:)` (an async test calling
/// that name directly would pick the async overload, or warn about a needless `await`, depending on the overloads).
func inRuntime<Result>(_ runtime: Runtime, _ body: () -> Result) -> Result {
    withIsolatedRuntime(using: runtime, body)
}

/// Increments an atom on a thread of its own, as fast as it can, until ``stop()``: the writer other threads race.
final class BackgroundIncrements: Sendable {
    private let stopRequested = Locked(false)
    private let thread = DispatchSemaphore(value: 0)

    init(of counter: AtomObject<Int>) {
        let thread = Thread { [self] in
            while !stopRequested.withLock({ $0 }) { counter.update { $0 += 1 } }
            self.thread.signal()
        }
        thread.stackSize = StackSize.small
        thread.start()
    }

    /// Stops the writes and returns once the thread has made its last one.
    func stop() async {
        stopRequested.withLock { $0 = true }
        await runOnThread(stackSize: StackSize.small) { self.thread.wait() }
    }
}

/// Runs `body` on a new thread and waits at most `seconds` for it to return, without blocking a thread of the
/// cooperative pool. False when it did not return in time: a deadlock, which the caller reports as a failure instead
/// of hanging the suite (the stuck thread is left behind). The timeout only guards against a hang; it is never what
/// a test measures.
func returnsInTime(seconds: Double, _ body: @escaping @Sendable () -> Void) async -> Bool {
    let returned = DispatchSemaphore(value: 0)
    let thread = Thread {
        body()
        returned.signal()
    }
    thread.stackSize = StackSize.small
    thread.start()
    return await runOnThread(stackSize: StackSize.small) {
        returned.wait(timeout: .now() + seconds) == .success
    }
}

/// Runs `body` on a new thread (one in no batch and evaluating nothing, in any runtime) and waits until it returned.
func runOnAnotherThreadAndWait(_ body: @escaping @Sendable () -> Void) {
    let done = DispatchSemaphore(value: 0)
    Thread {
        body()
        done.signal()
    }.start()
    done.wait()
}

/// A scheduler whose jobs run, in order, on a thread of their own (``runJobsUntilStopped()``) while other threads
/// write.
final class ThreadScheduler: EffectScheduler {
    private let state = Locked<(jobs: [@Sendable () -> Void], stopping: Bool)>(([], false))
    private let wake = DispatchSemaphore(value: 0)

    func schedule(_ job: @escaping @Sendable () -> Void) {
        state.withLock { $0.jobs.append(job) }
        wake.signal()
    }

    /// Runs jobs on a new thread until ``stop(_:)``; returns how many ran.
    func runJobsUntilStopped() async -> Int {
        await runOnThread(stackSize: StackSize.small) {
            var ran = 0
            while true {
                self.wake.wait()
                while true {
                    let (job, stopped) = self.state.withLock { state in
                        state.jobs.isEmpty ? (nil, state.stopping) : (state.jobs.removeFirst(), false)
                    }
                    if let job {
                        job()
                        ran += 1
                    } else if stopped {
                        return ran
                    } else {
                        break
                    }
                }
            }
        }
    }

    /// Lets the thread run the jobs already scheduled, then stop; returns how many jobs it ran in all.
    func stop(_ drainer: Task<Int, Never>) async -> Int {
        state.withLock { $0.stopping = true }
        wake.signal()
        return await drainer.value
    }
}
