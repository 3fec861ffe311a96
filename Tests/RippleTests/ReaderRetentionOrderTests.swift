import Testing
@_spi(Testing) import Ripple

/// Whether the graph keeps a node alive follows the set of its readers, whatever order they came in: a live effect
/// (or a registered subscriber) keeps alive what it reads even when a `values` iteration read it first, and a
/// `values` iteration alone never keeps its node alive, even when an effect read the node before it began. Each
/// effect and subscriber here refers to what it reads weakly, so only the graph's retention counts.
@Suite @MainActor struct ReaderRetentionOrderTests {
    /// A subscriber of a user type that reads through a closure and records what it saw.
    final class Reader: Subscriber {
        private let read: () -> Int
        private(set) var seen: [Int] = []

        init(_ read: @escaping () -> Int) {
            self.read = read
        }

        func run() {
            seen.append(read())
        }
    }

    /// A user-defined source of values, which the graph stands for with a node of its own.
    final class Gauge: Publisher {
        let runtime: Runtime
        private var storedLevel: Int

        init(level: Int, runtime: Runtime) {
            storedLevel = level
            self.runtime = runtime
        }

        var level: Int {
            get {
                runtime.willRead(self)
                return storedLevel
            }
            set {
                storedLevel = newValue
                runtime.didMutate(self)
            }
        }

        deinit {
            runtime.unregister(publisher: self)
        }
    }

    @Test func anEffectAfterAValuesIterationKeepsTheDerivationAlive() async throws {
        let runtime = Runtime()
        let count = withIsolatedRuntime(using: runtime) { atom(1) }
        var tenfold: Derivation<Int>? = withIsolatedRuntime(using: runtime) { derive { count.value * 10 } }
        weak let weakTenfold = tenfold
        var iterator = tenfold!.values.makeAsyncIterator()
        let seen = RunLog<Int>()
        let effect = withIsolatedRuntime(using: runtime) { Effect { seen.values.append(weakTenfold?.value ?? -1) } }
        tenfold = nil
        #expect(weakTenfold != nil)  // the live effect keeps it
        count.value = 2
        #expect(seen.values == [10, 20])
        #expect(await iterator.next() == 20)
        effect.cancel()
        try #require(weakTenfold == nil)  // the iteration alone does not keep it (else it would never finish)
        #expect(await iterator.next() == nil)
        #expect(runtime.liveNodeCount == 1)  // the atom
    }

    @Test func aValuesIterationLeftAloneAfterAnEffectDoesNotKeepTheDerivationAlive() async throws {
        let runtime = Runtime()
        let count = withIsolatedRuntime(using: runtime) { atom(1) }
        var tenfold: Derivation<Int>? = withIsolatedRuntime(using: runtime) { derive { count.value * 10 } }
        weak let weakTenfold = tenfold
        let seen = RunLog<Int>()
        let effect = withIsolatedRuntime(using: runtime) { Effect { seen.values.append(weakTenfold?.value ?? -1) } }
        var iterator = tenfold!.values.makeAsyncIterator()
        tenfold = nil
        #expect(weakTenfold != nil)  // the live effect keeps it
        effect.cancel()
        try #require(weakTenfold == nil)  // else the iteration would never finish
        #expect(seen.values == [10])
        #expect(await iterator.next() == 10)
        #expect(await iterator.next() == nil)
        #expect(runtime.liveNodeCount == 1)
    }

    @Test func anEffectAfterAValuesIterationKeepsTheAtomAlive() async throws {
        let runtime = Runtime()
        var count: AtomObject<Int>? = withIsolatedRuntime(using: runtime) { atom(1) }
        weak let weakCount = count
        var iterator = count!.values.makeAsyncIterator()
        let seen = RunLog<Int>()
        let effect = withIsolatedRuntime(using: runtime) { Effect { seen.values.append(weakCount?.value ?? -1) } }
        count = nil
        #expect(weakCount != nil)
        weakCount?.value = 2
        #expect(seen.values == [1, 2])
        #expect(await iterator.next() == 2)
        effect.cancel()
        try #require(weakCount == nil)  // else the iteration would never finish
        #expect(await iterator.next() == nil)
        #expect(runtime.liveNodeCount == 0)
    }

    @Test func aValuesIterationLeftAloneAfterAnEffectDoesNotKeepTheAtomAlive() async throws {
        let runtime = Runtime()
        var count: AtomObject<Int>? = withIsolatedRuntime(using: runtime) { atom(1) }
        weak let weakCount = count
        let seen = RunLog<Int>()
        let effect = withIsolatedRuntime(using: runtime) { Effect { seen.values.append(weakCount?.value ?? -1) } }
        var iterator = count!.values.makeAsyncIterator()
        count = nil
        #expect(weakCount != nil)
        effect.cancel()
        try #require(weakCount == nil)  // else the iteration would never finish
        #expect(seen.values == [1])
        #expect(await iterator.next() == 1)
        #expect(await iterator.next() == nil)
        #expect(runtime.liveNodeCount == 0)
    }

    /// Two effects and an iteration, interleaved: the node lives exactly as long as one of the effects does.
    @Test func theNodeLivesWhileAnyEffectReadsIt() async throws {
        let runtime = Runtime()
        var count: AtomObject<Int>? = withIsolatedRuntime(using: runtime) { atom(1) }
        weak let weakCount = count
        let first = withIsolatedRuntime(using: runtime) { Effect { _ = weakCount?.value } }
        var iterator = count!.values.makeAsyncIterator()
        var second: Effect? = withIsolatedRuntime(using: runtime) { Effect { _ = weakCount?.value } }
        count = nil
        first.cancel()
        #expect(weakCount != nil)  // the second effect
        #expect(await iterator.next() == 1)
        second = nil
        try #require(weakCount == nil)  // else the iteration would never finish
        #expect(await iterator.next() == nil)
        #expect(runtime.liveNodeCount == 0)
        withExtendedLifetime(second) {}
    }

    @Test func aSubscriberAfterAValuesIterationKeepsTheDerivationAlive() async throws {
        let runtime = Runtime()
        let count = withIsolatedRuntime(using: runtime) { atom(1) }
        var tenfold: Derivation<Int>? = withIsolatedRuntime(using: runtime) { derive { count.value * 10 } }
        weak let weakTenfold = tenfold
        var iterator = tenfold!.values.makeAsyncIterator()
        let reader = Reader { weakTenfold?.value ?? -1 }
        runtime.register(reader)
        tenfold = nil
        #expect(weakTenfold != nil)  // the registered subscriber keeps it
        count.value = 2
        #expect(reader.seen == [10, 20])
        runtime.unregister(subscriber: reader)
        try #require(weakTenfold == nil)  // else the iteration would never finish
        #expect(await iterator.next() == 20)
        #expect(await iterator.next() == nil)
        #expect(runtime.liveNodeCount == 1)
    }

    @Test func aValuesIterationLeftAloneAfterASubscriberDoesNotKeepTheDerivationAlive() async throws {
        let runtime = Runtime()
        let count = withIsolatedRuntime(using: runtime) { atom(1) }
        var tenfold: Derivation<Int>? = withIsolatedRuntime(using: runtime) { derive { count.value * 10 } }
        weak let weakTenfold = tenfold
        let reader = Reader { weakTenfold?.value ?? -1 }
        runtime.register(reader)
        var iterator = tenfold!.values.makeAsyncIterator()
        tenfold = nil
        runtime.unregister(subscriber: reader)
        try #require(weakTenfold == nil)  // else the iteration would never finish
        #expect(reader.seen == [10])
        #expect(await iterator.next() == 10)
        #expect(await iterator.next() == nil)
        #expect(runtime.liveNodeCount == 1)
    }

    /// A derivation of a user publisher, iterated then read by an effect: the effect keeps the derivation alive;
    /// the publisher's own node is held by the runtime for as long as the publisher lives, whoever reads it.
    @Test func aPublishersReadersFollowTheSameRule() async throws {
        let runtime = Runtime()
        var gauge: Gauge? = Gauge(level: 3, runtime: runtime)
        var doubled: Derivation<Int>? = withIsolatedRuntime(using: runtime) { [gauge] in derive { gauge!.level * 2 } }
        weak let weakDoubled = doubled
        var iterator = doubled!.values.makeAsyncIterator()
        let seen = RunLog<Int>()
        let effect = withIsolatedRuntime(using: runtime) { Effect { seen.values.append(weakDoubled?.value ?? -1) } }
        doubled = nil
        #expect(weakDoubled != nil)
        #expect(runtime.liveNodeCount == 4)  // the publisher's node, the derivation, the observer, the effect
        gauge!.level = 4
        #expect(seen.values == [6, 8])
        #expect(await iterator.next() == 8)
        effect.cancel()
        try #require(weakDoubled == nil)  // else the iteration would never finish
        #expect(await iterator.next() == nil)
        #expect(runtime.liveNodeCount == 1)  // the publisher's node, until the publisher goes
        gauge = nil
        #expect(runtime.liveNodeCount == 0)
    }
}
