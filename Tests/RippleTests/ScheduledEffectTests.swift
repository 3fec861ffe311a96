import Dispatch
import Foundation
import Testing
@_spi(Testing) import Ripple

/// A scheduler that keeps jobs until the test drains them, so that each test decides exactly when scheduled runs
/// happen.
/// (Its lock is an NSLock: ThreadSanitizer on Linux does not see Synchronization.Mutex.)
final class ManualScheduler: EffectScheduler, @unchecked Sendable {
    private let lock = NSLock()
    private var jobs: [@Sendable () -> Void] = []

    /// How many jobs are waiting.
    var pending: Int {
        lock.withLock { jobs.count }
    }

    func schedule(_ job: @escaping @Sendable () -> Void) {
        lock.withLock { jobs.append(job) }
    }

    /// Runs the waiting jobs (and the ones they schedule) in order; returns how many ran.
    @discardableResult
    func drain() -> Int {
        var ran = 0
        while let job = lock.withLock({ jobs.isEmpty ? nil : jobs.removeFirst() }) {
            job()
            ran += 1
        }
        return ran
    }
}

/// Effects bound to a scheduler: the first run and every later one go through it, writes made before a run
/// coalesce into it, and a run happens only if something read changed.
@Suite struct ScheduledEffectTests {
    /// What most tests here watch, made in the current runtime: an atom starting at `initial`, and an effect on a
    /// fresh manual scheduler that records each value of the atom its runs read.
    private func recordedThroughScheduler(startingAt initial: Int)
        -> (scheduler: ManualScheduler, count: AtomObject<Int>, seen: Recorder<Int>, effect: Effect)
    {
        let scheduler = ManualScheduler()
        let count = atom(initial)
        let seen = Recorder<Int>()
        let effect = Effect(on: scheduler) { seen.append(count.value) }
        return (scheduler, count, seen, effect)
    }

    @Test func firstRunIsScheduledNotImmediate() {
        withIsolatedRuntime {
            let (scheduler, _, seen, effect) = recordedThroughScheduler(startingAt: 1)
            #expect(seen.values == [])
            #expect(scheduler.pending == 1)
            #expect(scheduler.drain() == 1)
            #expect(seen.values == [1])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func burstOfWritesCoalescesIntoOneRunSeeingTheLatestValue() {
        withIsolatedRuntime {
            let (scheduler, count, seen, effect) = recordedThroughScheduler(startingAt: 0)
            scheduler.drain()
            for value in 1...50 { count.value = value }
            #expect(scheduler.pending == 1)
            #expect(seen.values == [0])
            scheduler.drain()
            #expect(seen.values == [0, 50])
            count.value = 51
            count.value = 52
            scheduler.drain()
            #expect(seen.values == [0, 50, 52])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func updateRunsNothingWhenADerivationCameBackToAnEqualValue() {
        withIsolatedRuntime {
            let scheduler = ManualScheduler()
            let count = atom(2)
            let parity = derive { count.value % 2 }
            let seen = Recorder<Int>()
            let effect = Effect(on: scheduler) { seen.append(parity.value) }
            scheduler.drain()
            count.value = 4  // parity stays 0
            #expect(scheduler.pending == 1)
            #expect(scheduler.drain() == 1)
            #expect(seen.values == [0])
            count.value = 5
            scheduler.drain()
            #expect(seen.values == [0, 1])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func writeAndWriteBackBeforeTheRunIsNoChange() {
        withIsolatedRuntime {
            let (scheduler, count, seen, effect) = recordedThroughScheduler(startingAt: 7)
            scheduler.drain()
            count.value = 8
            count.value = 7
            scheduler.drain()
            #expect(seen.values == [7])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func jobForACancelledEffectDoesNothing() {
        withIsolatedRuntime {
            let (scheduler, count, seen, effect) = recordedThroughScheduler(startingAt: 0)
            scheduler.drain()
            count.value = 1
            effect.cancel()
            #expect(effect.isCancelled)
            #expect(scheduler.drain() == 1)
            #expect(seen.values == [0])
            count.value = 2
            #expect(scheduler.pending == 0)
        }
    }

    @Test func jobForAReleasedEffectDoesNothingAndNothingLeaks() {
        let runtime = Runtime()
        let scheduler = ManualScheduler()
        let seen = Recorder<Int>()
        let count = withIsolatedRuntime(using: runtime) { atom(0) }
        withIsolatedRuntime(using: runtime) {
            var effect: Effect? = Effect(on: scheduler) { seen.append(count.value) }
            scheduler.drain()
            count.value = 1
            #expect(effect != nil)
            effect = nil
        }
        #expect(scheduler.drain() == 1)
        #expect(seen.values == [0])
        #expect(runtime.liveNodeCount == 1)
    }

    @Test func scheduledEffectThatWritesWhatItReadsIsScheduledAgainNotLooped() {
        withIsolatedRuntime {
            let scheduler = ManualScheduler()
            let count = atom(0)
            let seen = Recorder<Int>()
            let effect = Effect(on: scheduler) {
                let value = count.value
                seen.append(value)
                if value < 3 { count.value = value + 1 }
            }
            #expect(scheduler.drain() == 4)  // runs at 0, 1, 2, 3, one job each
            #expect(seen.values == [0, 1, 2, 3])
            #expect(scheduler.pending == 0)
            withExtendedLifetime(effect) {}
        }
    }

    @Test func runInvokedDirectlyRunsAtOnce() {
        withIsolatedRuntime {
            let (scheduler, _, seen, effect) = recordedThroughScheduler(startingAt: 0)
            effect.run()
            #expect(seen.values == [0])
            #expect(scheduler.drain() == 1)  // the creation's job: nothing changed since
            #expect(seen.values == [0])
        }
    }

    @Test func scheduledAndSynchronousEffectsNeverOverlap() {
        withIsolatedRuntime {
            let scheduler = ManualScheduler()
            let count = atom(0)
            let order = Recorder<String>()
            let sync = Effect { order.append("sync \(count.value)") }
            let scheduled = Effect(on: scheduler) { order.append("scheduled \(count.value)") }
            count.value = 1
            scheduler.drain()
            count.value = 2
            #expect(order.values == ["sync 0", "sync 1", "scheduled 1", "sync 2"])
            withExtendedLifetime((sync, scheduled)) {}
        }
    }

    /// A job reads the effect's handle without holding the graph while `run()` on another thread runs the effect:
    /// the run must not write the handle (ThreadSanitizer reports the race in the scheduled-effect step).
    @Test func jobsDrainedOnOneThreadWhileAnotherThreadRunsTheEffectEndOnTheLastValue() async {
        let iterations = 2_000
        let runtime = Runtime()
        let scheduler = ManualScheduler()
        let (count, effect, seen) = inRuntime(runtime) {
            let count = atom(0)
            let seen = Recorder<Int>()
            let effect = Effect(on: scheduler) { seen.append(count.value) }
            return (count, effect, seen)
        }
        let writing = DispatchSemaphore(value: 0)
        let running = DispatchSemaphore(value: 0)
        let writerDone = Locked(false)
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                await runOnThread(stackSize: StackSize.small) {
                    writing.signal()
                    for _ in 0..<iterations { count.update { $0 += 1 } }
                    writerDone.withLock { $0 = true }
                }
            }
            group.addTask {
                await runOnThread(stackSize: StackSize.small) {
                    running.signal()
                    for _ in 0..<iterations { effect.run() }
                }
            }
            group.addTask {
                await runOnThread(stackSize: StackSize.small) {
                    writing.wait()
                    running.wait()
                    while !writerDone.withLock({ $0 }) { scheduler.drain() }
                }
            }
        }
        scheduler.drain()
        effect.run()
        let values = seen.values
        #expect(values.last == iterations)
        #expect(values == values.sorted())  // one order of runs: each saw a count no older than the one before
        #expect(values.count >= iterations + 1)  // every run() ran the body, besides the jobs' runs
        #expect(runtime.liveNodeCount == 2)
        #expect(runtime.checkInvariants() == nil)
    }

    @Test func mainActorEffectRendersWritesMadeOnAnotherThread() async {
        let runtime = Runtime()
        let count = withIsolatedRuntime(using: runtime) { atom(0) }
        let rendered = Recorder<String>()
        let render = withIsolatedRuntime(using: runtime) {
            Effect(on: .mainActor) {
                MainActor.assertIsolated()
                rendered.append("Count: \(count.value)")
            }
        }
        await Task.detached {
            for _ in 0..<100 { count.update { $0 += 1 } }
        }.value
        while rendered.values.last != "Count: 100" {
            await Task.yield()
            try? await Task.sleep(for: .milliseconds(1))
        }
        let numbers = rendered.values.map { Int($0.dropFirst("Count: ".count))! }
        #expect(numbers == numbers.sorted())
        #expect(numbers.count <= 101)
        withExtendedLifetime(render) {}
    }

    @Test func actorEffectRunsOnTheActor() async {
        actor RecordingActor {
            var values: [Int] = []
            func record(_ value: Int) { values.append(value) }
        }
        let runtime = Runtime()
        let recorder = RecordingActor()
        let count = withIsolatedRuntime(using: runtime) { atom(0) }
        let seen = Recorder<Int>()
        let effect = withIsolatedRuntime(using: runtime) {
            Effect(on: .actor(recorder)) {
                recorder.assertIsolated()
                seen.append(count.value)
            }
        }
        count.value = 5
        while seen.values.last != 5 {
            try? await Task.sleep(for: .milliseconds(1))
        }
        #expect(seen.values == [5] || seen.values == [0, 5])
        withExtendedLifetime(effect) {}
    }
}
