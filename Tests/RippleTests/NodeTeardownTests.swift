import Dispatch
import Foundation
import Testing
@_spi(Testing) import Ripple

/// A node whose last reference goes on one thread while another thread holds the graph: its deinit waits for the
/// graph, and meanwhile the other thread's flush must neither run its body nor touch storage the deinit frees.
///
/// The deterministic tests hold the graph in a batch on one thread, drop the last reference on another, wait until
/// its deinit has begun (a weak reference reads nil), and only then let the batch end and flush.
@Suite(.serialized) struct NodeTeardownTests {
    /// A derivation observed only by a `values` iterator (which does not keep it alive), its source written in the
    /// batch: the flush re-validates it for the observer while its deinit waits.
    @Test func derivationWhoseDeinitBeganIsNotRecomputed() async {
        let runtime = Runtime()
        let source = inRuntime(runtime) { atom(1) }
        let weakDerivation = WeakReference<Derivation<Int>>()
        let runs = Locked(0)
        let runsAfterDeinitBegan = Locked(0)
        let strong = Locked<Derivation<Int>?>(
            inRuntime(runtime) {
                derive {
                    let value = source.value * 2
                    runs.withLock { $0 += 1 }
                    if weakDerivation.object == nil { runsAfterDeinitBegan.withLock { $0 += 1 } }
                    return value
                }
            })
        weakDerivation.object = strong.withLock { $0 }
        var iterator = strong.withLock { $0 }!.values.makeAsyncIterator()
        #expect(await iterator.next() == 2)
        #expect(runs.withLock { $0 } == 1)

        await dropLastReferenceWhileAnotherThreadHoldsTheGraph(
            runtime: runtime, write: { source.value = 5 }, drop: { strong.withLock { $0 = nil } },
            deinitBegan: { weakDerivation.object == nil })

        #expect(runs.withLock { $0 } == 1)
        #expect(runsAfterDeinitBegan.withLock { $0 } == 0)
        #expect(await iterator.next() == nil)  // the derivation is gone: the sequence finished
        #expect(runtime.liveNodeCount == 1)  // the source only
        #expect(runtime.checkInvariants() == nil)
    }

    /// An effect whose source is written in the batch: the flush would run it while its deinit (which cancels it)
    /// waits for the graph.
    @Test func effectWhoseDeinitBeganDoesNotRun() async {
        let runtime = Runtime()
        let source = inRuntime(runtime) { atom(1) }
        let weakEffect = WeakReference<Effect>()
        let seen = Locked<[Int]>([])
        let runsAfterDeinitBegan = Locked(0)
        let strong = Locked<Effect?>(
            inRuntime(runtime) {
                Effect {
                    seen.withLock { $0.append(source.value) }
                    if !seen.withLock({ $0.count == 1 }) && weakEffect.object == nil {  // not the first run, in init
                        runsAfterDeinitBegan.withLock { $0 += 1 }
                    }
                }
            })
        weakEffect.object = strong.withLock { $0 }
        #expect(seen.withLock { $0 } == [1])

        await dropLastReferenceWhileAnotherThreadHoldsTheGraph(
            runtime: runtime, write: { source.value = 5 }, drop: { strong.withLock { $0 = nil } },
            deinitBegan: { weakEffect.object == nil })

        #expect(seen.withLock { $0 } == [1])
        #expect(runsAfterDeinitBegan.withLock { $0 } == 0)
        #expect(runtime.liveNodeCount == 1)
        #expect(runtime.checkInvariants() == nil)
    }

    /// An effect bound to a scheduler, its source written in the batch: the flush would hand its scheduler an update
    /// while its deinit waits for the graph. Asking the effect object for that update would retain and release an
    /// object whose deinit has begun, which frees it a second time; it leaves the graph unscheduled instead.
    @Test func scheduledEffectWhoseDeinitBeganIsNotScheduled() async {
        let runtime = Runtime()
        let source = inRuntime(runtime) { atom(1) }
        let scheduler = ManualScheduler()
        let weakEffect = WeakReference<Effect>()
        let seen = Locked<[Int]>([])
        let strong = Locked<Effect?>(
            inRuntime(runtime) {
                Effect(on: scheduler) { seen.withLock { $0.append(source.value) } }
            })
        weakEffect.object = strong.withLock { $0 }
        #expect(scheduler.drain() == 1)  // the first run
        #expect(seen.withLock { $0 } == [1])

        await dropLastReferenceWhileAnotherThreadHoldsTheGraph(
            runtime: runtime, write: { source.value = 5 }, drop: { strong.withLock { $0 = nil } },
            deinitBegan: { weakEffect.object == nil })

        #expect(scheduler.pending == 0)
        #expect(seen.withLock { $0 } == [1])
        #expect(runtime.liveNodeCount == 1)
        #expect(runtime.checkInvariants() == nil)
    }

    /// The same race left to chance, many times: a derivation observed by a `values` consumer is freed while
    /// another thread keeps writing its source. Under AddressSanitizer a compute into freed storage is reported.
    @Test func derivationsFreedWhileObservedAndWrittenLeaveNothingBehind() async {
        let rounds = 150
        let runtime = Runtime()
        let source = inRuntime(runtime) { atom(0) }
        let writer = BackgroundIncrements(of: source)
        var random = SplitMix64(seed: 2)
        var finished = 0
        for _ in 0..<rounds {
            var derivation: Derivation<[Int]>? = inRuntime(runtime) {
                derive { [source.value, source.value &+ 1] }
            }
            let iterator = derivation!.values.makeAsyncIterator()
            let consumer = Task.detached {
                var iterator = iterator
                var received = 0
                while let pair = await iterator.next() {
                    if pair.count == 2 && pair[1] == pair[0] &+ 1 { received += 1 }
                }
                return received
            }
            let pause = UInt32(random.next() % 200)
            _ = await runOnThread(stackSize: StackSize.small) { usleep(pause) }
            release(&derivation)
            if await consumer.value >= 1 { finished += 1 }
        }
        await writer.stop()
        #expect(finished == rounds)  // each consumer got whole values and then the end of its sequence
        #expect(runtime.liveNodeCount == 1)
        #expect(runtime.checkInvariants() == nil)
    }
}

/// Holds the graph on one thread in a batch that runs `write`, runs `drop` (releasing the last reference to a node)
/// on a second thread, waits until `deinitBegan()`, then lets the batch end: its flush happens while the deinit
/// waits for the graph. Returns once both threads are done.
///
/// The thread holding the graph is the one that watches for the deinit, from inside the batch. `deinitBegan()`
/// loads a weak reference, which holds the node for a moment; when the dropping thread lets go during that moment,
/// the watcher's release is the last one and the deinit runs on the watcher. On any other thread that deinit would
/// wait for the graph the batch holds, while the batch waited for the watcher: a deadlock. On the holding thread it
/// leaves the graph at once, inside the batch (that round then does not exercise the race, and still must pass).
private func dropLastReferenceWhileAnotherThreadHoldsTheGraph(
    runtime: Runtime, write: @escaping @Sendable () -> Void, drop: @escaping @Sendable () -> Void,
    deinitBegan: @escaping @Sendable () -> Bool
) async {
    let inBatch = DispatchSemaphore(value: 0)
    let dropStarted = DispatchSemaphore(value: 0)
    async let began: Bool = runOnThread(stackSize: StackSize.small) {
        runtime.batch {
            write()
            inBatch.signal()
            dropStarted.wait()
            // A latch on the deinit's start, bounded only to fail instead of hanging if it never starts.
            let deadline = Date().addingTimeInterval(60)
            while !deinitBegan() {
                if Date() > deadline { return false }
                sched_yield()
            }
            return true
        }
    }
    await runOnThread(stackSize: StackSize.small) { inBatch.wait() }
    await runOnThread(stackSize: StackSize.small) {
        dropStarted.signal()
        drop()
    }
    #expect(await began, "the node's deinit did not begin")
}

/// A weak reference that threads share: set once before the threads start, then only read.
private final class WeakReference<Object: AnyObject>: @unchecked Sendable {
    weak var object: Object?
}
