/// Registers work to undo what the running effect's body did: it runs before that effect's next run and when the
/// effect stops.
///
/// Cleanups run in registration order, without recording reads. Call `onCleanup` only from inside an effect's
/// body (directly or in functions it calls, including inside ``untracked(_:)`` and ``batch(_:)``); anywhere else,
/// including inside a derivation's body, it traps.
///
/// ```swift
/// let interval = atom(1.0)
/// let ticker = Effect {
///     let timer = Timer.scheduledTimer(withTimeInterval: interval.value, repeats: true) { _ in tick() }
///     onCleanup { timer.invalidate() }      // before the next run, and on cancel or deinit
/// }
/// ```
///
/// Threading: on the thread running the effect. Lifetime: the closure is kept by the effect until it runs.
public func onCleanup(_ body: @escaping () -> Void) {
    guard let effect = EvaluationThreadState.innermostRuntime?.runningEffect else {
        cleanupOutsideEffect()
    }
    effect.takeUnretainedValue().cleanups.append(body)
}

@inline(never)
private func cleanupOutsideEffect() -> Never {
    let inside = EvaluationThreadState.innermostRuntime.map {
        " (it was called while \($0.debugName) was computing a derivation or running a registered subscriber)"
    } ?? ""
    fatalError(
        """
        Ripple: onCleanup was called outside an effect body\(inside). A cleanup belongs to the effect whose body \
        is running: it runs before that effect's next run and when it stops. Fix: call onCleanup from inside \
        Effect { ... }; outside effects, undo the work yourself when you are done with it.
        """
    )
}
