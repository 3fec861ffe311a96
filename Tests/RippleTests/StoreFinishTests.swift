import Testing

@testable import Ripple

/// `Store.finish()`: a plain store's outstanding work can be awaited, including the runs its runs' actions start.
@Suite struct StoreFinishTests {
    /// `.start` starts a run that waits for the gate and sends `.step(1)`; each `.step(n)` below 3 starts a run
    /// that sends `.step(n + 1)`. Every action is logged in the state.
    struct Chain: Reducer {
        enum Action: Equatable {
            case start
            case step(Int)
        }

        let gate: Gate<Void>

        func reduce(into state: inout [String], action: Action) -> Work<Action> {
            state.append("\(action)")
            switch action {
            case .start:
                return .run { [gate] send in
                    await gate.wait()
                    send(.step(1))
                }
            case .step(let number) where number < 3:
                return .run { send in send(.step(number + 1)) }
            case .step:
                return .none
            }
        }
    }

    @Test func finishAwaitsEveryRunIncludingTheRunsTheirActionsStart() async {
        await withIsolatedRuntime { () async in
            let gate = Gate<Void>()
            let store = Store(initialState: [], reducer: Chain(gate: gate))
            store.send(.start)
            let finished = Task { await store.finish() }
            #expect(store.state == ["start"])
            gate.open()
            await finished.value
            #expect(store.state == ["start", "step(1)", "step(2)", "step(3)"])
            #expect(store.runningWorkOrigins.isEmpty)
        }
    }

    @Test func finishReturnsAtOnceWhenNoWorkIsInFlight() async {
        await withIsolatedRuntime { () async in
            let store = Store(initialState: [], reducer: Chain(gate: Gate()))
            store.send(.step(3))
            await store.finish()
            #expect(store.state == ["step(3)"])
        }
    }
}
