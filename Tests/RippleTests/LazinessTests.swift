import Testing
import Ripple

/// A derivation runs on first read and afterwards only when read after a change;
/// an unobserved derivation costs nothing when its sources are written.
@Suite @MainActor struct LazinessTests {
    @Test func bodyRunsOnFirstReadOnly() {
        withIsolatedRuntime {
            let a = atom(2)
            var runs = 0
            let squared = derive { () -> Int in runs += 1; return a.value * a.value }
            #expect(runs == 0)
            #expect(squared.value == 4)
            #expect(squared.value == 4)
            #expect(squared.value == 4)
            #expect(runs == 1)
        }
    }

    @Test func derivedWrapperBodyRunsOnFirstReadOnly() {
        withIsolatedRuntime {
            @Atom var a = 2
            var runs = 0
            @Derived var squared = { runs += 1; return a * a }()
            #expect(runs == 0)
            #expect(squared == 4)
            #expect(squared == 4)
            #expect(runs == 1)
        }
    }

    @Test func unobservedDerivationDoesNotRunWhenItsSourcesAreWritten() {
        withIsolatedRuntime {
            let a = atom(1)
            var runs = 0
            let doubled = derive { () -> Int in runs += 1; return a.value * 2 }
            #expect(doubled.value == 2)
            for value in 2...10 {
                a.value = value
            }
            #expect(runs == 1)
            #expect(doubled.value == 20)
            #expect(runs == 2)
            #expect(doubled.value == 20)
            #expect(runs == 2)
        }
    }

    @Test func unobservedChainRunsNothingUntilTheEndIsRead() {
        withIsolatedRuntime {
            let a = atom(1)
            var runs: [String] = []
            let first = derive { () -> Int in runs.append("first"); return a.value + 1 }
            let second = derive { () -> Int in runs.append("second"); return first.value * 2 }
            #expect(second.value == 4)
            runs = []

            a.value = 5
            a.value = 6
            #expect(runs == [])
            #expect(second.value == 14)
            #expect(runs.sorted() == ["first", "second"])
        }
    }

    @Test func neverReadDerivationNeverRuns() {
        withIsolatedRuntime {
            let a = atom(1)
            var runs = 0
            let doubled = derive { () -> Int in runs += 1; return a.value * 2 }
            a.value = 2
            a.value = 3
            #expect(runs == 0)
            withExtendedLifetime(doubled) {}
        }
    }

    @Test func derivationBecomesLazyAgainWhenItsEffectIsCancelled() {
        withIsolatedRuntime {
            let a = atom(1)
            var runs = 0
            let doubled = derive { () -> Int in runs += 1; return a.value * 2 }
            let effect = Effect { _ = doubled.value }
            a.value = 2
            #expect(runs == 2)

            effect.cancel()
            a.value = 3
            a.value = 4
            #expect(runs == 2)
            #expect(doubled.value == 8)
            #expect(runs == 3)
        }
    }

    @Test func observingAnUpToDateDerivationDoesNotRecomputeIt() {
        withIsolatedRuntime {
            let a = atom(1)
            var runs = 0
            let doubled = derive { () -> Int in runs += 1; return a.value * 2 }
            #expect(doubled.value == 2)
            var seen: [Int] = []
            let effect = Effect { seen.append(doubled.value) }
            #expect(runs == 1)
            #expect(seen == [2])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func observedDerivationReadManyTimesRecomputesOncePerChange() {
        withIsolatedRuntime {
            let a = atom(1)
            var runs = 0
            let doubled = derive { () -> Int in runs += 1; return a.value * 2 }
            let effect = Effect {
                _ = doubled.value
                _ = doubled.value
            }
            a.value = 2
            #expect(doubled.value == 4)
            #expect(doubled.value == 4)
            #expect(runs == 2)
            withExtendedLifetime(effect) {}
        }
    }

    @Test func derivationRunBringsTheCachedValueUpToDate() {
        withIsolatedRuntime {
            let a = atom(1)
            var runs = 0
            let doubled = derive { () -> Int in runs += 1; return a.value * 2 }
            doubled.run()
            #expect(runs == 1)
            #expect(doubled.value == 2)
            #expect(runs == 1)

            a.value = 5
            doubled.run()
            #expect(runs == 2)
            #expect(doubled.value == 10)
            #expect(runs == 2)
        }
    }
}
