import Testing
@_spi(Testing) import Ripple

/// `untracked { }` reads without recording dependencies.
@Suite @MainActor struct UntrackedTests {
    struct Boom: Error {}

    @Test func untrackedReadInAnEffectDoesNotTriggerIt() {
        withIsolatedRuntime {
            let a = atom(0)
            let b = atom(0)
            var seen: [String] = []
            let effect = Effect { seen.append("a=\(a.value) b=\(untracked { b.value })") }
            b.value = 1
            b.value = 2
            #expect(seen == ["a=0 b=0"])

            a.value = 1
            #expect(seen == ["a=0 b=0", "a=1 b=2"])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func untrackedReadInADerivationDoesNotInvalidateIt() {
        withIsolatedRuntime {
            let a = atom(1)
            let b = atom(10)
            var runs = 0
            let sum = derive { () -> Int in
                runs += 1
                return a.value + untracked { b.value }
            }
            var seen: [Int] = []
            let effect = Effect { seen.append(sum.value) }
            b.value = 20
            #expect(runs == 1)
            #expect(sum.value == 11)

            a.value = 2
            #expect(runs == 2)
            #expect(seen == [11, 22])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func untrackedRecordsNoEdge() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            let a = atom(1)
            let effect = Effect { _ = untracked { a.value } }
            #expect(runtime.liveEdgeCount == 0)
            withExtendedLifetime(effect) {}
        }
    }

    @Test func trackingResumesAfterAnUntrackedSection() {
        withIsolatedRuntime {
            let a = atom(0)
            let b = atom(0)
            var runs = 0
            let effect = Effect {
                runs += 1
                untracked { _ = b.value }
                _ = a.value
            }
            b.value = 1
            #expect(runs == 1)
            a.value = 1
            #expect(runs == 2)
            withExtendedLifetime(effect) {}
        }
    }

    @Test func nestedUntrackedSectionsStayUntracked() {
        withIsolatedRuntime {
            let a = atom(0)
            let b = atom(0)
            let c = atom(0)
            var runs = 0
            let effect = Effect {
                runs += 1
                untracked {
                    untracked { _ = a.value }
                    _ = b.value
                }
                _ = c.value
            }
            a.value = 1
            b.value = 1
            #expect(runs == 1)
            c.value = 1
            #expect(runs == 2)
            withExtendedLifetime(effect) {}
        }
    }

    @Test func untrackedReadOfADerivationStillBringsItUpToDate() {
        withIsolatedRuntime {
            let a = atom(1)
            let doubled = derive { a.value * 2 }
            var seen: [Int] = []
            let trigger = atom(0)
            let effect = Effect {
                _ = trigger.value
                seen.append(untracked { doubled.value })
            }
            a.value = 5
            #expect(seen == [2])
            trigger.value = 1
            #expect(seen == [2, 10])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func untrackedReturnsItsValueAndRethrows() {
        withIsolatedRuntime {
            let a = atom(3)
            #expect(untracked { a.value * 2 } == 6)
            #expect(Runtime.current.untracked { a.value + 1 } == 4)
            #expect(throws: Boom.self) {
                try untracked { () throws -> Int in throw Boom() }
            }
        }
    }

    @Test func throwingOutOfUntrackedInsideAnEffectRestoresTracking() {
        withIsolatedRuntime {
            let a = atom(0)
            let b = atom(0)
            var runs = 0
            let effect = Effect {
                runs += 1
                _ = try? untracked { () throws -> Int in
                    _ = b.value
                    throw Boom()
                }
                _ = a.value
            }
            b.value = 1
            #expect(runs == 1)
            a.value = 1
            #expect(runs == 2)
            withExtendedLifetime(effect) {}
        }
    }
}
