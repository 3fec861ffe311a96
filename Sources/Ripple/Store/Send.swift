/// Sends actions back to a ``Store`` from a run of asynchronous ``Work``.
///
/// A run's operation receives one and calls it like a function: each call hands the action to the store that
/// started the run, which reduces it after the actions sent before it.
///
/// ```swift
/// case .refresh:
///     return .run { send in
///         let score = try await fetchScore()
///         send(.scored(score))
///     }
/// ```
///
/// Threading: from any thread or task. Lifetime: it does not keep the store alive; once the store is freed, or
/// once the run is cancelled (``Work/cancel(id:)``, a new run with `cancelInFlight`), its calls do nothing.
public struct Send<Action: Sendable>: Sendable {
    private let deliver: @Sendable (Action) -> Void

    init(_ deliver: @escaping @Sendable (Action) -> Void) {
        self.deliver = deliver
    }

    /// Sends `action` to the store, unless the run it belongs to was cancelled: whichever thread or task calls it
    /// (a completion handler, a dispatch queue), it asks the run, not the calling task. An action the run sent
    /// before its cancellation that the store had not reduced yet is dropped too.
    ///
    /// ```swift
    /// return .run { send in send(.loaded(try await load())) }
    /// ```
    ///
    /// Threading: from any thread or task.
    public func callAsFunction(_ action: Action) {
        deliver(action)
    }
}
