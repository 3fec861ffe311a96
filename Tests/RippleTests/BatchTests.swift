import Testing
import Ripple

/// `batch { }` groups writes: effects run once at the end of the outermost batch.
@Suite struct BatchTests {
    struct Boom: Error, Equatable {}

    @Test func nestedBatchesRunEffectsOnceAtTheOutermostEnd() {
        withIsolatedRuntime {
            let a = atom(0)
            let b = atom(0)
            let events = Recorder<String>()
            let effect = Effect { events.append("effect a=\(a.value) b=\(b.value)") }
            batch {
                a.value = 1
                batch {
                    b.value = 2
                    events.append("inner body")
                }
                events.append("after inner batch")
                batch {
                    a.value = 3
                }
                events.append("after second inner batch")
            }
            events.append("after outer batch")
            #expect(events.values == [
                "effect a=0 b=0",
                "inner body",
                "after inner batch",
                "after second inner batch",
                "effect a=3 b=2",
                "after outer batch",
            ])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func readsInsideABatchSeeTheNewValues() {
        withIsolatedRuntime {
            let a = atom(1)
            let derivationRuns = RunCount()
            let tenfold = derive { () -> Int in derivationRuns.increment(); return a.value * 10 }
            let seen = Recorder<Int>()
            let effect = Effect { seen.append(tenfold.value) }
            batch {
                a.value = 2
                #expect(a.value == 2)
                #expect(tenfold.value == 20)
                #expect(derivationRuns.value == 2)
                a.value = 3
                #expect(tenfold.value == 30)
                #expect(derivationRuns.value == 3)
                #expect(seen.values == [10])
            }
            #expect(seen.values == [10, 30])
            #expect(derivationRuns.value == 3)
            withExtendedLifetime(effect) {}
        }
    }

    @Test func unobservedDerivationRecomputesOnReadInsideABatch() {
        withIsolatedRuntime {
            let a = atom(1)
            let doubled = derive { a.value * 2 }
            #expect(doubled.value == 2)
            batch {
                a.value = 4
                #expect(doubled.value == 8)
            }
            #expect(doubled.value == 8)
        }
    }

    @Test func batchReturnsItsBodysValue() {
        withIsolatedRuntime {
            let a = atom(1)
            let result: String = batch {
                a.value = 2
                return "done \(a.value)"
            }
            #expect(result == "done 2")
            #expect(Runtime.current.batch { 42 } == 42)
        }
    }

    @Test func batchRethrowsAndKeepsWritesMadeBeforeTheThrow() {
        withIsolatedRuntime {
            let a = atom(0)
            let b = atom(0)
            let events = Recorder<String>()
            let effect = Effect { events.append("effect a=\(a.value) b=\(b.value)") }
            #expect(throws: Boom.self) {
                try batch {
                    a.value = 1
                    b.value = 2
                    events.append("before throw")
                    throw Boom()
                }
            }
            #expect(a.value == 1)
            #expect(b.value == 2)
            #expect(events.values == ["effect a=0 b=0", "before throw", "effect a=1 b=2"])

            // The runtime is not left inside a batch: the next write runs effects at once.
            a.value = 5
            #expect(events.values == ["effect a=0 b=0", "before throw", "effect a=1 b=2", "effect a=5 b=2"])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func innerBatchThrowingInsideAnOuterBatchDefersEffectsToTheOuterEnd() {
        withIsolatedRuntime {
            let a = atom(0)
            let events = Recorder<String>()
            let effect = Effect { events.append("effect \(a.value)") }
            batch {
                do {
                    try batch {
                        a.value = 1
                        throw Boom()
                    }
                } catch {
                    events.append("caught")
                }
                events.append("outer continues")
            }
            #expect(events.values == ["effect 0", "caught", "outer continues", "effect 1"])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func valueWrittenBackInsideABatchIsNoChange() {
        withIsolatedRuntime {
            let a = atom(1)
            let derivationRuns = RunCount()
            let doubled = derive { () -> Int in derivationRuns.increment(); return a.value * 2 }
            let effectRuns = RunCount()
            let direct = Effect { effectRuns.increment(); _ = a.value }
            let throughDerivation = Effect { effectRuns.increment(); _ = doubled.value }
            #expect(effectRuns.value == 2)
            #expect(derivationRuns.value == 1)

            batch {
                a.value = 2
                a.value = 3
                a.value = 1
            }
            #expect(effectRuns.value == 2)
            #expect(derivationRuns.value == 1)
            #expect(a.value == 1)
            #expect(doubled.value == 2)
            withExtendedLifetime((direct, throughDerivation)) {}
        }
    }

    /// The commit compares the atom's values only after more than one write since the last commit: after one, the
    /// write's own comparison found the change. Each batch's outcome is the same either way.
    @Test func theCommitComparesAgainOnlyAfterMoreThanOneWrite() {
        withIsolatedRuntime {
            let comparisons = RunCount()
            let a = atom(1, equals: { (x: Int, y: Int) in comparisons.increment(); return x == y })
            let effectRuns = RunCount()
            let effect = Effect { effectRuns.increment(); _ = a.value }
            #expect(effectRuns.value == 1)

            batch { a.value = 2 }  // the write's comparison only
            #expect(comparisons.value == 1)
            #expect(effectRuns.value == 2)

            batch {  // two writes, then the commit's comparison: 3 against 2, a change
                a.value = 1
                a.value = 3
            }
            #expect(comparisons.value == 4)
            #expect(effectRuns.value == 3)

            batch {  // written back: the commit finds no change
                a.value = 4
                a.value = 3
            }
            #expect(comparisons.value == 7)
            #expect(effectRuns.value == 3)

            a.value = 3  // equal: no write, no commit
            #expect(comparisons.value == 8)
            a.value = 1  // outside a batch: one write, one commit that does not compare
            #expect(comparisons.value == 9)
            #expect(effectRuns.value == 4)
            #expect(a.value == 1)
            withExtendedLifetime(effect) {}
        }
    }

    @Test func effectCreatedInsideABatchRunsAtOnceAndLaterChangesWaitForTheEnd() {
        withIsolatedRuntime {
            let a = atom(0)
            let events = Recorder<String>()
            let effect: Effect = batch {
                let effect = Effect { events.append("effect \(a.value)") }
                events.append("created")
                a.value = 1
                events.append("written")
                return effect
            }
            #expect(events.values == ["effect 0", "created", "written", "effect 1"])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func batchInsideAnEffectDefersToTheEndOfTheEffect() {
        withIsolatedRuntime {
            let trigger = atom(0)
            let a = atom(0)
            let b = atom(0)
            let events = Recorder<String>()
            let observer = Effect { events.append("observer a=\(a.value) b=\(b.value)") }
            let writer = Effect {
                let value = trigger.value
                batch {
                    a.value = value
                    b.value = value
                }
                events.append("writer after batch")
            }
            events.removeAll()
            trigger.value = 7
            #expect(events.values == ["writer after batch", "observer a=7 b=7"])
            withExtendedLifetime((observer, writer)) {}
        }
    }

    @Test func runtimeBatchUsesThatRuntime() {
        let runtime = Runtime()
        withIsolatedRuntime(using: runtime) {
            let a = atom(0)
            let seen = Recorder<Int>()
            let effect = Effect { seen.append(a.value) }
            runtime.batch {
                a.value = 1
                a.value = 2
            }
            #expect(seen.values == [0, 2])
            withExtendedLifetime(effect) {}
        }
    }
}
