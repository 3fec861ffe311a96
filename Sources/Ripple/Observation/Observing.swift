/// Reads properties of `@Observable` objects as dependencies of the running derivation or effect.
///
/// Inside a derivation's or an effect's body, the `@Observable` properties that `read` reads become a dependency of
/// that body, like atoms: the body runs again after one of them changed, glitch-free with the rest of the graph,
/// and sees the new value. Outside any derivation or effect it just returns `read()`.
///
/// ```swift
/// @Observable @MainActor final class Settings {
///     var currency = "EUR"
/// }
/// let settings = Settings()
/// let prices = atom([12.5, 7.5])
/// let total = derive { "\(prices.value.reduce(0, +)) \(observing { settings.currency })" }
/// print(total.value)                 // "20.0 EUR"
/// settings.currency = "USD"          // on the main actor: reaches Ripple after this job
/// ```
///
/// Observation reports a write before the new value is stored, so the dependents run only once the write is done:
/// - written inside ``Runtime/batch(_:)``, an effect or a derivation body of the same runtime (on any thread): when
///   that batch or evaluation ends;
/// - written on the main actor outside a batch: in a main-actor job enqueued at the write, after the writer's job
///   (every write of that job is one change), or earlier, at the main actor's next read of a node outside a body or
///   its next write (both come after the write), so that no read on the main actor sees a value from before it;
/// - written anywhere else outside a batch: Ripple traps, because nothing tells it when the write is complete.
///
/// Only the reads inside `read` are tracked, so bodies that read no `@Observable` object pay nothing. A runtime
/// created with ``Runtime/init(settleBound:tracksObservableReads:)`` and `tracksObservableReads: true` tracks every
/// body of its derivations and effects this way, without `observing`. Each call that
/// read observable properties stays registered with their objects until one of those properties changes (Observation
/// has no public way to cancel a tracking): a body that re-runs very often for other reasons should read them
/// through a derivation of their own, which re-runs only when they change.
///
/// - Parameter read: reads `@Observable` properties (and anything else); it runs once, now, on the calling thread.
/// - Returns: what `read` returns.
///
/// Threading: from any thread, inside the body of a derivation or effect of any runtime. Not inside an async
/// derivation's body (its reads there are not tracked). Lifetime: the dependency lasts until the body's next run.
public func observing<T>(_ read: () -> T) -> T {
    guard let runtime = EvaluationThreadState.innermostRuntime else { return read() }
    return runtime.observingInEvaluation(read)
}
