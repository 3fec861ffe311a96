import RippleTesting
import Testing

@testable import Ripple

/// The counter of the README on a plain store: the exact sequence of counts an effect sees and the exact log of
/// actions the reducer reduced, including the one the run sends back.
@Suite struct StoreCounterTests {
    @Test func theCounterIncreasesDecreasesAndTheRunSendsTheScoresAction() async throws {
        try await withIsolatedRuntime { () async throws in
            let actions = Recorder<Counter.Action>()
            let store = Store(initialState: Counter.State()) {
                Counter(fetchScore: { 7 })
                Reduce { _, action in
                    actions.append(action)
                    return .none
                }
            }
            let counts = AwaitableLog<Int>()
            let label = Effect { counts.append(store.count) }
            #expect(counts.values == [0])
            store.send(.increase)
            #expect(counts.values == [0, 1])
            store.send(.decrease)
            #expect(counts.values == [0, 1, 0])  // the state change is applied before the run starts
            await counts.waitUntil(count: 4)      // the run fetched 7 and sent .increase
            #expect(counts.values == [0, 1, 0, 1])
            #expect(actions.values == [.increase, .decrease, .increase])
            #expect(store.state == Counter.State(count: 1))
            _ = label
        }
    }

    @Test func aNegativeScoreSendsDecreaseUntilTheScoreTurnsPositive() async throws {
        try await withIsolatedRuntime { () async throws in
            let scores = Locked<[Int]>([-1, -2, 3])
            let store = Store(initialState: Counter.State(), reducer: Counter(fetchScore: {
                scores.withLock { $0.removeFirst() }
            }))
            let counts = AwaitableLog<Int>()
            let label = Effect { counts.append(store.count) }
            store.send(.decrease)
            await counts.waitUntil(count: 5)
            #expect(counts.values == [0, -1, -2, -3, -2])
            _ = label
        }
    }

    @Test func theTestStoreWalksTheCounterExhaustively() async {
        await withIsolatedRuntime { () async in
            let store = TestStore(initialState: Counter.State(), reducer: Counter(fetchScore: { 5 }))
            store.send(.increase) { $0.count = 1 }
            store.send(.decrease) { $0.count = 0 }
            await store.receive(.increase) { $0.count = 1 }
            await store.finish()
        }
    }
}
