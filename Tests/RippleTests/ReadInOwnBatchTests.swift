import Observation
import Testing

@_spi(Testing) @testable import Ripple

/// An atom read inside its runtime's batch, outside any evaluation: an unwritten atom is read without the engine's
/// read section (`AtomObject.valueOutsideEvaluation()`), a written one with it. Either way the read sees the latest
/// value, Observation records it, and the batch's effects run once, at its end, with what it wrote.
@Suite struct ReadInOwnBatchTests {
    @Test func readsBeforeAndAfterWritesSeeTheLatestValue() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            let count = atom(1)
            let doubled = derive { count.value * 2 }
            let runs = Recorder<Int>()
            let log = Effect { runs.append(doubled.value) }
            let seen: [Int] = runtime.batch {
                let before = count.value
                count.value += 1
                let after = count.value
                count.value += 1
                return [before, after, count.value, doubled.value]
            }
            #expect(seen == [1, 2, 3, 6])
            #expect(runs.values == [2, 6])
            _ = log
        }
    }

    /// A value written and written back inside the batch, read in between, is no change: the read after the first
    /// write commits it (the section), the one before reads the unwritten atom (no section).
    @Test func aValueWrittenBackAfterAReadIsNoChangeUnlessTheReadFollowedAWrite() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            let count = atom(0)
            let runs = Recorder<Int>()
            let log = Effect { runs.append(count.value) }
            runtime.batch {
                _ = count.value
                count.value = 1
                count.value = 0
            }
            #expect(runs.values == [0])
            runtime.batch {
                count.value = 1
                _ = count.value
                count.value = 0
            }
            #expect(runs.values == [0, 0])
            _ = log
        }
    }

    @Test func aReadInABatchUnderObservationTrackingNotifies() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            let count = atom(1)
            let notified = Recorder<Int>()
            withObservationTracking {
                runtime.batch { _ = count.value }
            } onChange: {
                notified.append(1)
            }
            #expect(notified.values == [])
            count.value = 2
            #expect(notified.values == [1])
        }
    }
}
