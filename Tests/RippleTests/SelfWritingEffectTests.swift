import Testing
@_spi(Testing) import Ripple

/// An effect that writes what it reads runs again until the graph is stable; a
/// derivation that writes one of its own dependencies is left stale by the write.
@Suite @MainActor struct SelfWritingEffectTests {
    @Test func effectWritingItsOwnDependencyRunsUntilStable() {
        withIsolatedRuntime {
            let a = atom(0)
            var seen: [Int] = []
            let effect = Effect {
                let value = a.value
                seen.append(value)
                if value < 5 {
                    a.value = value + 1
                }
            }
            #expect(seen == [0, 1, 2, 3, 4, 5])
            #expect(a.value == 5)

            a.value = 3
            #expect(seen == [0, 1, 2, 3, 4, 5, 3, 4, 5])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func effectClampingItsOwnDependencyRunsTwice() {
        withIsolatedRuntime {
            let volume = atom(5)
            var seen: [Int] = []
            let clamp = Effect {
                let value = volume.value
                seen.append(value)
                if value > 10 {
                    volume.value = 10
                }
            }
            volume.value = 15
            #expect(seen == [5, 15, 10])
            #expect(volume.value == 10)
            withExtendedLifetime(clamp) {}
        }
    }

    @Test func twoEffectsFeedingEachOtherRunUntilStable() {
        withIsolatedRuntime {
            let x = atom(0)
            let y = atom(0)
            var events: [String] = []
            let first = Effect {
                let value = x.value
                events.append("first x=\(value)")
                y.value = value + 1
            }
            let second = Effect {
                let value = y.value
                events.append("second y=\(value)")
                x.value = min(value, 5)
            }
            #expect(events == [
                "first x=0", "second y=1",
                "first x=1", "second y=2",
                "first x=2", "second y=3",
                "first x=3", "second y=4",
                "first x=4", "second y=5",
                "first x=5", "second y=6",
            ])
            #expect(x.value == 5)
            #expect(y.value == 6)
            withExtendedLifetime((first, second)) {}
        }
    }

    @Test func selfWritingEffectWithinTheSettleBoundSettles() {
        withIsolatedRuntime(using: Runtime(settleBound: 10)) {
            let a = atom(0)
            var runs = 0
            let effect = Effect {
                runs += 1
                let value = a.value
                if value < 7 {
                    a.value = value + 1
                }
            }
            #expect(runs == 8)
            a.value = 0
            #expect(runs == 16)
            withExtendedLifetime(effect) {}
        }
    }

    @Test func derivationWritingItsOwnDependencyIsLeftStaleAndRecomputesOnNextRead() {
        withIsolatedRuntime {
            let a = atom(0)
            var runs = 0
            let counter = derive { () -> Int in
                runs += 1
                let value = a.value
                if value < 2 {
                    a.value = value + 1
                }
                return value
            }
            #expect(counter.value == 0)
            #expect(a.value == 1)
            #expect(counter.value == 1)
            #expect(a.value == 2)
            #expect(counter.value == 2)
            #expect(counter.value == 2)
            #expect(runs == 3)
            #expect(Runtime.current.checkInvariants() == nil)
        }
    }

    @Test func derivationSideWriteIsAppliedAtOnceAndReachesEffects() {
        withIsolatedRuntime {
            let input = atom(1)
            let mirror = atom(0)
            var seen: [Int] = []
            let effect = Effect { seen.append(mirror.value) }
            let doubled = derive { () -> Int in
                let value = input.value * 2
                mirror.value = value
                return value
            }
            #expect(doubled.value == 2)
            #expect(mirror.value == 2)
            #expect(seen == [0, 2])

            input.value = 5
            #expect(seen == [0, 2])
            #expect(doubled.value == 10)
            #expect(seen == [0, 2, 10])
            withExtendedLifetime(effect) {}
        }
    }
}
