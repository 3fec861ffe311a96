import Foundation
import Ripple

/// The store (the `store` row): one action through the reducer, the state change and one effect that observes the
/// changed property, against the same written by hand (a lock around the state, the reducer, then a callback with
/// the new value when it changed). Also the cost of a read of a store property outside any effect.
public enum RippleStore {
    public static let defaultActions = 100_000
    public static let defaultReads = 1_000_000
    public static let defaultSamples = 5
    /// Untimed actions before the samples.
    static let warmUp = 1_000

    struct State: Equatable {
        var count = 0
        var unrelated = ""
    }

    enum Action {
        case increase
    }

    /// Ripple: a `Store` whose reducer increments `count`, and an `Effect` that reads `store.count` and adds it to a
    /// sum. Each action is one batch: the reduction, the derivation of `count` re-validated, the effect run. The
    /// fastest of `samples` loops of `actions` sends, in milliseconds; `value` is the final count, `count` the
    /// effect's runs.
    public static func ripple(actions: Int = defaultActions, samples: Int = defaultSamples) -> ShapeResult {
        let verifier = Verifier()
        let runs = Counter()
        let sum = Counter()
        let (store, effect) = withIsolatedRuntime(using: Runtime()) {
            let store = Store(initialState: State()) {
                Reduce<State, Action> { state, _ in
                    state.count += 1
                    return .none
                }
            }
            let effect = Effect {
                runs.count += 1
                sum.count &+= store.count
            }
            return (store, effect)
        }
        for _ in 0..<warmUp { store.send(.increase) }
        let milliseconds = fastest(samples: samples) { for _ in 0..<actions { store.send(.increase) } }
        let total = warmUp + max(samples, 1) * actions
        verifier.expect(store.state.count == total, "count \(store.state.count), expected \(total)")
        verifier.expect(runs.count == total + 1, "the effect ran \(runs.count) times, expected \(total + 1)")
        verifier.expect(sum.count == total * (total + 1) / 2, "the effect summed \(sum.count)")
        withExtendedLifetime(effect) {}
        return ShapeResult(
            milliseconds: milliseconds, operations: actions, value: Double(store.state.count), count: runs.count,
            failures: verifier.failures)
    }

    /// By hand: the state under an NSLock, the same reduction, and a callback called (after the lock is released)
    /// with the new count when it changed. Timed as `ripple`.
    public static func handWritten(actions: Int = defaultActions, samples: Int = defaultSamples) -> ShapeResult {
        let verifier = Verifier()
        let runs = Counter()
        let sum = Counter()
        let store = HandWrittenStore(state: State()) { state, _ in state.count += 1 }
        store.observe { count in
            runs.count += 1
            sum.count &+= count
        }
        for _ in 0..<warmUp { store.send(.increase) }
        let milliseconds = fastest(samples: samples) { for _ in 0..<actions { store.send(.increase) } }
        let total = warmUp + max(samples, 1) * actions
        verifier.expect(store.count == total, "count \(store.count), expected \(total)")
        verifier.expect(runs.count == total + 1, "the callback ran \(runs.count) times, expected \(total + 1)")
        verifier.expect(sum.count == total * (total + 1) / 2, "the callback summed \(sum.count)")
        return ShapeResult(
            milliseconds: milliseconds, operations: actions, value: Double(store.count), count: runs.count,
            failures: verifier.failures)
    }

    /// The same graph without the store, for reference: an atom of the state updated in place (`count += 1`), a
    /// derivation of its `count` and the effect reading it. Nanoseconds per update, the fastest of `samples` loops.
    public static func atomNanoseconds(actions: Int = defaultActions, samples: Int = defaultSamples) -> (Double, [String]) {
        let verifier = Verifier()
        let runs = Counter()
        let (state, effect) = withIsolatedRuntime(using: Runtime()) {
            let state = atom(State())
            let count = derive { state.value.count }
            let effect = Effect {
                runs.count += 1
                _ = count.value
            }
            return (state, effect)
        }
        let milliseconds = fastest(samples: samples) { for _ in 0..<actions { state.update { $0.count += 1 } } }
        verifier.expect(runs.count == 1 + max(samples, 1) * actions, "the effect ran \(runs.count) times")
        withExtendedLifetime(effect) {}
        return (milliseconds * 1e6 / Double(actions), verifier.failures)
    }

    /// Nanoseconds per read of `store.count` outside any effect or derivation (the lock, the key path's lookup and
    /// the derivation's read), the fastest of `samples` loops of `reads`.
    public static func readNanoseconds(reads: Int = defaultReads, samples: Int = defaultSamples) -> (Double, [String]) {
        let verifier = Verifier()
        let store = withIsolatedRuntime(using: Runtime()) {
            Store(initialState: State(count: 3)) { Reduce<State, Action> { _, _ in .none } }
        }
        var sum = 0
        let milliseconds = fastest(samples: samples) { for _ in 0..<reads { sum &+= store.count } }
        verifier.expect(sum == 3 * reads * max(samples, 1), "the reads summed \(sum)")
        return (milliseconds * 1e6 / Double(reads), verifier.failures)
    }
}

/// The hand-written store: state under a lock, a reducer, and one callback told the new count when it changed.
final class HandWrittenStore {
    typealias State = RippleStore.State
    typealias Action = RippleStore.Action

    // `state` and `observer` are guarded by `lock`; the callback is called after it is released.
    private let lock = NSLock()
    private var state: State
    private let reducer: (inout State, Action) -> Void
    private var observer: ((Int) -> Void)?

    init(state: State, reducer: @escaping (inout State, Action) -> Void) {
        self.state = state
        self.reducer = reducer
    }

    var count: Int { lock.withLock { state.count } }

    /// Calls `callback` with the count now, and after every action that changes it.
    func observe(_ callback: @escaping (Int) -> Void) {
        let count = lock.withLock {
            observer = callback
            return state.count
        }
        callback(count)
    }

    func send(_ action: Action) {
        let (changed, count, observer) = lock.withLock {
            let before = state.count
            reducer(&state, action)
            return (state.count != before, state.count, self.observer)
        }
        if changed { observer?(count) }
    }
}
