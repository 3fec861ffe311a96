import RippleTesting
import Testing

@testable import Ripple

/// The work a reducer returns: runs that send actions back, cancellation by id (also of the runs in flight), merge,
/// `.send`, `map`, errors turned into actions, and cancellation when the store is freed.
@Suite struct StoreWorkTests {
    /// A job that waits on a gate, then sends `.finished`; `.stop` cancels it. `sawCancellation` records whether
    /// the run found itself cancelled once the gate opened.
    struct Job: Reducer {
        enum Action: Equatable {
            case start(Int)
            case stop
            case finished(Int)
            case failed(String)
            case pair
        }

        let gates: [Gate<Void>]
        let sawCancellation: Recorder<Bool>

        func reduce(into state: inout [String], action: Action) -> Work<Action> {
            state.append("\(action)")
            switch action {
            case .start(let number):
                return .run { send in
                    await gates[number].wait()
                    sawCancellation.append(Task.isCancelled)
                    send(.finished(number))
                }
                .cancellable(id: "job", cancelInFlight: true)
            case .stop:
                return .cancel(id: "job")
            case .finished:
                return .none
            case .failed:
                return .none
            case .pair:
                return .merge(
                    .send(.finished(0)),
                    .run { send in
                        await gates[1].wait()
                        send(.finished(1))
                    },
                    .run { send in
                        await gates[2].wait()
                        send(.finished(2))
                    })
            }
        }
    }

    @Test func cancellingByIdDropsTheRunsLaterSends() async {
        await withIsolatedRuntime { () async in
            let gates = [Gate<Void>()]
            let sawCancellation = Recorder<Bool>()
            let store = TestStore(initialState: [], reducer: Job(gates: gates, sawCancellation: sawCancellation))
            store.send(.start(0)) { $0 = ["start(0)"] }
            store.send(.stop) { $0.append("stop") }
            gates[0].open()
            await store.finish()
            #expect(sawCancellation.values == [true])
        }
    }

    @Test func aNewRunWithCancelInFlightCancelsTheOneBefore() async {
        await withIsolatedRuntime { () async in
            let gates = [Gate<Void>(), Gate<Void>()]
            let sawCancellation = Recorder<Bool>()
            let store = TestStore(initialState: [], reducer: Job(gates: gates, sawCancellation: sawCancellation))
            store.send(.start(0)) { $0 = ["start(0)"] }
            store.send(.start(1)) { $0.append("start(1)") }
            gates[0].open()
            gates[1].open()
            await store.receive(.finished(1)) { $0.append("finished(1)") }
            await store.finish()
            #expect(sawCancellation.values.sorted { !$0 && $1 } == [false, true])
        }
    }

    @Test func mergedWorkSendsAtOnceThenEachRunInTheOrderItFinishes() async {
        await withIsolatedRuntime { () async in
            let gates = [Gate<Void>(), Gate<Void>(), Gate<Void>()]
            let store = TestStore(initialState: [], reducer: Job(gates: gates, sawCancellation: Recorder()))
            store.send(.pair) { $0 = ["pair"] }
            await store.receive(.finished(0)) { $0.append("finished(0)") }
            gates[2].open()
            await store.receive(.finished(2)) { $0.append("finished(2)") }
            gates[1].open()
            await store.receive(.finished(1)) { $0.append("finished(1)") }
            await store.finish()
        }
    }

    @Test func anErrorGoesToTheCatchHandlerAndCancellationDoesNot() async {
        struct Broken: Error {}
        await withIsolatedRuntime { () async in
            let store = TestStore(initialState: 0) {
                Reduce<Int, StoreWorkTests.Job.Action> { state, action in
                    state += 1
                    guard case .start = action else { return .none }
                    return .merge(
                        .run { _ in throw Broken() } catch: { error, send in send(.failed("\(error)")) },
                        .run { _ in throw CancellationError() } catch: { _, send in send(.failed("cancelled")) })
                }
            }
            store.send(.start(0)) { $0 = 1 }
            await store.receive(.failed("Broken()")) { $0 = 2 }
            await store.finish()
        }
    }

    @Test func mapWrapsEverySentAction() async {
        await withIsolatedRuntime { () async in
            let store = TestStore(initialState: TwoCounters.State()) {
                Reduce<TwoCounters.State, TwoCounters.Action> { _, action in
                    guard action == .reset else { return .none }
                    let child: Work<Counter.Action> = .merge(.send(.increase), .run { send in send(.decrease) })
                    return child.map(TwoCounters.Action.second)
                }
            }
            store.send(.reset)
            await store.receive(.second(.increase))
            await store.receive(.second(.decrease))
            await store.finish()
        }
    }

    @Test func freeingTheStoreCancelsItsRuns() async throws {
        try await withIsolatedRuntime { () async throws in
            let started = Gate<Void>()
            let cancelled = Gate<Void>()
            let ended = Gate<Bool>()
            var store: Store<Int, Bool>? = Store(initialState: 0) {
                Reduce<Int, Bool> { state, _ in
                    state += 1
                    return .run { send in
                        started.open()
                        await withTaskCancellationHandler {
                            try? await Task.sleep(for: .seconds(3600))  // work that never ends by itself
                        } onCancel: {
                            cancelled.open()
                        }
                        send(true)  // the store is gone: nothing happens
                        ended.open(Task.isCancelled)
                    }
                }
            }
            store?.send(false)
            await started.wait()
            weak let freed = store
            store = nil
            #expect(freed == nil)
            await cancelled.wait()
            #expect(await ended.wait() == true)
        }
    }
}
