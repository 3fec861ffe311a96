import Testing
import Ripple

/// A transaction that throws after it read what it wrote (issue 36): the reads brought derivations up to date from
/// the writes and queued the effects that observe them; the rollback (the engine's savepoint) forgets all of it. No
/// effect runs, the derivations hold their values from before without recomputing, the change log and a trace see
/// nothing but the write-backs.
@Suite(.serialized) struct TransactionRollbackAfterReadsTests {
    struct Refused: Error {}

    /// What a trace saw from the first write that rolls back on: "kind node changed rollsBack".
    private func fromTheRollback(_ trace: CausalTrace) -> [String] {
        let events = trace.events
        guard let first = events.firstIndex(where: \.rollsBack) else { return [] }
        return events[first...].map { "\($0.kind) \($0.node) \($0.changed) \($0.rollsBack)" }
    }

    @Test func anEffectOfADerivationReadInsideAThrowingTransactionRunsNoMore() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            let amount = atom(1, label: "amount")
            let computes = RunCount()
            let tenfold = derive(label: "tenfold") {
                computes.increment()
                return amount.value * 10
            }
            let seen = Recorder<String>()
            let effect = Effect(label: "show") { seen.append("\(tenfold.value) \(amount.value)") }
            let changes = Recorder<String>()
            let hook = runtime.onChange { changes.append($0.description) }
            let trace = CausalTrace()
            runtime.startTracing(trace)
            #expect(seen.values == ["10 1"])
            #expect(computes.value == 1)
            #expect(throws: Refused.self) {
                try transaction {
                    amount.value = 5
                    #expect(tenfold.value == 50)
                    #expect(amount.value == 5)
                    throw Refused()
                }
            }
            runtime.stopTracing()
            // Once in the body; not again, after the throw or on this read: its value from before came back.
            #expect(computes.value == 2)
            #expect(tenfold.value == 10)
            #expect(computes.value == 2)
            #expect(amount.value == 1)
            #expect(seen.values == ["10 1"])
            #expect(changes.values.isEmpty)
            #expect(fromTheRollback(trace) == ["write amount true true"])
            // The graph goes on as if the transaction never happened: its value again is a change.
            amount.value = 5
            #expect(seen.values == ["10 1", "50 5"])
            #expect(computes.value == 3)
            #expect(changes.values == ["amount: 1 → 5"])
            withExtendedLifetime((effect, hook)) {}
        }
    }

    @Test func anInnerTransactionThatThrowsAfterReadsLeavesExactlyTheOuterOnesEffect() {
        withIsolatedRuntime {
            let amount = atom(1, label: "amount")
            let name = atom("a", label: "name")
            let computes = RunCount()
            let tenfold = derive(label: "tenfold") {
                computes.increment()
                return amount.value * 10
            }
            let seen = Recorder<String>()
            let showAmount = Effect { seen.append("amount \(tenfold.value)") }
            let showName = Effect { seen.append("name \(name.value)") }
            let changes = Recorder<String>()
            let hook = Runtime.current.onChange { changes.append($0.description) }
            seen.removeAll()
            transaction {
                name.value = "b"
                #expect(throws: Refused.self) {
                    try transaction {
                        amount.value = 7
                        #expect(tenfold.value == 70)
                        throw Refused()
                    }
                }
                #expect(tenfold.value == 10)
            }
            #expect(seen.values == ["name b"])
            #expect(computes.value == 2)
            #expect(tenfold.value == 10)
            #expect(computes.value == 2)
            #expect(changes.values == ["name: a → b"])
            withExtendedLifetime((showAmount, showName, hook)) {}
        }
    }

    @Test func aStoreActionInsideAThrowingTransactionIsForgottenAfterReads() {
        withIsolatedRuntime {
            let store = Store(initialState: Counter.State(), reducer: Counter(fetchScore: { 1 }))
            let label = atom("count", label: "label")
            let computes = RunCount()
            let shown = derive(label: "shown") {
                computes.increment()
                return store.state.count * 10
            }
            let seen = Recorder<String>()
            let showCount = Effect { seen.append("count \(shown.value)") }
            let showLabel = Effect { seen.append("label \(label.value)") }
            let changes = Recorder<String>()
            let hook = Runtime.current.onChange { _ in changes.append("change") }
            seen.removeAll()
            #expect(throws: Refused.self) {
                try transaction {
                    store.send(.increase)
                    #expect(shown.value == 10)
                    throw Refused()
                }
            }
            #expect(seen.values.isEmpty)
            #expect(store.state.count == 0)
            #expect(shown.value == 0)
            #expect(computes.value == 2)
            #expect(changes.values.isEmpty)
            // Nested: the outer transaction commits its own write; the inner one's action and reads are forgotten.
            transaction {
                label.value = "total"
                #expect(throws: Refused.self) {
                    try transaction {
                        store.send(.increase)
                        #expect(shown.value == 10)
                        throw Refused()
                    }
                }
            }
            #expect(seen.values == ["label total"])
            #expect(store.state.count == 0)
            #expect(shown.value == 0)
            #expect(computes.value == 3)
            #expect(changes.values == ["change"])
            withExtendedLifetime((showCount, showLabel, hook)) {}
        }
    }
}
