import Testing

@testable import Ripple

/// `graphDescription()`: the dependency graph as Graphviz DOT, compared whole: nodes in creation order with their
/// label, kind and value, shapes by kind, edges from each node to its readers in read order.
@Suite struct GraphDescriptionTests {
    @Test func aSmallGraphIsDescribedWholeInCreationAndReadOrder() async throws {
        try await withIsolatedRuntime { () async throws in
            let runtime = Runtime.current
            let price = atom(4, label: "price")
            let quantity = atom(3, label: "quantity")
            let total = derive(label: "total") { quantity.value * price.value }  // reads quantity first
            let shipping = derive(label: "shipping") { () async -> Int in price.value > 3 ? 0 : 5 }
            let phases = AwaitableLog<AsyncPhase<Int>>()
            let display = Effect(label: "display") {
                _ = total.value
                phases.append(shipping.phase)
            }
            await phases.waitUntil(count: 2)  // the run resolved and the effect saw it
            #expect(phases.values == [.suspending, .success(0)])
            #expect(
                runtime.graphDescription() == """
                    digraph ripple {
                        // an edge points from a node to a node that read it; a reader's edges are in the order it read them
                        rankdir=LR;
                        node [fontname="Helvetica", fontsize=11];
                        n0 [label="price\\natom = 4", shape=ellipse];
                        n1 [label="quantity\\natom = 3", shape=ellipse];
                        n2 [label="total\\nderivation = 12", shape=box];
                        n3 [label="shipping\\nasync derivation = success(0)", shape=box, peripheries=2];
                        n4 [label="display\\neffect", shape=hexagon];
                        n1 -> n2;
                        n0 -> n2;
                        n0 -> n3;
                        n2 -> n4;
                        n3 -> n4;
                    }

                    """)
            withExtendedLifetime(display) {}
        }
    }

    @Test func describingTheGraphReadsNothingAndRunsNothing() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            let count = atom(1, label: "count")
            let runs = RunCount()
            let doubled = derive(label: "doubled") { () -> Int in
                runs.increment()
                return count.value * 2
            }
            let never = derive(label: "never read") { count.value + 1 }
            #expect(doubled.value == 2)
            count.value = 5  // doubled is now stale, and stays so: inspection does not bring it up to date
            let description = runtime.graphDescription()
            #expect(description.contains(#"n1 [label="doubled\nderivation = 2", shape=box];"#))
            #expect(description.contains(#"n2 [label="never read\nderivation", shape=box];"#))
            #expect(runs.value == 1)
            #expect(doubled.value == 10)
            #expect(runs.value == 2)
            withExtendedLifetime(never) {}
        }
    }

    @Test func aNodeIsDescribedWithItsUpstreamAndDownstreamOnly() {
        withIsolatedRuntime {
            let input = atom(1, label: "input")
            let unrelated = atom(2, label: "unrelated")
            let offset = atom(10, label: "offset")
            let doubled = derive(label: "doubled") { input.value * 2 }
            let shifted = derive(label: "shifted") { doubled.value + offset.value }
            let show = Effect(label: "show") { _ = shifted.value }
            let other = Effect(label: "other") { _ = unrelated.value }
            // Upstream of doubled: input. Downstream: shifted, then show. Not offset (upstream of shifted only),
            // nor unrelated and other.
            #expect(
                doubled.graphDescription() == """
                    digraph ripple {
                        // an edge points from a node to a node that read it; a reader's edges are in the order it read them
                        rankdir=LR;
                        node [fontname="Helvetica", fontsize=11];
                        n0 [label="input\\natom = 1", shape=ellipse];
                        n1 [label="doubled\\nderivation = 2", shape=box, penwidth=2.5];
                        n2 [label="shifted\\nderivation = 12", shape=box];
                        n3 [label="show\\neffect", shape=hexagon];
                        n0 -> n1;
                        n1 -> n2;
                        n2 -> n3;
                    }

                    """)
            // An effect's graph is everything upstream of it.
            #expect(
                other.graphDescription() == """
                    digraph ripple {
                        // an edge points from a node to a node that read it; a reader's edges are in the order it read them
                        rankdir=LR;
                        node [fontname="Helvetica", fontsize=11];
                        n0 [label="unrelated\\natom = 2", shape=ellipse];
                        n1 [label="other\\neffect", shape=hexagon, penwidth=2.5];
                        n0 -> n1;
                    }

                    """)
            // A cancelled effect has left the graph: nothing to show.
            other.cancel()
            #expect(
                other.graphDescription() == """
                    digraph ripple {
                        // an edge points from a node to a node that read it; a reader's edges are in the order it read them
                        rankdir=LR;
                        node [fontname="Helvetica", fontsize=11];
                    }

                    """)
            withExtendedLifetime(show) {}
        }
    }

    @Test func valuesAreShownWhenTheyDescribeThemselvesAndLongOnesAreCut() {
        struct Opaque: Equatable { var secret = 7 }
        withIsolatedRuntime {
            let runtime = Runtime.current
            let name = atom("Ada", label: "name")
            let opaque = atom(Opaque(), label: "opaque")
            let long = atom(String(repeating: "x", count: 70), label: "long")
            let nodes = runtime.graphDescription().split(separator: "\n").filter { $0.contains("[label=") }
            #expect(
                nodes == [
                    #"    n0 [label="name\natom = Ada", shape=ellipse];"#,
                    #"    n1 [label="opaque\natom", shape=ellipse];"#,
                    "    n2 [label=\"long\\natom = \(String(repeating: "x", count: 59))…\", shape=ellipse];",
                ])
            withExtendedLifetime((name, opaque, long)) {}
        }
    }

    @Test func quotesBackslashesAndLineBreaksInLabelsAndValuesAreEscaped() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            let quoted = atom(#"say "hi" \N"#, label: #"a "quoted" label \ with a backslash"#)
            let twoLines = atom(1, label: "first line\nsecond line")
            let nodes = runtime.graphDescription().split(separator: "\n").filter { $0.contains("[label=") }
            #expect(
                nodes == [
                    #"    n0 [label="a \"quoted\" label \\ with a backslash\natom = say \"hi\" \\N", shape=ellipse];"#,
                    #"    n1 [label="first line\nsecond line\natom = 1", shape=ellipse];"#,
                ])
            withExtendedLifetime((quoted, twoLines)) {}
        }
    }

    @Test func ripplesOwnNodesAreDrawnDashed() async {
        await withIsolatedRuntime { () async in
            let runtime = Runtime.current
            let thermometer = DescribedThermometer()
            let display = DescribedDisplay(thermometer)
            runtime.register(display)
            let count = atom(1, label: "count")
            var iterator = count.values.makeAsyncIterator()
            #expect(await iterator.next() == 1)
            #expect(
                runtime.graphDescription() == """
                    digraph ripple {
                        // an edge points from a node to a node that read it; a reader's edges are in the order it read them
                        rankdir=LR;
                        node [fontname="Helvetica", fontsize=11];
                        n0 [label="subscriber RippleTests.DescribedDisplay\\nsubscriber", shape=hexagon, style=dashed];
                        n1 [label="publisher RippleTests.DescribedThermometer\\npublisher", shape=ellipse, style=dashed];
                        n2 [label="count\\natom = 1", shape=ellipse];
                        n3 [label="values of count\\nvalues observer", shape=hexagon, style=dashed];
                        n1 -> n0;
                        n2 -> n3;
                    }

                    """)
            runtime.unregister(subscriber: display)
            runtime.unregister(publisher: thermometer)
            withExtendedLifetime(iterator) {}
        }
    }
}

/// A user-defined publisher and a subscriber that reads it: Ripple stands for each with a node of its own.
final class DescribedThermometer: Publisher {}

final class DescribedDisplay: Subscriber {
    let thermometer: DescribedThermometer
    init(_ thermometer: DescribedThermometer) { self.thermometer = thermometer }
    func run() { Runtime.current.willRead(thermometer) }
}
