import Testing

@testable import Ripple

/// Actions sent from many threads at once: reduced one at a time, each sender's actions in the order it sent them,
/// none lost, and an observing effect never sees a half-applied reduction.
@Suite struct StoreConcurrencyTests {
    struct Tally: Equatable {
        var total = 0
        /// The last number reduced for each sender.
        var lastBySender: [Int: Int] = [:]
        /// Actions that arrived out of their sender's order.
        var outOfOrder = 0
        /// Written together with `total`: an effect that sees them differ saw half a reduction.
        var totalAgain = 0
    }

    @Test(arguments: [1, 2, 4, 8])
    func concurrentSendersKeepEachSendersOrderAndLoseNothing(threads: Int) async {
        let runtime = Runtime()
        let perThread = Stress.iterations(quick: 2_000)
        let store = inRuntime(runtime) {
            Store(initialState: Tally()) {
                Reduce<Tally, [Int]> { state, action in
                    let (sender, number) = (action[0], action[1])
                    if number != (state.lastBySender[sender] ?? -1) + 1 { state.outOfOrder += 1 }
                    state.lastBySender[sender] = number
                    state.total += 1
                    state.totalAgain += 1
                    return .none
                }
            }
        }
        let torn = RunCount()
        let watcher = inRuntime(runtime) {
            Effect { if store.total != store.totalAgain { torn.increment() } }
        }
        await runOnThreads(threads) { sender in
            for number in 0..<perThread { store.send([sender, number]) }
        }
        // Every send has returned, so the thread that drained the queue last has emptied it.
        let tally = store.state
        #expect(tally.total == threads * perThread)
        #expect(tally.outOfOrder == 0)
        #expect(tally.lastBySender == Dictionary(uniqueKeysWithValues: (0..<threads).map { ($0, perThread - 1) }))
        #expect(torn.value == 0)
        _ = watcher
    }

    @Test func anActionSentByAnEffectIsReducedAfterTheCurrentOne() {
        withIsolatedRuntime {
            let store = Store(initialState: [String]()) {
                Reduce<[String], String> { state, action in
                    state.append(action)
                    return .none
                }
            }
            let echo = Effect {
                if store.state.last == "ping" { store.send("pong") }
            }
            store.send("ping")
            #expect(store.state == ["ping", "pong"])
            _ = echo
        }
    }

    @Test @MainActor func theMainActorSendsAndReads() {
        withIsolatedRuntime {
            let store = Store(initialState: Counter.State(), reducer: Counter(fetchScore: { 1 }))
            store.send(.increase)
            #expect(store.count == 1)
        }
    }
}
