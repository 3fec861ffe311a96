import RippleBenchShapes
import Testing

/// The `store` row of scripts/bench, run small: both sides reduce every action and call their observer once per
/// change, with the exact count and sum (no timing is checked).
@Suite struct StoreBenchmarkShapeTests {
    @Test func bothSidesReduceEveryActionAndNotifyOncePerChange() {
        let ripple = RippleStore.ripple(actions: 100, samples: 2)
        let hand = RippleStore.handWritten(actions: 100, samples: 2)
        for result in [ripple, hand] {
            #expect(result.failures == [])
            #expect(result.value == 1_200)  // 1,000 warm-up actions and 2 samples of 100
            #expect(result.count == 1_201)  // the first run, then one per action
        }
        let (_, failures) = RippleStore.readNanoseconds(reads: 1_000, samples: 1)
        #expect(failures == [])
        let (_, atomFailures) = RippleStore.atomNanoseconds(actions: 100, samples: 2)
        #expect(atomFailures == [])
    }
}
