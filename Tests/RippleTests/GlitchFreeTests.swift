import Testing
@_spi(Testing) import Ripple

/// After a change each derivation runs at most once, only after what it reads is
/// up to date, and no reader sees a mix of old and new values.
@Suite struct GlitchFreeTests {
    @Test func diamondRecomputesEachNodeOncePerChange() {
        withIsolatedRuntime {
            let a = atom(1, label: "a")
            let runs = Recorder<String>()
            let left = derive(label: "left") { runs.append("left"); return a.value + 1 }
            let right = derive(label: "right") { runs.append("right"); return a.value * 10 }
            let join = derive(label: "join") { runs.append("join"); return left.value + right.value }
            let seen = Recorder<Int>()
            let effect = Effect { seen.append(join.value) }
            #expect(runs.values == ["join", "left", "right"])

            for value in 2...4 {
                runs.removeAll()
                a.value = value
                #expect(runs.values.sorted() == ["join", "left", "right"], "a = \(value)")
            }
            #expect(seen.values == [12, 23, 34, 45])
            #expect(Runtime.current.checkInvariants() == nil)
            withExtendedLifetime(effect) {}
        }
    }

    @Test func diamondJoinSeesOnlyConsistentInputs() {
        withIsolatedRuntime {
            let a = atom(1)
            let left = derive { a.value + 1 }
            let right = derive { a.value * 10 }
            let joinSaw = Recorder<String>()
            let join = derive { () -> Int in
                let l = left.value
                let r = right.value
                joinSaw.append("\(l),\(r)")
                return l + r
            }
            let effect = Effect { _ = join.value }
            a.value = 2
            a.value = 3
            #expect(joinSaw.values == ["2,10", "3,20", "4,30"])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func effectReadingBothSidesOfADiamondSeesOnlyConsistentPairs() {
        withIsolatedRuntime {
            let a = atom(1)
            let left = derive { a.value + 1 }
            let right = derive { a.value * 2 }
            let pairs = Recorder<String>()
            let effect = Effect { pairs.append("\(left.value),\(right.value)") }
            a.value = 2
            a.value = 3
            a.value = 4
            #expect(pairs.values == ["2,2", "3,4", "4,6", "5,8"])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func effectReadingAnAtomAndItsDerivationRunsOnceWithBothNew() {
        withIsolatedRuntime {
            let a = atom(1)
            let tenfold = derive { a.value * 10 }
            let seen = Recorder<String>()
            let effect = Effect { seen.append("a=\(a.value) tenfold=\(tenfold.value)") }
            a.value = 2
            #expect(seen.values == ["a=1 tenfold=10", "a=2 tenfold=20"])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func unevenDiamondJoinRunsOnceAfterTheLongerPathIsUpToDate() {
        withIsolatedRuntime {
            let a = atom(1)
            let runs = Recorder<String>()
            let b = derive { runs.append("b"); return a.value + 1 }
            let c = derive { runs.append("c"); return b.value * 2 }
            let d = derive { runs.append("d"); return c.value + 1 }
            let joinSaw = Recorder<String>()
            let join = derive { () -> Int in
                runs.append("join")
                let direct = a.value
                let through = d.value
                joinSaw.append("\(direct),\(through)")
                return direct + through
            }
            let seen = Recorder<Int>()
            let effect = Effect { seen.append(join.value) }
            runs.removeAll()

            a.value = 2
            #expect(runs.values.sorted() == ["b", "c", "d", "join"])
            a.value = 5
            #expect(joinSaw.values == ["1,5", "2,7", "5,13"])
            #expect(seen.values == [6, 9, 18])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func wideFanInRecomputesTheJoinOnce() {
        withIsolatedRuntime {
            let a = atom(1)
            let parts = (1...10).map { factor in derive { a.value * factor } }
            let joinRuns = RunCount()
            let sum = derive { () -> Int in
                joinRuns.increment()
                return parts.reduce(0) { $0 + $1.value }
            }
            let seen = Recorder<Int>()
            let effect = Effect { seen.append(sum.value) }
            a.value = 2
            a.value = 3
            #expect(joinRuns.value == 3)
            #expect(seen.values == [55, 110, 165])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func batchedWritesToTwoAtomsReachAJoinOnce() {
        withIsolatedRuntime {
            let width = atom(2)
            let height = atom(3)
            let areaRuns = RunCount()
            let area = derive { () -> Int in
                areaRuns.increment()
                return width.value * height.value
            }
            let seen = Recorder<String>()
            let effect = Effect { seen.append("\(width.value)x\(height.value)=\(area.value)") }
            batch {
                width.value = 4
                height.value = 5
            }
            #expect(seen.values == ["2x3=6", "4x5=20"])
            #expect(areaRuns.value == 2)
            withExtendedLifetime(effect) {}
        }
    }

    @Test func unobservedDiamondRecomputesOnceOnRead() {
        withIsolatedRuntime {
            let a = atom(1)
            let runs = Recorder<String>()
            let left = derive { runs.append("left"); return a.value + 1 }
            let right = derive { runs.append("right"); return a.value * 10 }
            let join = derive { runs.append("join"); return left.value + right.value }
            #expect(join.value == 12)
            runs.removeAll()

            a.value = 2
            a.value = 3
            #expect(runs.values == [])
            #expect(join.value == 34)
            #expect(runs.values.sorted() == ["join", "left", "right"])
        }
    }
}
