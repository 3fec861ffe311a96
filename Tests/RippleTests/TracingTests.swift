import Ripple
import Testing

/// "Why did this run?": the events a tracer receives, and the trees of causes `CausalTrace` renders, compared
/// whole.
@Suite struct TracingTests {
    @Test func theCartExampleRendersAsATreeOfCauses() {
        withIsolatedRuntime {
            let quantity = atom(4, label: "quantity")
            let price = atom(4, label: "price")
            let total = derive(label: "total") { quantity.value * price.value }
            let expensive = derive(label: "expensive") { total.value > 100 }
            let shown = Recorder<Int>()
            let display = Effect(label: "display") { shown.append(total.value) }
            let warning = Effect(label: "warning") { _ = expensive.value }
            let trace = CausalTrace()
            Runtime.current.startTracing(trace)
            quantity.set(5, fileID: "Cart.swift", line: 12)
            #expect(trace.render() == """
                write quantity (Cart.swift:12) 4 → 5
                └ total recomputed: quantity changed → 20
                  ├ display ran: total changed
                  └ expensive recomputed: total changed → false (equal: stops here)
                """)
            #expect(shown.values == [16, 20])
            _ = (display, warning)
        }
    }

    @Test func aDiamondRecomputesEachSideOnceAndTheJoinOnce() {
        withIsolatedRuntime {
            let source = atom(1, label: "source")
            let left = derive(label: "left") { source.value * 2 }
            let right = derive(label: "right") { source.value * 3 }
            let join = derive(label: "join") { left.value + right.value }
            let render = Effect(label: "render") { _ = join.value }
            let trace = CausalTrace()
            Runtime.current.startTracing(trace)
            source.value = 2
            #expect(trace.render() == """
                write source 1 → 2
                ├ left recomputed: source changed → 4
                │ └ join recomputed: left changed → 10
                │   └ render ran: join changed
                └ right recomputed: source changed → 6
                """)
            #expect(trace.events.map(\.kind) == [.write, .commit, .recompute, .recompute, .recompute, .run])
            _ = render
        }
    }

    @Test func aBatchShowsEachWriteAndWhatItsCommitCaused() {
        withIsolatedRuntime {
            let first = atom(1, label: "first")
            let second = atom(2, label: "second")
            let sum = Effect(label: "sum") { _ = first.value + second.value }
            let trace = CausalTrace()
            Runtime.current.startTracing(trace)
            batch {
                first.value = 10
                second.value = 20
                second.value = 2  // written back
            }
            #expect(trace.render() == """
                write first 1 → 10
                └ sum ran: first changed
                write second 2 → 20
                write second 2 → 2
                └ second written back: no change
                """)
            _ = sum
        }
    }

    @Test func aBranchSwitchNamesTheConditionThenTheNewBranch() {
        withIsolatedRuntime {
            let useLeft = atom(true, label: "useLeft")
            let left = atom("L", label: "left")
            let right = atom("R", label: "right")
            let chosen = derive(label: "chosen") { useLeft.value ? left.value : right.value }
            let show = Effect(label: "show") { _ = chosen.value }
            let trace = CausalTrace()
            Runtime.current.startTracing(trace)
            useLeft.value = false
            left.value = "L2"  // no longer read: nothing happens below the write
            right.value = "R2"
            #expect(trace.render() == """
                write useLeft true → false
                └ chosen recomputed: useLeft changed → R
                  └ show ran: chosen changed
                write left L → L2
                write right R → R2
                └ chosen recomputed: right changed → R2
                  └ show ran: chosen changed
                """)
            _ = show
        }
    }

    @Test func anEffectsWriteHangsBelowItsRun() {
        withIsolatedRuntime {
            let celsius = atom(0, label: "celsius")
            let fahrenheit = atom(32, label: "fahrenheit")
            let convert = Effect(label: "convert") { fahrenheit.value = celsius.value * 9 / 5 + 32 }
            let show = Effect(label: "show") { _ = fahrenheit.value }
            let trace = CausalTrace()
            Runtime.current.startTracing(trace)
            celsius.value = 100
            #expect(trace.render() == """
                write celsius 0 → 100
                └ convert ran: celsius changed
                  └ write fahrenheit 32 → 212
                    └ show ran: fahrenheit changed
                """)
            _ = (convert, show)
        }
    }

    @Test func aFirstComputeHangsBelowTheBodyThatReadIt() {
        withIsolatedRuntime {
            let base = atom(2, label: "base")
            let squared = derive(label: "squared") { base.value * base.value }
            let trace = CausalTrace()
            Runtime.current.startTracing(trace)
            let show = Effect(label: "show") { _ = squared.value }
            #expect(trace.render() == """
                show ran
                └ squared computed → 4
                """)
            _ = show
        }
    }

    @Test func afterStopTracingNothingIsRecorded() {
        withIsolatedRuntime {
            let count = atom(0, label: "count")
            let trace = CausalTrace()
            Runtime.current.startTracing(trace)
            count.value = 1
            Runtime.current.stopTracing()
            count.value = 2
            #expect(trace.events.map(\.kind) == [.write])
            trace.removeAll()
            #expect(trace.events.isEmpty)
        }
    }
}
