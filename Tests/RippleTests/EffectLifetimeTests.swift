import Testing
@_spi(Testing) import Ripple

/// An effect runs while it is strongly referenced and not cancelled, and a live
/// effect keeps alive everything it depends on.
@Suite @MainActor struct EffectLifetimeTests {
    @Test func effectRunsOnceSynchronouslyWhenCreated() {
        withIsolatedRuntime {
            var runs = 0
            let effect = Effect { runs += 1 }
            #expect(runs == 1)
            #expect(!effect.isCancelled)
        }
    }

    @Test func cancelStopsAtOnce() {
        withIsolatedRuntime {
            let a = atom(0)
            var seen: [Int] = []
            let effect = Effect { seen.append(a.value) }
            a.value = 1
            effect.cancel()
            #expect(effect.isCancelled)
            a.value = 2
            #expect(seen == [0, 1])
        }
    }

    @Test func cancelIsIdempotent() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            let a = atom(0)
            var runs = 0
            let effect = Effect { runs += 1; _ = a.value }
            effect.cancel()
            effect.cancel()
            a.value = 1
            #expect(runs == 1)
            #expect(effect.isCancelled)
            #expect(runtime.liveEdgeCount == 0)
            #expect(runtime.checkInvariants() == nil)
        }
    }

    @Test func cancelInsideABatchStopsThePendingRun() {
        withIsolatedRuntime {
            let a = atom(0)
            var seen: [Int] = []
            let effect = Effect { seen.append(a.value) }
            batch {
                a.value = 1
                effect.cancel()
            }
            #expect(seen == [0])
        }
    }

    @Test func runRunsTheBodyNow() {
        withIsolatedRuntime {
            let a = atom(0)
            var seen: [Int] = []
            let effect = Effect { seen.append(a.value) }
            effect.run()
            #expect(seen == [0, 0])
            a.value = 1
            #expect(seen == [0, 0, 1])
        }
    }

    @Test func releasingTheLastReferenceStopsItSynchronously() {
        withIsolatedRuntime {
            let a = atom(0)
            var seen: [Int] = []
            var effect: Effect? = Effect { seen.append(a.value) }
            weak let weakEffect = effect
            a.value = 1
            release(&effect)
            #expect(weakEffect == nil)
            a.value = 2
            #expect(seen == [0, 1])
        }
    }

    @Test func discardedEffectRunsOnceAndStops() {
        withIsolatedRuntime {
            let a = atom(0)
            var seen: [Int] = []
            _ = Effect { seen.append(a.value) }
            a.value = 1
            #expect(seen == [0])
            #expect(Runtime.current.liveNodeCount == 1)
        }
    }

    @Test func effectCanCancelItselfInsideItsBody() {
        withIsolatedRuntime {
            let a = atom(0)
            var seen: [Int] = []
            let me = WeakBox<Effect>()
            let effect = Effect {
                let value = a.value
                seen.append(value)
                if value == 2 {
                    me.object?.cancel()
                }
            }
            me.object = effect
            a.value = 1
            a.value = 2
            #expect(effect.isCancelled)
            a.value = 3
            #expect(seen == [0, 1, 2])
        }
    }

    @Test func aBodyThatCancelsItsOwnEffectIsReleasedWhenTheRunEnds() {
        withIsolatedRuntime {
            let a = atom(0)
            let me = WeakBox<Effect>()
            var captured: CapturedByBody? = CapturedByBody()
            let watch = WeakBox(captured)
            var aliveAfterCancel: [Bool] = []
            let effect = Effect { [captured] in
                withExtendedLifetime(captured) {}
                if a.value == 1 {
                    me.object?.cancel()
                    aliveAfterCancel.append(watch.object != nil)
                }
            }
            me.object = effect
            captured = nil
            #expect(watch.object != nil)  // the body holds it
            a.value = 1
            #expect(aliveAfterCancel == [true])  // still running: not released by cancel()
            #expect(watch.object == nil)  // released when the run ended
            #expect(effect.isCancelled)
        }
    }

    @Test func effectsCreatedInsideAnotherEffectAreNotOwnedByIt() {
        withIsolatedRuntime {
            let outerTrigger = atom(0)
            let innerTrigger = atom(0)
            var events: [String] = []
            var children: [Effect] = []
            let outer = Effect {
                let value = outerTrigger.value
                events.append("outer \(value)")
                if children.isEmpty {
                    children.append(Effect { events.append("inner \(innerTrigger.value)") })
                }
            }
            #expect(events == ["outer 0", "inner 0"])

            // The inner effect's reads are its own: they do not re-run the outer one.
            innerTrigger.value = 1
            #expect(events == ["outer 0", "inner 0", "inner 1"])

            // Re-running the outer effect leaves the inner one running.
            outerTrigger.value = 1
            innerTrigger.value = 2
            #expect(events == ["outer 0", "inner 0", "inner 1", "outer 1", "inner 2"])

            // Cancelling the outer effect leaves the inner one running.
            outer.cancel()
            innerTrigger.value = 3
            #expect(events == ["outer 0", "inner 0", "inner 1", "outer 1", "inner 2", "inner 3"])
            #expect(!children[0].isCancelled)
        }
    }

    @Test func liveEffectKeepsItsUpstreamAliveAfterTheUserDropsReferences() {
        withIsolatedRuntime {
            var source: AtomObject<Int>? = atom(1, label: "source")
            var doubled: Derivation<Int>? = { [source] in
                let source = source!
                return derive(label: "doubled") { source.value * 2 }
            }()
            weak let weakSource = source
            weak let weakDoubled = doubled
            var seen: [Int] = []
            // The effect refers to the derivation weakly: only the graph keeps it alive.
            let effect = Effect { seen.append(weakDoubled?.value ?? -1) }
            source = nil
            doubled = nil
            #expect(weakSource != nil)
            #expect(weakDoubled != nil)

            weakSource?.value = 5
            #expect(seen == [2, 10])

            effect.cancel()
            #expect(weakDoubled == nil)
            #expect(weakSource == nil)
        }
    }

    @Test func liveEffectKeepsAnAtomItReadsDirectlyAlive() {
        withIsolatedRuntime {
            var source: AtomObject<String>? = atom("a")
            weak let weakSource = source
            var seen: [String] = []
            var effect: Effect? = Effect { seen.append(weakSource?.value ?? "gone") }
            source = nil
            #expect(weakSource != nil)
            weakSource?.value = "b"
            #expect(seen == ["a", "b"])

            release(&effect)
            #expect(weakSource == nil)
            #expect(Runtime.current.liveNodeCount == 0)
        }
    }

    @Test func liveEffectKeepsALongChainAlive() {
        withIsolatedRuntime {
            let source = atom(0)
            var seen: [Int] = []
            weak var weakLast: Derivation<Int>?
            var effect: Effect? = {
                // Only this scope refers to the chain; the effect refers to its end weakly.
                var previous = derive { source.value + 1 }
                for _ in 0..<9 {
                    let upstream = previous
                    previous = derive { upstream.value + 1 }
                }
                weakLast = previous
                return Effect { seen.append(weakLast?.value ?? -1) }
            }()
            #expect(weakLast != nil)
            source.value = 5
            #expect(seen == [10, 15])
            #expect(Runtime.current.liveNodeCount == 12)

            release(&effect)
            #expect(weakLast == nil)
            #expect(Runtime.current.liveNodeCount == 1)
            #expect(Runtime.current.liveEdgeCount == 0)
        }
    }
}

/// An object captured by an effect's body, to see when the body is released.
private final class CapturedByBody {}
