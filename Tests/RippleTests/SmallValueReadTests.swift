import Observation
import Ripple
import Testing

/// A derivation's value read outside evaluations, for plain values of every size up to a word (copied by one
/// engine call into a register) and past it (copied into a temporary), on the common path and on the general one
/// (inside a batch, under Observation's tracking).
@Suite @MainActor struct SmallValueReadTests {
    struct Three: Equatable { var a: UInt8, b: UInt8, c: UInt8 }
    struct Twelve: Equatable { var a: Int64, b: Int32 }
    struct Empty: Equatable {}
    enum Mode: Equatable { case off, on, auto }

    @Test func valuesUpToAWordAreReadExactly() {
        withIsolatedRuntime {
            let source = atom(1)
            let byte = derive { UInt8(truncatingIfNeeded: source.value * 100) }
            let short = derive { Int16(-300 * source.value) }
            let word32 = derive { Int32(-70_000 * source.value) }
            let flag = derive { source.value % 2 == 1 }
            let real = derive { Double(source.value) / 4 }
            let three = derive { Three(a: UInt8(source.value), b: 0xAB, c: UInt8(source.value + 1)) }
            let mode = derive { [Mode.off, .on, .auto][source.value % 3] }
            let empty = derive { _ = source.value; return Empty() }
            var runs = 0
            let twelve = derive { () -> Twelve in runs += 1; return Twelve(a: -5 * Int64(source.value), b: 7) }
            for value in [1, 2, 3] {
                source.value = value
                #expect(byte.value == UInt8(truncatingIfNeeded: value * 100))
                #expect(short.value == Int16(-300 * value))
                #expect(word32.value == Int32(-70_000 * value))
                #expect(flag.value == (value % 2 == 1))
                #expect(real.value == Double(value) / 4)
                #expect(three.value == Three(a: UInt8(value), b: 0xAB, c: UInt8(value + 1)))
                #expect(mode.value == [Mode.off, .on, .auto][value % 3])
                #expect(empty.value == Empty())
                #expect(twelve.value == Twelve(a: -5 * Int64(value), b: 7))
                #expect(twelve.value == Twelve(a: -5 * Int64(value), b: 7))
            }
            #expect(runs == 3)
        }
    }

    @Test func smallValuesReadInsideABatchSeeTheBatchsWrites() {
        withIsolatedRuntime {
            let source = atom(2)
            let half = derive { Int32(source.value / 2) }
            let odd = derive { source.value % 2 == 1 }
            batch {
                source.value = 9
                #expect(half.value == 4)
                #expect(odd.value == true)
            }
            #expect(half.value == 4)
            #expect(odd.value == true)
        }
    }

    @Test func smallValueReadUnderObservationTrackingIsTracked() {
        withIsolatedRuntime {
            let source = atom(1)
            let tripled = derive { Int16(source.value * 3) }
            let seen = Recorder<Int16>()
            let read = withObservationTracking {
                tripled.value
            } onChange: {
                seen.append(tripled.value)
            }
            #expect(read == 3)
            #expect(seen.values == [])
            source.value = 2
            #expect(seen.values == [6])
            #expect(tripled.value == 6)
        }
    }

    /// The common path's probe does not clear Observation's flag first (`ObservationProbe.mayBeTracking`): a read
    /// right after a tracked one finds it still set and takes the general path, whose probe clears it; reads and
    /// tracking alternate with exact values and notifications.
    @Test func readsAlternatingWithTrackedReadsStayExact() {
        withIsolatedRuntime {
            let source = atom(1)
            let doubled = derive { source.value * 2 }
            let negated = derive { Int32(-source.value) }
            let seen = Recorder<String>()
            let first = withObservationTracking { doubled.value } onChange: { seen.append("doubled") }
            #expect(first == 2)
            #expect(negated.value == -1)
            #expect(doubled.value == 2)
            #expect(negated.value == -1)
            let second = withObservationTracking { negated.value } onChange: { seen.append("negated") }
            #expect(second == -1)
            #expect(doubled.value == 2)
            #expect(seen.values == [])
            source.value = 5
            #expect(seen.values == ["doubled", "negated"])
            #expect(doubled.value == 10)
            #expect(negated.value == -5)
            source.value = 6
            #expect(seen.values == ["doubled", "negated"])
            let third = withObservationTracking { doubled.value } onChange: { seen.append("doubled again") }
            #expect(third == 12)
            source.value = 7
            #expect(seen.values == ["doubled", "negated", "doubled again"])
            #expect(doubled.value == 14)
        }
    }
}
