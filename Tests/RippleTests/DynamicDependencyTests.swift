import Testing
@_spi(Testing) import Ripple

/// Each run records exactly what that run read; what it no longer reads stops
/// affecting it.
@Suite @MainActor struct DynamicDependencyTests {
    @Test func derivationSwitchesBranchesBackAndForth() {
        withIsolatedRuntime {
            let useA = atom(true)
            let a = atom(1)
            let b = atom(100)
            var runs = 0
            let chosen = derive { () -> Int in
                runs += 1
                return useA.value ? a.value : b.value
            }
            var seen: [Int] = []
            let effect = Effect { seen.append(chosen.value) }

            b.value = 101
            #expect(runs == 1)
            #expect(seen == [1])

            useA.value = false
            #expect(runs == 2)
            #expect(seen == [1, 101])

            a.value = 2
            #expect(runs == 2)
            b.value = 102
            #expect(runs == 3)
            #expect(seen == [1, 101, 102])

            useA.value = true
            #expect(runs == 4)
            #expect(seen == [1, 101, 102, 2])

            b.value = 103
            #expect(runs == 4)
            a.value = 3
            #expect(runs == 5)
            #expect(seen == [1, 101, 102, 2, 3])

            useA.value = false
            #expect(seen == [1, 101, 102, 2, 3, 103])
            #expect(Runtime.current.checkInvariants() == nil)
            withExtendedLifetime(effect) {}
        }
    }

    @Test func effectSwitchesBranchesBackAndForth() {
        withIsolatedRuntime {
            let showDetail = atom(false)
            let summary = atom("summary")
            let detail = atom("detail")
            var shown: [String] = []
            let effect = Effect { shown.append(showDetail.value ? detail.value : summary.value) }

            detail.value = "detail 2"
            #expect(shown == ["summary"])

            showDetail.value = true
            summary.value = "summary 2"
            #expect(shown == ["summary", "detail 2"])

            showDetail.value = false
            detail.value = "detail 3"
            #expect(shown == ["summary", "detail 2", "summary 2"])

            summary.value = "summary 3"
            #expect(shown == ["summary", "detail 2", "summary 2", "summary 3"])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func droppedDependencyNoLongerTriggersAndItsEdgeIsRemoved() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            let includeB = atom(true)
            let a = atom(1)
            let b = atom(10)
            var runs = 0
            let total = derive { () -> Int in
                runs += 1
                return includeB.value ? a.value + b.value : a.value
            }
            var seen: [Int] = []
            let effect = Effect { seen.append(total.value) }
            // total reads includeB, a, b; the effect reads total.
            #expect(runtime.liveEdgeCount == 4)

            includeB.value = false
            #expect(runtime.liveEdgeCount == 3)
            #expect(seen == [11, 1])

            b.value = 20
            b.value = 30
            #expect(runs == 2)
            #expect(seen == [11, 1])

            includeB.value = true
            #expect(runtime.liveEdgeCount == 4)
            #expect(seen == [11, 1, 31])
            #expect(runtime.checkInvariants() == nil)
            withExtendedLifetime(effect) {}
        }
    }

    @Test func dependenciesOfAnUnobservedDerivationFollowItsLastRun() {
        withIsolatedRuntime {
            let useA = atom(true)
            let a = atom(1)
            let b = atom(2)
            var runs = 0
            let chosen = derive { () -> Int in
                runs += 1
                return useA.value ? a.value : b.value
            }
            #expect(chosen.value == 1)
            b.value = 3
            #expect(chosen.value == 1)
            #expect(runs == 1)

            useA.value = false
            #expect(chosen.value == 3)
            a.value = 5
            #expect(chosen.value == 3)
            #expect(runs == 2)
        }
    }

    @Test func dependencyReadOnlyOnSomeRunsStopsTriggeringOnceDropped() {
        withIsolatedRuntime {
            let limit = atom(3)
            let counter = atom(0)
            var seen: [String] = []
            // Reads `limit` only while the counter is below 2.
            let effect = Effect {
                let count = counter.value
                if count < 2 {
                    seen.append("count=\(count) limit=\(limit.value)")
                } else {
                    seen.append("count=\(count)")
                }
            }
            limit.value = 4
            counter.value = 2
            limit.value = 5
            #expect(seen == ["count=0 limit=3", "count=0 limit=4", "count=2"])

            counter.value = 1
            limit.value = 6
            #expect(seen == ["count=0 limit=3", "count=0 limit=4", "count=2", "count=1 limit=5", "count=1 limit=6"])
            withExtendedLifetime(effect) {}
        }
    }
}
