import Ripple

// Reducers shared by the store's tests: the counter of the README (increase, decrease, and a run that fetches a
// score and sends another action), and a parent that scopes two counters.

/// The counter: `.decrease` starts a run that fetches a score and sends `.increase` for a positive score, else
/// `.decrease`.
struct Counter: Reducer {
    struct State: Equatable {
        var count = 0
    }

    enum Action: Equatable {
        case increase
        case decrease
    }

    var fetchScore: @Sendable () async throws -> Int

    var body: some Reducer<State, Action> {
        Reduce { state, action in
            switch action {
            case .increase:
                state.count += 1
                return .none
            case .decrease:
                state.count -= 1
                return .run { send in
                    let score = try await fetchScore()
                    send(score > 0 ? .increase : .decrease)
                }
            }
        }
    }
}

/// Two counters side by side: the first scoped by the case alone (reflection), the second with an explicit
/// extraction; the parent's own reducer runs after them and logs what they did.
struct TwoCounters: Reducer {
    struct State: Equatable {
        var first = Counter.State()
        var second = Counter.State()
        var log: [String] = []
    }

    enum Action: Equatable {
        case first(Counter.Action)
        case second(Counter.Action)
        case reset
    }

    var fetchScore: @Sendable () async throws -> Int

    var body: some Reducer<State, Action> {
        Scope(state: \.first, action: Action.first) { Counter(fetchScore: fetchScore) }
        Scope(
            state: \.second, action: Action.second,
            extract: { if case .second(let action) = $0 { action } else { nil } }
        ) { Counter(fetchScore: fetchScore) }
        Reduce { state, action in
            switch action {
            case .first(let child):
                state.log.append("first \(child) → \(state.first.count)")
            case .second(let child):
                state.log.append("second \(child) → \(state.second.count)")
            case .reset:
                state.first.count = 0
                state.second.count = 0
            }
            return .none
        }
    }
}
