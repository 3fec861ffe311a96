import Testing

@testable import Ripple

/// `liveNodeReport()`: what a runtime still holds, and where it was created, so that a test can assert that
/// nothing leaked and say what did.
@Suite struct LiveNodeReportTests {
    /// An object that keeps its effect, whose body keeps the object: a retain cycle, the classic leak.
    /// Unchecked: only the test's own thread touches `effect`.
    final class Autosave: @unchecked Sendable {
        var effect: Effect?
    }

    @Test func aRetainCycleThroughAnEffectIsReportedWithWhereItWasCreated() {
        let runtime = Runtime()
        weak var leaked: Autosave?
        var createdOn = 0
        withIsolatedRuntime(using: runtime) {
            let draft = atom("draft", label: "draft")
            let autosave = Autosave()
            autosave.effect = Effect(label: "autosave") {
                _ = draft.value
                _ = autosave  // the body keeps the object that keeps the effect
            }
            createdOn = #line - 4
            leaked = autosave
        }
        let report = runtime.liveNodeReport()
        #expect(
            report.map(\.self) == [
                LiveNode(label: "draft", kind: "atom", creationSite: "\(#fileID):\(createdOn - 2)", valueDescription: "draft"),
                LiveNode(label: "autosave", kind: "effect", creationSite: "\(#fileID):\(createdOn)", valueDescription: nil),
            ])
        #expect(
            "\(report)" == """
                2 live nodes:
                - atom "draft" = draft (created at \(#fileID):\(createdOn - 2))
                - effect "autosave" (created at \(#fileID):\(createdOn))
                """)
        leaked?.effect = nil  // break the cycle: the effect goes, and with it the atom it kept
        #expect(leaked == nil)
        #expect(runtime.liveNodeReport().isEmpty)
    }

    @Test func aStoredReferenceIsReportedUntilItIsDropped() {
        let runtime = Runtime()
        var kept: [RippleNode] = []
        var createdOn = 0
        withIsolatedRuntime(using: runtime) {
            let count = atom(1)  // unlabeled: the label is the creation site, said once
            let doubled = derive(label: "doubled") { count.value * 2 }
            createdOn = #line - 2
            let unused = derive(label: "unused") { count.value }
            _ = doubled.value
            kept = [doubled]  // keeps doubled, and doubled keeps count (it read it)
            withExtendedLifetime(unused) {}
        }
        #expect(
            "\(runtime.liveNodeReport())" == """
                2 live nodes:
                - atom "\(#fileID):\(createdOn)" = 1
                - derivation "doubled" = 2 (created at \(#fileID):\(createdOn + 1))
                """)
        kept = []
        let report = runtime.liveNodeReport()
        #expect(report.isEmpty, "\(report)")
        #expect("\(report)" == "no live nodes")
        withExtendedLifetime(kept) {}
    }

    @Test func nothingIsLeftWhenATestReleasesEverything() async {
        let runtime = Runtime()
        await withIsolatedRuntime(using: runtime) { () async in
            let price = atom(4, label: "price")
            let total = derive(label: "total") { price.value * 2 }
            let values = AwaitableLog<Int>()
            let display = Effect(label: "display") { values.append(total.value) }
            let shipping = derive(label: "shipping") { () async -> Int in price.value > 3 ? 0 : 5 }
            price.value = 5
            #expect(values.values == [8, 10])
            #expect(runtime.liveNodeReport().map(\.label) == ["price", "total", "display", "shipping"])
            withExtendedLifetime((display, shipping)) {}
        }
        let report = runtime.liveNodeReport()
        #expect(report.isEmpty, "\(report)")
    }

    @Test func ripplesOwnNodesAreReportedAsMadeByRipple() async {
        let runtime = Runtime()
        await withIsolatedRuntime(using: runtime) { () async in
            let thermometer = DescribedThermometer()
            let display = DescribedDisplay(thermometer)
            runtime.register(display)
            let count = atom(1, label: "count")
            let countLine = #line - 1
            var iterator = count.values.makeAsyncIterator()
            #expect(await iterator.next() == 1)
            #expect(
                runtime.liveNodeReport().map(\.description) == [
                    #"subscriber "subscriber RippleTests.DescribedDisplay" (made by Ripple)"#,
                    #"publisher "publisher RippleTests.DescribedThermometer" (made by Ripple)"#,
                    "atom \"count\" = 1 (created at \(#fileID):\(countLine))",
                    #"values observer "values of count" (made by Ripple)"#,
                ])
            #expect(runtime.liveNodeReport().map(\.creationSite).filter { $0 == nil }.count == 3)
            // Unregistering and ending the iteration leave nothing behind.
            runtime.unregister(subscriber: display)
            runtime.unregister(publisher: thermometer)
            withExtendedLifetime(iterator) {}
        }
        let report = runtime.liveNodeReport()
        #expect(report.isEmpty, "\(report)")
    }

    /// Inspection while other threads create, write and drop nodes: each description is one consistent moment
    /// (every edge joins two listed nodes), nodes freed meanwhile are left out rather than touched, and once the
    /// threads are done nothing is left.
    @Test func inspectingWhileThreadsCreateAndDropNodesSeesConsistentGraphs() async {
        let runtime = Runtime()
        let rounds = Stress.iterations(quick: 200)
        let violations = Violations()
        await runOnThreads(4) { index in
            for round in 0..<rounds {
                if index == 0 {
                    let description = runtime.graphDescription()
                    let lines = description.split(separator: "\n")
                    let nodes = Set(lines.filter { $0.contains("[label=") }.map { $0.split(separator: " ")[0] })
                    for edge in lines where edge.contains(" -> ") && !edge.contains("[label=") {
                        let parts = edge.split(separator: " ")  // "n1", "->", "n2;"
                        if !nodes.contains(parts[0]) || !nodes.contains(parts[2].dropLast()) {
                            violations.record("round \(round): an edge to an unlisted node: \(edge)")
                        }
                    }
                    _ = runtime.liveNodeReport()
                } else {
                    inRuntime(runtime) {
                        let count = atom(round, label: "count \(index)")
                        let doubled = derive(label: "doubled \(index)") { count.value * 2 }
                        let effect = Effect(label: "effect \(index)") { _ = doubled.value }
                        count.value += 1
                        withExtendedLifetime(effect) {}
                    }
                }
            }
        }
        #expect(violations.messages.isEmpty, "\(violations.messages)")
        let report = runtime.liveNodeReport()
        #expect(report.isEmpty, "\(report)")
    }
}
