import Testing
@_spi(Testing) import Ripple

/// `values`: the current value first, then each new one, the latest only when the consumer falls behind; the
/// sequence finishes when its node is freed and leaves nothing behind when the consumer stops.
@Suite struct NodeValuesTests {
    @Test func yieldsTheCurrentValueThenEachNewValue() async {
        let runtime = Runtime()
        let count = withIsolatedRuntime(using: runtime) { atom(1) }
        var iterator = count.values.makeAsyncIterator()
        #expect(await iterator.next() == 1)
        count.value = 2
        #expect(await iterator.next() == 2)
        count.value = 3
        #expect(await iterator.next() == 3)
    }

    @Test func slowConsumerGetsOnlyTheLatestValue() async {
        let runtime = Runtime()
        let count = withIsolatedRuntime(using: runtime) { atom(0) }
        var iterator = count.values.makeAsyncIterator()
        #expect(await iterator.next() == 0)
        for value in 1...10 { count.value = value }
        #expect(await iterator.next() == 10)
        count.value = 11
        #expect(await iterator.next() == 11)
    }

    @Test func derivationYieldsOnlyValuesThatChanged() async {
        let runtime = Runtime()
        let (count, parity) = withIsolatedRuntime(using: runtime) {
            let count = atom(0)
            return (count, derive { count.value % 2 })
        }
        var iterator = parity.values.makeAsyncIterator()
        #expect(await iterator.next() == 0)
        count.value = 2  // parity unchanged: nothing yielded
        count.value = 3
        #expect(await iterator.next() == 1)
    }

    @Test func finishesWhenTheNodeIsFreed() async {
        let runtime = Runtime()
        var count: AtomObject<Int>? = withIsolatedRuntime(using: runtime) { atom(5) }
        var iterator = count!.values.makeAsyncIterator()
        #expect(await iterator.next() == 5)
        #expect(runtime.liveNodeCount == 2)  // the atom and the observer
        count = nil
        #expect(await iterator.next() == nil)
        #expect(runtime.liveNodeCount == 0)
    }

    @Test func stoppingTheConsumerRemovesTheObserver() async {
        let runtime = Runtime()
        let count = withIsolatedRuntime(using: runtime) { atom(0) }
        do {
            var iterator = count.values.makeAsyncIterator()
            #expect(await iterator.next() == 0)
            #expect(runtime.liveNodeCount == 2)
        }
        #expect(runtime.liveNodeCount == 1)
        count.value = 1
        #expect(count.value == 1)
    }

    @Test func forAwaitLoopSeesWritesFromADetachedTask() async {
        let runtime = Runtime()
        let count = withIsolatedRuntime(using: runtime) { atom(0) }
        let writer = Task.detached {
            for _ in 0..<200 { count.update { $0 += 1 } }
        }
        var received: [Int] = []
        for await value in count.values {
            received.append(value)
            if value == 200 { break }
        }
        await writer.value
        #expect(received.last == 200)
        #expect(received == received.sorted())
        #expect(Set(received).count == received.count)
    }
}
