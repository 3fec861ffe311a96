import Testing
@testable import Ripple

/// An atom keeps its equality in one word (`AtomEquality`): `==` and "never equal" as a class's metadata, its own
/// closure in a box that the atom owns.
@Suite struct AtomEqualityTests {
    /// Captured by an equality closure, to see when the closure goes.
    final class Captured: Sendable {}

    @Test func anAtomsOwnEqualityDecidesItsWritesAndGoesWithIt() {
        weak var captured: Captured?
        let runs = RunLog<Int>()
        withIsolatedRuntime {
            let tolerance = Captured()
            captured = tolerance
            let temperature = atom(20.0, equals: { a, b in withExtendedLifetime(tolerance) { abs(a - b) < 0.5 } })
            let effect = Effect { _ = temperature.value; runs.values.append(1) }
            temperature.value = 20.2
            #expect(temperature.value == 20.0)
            temperature.value = 21.0
            #expect(temperature.value == 21.0)
            #expect(runs.values.count == 2)
            withExtendedLifetime(effect) {}
        }
        #expect(captured == nil)
    }

    @Test func anEquatableAtomComparesWithEqualEquals() {
        withIsolatedRuntime {
            let name = atom("Ada")
            let runs = RunLog<Int>()
            let effect = Effect { _ = name.value; runs.values.append(1) }
            name.value = "Ada"
            name.value = "Byron"
            name.value = "Byron"
            #expect(runs.values.count == 2)
            withExtendedLifetime(effect) {}
        }
    }

    @Test func anAtomWithoutEqualityCountsEveryWriteAsAChange() {
        withIsolatedRuntime {
            let counter = AtomObject(initial: 1, equals: nil, label: nil, fileID: "", line: 0)
            let runs = RunLog<Int>()
            let effect = Effect { _ = counter.value; runs.values.append(1) }
            counter.value = 1
            counter.value = 1
            #expect(runs.values.count == 3)
            withExtendedLifetime(effect) {}
        }
    }

    /// A snapshot keeps the atom's equality: whole degrees are what `changes(since:)` compares, also once the atom
    /// (and the box it owned) is gone.
    @Test func aSnapshotComparesWithTheAtomsOwnEqualityAfterTheAtomIsGone() {
        let runtime = Runtime()
        let snapshots = withIsolatedRuntime(using: runtime) { () -> [Snapshot] in
            let degrees = atom(20.0, equals: { Int($0) == Int($1) }, label: "degrees")
            let first = runtime.snapshot()
            degrees.value = 21.5
            degrees.value = 20.5
            let second = runtime.snapshot()
            degrees.value = 22.0
            return [first, second, runtime.snapshot()]
        }
        #expect(snapshots[1].changes(since: snapshots[0]).isEmpty)
        #expect(snapshots[2].changes(since: snapshots[1]).map(\.description) == ["degrees: 20.5 → 22.0"])
    }

    /// Each form of the word compares as its closure would: a function without a context (a closure that captures
    /// nothing, made where the type is known), a class (`==` from generic code, never equal), a box (a closure
    /// with a context), which goes when released.
    @Test func everyFormOfTheWordComparesAsItsClosure() {
        let function = AtomEquality<Int>.contextFreeFunction(of: { (a: Int, b: Int) in a % 10 == b % 10 })
        #expect(function != nil)
        let byFunction = AtomEquality<Int>(word: function ?? 0)
        #expect(byFunction.areEqual(3, 13) && !byFunction.areEqual(3, 4))

        let byClass = AtomEquality<Int>(comparison: EquatableValues<Int>.self)
        #expect(byClass.word & 3 == 3)
        #expect(byClass.areEqual(3, 3) && !byClass.areEqual(3, 13))
        #expect(byClass.closure()(4, 4) && !byClass.closure()(4, 5))
        let never = AtomEquality<Int>(comparison: ValueComparison<Int>.self)
        #expect(!never.areEqual(3, 3))

        weak var captured: Captured?
        do {
            let modulus = Captured()
            captured = modulus
            let byBox = AtomEquality<Int>({ a, b in withExtendedLifetime(modulus) { a % 7 == b % 7 } })
            #expect(byBox.word & 3 == 1)
            #expect(byBox.areEqual(1, 8) && !byBox.areEqual(1, 2))
            #expect(byBox.closure()(2, 9))
            byBox.release()
        }
        #expect(captured == nil)
    }

    /// A declaration's instances and a family's members share one equality: made in generic code, `==` has a
    /// context, and it is boxed once for the declaration, not once per atom. Writes of an equal value are none.
    @Test func aDeclarationsInstancesShareItsEquality() {
        let words = [Runtime(), Runtime()].map { runtime in
            withIsolatedRuntime(using: runtime) { () -> (instance: UInt, members: [UInt]) in
                let instance = sharedDegrees.node
                let log = RunLog<Int>()
                let effect = Effect { log.values.append(instance.value) }
                instance.value = 20
                instance.value = 21
                withExtendedLifetime(effect) {}
                #expect(log.values == [20, 21])
                return (instance.equality.word, [sharedFamily(1).equality.word, sharedFamily(2).equality.word])
            }
        }
        #expect(words[0].instance == words[1].instance)
        #expect(Set(words.flatMap(\.members)).count == 1)
    }
}

private let sharedDegrees = declare.atom { 20 }
private let sharedFamily = declare.atomFamily { (id: Int) in "member \(id)" }
