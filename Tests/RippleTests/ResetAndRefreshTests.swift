import Testing

@_spi(Testing) import Ripple

/// `AtomObject.reset()` writes the initial value back like any write; `Derivation.refresh()` runs a body again
/// although nothing it read changed: lazily when unobserved, before the call returns when observed, with the
/// usual equality cut-off and glitch-free readers.
@Suite struct ResetAndRefreshTests {
    @Test func resetWritesTheInitialValueBackAsOneWrite() {
        withIsolatedRuntime {
            let count = atom(3)
            let seen = Recorder<Int>()
            let log = Effect { seen.append(count.value) }
            count.value = 7
            count.value = 8
            count.reset()
            #expect(count.value == 3)
            #expect(seen.values == [3, 7, 8, 3])
            count.reset()  // already the initial value: no write
            #expect(seen.values == [3, 7, 8, 3])
            withExtendedLifetime(log) {}
        }
    }

    @Test func aDeclaredAtomResetsThroughItsProjectedValue() {
        withIsolatedRuntime {
            @Atom var name = "Ada"
            let seen = Recorder<String>()
            let object = $name
            let log = Effect { seen.append(object.value) }
            name = "Grace"
            $name.reset()
            #expect(name == "Ada")
            #expect(seen.values == ["Ada", "Grace", "Ada"])
            withExtendedLifetime(log) {}
        }
    }

    @Test func aResetInsideABatchBackToTheCommittedValueRunsNothing() {
        withIsolatedRuntime {
            let count = atom(1)
            let runs = RunCount()
            let log = Effect {
                _ = count.value
                runs.increment()
            }
            batch {
                count.value = 9
                count.reset()
            }
            #expect(runs.value == 1)
            withExtendedLifetime(log) {}
        }
    }

    /// What the refresh tests observe, made in the current runtime: `total`, the sum of the atom `input` and a value
    /// kept outside the graph (which only a refresh brings in), counting its body's runs in `bodyRuns`; and an effect
    /// `log` recording in `seen` each total it reads.
    private func observedTotal(input initial: Int, outside value: Int) -> (
        input: AtomObject<Int>, outside: Locked<Int>, bodyRuns: RunCount, total: Derivation<Int>, seen: Recorder<Int>,
        log: Effect
    ) {
        let input = atom(initial)
        let outside = Locked(value)
        let bodyRuns = RunCount()
        let total = derive { () -> Int in
            bodyRuns.increment()
            return input.value + outside.withLock { $0 }
        }
        let seen = Recorder<Int>()
        let log = Effect { seen.append(total.value) }
        return (input, outside, bodyRuns, total, seen, log)
    }

    @Test func refreshRunsAnObservedBodyAgainAndItsReadersOnce() {
        withIsolatedRuntime {
            let (_, outside, bodyRuns, total, seen, log) = observedTotal(input: 2, outside: 10)
            outside.withLock { $0 = 20 }
            total.refresh()
            #expect(bodyRuns.value == 2)  // before refresh() returned
            #expect(seen.values == [12, 22])
            #expect(total.value == 22)
            #expect(bodyRuns.value == 2)
            withExtendedLifetime(log) {}
        }
    }

    @Test func anEqualValueAfterARefreshStopsThere() {
        withIsolatedRuntime {
            let input = atom(4)
            let bodyRuns = RunCount()
            let half = derive { () -> Int in
                bodyRuns.increment()
                return input.value / 2
            }
            let readerRuns = RunCount()
            let label = derive { () -> String in
                readerRuns.increment()
                return "half is \(half.value)"
            }
            let effectRuns = RunCount()
            let log = Effect {
                _ = label.value
                effectRuns.increment()
            }
            half.refresh()
            #expect(bodyRuns.value == 2)
            #expect(readerRuns.value == 1)
            #expect(effectRuns.value == 1)
            withExtendedLifetime(log) {}
        }
    }

    @Test func refreshingAnUnobservedDerivationIsLazy() {
        withIsolatedRuntime {
            let bodyRuns = RunCount()
            let stamp = derive { () -> Int in
                bodyRuns.increment()
                return bodyRuns.value
            }
            stamp.refresh()  // never computed: nothing to do
            #expect(bodyRuns.value == 0)
            #expect(stamp.value == 1)
            stamp.refresh()
            stamp.refresh()
            #expect(bodyRuns.value == 1)
            #expect(stamp.value == 2)  // one run for both refreshes
            #expect(stamp.value == 2)
            #expect(bodyRuns.value == 2)
        }
    }

    @Test func aDiamondBelowARefreshIsGlitchFree() {
        withIsolatedRuntime {
            let outside = Locked(1)
            let base = derive { outside.withLock { $0 } }
            let left = derive { base.value * 10 }
            let right = derive { base.value * 100 }
            let pairs = Recorder<[Int]>()
            let log = Effect { pairs.append([left.value, right.value]) }
            outside.withLock { $0 = 2 }
            base.refresh()
            #expect(pairs.values == [[10, 100], [20, 200]])
            withExtendedLifetime(log) {}
        }
    }

    @Test func refreshesInsideABatchComputeOnceWhenItEnds() {
        withIsolatedRuntime {
            let (input, outside, bodyRuns, total, seen, log) = observedTotal(input: 1, outside: 0)
            batch {
                outside.withLock { $0 = 100 }
                total.refresh()
                input.value = 2
                total.refresh()
                #expect(bodyRuns.value == 1)
            }
            #expect(bodyRuns.value == 2)
            #expect(seen.values == [1, 102])
            withExtendedLifetime(log) {}
        }
    }

    @Test func aDeclaredDerivationRefreshesThroughItsProjectedValue() {
        withIsolatedRuntime {
            let outside = Locked("a")
            @Derived var text = outside.withLock { $0 }
            let seen = Recorder<String>()
            let derivation = $text
            let log = Effect { seen.append(derivation.value) }
            outside.withLock { $0 = "b" }
            $text.refresh()
            #expect(seen.values == ["a", "b"])
            withExtendedLifetime(log) {}
        }
    }

    /// What the tracing tests refresh, made in the current runtime: a derivation "value" of a value kept outside
    /// Ripple (starting at 1), and an effect "log" that reads it.
    private func refreshableValueAndItsLog() -> (outside: Locked<Int>, value: Derivation<Int>, log: Effect) {
        let outside = Locked(1)
        let value = derive(label: "value") { outside.withLock { $0 } }
        let log = Effect(label: "log") { _ = value.value }
        return (outside, value, log)
    }

    @Test func aTracerSeesTheRefreshThenTheRecomputeItCaused() {
        withIsolatedRuntime {
            let (outside, value, log) = refreshableValueAndItsLog()
            let events = Recorder<String>()
            let runtime = Runtime.current
            runtime.startTracing { event in
                events.append("\(event.kind) \(event.node) \(event.cause ?? "-") \(event.changed)")
            }
            outside.withLock { $0 = 2 }
            value.refresh()
            value.refresh()  // the same value: a cut-off
            runtime.stopTracing()
            #expect(
                events.values == [
                    "refresh value - true", "recompute value - true", "run log value true",
                    "refresh value - true", "recompute value - false",
                ])
            withExtendedLifetime(log) {}
        }
    }

    @Test func aCausalTraceShowsTheRefreshAsTheRootOfWhatItCaused() {
        withIsolatedRuntime {
            let (outside, value, log) = refreshableValueAndItsLog()
            let trace = CausalTrace()
            Runtime.current.startTracing(trace)
            outside.withLock { $0 = 2 }
            value.refresh()
            Runtime.current.stopTracing()
            #expect(trace.render() == "refresh value\n└ value computed → 2\n  └ log ran: value changed")
            withExtendedLifetime(log) {}
        }
    }

    @Test func refreshingADerivationFromItsOwnBodyTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            withIsolatedRuntime {
                let selfish = Slot<Derivation<Int>>()
                selfish.value = derive(label: "selfish") { () -> Int in
                    selfish.value?.refresh()
                    return 1
                }
                _ = selfish.value?.value
            }
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("derivation selfish was refreshed while it was being computed"), "\(message)")
    }
}
