import Testing

@testable import Ripple

private let events = Recorder<String>()
private let watched = declare.atom(
    lifecycle: Lifecycle(
        initialized: { events.append("initialized") },
        updated: { old, new in events.append("updated \(old) → \(new)") },
        released: { events.append("released") })
) { 0 }
private let watchedTwice = declare.derived(
    lifecycle: Lifecycle(
        initialized: { events.append("twice initialized") },
        updated: { old, new in events.append("twice \(old) → \(new)") },
        released: { events.append("twice released") })
) { watched.value * 2 }
private let mirror = declare.atom(keepAlive: true) { 0 }
private let mirrored = declare.atom(
    lifecycle: Lifecycle(updated: { _, new in mirror.value = new })
) { 0 }
private let slot = declare.atomFamily(lifecycle: { (key: Int) in
    Lifecycle(initialized: { events.append("slot \(key) initialized") }, released: { events.append("slot \(key) released") })
}) { (key: Int) in key }

/// Lifecycle hooks: initialized, updated (old and new) and released, run after the operation that caused them, in
/// the order their events happened; they may write state.
@Suite(.serialized) struct DeclaredLifecycleTests {
    @Test func hooksRunInTheOrderTheirEventsHappened() {
        events.removeAll()
        withIsolatedRuntime {
            var node: AtomObject<Int>? = watched.node
            #expect(events.values == ["initialized"])
            node?.value = 1
            node?.value = 1  // equal: no update
            node?.value = 2
            #expect(events.values == ["initialized", "updated 0 → 1", "updated 1 → 2"])
            release(&node)  // written: kept although nobody holds it
            #expect(events.values == ["initialized", "updated 0 → 1", "updated 1 → 2"])
            watched.reset()  // unwritten again, and nobody holds it
            #expect(
                events.values == ["initialized", "updated 0 → 1", "updated 1 → 2", "updated 2 → 0", "released"])
        }
    }

    @Test func hooksCausedInsideABatchRunWhenItEnds() {
        events.removeAll()
        withIsolatedRuntime {
            let node = watched.node
            events.removeAll()
            batch {
                node.value = 5
                node.value = 6
                #expect(events.values == [])
            }
            #expect(events.values == ["updated 0 → 5", "updated 5 → 6"])
        }
    }

    @Test func aDerivationReportsRecomputationsThatChangeItsValue() {
        events.removeAll()
        withIsolatedRuntime {
            let show = Effect { _ = watchedTwice.value }
            watched.value = 3
            // The derivation's instance is created first; its first compute creates the atom's.
            #expect(events.values == [
                "twice initialized", "initialized", "updated 0 → 3", "twice 0 → 6",
            ])
            events.removeAll()
            show.cancel()
            #expect(events.values == ["twice released"])  // the atom was written: kept
            watched.reset()
            #expect(events.values == ["twice released", "updated 3 → 0", "released"])
        }
    }

    @Test func aHookMayWriteState() {
        withIsolatedRuntime {
            let node = mirrored.node
            let log = RunLog<Int>()
            let show = Effect { log.values.append(mirror.value) }
            node.value = 7
            #expect(mirror.value == 7)
            #expect(log.values == [0, 7])
            _ = show
        }
    }

    @Test func familyMembersRunTheirOwnHooks() {
        events.removeAll()
        withIsolatedRuntime {
            _ = slot(1).value
            var held: AtomObject<Int>? = slot(2)
            #expect(events.values == ["slot 1 initialized", "slot 1 released", "slot 2 initialized"])
            release(&held)
            #expect(events.values.last == "slot 2 released")
        }
    }
}
