import Testing
import Ripple

/// A recomputation or write that produces an equal value is not a change.
@Suite struct EqualityCutoffTests {
    /// A value type that is deliberately not `Equatable`.
    struct Point {
        var x: Int
        var y: Int
    }

    @Test func equalRecomputeStopsDownstream() {
        withIsolatedRuntime {
            let a = atom(1)
            var runs: [String] = []
            let parity = derive { () -> Int in runs.append("parity"); return a.value % 2 }
            let label = derive { () -> String in runs.append("label"); return parity.value == 0 ? "even" : "odd" }
            var seen: [String] = []
            let effect = Effect { seen.append(label.value) }
            runs = []

            a.value = 3
            #expect(runs == ["parity"])
            #expect(seen == ["odd"])

            a.value = 4
            #expect(runs == ["parity", "parity", "label"])
            #expect(seen == ["odd", "even"])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func equalRecomputeDoesNotRerunAnEffectReadingItDirectly() {
        withIsolatedRuntime {
            let a = atom(10)
            let isLarge = derive { a.value > 5 }
            var runs = 0
            let effect = Effect { runs += 1; _ = isLarge.value }
            a.value = 20
            a.value = 30
            #expect(runs == 1)
            a.value = 1
            #expect(runs == 2)
            withExtendedLifetime(effect) {}
        }
    }

    @Test func derivedWrapperOfEquatableValueCutsOff() {
        withIsolatedRuntime {
            @Atom var count = 1
            @Derived var isOdd = count % 2 == 1
            var downstreamRuns = 0
            let downstream = derive { () -> String in downstreamRuns += 1; return isOdd ? "odd" : "even" }
            var seen: [String] = []
            let effect = Effect { seen.append(downstream.value) }
            count = 3
            count = 5
            #expect(downstreamRuns == 1)
            count = 6
            #expect(downstreamRuns == 2)
            #expect(seen == ["odd", "even"])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func customEqualityOnAnAtomIgnoresEqualWrites() {
        withIsolatedRuntime {
            let temperature = atom(20.0, equals: { abs($0 - $1) < 0.5 })
            var seen: [Double] = []
            let effect = Effect { seen.append(temperature.value) }

            temperature.value = 20.3
            #expect(temperature.value == 20.0)
            #expect(seen == [20.0])

            temperature.value = 21.0
            #expect(temperature.value == 21.0)
            #expect(seen == [20.0, 21.0])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func customEqualityMakesANonEquatableAtomUsable() {
        withIsolatedRuntime {
            let point = atom(Point(x: 1, y: 0), equals: { $0.x == $1.x })
            var seen: [String] = []
            let effect = Effect { seen.append("\(point.value.x),\(point.value.y)") }

            point.value = Point(x: 1, y: 9)
            #expect(point.value.y == 0)
            #expect(seen == ["1,0"])

            point.value = Point(x: 2, y: 9)
            #expect(seen == ["1,0", "2,9"])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func customEqualityOnADerivationCutsOff() {
        withIsolatedRuntime {
            let name = atom("Ripple")
            let shout = derive(equals: { $0.lowercased() == $1.lowercased() }) { name.value }
            var downstreamRuns = 0
            let greeting = derive { () -> Int in downstreamRuns += 1; return shout.value.count }
            var seen: [Int] = []
            let effect = Effect { seen.append(greeting.value) }

            name.value = "RIPPLE"
            name.value = "ripple"
            #expect(downstreamRuns == 1)
            #expect(seen == [6])

            name.value = "Ripples"
            #expect(downstreamRuns == 2)
            #expect(seen == [6, 7])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func customEqualityOnANonEquatableDerivationCutsOff() {
        withIsolatedRuntime {
            let a = atom(11)
            let point = derive(equals: { $0.x == $1.x }) { Point(x: a.value / 10, y: a.value) }
            var seen: [Int] = []
            let effect = Effect { seen.append(point.value.x) }
            a.value = 12
            a.value = 19
            #expect(seen == [1])
            a.value = 20
            #expect(seen == [1, 2])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func nonEquatableDerivationAlwaysCountsAsChanged() {
        withIsolatedRuntime {
            let a = atom(1)
            let point = derive { Point(x: a.value % 2, y: 0) }
            var seen: [Int] = []
            let effect = Effect { seen.append(point.value.x) }
            a.value = 3
            a.value = 5
            #expect(seen == [1, 1, 1])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func nonEquatableDerivedWrapperAlwaysCountsAsChanged() {
        withIsolatedRuntime {
            @Atom var a = 1
            @Derived var point = Point(x: a % 2, y: 0)
            var downstreamRuns = 0
            let downstream = derive { () -> Int in downstreamRuns += 1; return point.x }
            let effect = Effect { _ = downstream.value }
            a = 3
            a = 5
            #expect(downstreamRuns == 3)
            withExtendedLifetime(effect) {}
        }
    }

    @Test func writingAnEqualValueToAnAtomDoesNothing() {
        withIsolatedRuntime {
            let a = atom(7)
            var derivationRuns = 0
            let doubled = derive { () -> Int in derivationRuns += 1; return a.value * 2 }
            var effectRuns = 0
            let effect = Effect { effectRuns += 1; _ = doubled.value }
            let unobserved = derive { () -> Int in derivationRuns += 100; return a.value }
            #expect(unobserved.value == 7)
            #expect(derivationRuns == 101)

            a.value = 7
            #expect(effectRuns == 1)
            #expect(unobserved.value == 7)
            #expect(doubled.value == 14)
            #expect(derivationRuns == 101)
            withExtendedLifetime(effect) {}
        }
    }

    @Test func writingAnEqualValueThroughTheWrapperDoesNothing() {
        withIsolatedRuntime {
            @Atom var title = "Ripple"
            var seen: [String] = []
            let effect = Effect { seen.append(title) }
            title = "Ripple"
            batch { title = "Ripple" }
            #expect(seen == ["Ripple"])
            withExtendedLifetime(effect) {}
        }
    }
}
