import RippleTesting
import Testing

@testable import Ripple

/// Child reducers scoped to a slice of the parent's state and a case of its actions; the parent observing what its
/// children do, including the actions their work sends back.
@Suite struct StoreCompositionTests {
    @Test func eachChildChangesOnlyItsSliceAndTheParentSeesItAfterward() async {
        await withIsolatedRuntime { () async in
            let store = TestStore(initialState: TwoCounters.State(), reducer: TwoCounters(fetchScore: { 1 }))
            store.send(.first(.increase)) {
                $0.first.count = 1
                $0.log = ["first increase → 1"]
            }
            store.send(.second(.increase)) {
                $0.second.count = 1
                $0.log.append("second increase → 1")
            }
            store.send(.reset) {
                $0.first.count = 0
                $0.second.count = 0
            }
            await store.finish()
        }
    }

    @Test func aChildsWorkComesBackThroughTheParent() async {
        await withIsolatedRuntime { () async in
            let store = TestStore(initialState: TwoCounters.State(), reducer: TwoCounters(fetchScore: { 1 }))
            store.send(.second(.decrease)) {
                $0.second.count = -1
                $0.log = ["second decrease → -1"]
            }
            await store.receive(.second(.increase)) {
                $0.second.count = 0
                $0.log.append("second increase → 0")
            }
            await store.finish()
        }
    }

    @Test func theCaseIsRecognisedByItsNameNotOnlyItsPayloadType() {
        enum Parent: Equatable {
            case left(Int)
            case right(Int)
            case plain
        }
        #expect(extractCase(Parent.left, from: .left(3)) == 3)
        #expect(extractCase(Parent.left, from: .right(3)) == nil)
        #expect(extractCase(Parent.right, from: .right(4)) == 4)
        #expect(extractCase(Parent.left, from: .plain) == nil)
    }

    @Test func aStoreOfTheParentFeedsAViewOfOneChild() {
        withIsolatedRuntime {
            let store = Store(initialState: TwoCounters.State(), reducer: TwoCounters(fetchScore: { 1 }))
            let firstRuns = RunCount()
            let firstView = Effect { _ = store.first; firstRuns.increment() }
            store.send(.second(.increase))
            #expect(firstRuns.value == 1)  // the log changed, and the second counter: not the first
            store.send(.first(.increase))
            #expect(firstRuns.value == 2)
            #expect(store.first == Counter.State(count: 1))
            _ = firstView
        }
    }
}
