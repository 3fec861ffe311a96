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
            let runs = Recorder<String>()
            let parity = derive { () -> Int in runs.append("parity"); return a.value % 2 }
            let label = derive { () -> String in runs.append("label"); return parity.value == 0 ? "even" : "odd" }
            let seen = Recorder<String>()
            let effect = Effect { seen.append(label.value) }
            runs.removeAll()

            a.value = 3
            #expect(runs.values == ["parity"])
            #expect(seen.values == ["odd"])

            a.value = 4
            #expect(runs.values == ["parity", "parity", "label"])
            #expect(seen.values == ["odd", "even"])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func equalRecomputeDoesNotRerunAnEffectReadingItDirectly() {
        withIsolatedRuntime {
            let a = atom(10)
            let isLarge = derive { a.value > 5 }
            let runs = RunCount()
            let effect = Effect { runs.increment(); _ = isLarge.value }
            a.value = 20
            a.value = 30
            #expect(runs.value == 1)
            a.value = 1
            #expect(runs.value == 2)
            withExtendedLifetime(effect) {}
        }
    }

    @Test func derivedWrapperOfEquatableValueCutsOff() {
        withIsolatedRuntime {
            @Atom var count = 1
            @Derived var isOdd = count % 2 == 1
            let downstreamRuns = RunCount()
            let downstream = derive { () -> String in downstreamRuns.increment(); return isOdd ? "odd" : "even" }
            let seen = Recorder<String>()
            let effect = Effect { seen.append(downstream.value) }
            count = 3
            count = 5
            #expect(downstreamRuns.value == 1)
            count = 6
            #expect(downstreamRuns.value == 2)
            #expect(seen.values == ["odd", "even"])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func customEqualityOnAnAtomIgnoresEqualWrites() {
        withIsolatedRuntime {
            let temperature = atom(20.0, equals: { abs($0 - $1) < 0.5 })
            let seen = Recorder<Double>()
            let effect = Effect { seen.append(temperature.value) }

            temperature.value = 20.3
            #expect(temperature.value == 20.0)
            #expect(seen.values == [20.0])

            temperature.value = 21.0
            #expect(temperature.value == 21.0)
            #expect(seen.values == [20.0, 21.0])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func customEqualityMakesANonEquatableAtomUsable() {
        withIsolatedRuntime {
            let point = atom(Point(x: 1, y: 0), equals: { $0.x == $1.x })
            let seen = Recorder<String>()
            let effect = Effect { seen.append("\(point.value.x),\(point.value.y)") }

            point.value = Point(x: 1, y: 9)
            #expect(point.value.y == 0)
            #expect(seen.values == ["1,0"])

            point.value = Point(x: 2, y: 9)
            #expect(seen.values == ["1,0", "2,9"])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func customEqualityOnADerivationCutsOff() {
        withIsolatedRuntime {
            let name = atom("Ripple")
            let shout = derive(equals: { $0.lowercased() == $1.lowercased() }) { name.value }
            let downstreamRuns = RunCount()
            let greeting = derive { () -> Int in downstreamRuns.increment(); return shout.value.count }
            let seen = Recorder<Int>()
            let effect = Effect { seen.append(greeting.value) }

            name.value = "RIPPLE"
            name.value = "ripple"
            #expect(downstreamRuns.value == 1)
            #expect(seen.values == [6])

            name.value = "Ripples"
            #expect(downstreamRuns.value == 2)
            #expect(seen.values == [6, 7])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func customEqualityOnANonEquatableDerivationCutsOff() {
        withIsolatedRuntime {
            let a = atom(11)
            let point = derive(equals: { $0.x == $1.x }) { Point(x: a.value / 10, y: a.value) }
            let seen = Recorder<Int>()
            let effect = Effect { seen.append(point.value.x) }
            a.value = 12
            a.value = 19
            #expect(seen.values == [1])
            a.value = 20
            #expect(seen.values == [1, 2])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func nonEquatableDerivationAlwaysCountsAsChanged() {
        withIsolatedRuntime {
            let a = atom(1)
            let point = derive { Point(x: a.value % 2, y: 0) }
            let seen = Recorder<Int>()
            let effect = Effect { seen.append(point.value.x) }
            a.value = 3
            a.value = 5
            #expect(seen.values == [1, 1, 1])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func nonEquatableDerivedWrapperAlwaysCountsAsChanged() {
        withIsolatedRuntime {
            @Atom var a = 1
            @Derived var point = Point(x: a % 2, y: 0)
            let downstreamRuns = RunCount()
            let downstream = derive { () -> Int in downstreamRuns.increment(); return point.x }
            let effect = Effect { _ = downstream.value }
            a = 3
            a = 5
            #expect(downstreamRuns.value == 3)
            withExtendedLifetime(effect) {}
        }
    }

    @Test func writingAnEqualValueToAnAtomDoesNothing() {
        withIsolatedRuntime {
            let a = atom(7)
            let derivationRuns = RunCount()
            let doubled = derive { () -> Int in derivationRuns.increment(); return a.value * 2 }
            let effectRuns = RunCount()
            let effect = Effect { effectRuns.increment(); _ = doubled.value }
            let unobserved = derive { () -> Int in derivationRuns.increment(by: 100); return a.value }
            #expect(unobserved.value == 7)
            #expect(derivationRuns.value == 101)

            a.value = 7
            #expect(effectRuns.value == 1)
            #expect(unobserved.value == 7)
            #expect(doubled.value == 14)
            #expect(derivationRuns.value == 101)
            withExtendedLifetime(effect) {}
        }
    }

    @Test func writingAnEqualValueThroughTheWrapperDoesNothing() {
        withIsolatedRuntime {
            @Atom var title = "Ripple"
            // The writes go through the wrapper; the effect's Sendable body reads the atom itself, because it
            // cannot capture the local wrapped variable.
            let titleAtom = $title
            let seen = Recorder<String>()
            let effect = Effect { seen.append(titleAtom.value) }
            title = "Ripple"
            batch { title = "Ripple" }
            #expect(seen.values == ["Ripple"])
            withExtendedLifetime(effect) {}
        }
    }

    /// A value larger than a derivation's inline storage (two words), kept in memory of its own.
    struct Wide: Equatable {
        var a = 0, b = 0, c = 0, d = 0, e = 0
    }

    /// An observed derivation is computed by the engine's compute callback itself (no class call): the same
    /// values, runs and cut-offs for every layout of value, inline (an Int, a String), out of line (a struct of
    /// five words), a reference compared with its own equality, and a value without equality.
    @Test func observedDerivationsOfEveryLayoutRecomputeAndCutOff() {
        withIsolatedRuntime {
            let a = atom(1)
            let runs = Recorder<String>()
            let parity = derive { () -> Int in runs.append("int"); return a.value % 2 }
            let text = derive { () -> String in runs.append("string"); return parity.value == 0 ? "even" : "odd" }
            let wide = derive { () -> Wide in runs.append("wide"); return Wide(a: parity.value, e: 7) }
            let box = derive(equals: { $0 === $1 }) { () -> RunCount in runs.append("box"); return RunCount() }
            let point = derive { () -> Point in runs.append("point"); return Point(x: wide.value.a, y: wide.value.e) }
            let seen = Recorder<String>()
            let effect = Effect {
                _ = box.value
                seen.append("\(text.value) \(point.value.x) \(point.value.y)")
            }
            #expect(runs.values == ["box", "string", "int", "point", "wide"])
            #expect(seen.values == ["odd 1 7"])
            runs.removeAll()

            a.value = 3  // parity stays 1: nothing below it runs
            #expect(runs.values == ["int"])
            #expect(seen.values == ["odd 1 7"])

            a.value = 4  // parity changes: each reader recomputes once, the effect runs once
            #expect(runs.values == ["int", "int", "string", "wide", "point"])
            #expect(seen.values == ["odd 1 7", "even 0 7"])
            withExtendedLifetime(effect) {}
        }
    }
}
