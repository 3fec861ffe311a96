import Dispatch
import Foundation
import Testing
@_spi(Testing) import Ripple

/// Ending a `values` iteration while other threads write: cancelling the consumer's task or dropping its iterator
/// never waits for the graph while a lock the graph's holder needs is held, and always removes the observer.
///
/// Each test drives its rounds on a thread of its own and fails (instead of hanging the suite) when they do not
/// return within a generous bound: a deadlock leaves that thread stuck for good.
@Suite(.serialized) struct NodeValuesCancellationTests {
    /// How long the rounds may take before the test reports a deadlock. Only a failure guard: the rounds take well
    /// under a second when nothing is stuck, under ThreadSanitizer too.
    static let deadlockBound: Double = 60

    /// The cancelling thread holds the task's status lock while the stream's termination runs; the writer holds
    /// the graph while the observer's `yield` resumes the consumer, which needs that lock.
    @Test func cancellingTheConsumerWhileAnotherThreadWritesEndsItAndRemovesTheObserver() async {
        let rounds = 200
        let runtime = Runtime()
        let count = inRuntime(runtime) { atom(0) }
        let baseNodes = runtime.liveNodeCount
        let writer = BackgroundIncrements(of: count)
        let finished = Locked(0)
        let violations = Violations()
        let returned = await returnsInTime(seconds: Self.deadlockBound) {
            var random = SplitMix64(seed: 15)
            for _ in 0..<rounds {
                let consumerEnded = DispatchSemaphore(value: 0)
                let consumer = Task.detached {
                    var last = -1
                    for await value in count.values {
                        if value <= last { violations.record("values went from \(last) to \(value)") }
                        last = value
                    }
                    finished.withLock { $0 += 1 }
                    consumerEnded.signal()
                }
                usleep(UInt32(random.next() % 300))
                consumer.cancel()
                consumerEnded.wait()
            }
        }
        #expect(returned, "cancelling a values consumer while another thread writes deadlocked the runtime")
        guard returned else { return }  // the writer is stuck behind the deadlock: do not wait for it
        await writer.stop()
        #expect(finished.withLock { $0 } == rounds)
        #expect(violations.messages == [])
        // Every loop ended with its task: each observer left the graph before its loop returned.
        #expect(runtime.liveNodeCount == baseNodes)
        #expect(runtime.liveEdgeCount == 0)
        #expect(runtime.checkInvariants() == nil)
    }

    /// A consumer that breaks out of its loop drops its iterator on its own task: the observer goes with it.
    @Test func breakingOutOfTheLoopWhileAnotherThreadWritesRemovesTheObserver() async {
        let rounds = 200
        let runtime = Runtime()
        let count = inRuntime(runtime) { atom(0) }
        let baseNodes = runtime.liveNodeCount
        let writer = BackgroundIncrements(of: count)
        let returned = await returnsInTime(seconds: Self.deadlockBound) {
            for round in 0..<rounds {
                let consumerEnded = DispatchSemaphore(value: 0)
                Task.detached {
                    var received = 0
                    for await _ in count.values {
                        received += 1
                        if received == 1 + round % 3 { break }
                    }
                    consumerEnded.signal()
                }
                consumerEnded.wait()
            }
        }
        #expect(returned, "ending a values loop while another thread writes deadlocked the runtime")
        guard returned else { return }
        await writer.stop()
        #expect(runtime.liveNodeCount == baseNodes)
        #expect(runtime.liveEdgeCount == 0)
        #expect(runtime.checkInvariants() == nil)
    }

    /// Cancelled while waiting, with no writer: `next()` returns nil at once and the observer is gone by then.
    @Test func cancelledConsumerGetsNilAndLeavesNoObserver() async {
        let runtime = Runtime()
        let count = inRuntime(runtime) { atom(7) }
        let firstValue = DispatchSemaphore(value: 0)
        let consumer = Task.detached {
            var received: [Int] = []
            for await value in count.values {
                received.append(value)
                firstValue.signal()
            }
            return received
        }
        await runOnThread(stackSize: StackSize.small) { firstValue.wait() }
        #expect(runtime.liveNodeCount == 2)  // the atom and the observer
        consumer.cancel()
        #expect(await consumer.value == [7])
        #expect(runtime.liveNodeCount == 1)
        count.value = 8  // no observer left to run
        #expect(runtime.liveNodeCount == 1)
        #expect(runtime.checkInvariants() == nil)
    }
}
