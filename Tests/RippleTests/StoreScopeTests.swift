import Testing

@testable import Ripple

/// Child stores (`store.scope(state:action:)`): a `Store` of a child's state and actions that reads through the
/// parent's nodes and sends through the parent, so a child feature is written against its own types.
@Suite struct StoreScopeTests {
    /// What a child feature's view does with its store, written against the child's types alone: it shows the
    /// count and sends `.increase`.
    static func tapIncrease(_ store: Store<Counter.State, Counter.Action>) -> Int {
        store.send(.increase)
        return store.count
    }

    @Test func aChildStoreSendsThroughTheParentAndReadsItsSlice() {
        withIsolatedRuntime {
            let parent = Store(initialState: TwoCounters.State(), reducer: TwoCounters(fetchScore: { 1 }))
            let first = parent.scope(state: \.first, action: TwoCounters.Action.first)
            #expect(Self.tapIncrease(first) == 1)
            #expect(first.state == Counter.State(count: 1))
            #expect(parent.state.first.count == 1)
            #expect(parent.state.second.count == 0)
            // The parent's reducer ran after the child's, as for an action sent to the parent.
            #expect(parent.log == ["first increase → 1"])
        }
    }

    @Test func theSameFeatureCodeRunsOnARootStoreOfTheChild() {
        withIsolatedRuntime {
            let alone = Store(initialState: Counter.State(count: 4), reducer: Counter(fetchScore: { 1 }))
            #expect(Self.tapIncrease(alone) == 5)
        }
    }

    @Test func aReaderOfTheChildReRunsOnlyWhenItsSliceChanges() {
        withIsolatedRuntime {
            let parent = Store(initialState: TwoCounters.State(), reducer: TwoCounters(fetchScore: { 1 }))
            let first = parent.scope(state: \.first, action: TwoCounters.Action.first)
            let seen = Recorder<Int>()
            let view = Effect { seen.append(first.count) }
            parent.send(.second(.increase))  // the second counter and the log change: not the first counter
            first.send(.increase)
            parent.send(.first(.increase))
            #expect(seen.values == [0, 1, 2])
            _ = view
        }
    }

    @Test func aChildsWorkComesBackThroughTheParentAndFinishAwaitsIt() async {
        await withIsolatedRuntime { () async in
            let gate = Gate<Void>()
            let parent = Store(
                initialState: TwoCounters.State(),
                reducer: TwoCounters(fetchScore: {
                    await gate.wait()
                    return 1
                }))
            let second = parent.scope(state: \.second, action: TwoCounters.Action.second)
            second.send(.decrease)
            #expect(second.count == -1)
            gate.open()
            await second.finish()
            #expect(second.count == 0)
            #expect(parent.log == ["second decrease → -1", "second increase → 0"])
        }
    }

    @Test func aScopeOfAScopeReadsThroughBoth() {
        withIsolatedRuntime {
            let parent = Store(initialState: TwoCounters.State(), reducer: TwoCounters(fetchScore: { 1 }))
            let count = parent.scope(state: \.first, action: TwoCounters.Action.first)
                .scope(state: \.count, action: { (action: Counter.Action) in action })
            let seen = Recorder<Int>()
            let view = Effect { seen.append(count.state) }
            count.send(.increase)
            parent.send(.second(.increase))
            count.send(.increase)
            #expect(seen.values == [0, 1, 2])
            #expect(parent.state.first.count == 2)
            _ = view
        }
    }
}
