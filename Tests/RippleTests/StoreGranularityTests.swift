import Testing

@testable import Ripple

/// Reads of a store's state through Ripple: per-property run counts, derivations and async derivations of store
/// state, and a reducer reading a derivation of another store.
@Suite struct StoreGranularityTests {
    struct Profile: Equatable {
        var count = 0
        var name = ""
    }

    enum Edit: Equatable {
        case count(Int)
        case name(String)
    }

    static func profileStore() -> Store<Profile, Edit> {
        Store(initialState: Profile()) {
            Reduce { state, action in
                switch action {
                case .count(let count): state.count = count
                case .name(let name): state.name = name
                }
                return .none
            }
        }
    }

    @Test func anEffectReadingOnePropertyRunsOnlyWhenThatPropertyChanges() {
        withIsolatedRuntime {
            let store = Self.profileStore()
            let countRuns = RunCount(), nameRuns = RunCount(), stateRuns = RunCount()
            let counts = Effect { _ = store.count; countRuns.increment() }
            let names = Effect { _ = store.name; nameRuns.increment() }
            let whole = Effect { _ = store.state; stateRuns.increment() }
            #expect([countRuns.value, nameRuns.value, stateRuns.value] == [1, 1, 1])
            store.send(.count(1))
            #expect([countRuns.value, nameRuns.value, stateRuns.value] == [2, 1, 2])
            store.send(.name("Ada"))
            #expect([countRuns.value, nameRuns.value, stateRuns.value] == [2, 2, 3])
            store.send(.count(1))  // equal state: no write at all
            #expect([countRuns.value, nameRuns.value, stateRuns.value] == [2, 2, 3])
            _ = (counts, names, whole)
        }
    }

    @Test func aDerivationOfStoreStateRecomputesOnlyForItsProperty() {
        withIsolatedRuntime {
            let store = Self.profileStore()
            let computes = RunCount()
            let doubled = derive {
                computes.increment()
                return store.count * 2
            }
            let seen = RunLog<Int>()
            let effect = Effect { seen.values.append(doubled.value) }
            store.send(.name("Ada"))
            store.send(.count(21))
            store.send(.name("Grace"))
            #expect(seen.values == [0, 42])
            #expect(computes.value == 2)
            _ = effect
        }
    }

    @Test func anAsyncDerivationReadsStoreState() async throws {
        try await withIsolatedRuntime { () async throws in
            let store = Self.profileStore()
            let greeting = derive { () async -> String in "\(store.name) ×\(store.count)" }
            let phases = AwaitableLog<AsyncPhase<String>>()
            let effect = Effect { phases.append(greeting.phase) }
            await phases.waitUntil(count: 2)
            store.send(.name("Ada"))
            await phases.waitUntil(count: 4)
            #expect(phases.values == [.suspending, .success(" ×0"), .suspending, .success("Ada ×0")])
            #expect(try await greeting.value == "Ada ×0")
            _ = effect
        }
    }

    @Test func aReducerReadsADerivationOfAnotherStore() {
        withIsolatedRuntime {
            let settings = Self.profileStore()
            let step = derive { max(settings.count, 1) }
            let counter = Store(initialState: 0) {
                Reduce<Int, Void> { total, _ in
                    total += step.value
                    return .none
                }
            }
            counter.send(())
            settings.send(.count(5))
            counter.send(())
            #expect(counter.state == 6)
        }
    }
}
