import Testing
@testable import Ripple

/// A derivation keeps its recompute in one word (`DerivationRecompute`): the usual ones as their function alone, one
/// with a context in a box the derivation owns; and its value in one word (`storage`), or behind it when larger.
@Suite struct DerivationRecomputeTests {
    /// Captured by an equality closure or held by a value, to see when it goes.
    final class Captured: Sendable {}

    /// Sixteen bytes: more than the derivation's inline word, so kept in memory of its own.
    struct TwoWords: Equatable, Sendable {
        let captured: Captured
        let number: Int
        static func == (a: TwoWords, b: TwoWords) -> Bool { a.number == b.number }
    }

    /// A recompute that captures nothing is its function alone, called with no context. (`derive(_:)`'s usual
    /// ones capture nothing where they are specialized, in optimized builds; the debug build that runs these tests
    /// makes them in generic code, which boxes them: `scripts/bench --shape memory` shows the optimized objects.)
    @Test func aRecomputeWithoutAContextIsItsFunctionAloneAndRuns() {
        let runs = RunLog<Int>()
        withIsolatedRuntime {
            let source = atom(1)
            let halved = Derivation<Int>(
                body: { source.value / 2 },
                recompute: { derivation in
                    let next = derivation.body()
                    if derivation.hasValue {
                        if derivation.cached.pointee == next { return false }
                        derivation.cached.pointee = next
                    } else {
                        derivation.storeFirst(next)
                    }
                    return true
                }, label: nil, fileID: "", line: 0)
            #expect(!halved.recompute.isBoxed)
            let effect = Effect { runs.values.append(halved.value) }
            source.value = 0  // 0 / 2 == 1 / 2: no change
            source.value = 4
            #expect(runs.values == [0, 2])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func anOwnEqualityIsBoxedDecidesChangesAndGoesWithTheDerivation() {
        weak var captured: Captured?
        let runs = RunLog<Int>()
        withIsolatedRuntime {
            let tolerance = Captured()
            captured = tolerance
            let celsius = atom(20.0)
            let rounded = derive(equals: { a, b in withExtendedLifetime(tolerance) { abs(a - b) < 0.5 } }) {
                celsius.value
            }
            #expect(rounded.recompute.isBoxed)
            let effect = Effect { runs.values.append(Int(rounded.value * 10)) }
            celsius.value = 20.2
            celsius.value = 21.0
            #expect(runs.values == [200, 210])
            withExtendedLifetime(effect) {}
        }
        #expect(captured == nil)
    }

    @Test func aValueLargerThanAWordIsCachedAndReleasedWithTheDerivation() {
        weak var held: Captured?
        let runs = RunLog<Int>()
        withIsolatedRuntime {
            let number = atom(1)
            let pair = derive { TwoWords(captured: Captured(), number: number.value / 2) }
            #expect(!Derivation<TwoWords>.fitsInline)
            let effect = Effect { runs.values.append(pair.value.number) }
            held = pair.value.captured
            #expect(held != nil)
            number.value = 0  // 0 / 2 == 1 / 2: equal, no change
            number.value = 2
            #expect(runs.values == [0, 1])
            withExtendedLifetime(effect) {}
        }
        #expect(held == nil)
    }
}
