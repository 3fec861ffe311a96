import Testing
import Ripple

/// `onCleanup { }` inside an effect body runs before that effect's next run and
/// when it stops, in registration order.
@Suite @MainActor struct CleanupTests {
    /// An effect that logs "run N" for the value N it read and registers a
    /// cleanup that logs "cleanup N".
    static func loggingEffect(reading source: AtomObject<Int>, into log: RunLog<String>) -> Effect {
        Effect {
            let value = source.value
            log.values.append("run \(value)")
            onCleanup { log.values.append("cleanup \(value)") }
        }
    }

    @Test func cleanupRunsBeforeTheNextRun() {
        withIsolatedRuntime {
            let a = atom(0)
            let log = RunLog<String>()
            let effect = Self.loggingEffect(reading: a, into: log)
            #expect(log.values == ["run 0"])

            a.value = 1
            a.value = 2
            #expect(log.values == ["run 0", "cleanup 0", "run 1", "cleanup 1", "run 2"])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func cleanupsRunInRegistrationOrder() {
        withIsolatedRuntime {
            let a = atom(0)
            var events: [String] = []
            let effect = Effect {
                let value = a.value
                onCleanup { events.append("first \(value)") }
                onCleanup { events.append("second \(value)") }
                onCleanup { events.append("third \(value)") }
                events.append("run \(value)")
            }
            a.value = 1
            effect.cancel()
            #expect(events == [
                "run 0",
                "first 0", "second 0", "third 0",
                "run 1",
                "first 1", "second 1", "third 1",
            ])
        }
    }

    @Test func cleanupRunsOnCancelAtOnceAndOnlyOnce() {
        withIsolatedRuntime {
            let a = atom(0)
            let log = RunLog<String>()
            let effect = Self.loggingEffect(reading: a, into: log)
            effect.cancel()
            #expect(log.values == ["run 0", "cleanup 0"])

            effect.cancel()
            a.value = 1
            #expect(log.values == ["run 0", "cleanup 0"])
        }
    }

    @Test func cleanupRunsWhenTheLastReferenceIsReleased() {
        withIsolatedRuntime {
            let a = atom(0)
            let log = RunLog<String>()
            var effect: Effect? = Self.loggingEffect(reading: a, into: log)
            a.value = 1
            #expect(effect != nil)
            effect = nil
            #expect(log.values == ["run 0", "cleanup 0", "run 1", "cleanup 1"])

            a.value = 2
            #expect(log.values == ["run 0", "cleanup 0", "run 1", "cleanup 1"])
        }
    }

    @Test func cleanupRunsOnceWhenTheEffectCancelsItselfInItsBody() {
        withIsolatedRuntime {
            let a = atom(0)
            var events: [String] = []
            let me = WeakBox<Effect>()
            let effect = Effect {
                let value = a.value
                events.append("run \(value)")
                onCleanup { events.append("cleanup \(value)") }
                if value == 2 {
                    me.object?.cancel()
                }
            }
            me.object = effect
            a.value = 1
            a.value = 2
            a.value = 3
            #expect(effect.isCancelled)
            #expect(events == ["run 0", "cleanup 0", "run 1", "cleanup 1", "run 2", "cleanup 2"])
        }
    }

    @Test func cleanupRegisteredInANestedEffectBelongsToTheNestedEffect() {
        withIsolatedRuntime {
            let outerTrigger = atom(0)
            let innerTrigger = atom(0)
            var events: [String] = []
            var inner: Effect?
            let outer = Effect {
                let value = outerTrigger.value
                events.append("outer run \(value)")
                if inner == nil {
                    inner = Effect {
                        let innerValue = innerTrigger.value
                        events.append("inner run \(innerValue)")
                        onCleanup { events.append("inner cleanup \(innerValue)") }
                    }
                }
                onCleanup { events.append("outer cleanup \(value)") }
            }
            #expect(events == ["outer run 0", "inner run 0"])

            outerTrigger.value = 1
            #expect(events == ["outer run 0", "inner run 0", "outer cleanup 0", "outer run 1"])

            events = []
            innerTrigger.value = 1
            #expect(events == ["inner cleanup 0", "inner run 1"])

            events = []
            outer.cancel()
            #expect(events == ["outer cleanup 1"])
            inner = nil
            #expect(events == ["outer cleanup 1", "inner cleanup 1"])
        }
    }

    /// Which body a cleanup belongs to is the node evaluating when `onCleanup` is called: a derivation the effect's
    /// read computes takes its own, and the effect takes those registered after that read and inside `untracked`.
    @Test func cleanupBelongsToTheBodyRunningWhenItIsRegistered() {
        withIsolatedRuntime {
            let a = atom(0)
            var events: [String] = []
            let doubled = derive {
                let value = a.value
                onCleanup { events.append("derivation cleanup \(value)") }
                return value * 2
            }
            let effect = Effect {
                let value = doubled.value  // computes `doubled` inside this run
                onCleanup { events.append("effect cleanup \(value)") }
                untracked { onCleanup { events.append("untracked cleanup \(value)") } }
            }
            #expect(events.isEmpty)
            a.value = 1
            #expect(events == ["derivation cleanup 0", "effect cleanup 0", "untracked cleanup 0"])
            events = []
            effect.cancel()
            #expect(events == ["effect cleanup 2", "untracked cleanup 2"])
        }
    }

    @Test func cleanupRunsBeforeTheNextRunTriggeredInsideABatch() {
        withIsolatedRuntime {
            let a = atom(0)
            let log = RunLog<String>()
            let effect = Self.loggingEffect(reading: a, into: log)
            batch {
                a.value = 1
                log.values.append("in batch")
                a.value = 2
            }
            #expect(log.values == ["run 0", "in batch", "cleanup 0", "run 2"])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func cleanupMayWriteAtoms() {
        withIsolatedRuntime {
            let a = atom(0)
            let cleanups = atom(0)
            var seen: [Int] = []
            let counter = Effect { seen.append(cleanups.value) }
            let effect = Effect {
                _ = a.value
                onCleanup { cleanups.value = untracked { cleanups.value } + 1 }
            }
            a.value = 1
            a.value = 2
            #expect(cleanups.value == 2)
            #expect(seen == [0, 1, 2])
            withExtendedLifetime((counter, effect)) {}
        }
    }
}
