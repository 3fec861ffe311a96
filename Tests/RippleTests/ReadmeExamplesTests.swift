import Testing
import Ripple

/// Every example from Ripple's README and site, run with exact expectations.
@Suite @MainActor struct ReadmeExamplesTests {
    /// Stands in for `UILabel` in the UIKit examples (main-actor, like UIKit's types).
    @MainActor final class Label {
        var text: String?
    }

    /// Stands in for the README's `CounterVC`. The README's version initialises
    /// `@Derived private var title = "Count: \(count)"` from another instance
    /// property, which Swift rejects; here the derivation captures the atom's
    /// wrapper instead of `self`.
    @MainActor final class CounterViewController {
        let label = Label()
        private var bag: [Effect] = []
        @Atom private var count: Int
        @Derived private var title: String

        init() {
            let count = Atom(wrappedValue: 0)
            _count = count
            _title = Derived(wrappedValue: "Count: \(count.wrappedValue)")
        }

        func viewDidLoad() {
            bag.append(Effect { self.label.text = self.title })
        }

        func plus() {
            count += 1
        }

        func tearDown() {
            bag.removeAll()
        }
    }

    // MARK: Quick start

    @Test func quickStartEffectFollowsTheCount() {
        withIsolatedRuntime {
            let label = Label()
            @Atom var count = 0
            @Derived var title = "Count: \(count)"

            let render = Effect {
                label.text = title
            }
            #expect(label.text == "Count: 0")

            count += 1
            #expect(label.text == "Count: 1")
            #expect(title == "Count: 1")
            withExtendedLifetime(render) {}
        }
    }

    @Test func quickStartRecomputesTheTitleOncePerIncrement() {
        withIsolatedRuntime {
            var texts: [String?] = []
            var titleRuns = 0
            @Atom var count = 0
            let title = derive { () -> String in
                titleRuns += 1
                return "Count: \(count)"
            }
            let label = Label()
            let render = Effect {
                label.text = title.value
                texts.append(label.text)
            }
            count += 1
            count += 1
            #expect(texts == ["Count: 0", "Count: 1", "Count: 2"])
            #expect(titleRuns == 3)
            withExtendedLifetime(render) {}
        }
    }

    // MARK: Concepts

    @Test func atomWrapperWritesAndProjectsItsAtomObject() {
        withIsolatedRuntime {
            @Atom var name = "Ripple"
            let object: AtomObject<String> = $name
            name = "Ripple 2"
            #expect(name == "Ripple 2")
            #expect(object.value == "Ripple 2")
            #expect($name === object)

            object.value = "Ripple 3"
            #expect(name == "Ripple 3")
        }
    }

    @Test func atomWrapperNotifiesDependentsOnlyWhenTheValueChanges() {
        withIsolatedRuntime {
            @Atom var name = "Ripple"
            var seen: [String] = []
            let effect = Effect { seen.append(name) }
            name = "Ripple"
            name = "Ripple 2"
            name = "Ripple 2"
            #expect(seen == ["Ripple", "Ripple 2"])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func derivedSumIsCachedUntilAnInputMutates() {
        withIsolatedRuntime {
            @Atom var x = 1
            @Atom var y = 2
            var runs = 0
            @Derived var sum = { runs += 1; return x + y }()

            #expect(runs == 0)
            #expect(sum == 3)
            #expect(sum == 3)
            #expect(runs == 1)

            x = 10
            #expect(sum == 12)
            #expect(runs == 2)
            y = 20
            #expect(sum == 30)
            #expect($sum.value == 30)
            #expect(runs == 3)
        }
    }

    @Test func equatableDerivedSkipsPropagationWhenTheValueIsUnchanged() {
        withIsolatedRuntime {
            @Atom var count = 1
            @Derived var isOdd = count % 2 == 1
            var seen: [Bool] = []
            let effect = Effect { seen.append(isOdd) }
            count = 3
            count = 5
            count = 6
            #expect(seen == [true, false])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func effectInABagRunsOnCreationAndAfterEveryRelevantMutation() {
        withIsolatedRuntime {
            let label = Label()
            @Atom var count = 0
            @Atom var unrelated = 0
            var texts: [String?] = []
            var bag: [Effect] = []

            bag.append(Effect {
                label.text = "Count: \(count)"
                texts.append(label.text)
            })
            count = 1
            unrelated = 1
            count = 2
            #expect(texts == ["Count: 0", "Count: 1", "Count: 2"])
            #expect(bag.count == 1)
        }
    }

    // MARK: Wrappers and factories

    @Test func wrappersAndFactoriesInteroperate() {
        withIsolatedRuntime {
            @Atom var price = 10
            let qty = atom(2)
            @Derived var total = price * qty.value
            let tax = derive { total + 1 }
            #expect(tax.value == 21)

            qty.value = 3
            #expect(total == 30)
            #expect(tax.value == 31)

            price = 20
            #expect(tax.value == 61)
        }
    }

    @Test func factoryNodesCanBeStoredInCollections() {
        withIsolatedRuntime {
            let count = atom(0)
            let nodes: [Derivation<Int>] = (1...3).map { factor in derive { count.value * factor } }
            count.value = 5
            #expect(nodes.map(\.value) == [5, 10, 15])
        }
    }

    // MARK: Chained derived values

    @Test func chainedDerivedValuesPrint20Then36() {
        withIsolatedRuntime {
            @Atom var a = 1
            @Derived var d1 = a * 2
            @Derived var d2 = d1 + 3
            @Derived var d3 = d2 * 4
            var printed: [Int] = []
            let e = Effect { printed.append(d3) }
            #expect(d1 == 2)
            #expect(d2 == 5)
            #expect(printed == [20])

            a = 3
            #expect(printed == [20, 36])
            withExtendedLifetime(e) {}
        }
    }

    // MARK: UIKit binding

    @Test func counterViewControllerBindsItsLabel() {
        withIsolatedRuntime {
            let controller = CounterViewController()
            #expect(controller.label.text == nil)

            controller.viewDidLoad()
            #expect(controller.label.text == "Count: 0")

            controller.plus()
            controller.plus()
            #expect(controller.label.text == "Count: 2")

            controller.tearDown()
            controller.plus()
            #expect(controller.label.text == "Count: 2")
        }
    }

    // MARK: Testing and isolation

    @Test func example() {
        withIsolatedRuntime {
            @Atom var a = 1
            @Derived var doubled = a * 2
            #expect(doubled == 2)
        }
    }

    @Test func isolatedRuntimeIsCurrentInsideAndOwnsTheNodes() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            @Atom var a = 1
            @Derived var doubled = a * 2
            let effect = Effect { _ = doubled }
            #expect($a.runtime === runtime)
            #expect($doubled.runtime === runtime)
            #expect(effect.runtime === runtime)
        }
    }

    @Test func eachIsolatedRuntimeIsFresh() {
        let first = withIsolatedRuntime { Runtime.current }
        let second = withIsolatedRuntime { Runtime.current }
        #expect(first !== second)
    }

    @Test func isolatedRuntimeUsingAGivenRuntime() {
        let runtime = Runtime()
        let value: Int = withIsolatedRuntime(using: runtime) {
            #expect(Runtime.current === runtime)
            let a = atom(4)
            let doubled = derive { a.value * 2 }
            #expect(a.runtime === runtime)
            #expect(doubled.runtime === runtime)
            return doubled.value
        }
        #expect(value == 8)
    }

    @Test func nestedIsolatedRuntimesRestoreTheOuterOne() {
        withIsolatedRuntime {
            let outer = Runtime.current
            let inner = withIsolatedRuntime { Runtime.current }
            #expect(inner !== outer)
            #expect(Runtime.current === outer)
        }
    }

    @Test func isolatedRuntimeReturnsAndRethrows() {
        struct Failure: Error, Equatable {}
        #expect(throws: Failure.self) {
            try withIsolatedRuntime { () throws -> Int in
                throw Failure()
            }
        }
        let value = withIsolatedRuntime { 42 }
        #expect(value == 42)
    }

    // MARK: Parallel-safe tests

    /// The README's bodies have no suspension point, so Swift resolves them to the
    /// synchronous overload and warns "no 'async' operations occur within
    /// 'await'"; the `Task.yield()` makes them use the async overload the README
    /// means.
    @Test func isolatedGraphs() async {
        let r1: Int = await withIsolatedRuntime {
            await Task.yield()
            @Atom var x = 1
            @Atom var y = 2
            @Derived var s = x + y
            return s
        }
        let r2: Int = await withIsolatedRuntime {
            await Task.yield()
            @Atom var x = 10
            @Atom var y = 20
            @Derived var s = x + y
            return s
        }
        #expect(r1 == 3 && r2 == 30)
    }

    @Test func parallelRuntimesDoNotInterfere() async {
        let results = await withTaskGroup(of: (Int, [Int]).self) { group in
            for base in 1...8 {
                group.addTask {
                    await withIsolatedRuntime {
                        @Atom var x = base
                        @Derived var s = x * 100
                        let seen = Recorder<Int>()
                        let effect = Effect { seen.append(s) }
                        for step in 1...50 {
                            x = base + step
                            await Task.yield()
                        }
                        withExtendedLifetime(effect) {}
                        return (base, seen.values)
                    }
                }
            }
            var results: [Int: [Int]] = [:]
            for await (base, seen) in group {
                results[base] = seen
            }
            return results
        }
        #expect(results.count == 8)
        for base in 1...8 {
            #expect(results[base] == (0...50).map { (base + $0) * 100 })
        }
    }

    @Test func asyncIsolatedRuntimeIsInheritedByChildTasks() async {
        await withIsolatedRuntime {
            let runtime = Runtime.current
            async let fromAsyncLet = Runtime.current
            let fromTask = await Task { Runtime.current }.value
            let fromGroup = await withTaskGroup(of: Runtime.self) { group in
                group.addTask { Runtime.current }
                return await group.next()!
            }
            #expect(await fromAsyncLet === runtime)
            #expect(fromTask === runtime)
            #expect(fromGroup === runtime)
        }
    }

    @Test func asyncIsolatedRuntimeUsingAGivenRuntime() async {
        let runtime = Runtime()
        let value: Int = await withIsolatedRuntime(using: runtime) {
            await Task.yield()
            #expect(Runtime.current === runtime)
            let a = atom(3)
            @Derived var tripled = a.value * 3
            #expect(a.runtime === runtime)
            return tripled
        }
        #expect(value == 9)
    }

    // MARK: Effect lifetime

    @Test func effectRunsWhileStronglyReferencedAndStopsOnDeinit() {
        withIsolatedRuntime {
            @Atom var count = 0
            var seen: [Int] = []
            var render: Effect? = Effect { seen.append(count) }
            count = 1
            #expect(seen == [0, 1])

            render = nil
            count = 2
            #expect(seen == [0, 1])
            #expect(render == nil)
        }
    }

    // MARK: Threading

    @MainActor final class CounterLabel {
        var text = ""
    }

    @Test @MainActor func writesFromADetachedTaskRenderOnTheMainActor() async {
        await withIsolatedRuntime {
            let label = CounterLabel()
            let count = atom(0)
            var renders = 0
            let render = Effect {  // created on the main actor: bound to it
                renders += 1
                label.text = "Count: \(count.value)"
            }
            #expect(label.text == "Count: 0")  // on the main actor, the first run happens inside init
            #expect(renders == 1)
            await Task.detached {
                for _ in 0..<1_000 { count.update { $0 += 1 } }
            }.value
            while label.text != "Count: 1000" { await Task.yield() }
            #expect(count.value == 1000)
            #expect(renders <= 1001)
            withExtendedLifetime(render) {}
        }
    }

    /// README "Seeing inside" and the Debugging article: the graph of the cart, exactly as printed there.
    @Test func seeingInsideDescribesTheCartGraph() {
        let runtime = Runtime()
        let description = withIsolatedRuntime(using: runtime) { () -> String in
            let price = atom(4, label: "price")
            let quantity = atom(3, label: "quantity")
            let total = derive(label: "total") { quantity.value * price.value }
            let display = Effect(label: "display") { _ = total.value }
            defer { withExtendedLifetime(display) {} }
            return runtime.graphDescription()
        }
        #expect(
            description == """
                digraph ripple {
                    // an edge points from a node to a node that read it; a reader's edges are in the order it read them
                    rankdir=LR;
                    node [fontname="Helvetica", fontsize=11];
                    n0 [label="price\\natom = 4", shape=ellipse];
                    n1 [label="quantity\\natom = 3", shape=ellipse];
                    n2 [label="total\\nderivation = 12", shape=box];
                    n3 [label="display\\neffect", shape=hexagon];
                    n1 -> n2;
                    n0 -> n2;
                    n2 -> n3;
                }

                """)
        let report = runtime.liveNodeReport()
        #expect(report.isEmpty, "\(report)")
    }
}
