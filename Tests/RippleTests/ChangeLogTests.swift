import Testing
import Ripple

/// `Runtime.onChange`: every change of an atom's value, in the order the writes are applied, with the value before
/// and after; nothing for equal writes; nothing once the hook is cancelled or released.
@Suite struct ChangeLogTests {
    @Test func changesArriveInWriteOrderWithOldAndNewValuesAcrossABatch() {
        withIsolatedRuntime {
            let quantity = atom(4, label: "quantity")
            let price = atom(5, label: "price")
            let events = Recorder<String>()
            let effect = Effect { events.append("effect total=\(quantity.value * price.value)") }
            let hook = Runtime.current.onChange { change in events.append(change.description) }
            batch {
                quantity.value = 5
                price.value = 6
                quantity.value = 7
                events.append("batch ends")
            }
            #expect(events.values == [
                "effect total=20",
                "quantity: 4 → 5",
                "price: 5 → 6",
                "quantity: 5 → 7",
                "batch ends",
                "effect total=42",
            ])
            withExtendedLifetime((effect, hook)) {}
        }
    }

    @Test func aChangeNamesItsAtomAndGivesBackTypedValues() {
        withIsolatedRuntime {
            let name = atom("Ada", label: "name")
            let unlabeled = atom([1, 2])
            let changes = RunLog<AtomChange>()
            let hook = Runtime.current.onChange { changes.values.append($0) }
            name.value = "Grace"
            unlabeled.update { $0.append(3) }
            #expect(changes.values.count == 2)
            let first = changes.values[0]
            #expect(first.atom === name)
            #expect(first.label == "name")
            #expect(first.creationSite == name.creationSite)
            #expect(first.oldValue(as: String.self) == "Ada")
            #expect(first.newValue(as: String.self) == "Grace")
            #expect(first.oldValue(as: Int.self) == nil)
            let second = changes.values[1]
            #expect(second.atom === unlabeled)
            #expect(second.label == unlabeled.creationSite)
            #expect(second.oldValue(as: [Int].self) == [1, 2])
            #expect(second.newValue(as: [Int].self) == [1, 2, 3])
            #expect(second.description == "\(unlabeled.label): [1, 2] → [1, 2, 3]")
            withExtendedLifetime(hook) {}
        }
    }

    @Test func anEqualWriteIsNoChangeAndAWriteBackIsTwoChangesThatRunNothing() {
        withIsolatedRuntime {
            let count = atom(0, label: "count")
            let effectRuns = RunCount()
            let effect = Effect { _ = count.value; effectRuns.increment() }
            let changes = Recorder<String>()
            let hook = Runtime.current.onChange { changes.append($0.description) }
            count.value = 0
            #expect(changes.values == [])
            batch {
                count.value = 1
                count.value = 0
            }
            // Each write is reported as applied; the readers see no change at all.
            #expect(changes.values == ["count: 0 → 1", "count: 1 → 0"])
            #expect(effectRuns.value == 1)
            withExtendedLifetime((effect, hook)) {}
        }
    }

    @Test func aWriteMadeByAnEffectIsReportedWhenTheEffectMakesIt() {
        withIsolatedRuntime {
            let source = atom(1, label: "source")
            let doubled = atom(2, label: "doubled")
            let events = Recorder<String>()
            let mirror = Effect {
                let value = source.value
                events.append("mirror runs with \(value)")
                doubled.value = value * 2
                events.append("mirror wrote \(value * 2)")
            }
            let hook = Runtime.current.onChange { events.append($0.description) }
            source.value = 3
            #expect(events.values == [
                "mirror runs with 1",
                "mirror wrote 2",
                "source: 1 → 3",
                "mirror runs with 3",
                "doubled: 2 → 6",
                "mirror wrote 6",
            ])
            withExtendedLifetime((mirror, hook)) {}
        }
    }

    @Test func derivationsAreNotReported() {
        withIsolatedRuntime {
            let base = atom(1, label: "base")
            let tenfold = derive(label: "tenfold") { base.value * 10 }
            let effect = Effect { _ = tenfold.value }
            let changes = Recorder<String>()
            let hook = Runtime.current.onChange { changes.append($0.description) }
            base.value = 2
            #expect(tenfold.value == 20)
            #expect(changes.values == ["base: 1 → 2"])
            withExtendedLifetime((effect, hook)) {}
        }
    }

    @Test func hooksRunInInstallationOrderUntilCancelledOrReleased() {
        withIsolatedRuntime {
            let count = atom(0, label: "count")
            let events = Recorder<String>()
            let first = Runtime.current.onChange { events.append("first \($0)") }
            var second: ChangeHook? = Runtime.current.onChange { events.append("second \($0)") }
            count.value = 1
            second = nil
            count.value = 2
            first.cancel()
            first.cancel()
            count.value = 3
            #expect(events.values == ["first count: 0 → 1", "second count: 0 → 1", "first count: 1 → 2"])
            #expect(second == nil)
        }
    }

    @Test func aHookMayCancelItselfWhileItRuns() {
        withIsolatedRuntime {
            let count = atom(0, label: "count")
            let events = Recorder<String>()
            let hookSlot = Slot<ChangeHook>()
            hookSlot.value = Runtime.current.onChange { change in
                events.append(change.description)
                hookSlot.value?.cancel()
            }
            count.value = 1
            count.value = 2
            #expect(events.values == ["count: 0 → 1"])
        }
    }

    @Test func anInPlaceMutationIsOneChangeShowingTheValueAfter() {
        withIsolatedRuntime {
            final class Box: CustomStringConvertible, @unchecked Sendable {
                var contents = 1
                var description: String { "Box(\(contents))" }
            }
            let box = atom(Box(), equals: { $0 === $1 }, label: "box")
            let changes = Recorder<String>()
            let hook = Runtime.current.onChange { changes.append($0.description) }
            box.value.contents = 2
            Runtime.current.didMutate(box)
            #expect(changes.values == ["box: Box(2) → Box(2)"])
            withExtendedLifetime(hook) {}
        }
    }
}
