import Testing
import Ripple

/// Effects triggered by one change or one batch run in creation order, each at
/// most once per flush unless a write made during the flush triggers it again.
@Suite struct EffectOrderTests {
    @Test func effectsTriggeredByOneChangeRunInCreationOrder() {
        withIsolatedRuntime {
            let a = atom(0)
            let d1 = derive { a.value + 1 }
            let d2 = derive { d1.value + 1 }
            let d3 = derive { d2.value + 1 }
            let events = Recorder<String>()
            // Created in an order unrelated to how far each is from `a`.
            let deep = Effect { events.append("deep \(d3.value)") }
            let direct = Effect { events.append("direct \(a.value)") }
            let middle = Effect { events.append("middle \(d1.value)") }
            #expect(events.values == ["deep 3", "direct 0", "middle 1"])

            events.removeAll()
            a.value = 10
            #expect(events.values == ["deep 13", "direct 10", "middle 11"])
            withExtendedLifetime((deep, direct, middle)) {}
        }
    }

    @Test func runningAnEffectExplicitlyKeepsItsPlaceInCreationOrder() {
        withIsolatedRuntime {
            let a = atom(0)
            let events = Recorder<String>()
            let first = Effect { events.append("first \(a.value)") }
            let second = Effect { events.append("second \(a.value)") }
            first.run()
            #expect(events.values == ["first 0", "second 0", "first 0"])

            events.removeAll()
            a.value = 1
            #expect(events.values == ["first 1", "second 1"])
            withExtendedLifetime((first, second)) {}
        }
    }

    @Test func effectsTriggeredByOneBatchRunInCreationOrder() {
        withIsolatedRuntime {
            let a = atom(0)
            let b = atom(0)
            let c = atom(0)
            let events = Recorder<String>()
            let first = Effect { events.append("first c=\(c.value)") }
            let second = Effect { events.append("second b=\(b.value)") }
            let third = Effect { events.append("third a=\(a.value)") }
            events.removeAll()

            batch {
                a.value = 1
                b.value = 2
                c.value = 3
            }
            #expect(events.values == ["first c=3", "second b=2", "third a=1"])
            withExtendedLifetime((first, second, third)) {}
        }
    }

    @Test func effectTriggeredByManyWritesOfOneBatchRunsOnce() {
        withIsolatedRuntime {
            let a = atom(0)
            let b = atom(0)
            let sum = derive { a.value + b.value }
            let events = Recorder<String>()
            let effect = Effect { events.append("a=\(a.value) b=\(b.value) sum=\(sum.value)") }
            batch {
                a.value = 1
                b.value = 2
                a.value = 3
            }
            #expect(events.values == ["a=0 b=0 sum=0", "a=3 b=2 sum=5"])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func effectsTriggeredByAWriteDuringTheFlushRunAfterTheWriterReturns() {
        withIsolatedRuntime {
            let a = atom(0)
            let b = atom(0)
            let events = Recorder<String>()
            let reader = Effect { events.append("reader b=\(b.value)") }
            let writer = Effect {
                let value = a.value
                b.value = value * 10
                events.append("writer a=\(value) reads back b=\(b.value)")
            }
            #expect(events.values == ["reader b=0", "writer a=0 reads back b=0"])

            events.removeAll()
            a.value = 1
            #expect(events.values == ["writer a=1 reads back b=10", "reader b=10"])
            withExtendedLifetime((reader, writer)) {}
        }
    }

    @Test func effectThatAlreadyRanRunsAgainWhenAWriteDuringTheFlushTriggersIt() {
        withIsolatedRuntime {
            let a = atom(0)
            let b = atom(0)
            let events = Recorder<String>()
            let observer = Effect { events.append("observer a=\(a.value) b=\(b.value)") }
            let writer = Effect {
                let value = a.value
                events.append("writer a=\(value)")
                b.value = value * 10
            }
            events.removeAll()

            a.value = 1
            #expect(events.values == ["observer a=1 b=0", "writer a=1", "observer a=1 b=10"])
            withExtendedLifetime((observer, writer)) {}
        }
    }

    @Test func writesInsideAnEffectTriggerEffectsOnceAfterItReturns() {
        withIsolatedRuntime {
            let trigger = atom(0)
            let x = atom(0)
            let y = atom(0)
            let events = Recorder<String>()
            let observer = Effect { events.append("observer x=\(x.value) y=\(y.value)") }
            let writer = Effect {
                let value = trigger.value
                x.value = value
                y.value = value * 2
                events.append("writer done")
            }
            events.removeAll()

            trigger.value = 5
            #expect(events.values == ["writer done", "observer x=5 y=10"])
            withExtendedLifetime((observer, writer)) {}
        }
    }

    @Test func effectCreatedLaterRunsLaterEvenIfCreatedInsideAnotherEffect() {
        withIsolatedRuntime {
            let a = atom(0)
            let events = Recorder<String>()
            let children = Recorder<Effect>()
            let parent = Effect {
                events.append("parent \(a.value)")
                if children.isEmpty {
                    children.append(Effect { events.append("child \(a.value)") })
                }
            }
            let sibling = Effect { events.append("sibling \(a.value)") }
            #expect(events.values == ["parent 0", "child 0", "sibling 0"])

            events.removeAll()
            a.value = 1
            // Creation order: parent, child (created during parent's first run), sibling.
            #expect(events.values == ["parent 1", "child 1", "sibling 1"])
            withExtendedLifetime((parent, sibling)) {}
        }
    }
}
