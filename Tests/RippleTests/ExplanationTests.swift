import Ripple
import Testing

/// "Why didn't it run?": each reason `Runtime.explain(_:since:)` gives, compared as whole text, with the nodes
/// named by label and creation site.
@Suite struct ExplanationTests {
    /// Where a node made on the caller's line was created, as `RippleNode.creationSite` says it.
    private func site(_ line: Int = #line) -> String { "RippleTests/ExplanationTests.swift:\(line)" }

    @Test func anEffectThatRanGivesItsLineOfTheTrace() {
        withIsolatedRuntime {
            let quantity = atom(4, label: "quantity")
            let (display, displaySite) = (Effect(label: "display") { _ = quantity.value }, site())
            let trace = CausalTrace()
            Runtime.current.startTracing(trace)
            quantity.value = 5
            #expect(Runtime.current.explain(display, since: trace).description == """
                display (\(displaySite)) ran; the trace shows: display ran: quantity changed
                """)
        }
    }

    @Test func nothingWrittenSinceTheTraceStarted() {
        withIsolatedRuntime {
            let quantity = atom(4, label: "quantity")
            let (display, displaySite) = (Effect(label: "display") { _ = quantity.value }, site())
            let trace = CausalTrace()
            Runtime.current.startTracing(trace)
            #expect(Runtime.current.explain(display, since: trace).reason == .nothingWritten)
            #expect(Runtime.current.explain(display, since: trace).description == """
                display (\(displaySite)) did not run: nothing was written since the trace started
                """)
        }
    }

    @Test func anEffectThatDoesNotDependOnTheWriteNamesWhatItReads() {
        withIsolatedRuntime {
            let (quantity, quantitySite) = (atom(4, label: "quantity"), site())
            let (price, priceSite) = (atom(3, label: "price"), site())
            let (display, displaySite) = (
                Effect(label: "display") { _ = price.value + untracked { quantity.value } }, site()
            )
            let trace = CausalTrace()
            Runtime.current.startTracing(trace)
            quantity.value = 5
            let explanation = Runtime.current.explain(display, since: trace)
            #expect(explanation.description == """
                display (\(displaySite)) did not run: it does not depend on what was written (quantity \
                (\(quantitySite))); it reads price (\(priceSite)) (a read inside untracked { } or of a captured \
                value is no dependency)
                """)
            #expect(explanation.reason == .independent(
                written: ["quantity (\(quantitySite))"], reads: ["price (\(priceSite))"]))
        }
    }

    @Test func anEqualityCutOffUpstreamNamesTheNodeAndItsValues() {
        withIsolatedRuntime {
            let quantity = atom(4, label: "quantity")
            let (expensive, expensiveSite) = (derive(label: "expensive") { quantity.value > 100 }, site())
            let (warning, warningSite) = (Effect(label: "warning") { _ = expensive.value }, site())
            let trace = CausalTrace()
            Runtime.current.startTracing(trace)
            quantity.value = 5
            quantity.value = 6
            #expect(Runtime.current.explain(warning, since: trace).description == """
                warning (\(warningSite)) did not run: an equality cut-off at expensive (\(expensiveSite)) stopped \
                the change (false → false, equal)
                """)
        }
    }

    @Test func aDerivationNobodyObservesIsLazy() {
        withIsolatedRuntime {
            let quantity = atom(4, label: "quantity")
            let (total, totalSite) = (derive(label: "total") { quantity.value * 2 }, site())
            let trace = CausalTrace()
            #expect(total.value == 8)  // computed once: it now reads quantity
            Runtime.current.startTracing(trace)
            quantity.value = 5
            #expect(Runtime.current.explain(total, since: trace).description == """
                total (\(totalSite)) did not recompute: no effect observes it, so it is lazy and recomputes on its \
                next read
                """)
            #expect(total.value == 10)
            #expect(Runtime.current.explain(total, since: trace).description == """
                total (\(totalSite)) ran; the trace shows: total recomputed: quantity changed → 10
                """)
        }
    }

    @Test func aCancelledEffectSaysSo() {
        withIsolatedRuntime {
            let quantity = atom(4, label: "quantity")
            let (display, displaySite) = (Effect(label: "display") { _ = quantity.value }, site())
            display.cancel()
            let trace = CausalTrace()
            Runtime.current.startTracing(trace)
            quantity.value = 5
            #expect(Runtime.current.explain(display, since: trace).description == """
                display (\(displaySite)) did not run: it was cancelled (by cancel() or because its last reference \
                went)
                """)
        }
    }

    @Test func aWriteInsideABatchThatHasNotEndedWaitsForItsEnd() {
        withIsolatedRuntime {
            let (quantity, quantitySite) = (atom(4, label: "quantity"), site())
            let (price, priceSite) = (atom(3, label: "price"), site())
            let (display, displaySite) = (Effect(label: "display") { _ = quantity.value + price.value }, site())
            let trace = CausalTrace()
            Runtime.current.startTracing(trace)
            let inside = batch {
                quantity.value = 5
                price.value = 4
                return Runtime.current.explain(display, since: trace)
            }
            #expect(inside.description == """
                display (\(displaySite)) did not run yet: the writes of quantity (\(quantitySite)), price \
                (\(priceSite)) are inside a batch that has not ended; what they cause runs when the outermost \
                batch ends
                """)
            #expect(Runtime.current.explain(display, since: trace).description == """
                display (\(displaySite)) ran; the trace shows: display ran: quantity changed
                """)
        }
    }

    @Test func anAtomWrittenBackToItsValueChangedNothing() {
        withIsolatedRuntime {
            let (quantity, quantitySite) = (atom(4, label: "quantity"), site())
            let (display, displaySite) = (Effect(label: "display") { _ = quantity.value }, site())
            let trace = CausalTrace()
            Runtime.current.startTracing(trace)
            batch {
                quantity.value = 5
                quantity.value = 4
            }
            #expect(Runtime.current.explain(display, since: trace).description == """
                display (\(displaySite)) did not run: quantity (\(quantitySite)) was written back to 4, the value \
                its readers saw: no change
                """)
        }
    }

    @Test func writesRolledBackByATransactionThatThrewNameTheAtoms() {
        struct Invalid: Error {}
        withIsolatedRuntime {
            let (name, nameSite) = (atom("", label: "name"), site())
            let (age, ageSite) = (atom(0, label: "age"), site())
            let (display, displaySite) = (Effect(label: "display") { _ = (name.value, age.value) }, site())
            let trace = CausalTrace()
            Runtime.current.startTracing(trace)
            #expect(throws: Invalid.self) {
                try transaction {
                    name.value = "Ada"
                    age.value = -1
                    age.value = -2
                    throw Invalid()
                }
            }
            let explanation = Runtime.current.explain(display, since: trace)
            #expect(explanation.reason == .rolledBack(writes: ["name (\(nameSite))", "age (\(ageSite))"]))
            #expect(explanation.description == """
                display (\(displaySite)) did not run: the writes of name (\(nameSite)), age (\(ageSite)) were rolled \
                back by a transaction that threw: its readers saw no change
                """)
        }
    }

    @Test func aReturningTransactionsWritesAreNotRolledBack() {
        withIsolatedRuntime {
            let quantity = atom(4, label: "quantity")
            let (display, displaySite) = (Effect(label: "display") { _ = quantity.value }, site())
            let trace = CausalTrace()
            Runtime.current.startTracing(trace)
            transaction { quantity.value = 5 }
            #expect(Runtime.current.explain(display, since: trace).description == """
                display (\(displaySite)) ran; the trace shows: display ran: quantity changed
                """)
        }
    }

    @Test func anEffectOnASchedulerIsPendingThere() {
        withIsolatedRuntime {
            let scheduler = ManualScheduler()
            let quantity = atom(4, label: "quantity")
            let (display, displaySite) = (Effect(on: scheduler, label: "display") { _ = quantity.value }, site())
            #expect(scheduler.drain() == 1)  // the first run
            let trace = CausalTrace()
            Runtime.current.startTracing(trace)
            quantity.value = 5
            #expect(scheduler.pending == 1)
            #expect(Runtime.current.explain(display, since: trace).description == """
                display (\(displaySite)) did not run yet: it is bound to a scheduler, and its run is pending there
                """)
            #expect(scheduler.drain() == 1)
            #expect(Runtime.current.explain(display, since: trace).description == """
                display (\(displaySite)) ran; the trace shows: display ran: quantity changed
                """)
        }
    }

    @Test func anAsyncRunSupersededByALaterWriteNamesThatWrite() async throws {
        try await withIsolatedRuntime { () async throws in
            let trace = CausalTrace()
            Runtime.current.startTracing(trace)
            let gates = [Gate<Void>(), Gate<Void>(), Gate<Void>()]
            let started = AwaitableLog<Int>()
            let input = atom(1, label: "input")
            let numberSite = site(#line + 1)
            let number = derive(label: "number") { () async -> Int in
                let value = input.value
                started.append(value)
                await gates[value].wait()
                return value
            }
            let render = Effect(label: "render") { _ = number.phase }
            await started.waitUntil(count: 1)  // the run for 1 read input
            input.value = 2  // before the run for 1 delivers
            #expect(Runtime.current.explain(number, since: trace).description == """
                number (\(numberSite)) did not deliver: its run was superseded by the run for write input 1 → 2
                """)
            gates[1].open()
            gates[2].open()
            #expect(try await number.value == 2)
            _ = render
        }
    }
}
