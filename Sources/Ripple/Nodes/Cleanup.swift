internal import CRipple

/// Registers work to undo what the running effect's or derivation's body did: it runs before that body's next run
/// and when its node stops (an effect cancelled or freed, a derivation freed).
///
/// Cleanups run in registration order, without recording reads. Call `onCleanup` from inside an effect's or a
/// derivation's body (directly or in functions it calls, including inside ``untracked(_:)`` and ``batch(_:)``);
/// anywhere else it traps. Inside the body of an async derivation, `await onCleanup { }` registers a `Sendable`
/// cleanup for the run instead (``onCleanup(_:)-66dcx``).
///
/// ```swift
/// let interval = atom(1.0)
/// let ticker = Effect {
///     let timer = Timer.scheduledTimer(withTimeInterval: interval.value, repeats: true) { _ in tick() }
///     onCleanup { timer.invalidate() }      // before the next run, and on cancel or deinit
/// }
/// ```
///
/// Threading: on the thread running the body. Lifetime: the closure is kept by the node until it runs.
public func onCleanup(_ body: @escaping () -> Void) {
    // The runtime evaluating on this thread, then its node evaluating, which takes the cleanup if its body runs.
    guard let node = EvaluationThreadState.innermostRuntime?.evaluatingNode, node.register(cleanup: body) else {
        cleanupOutsideBody()
    }
}

/// Registers work to undo what the running async derivation's body started (cancel a request, close a socket): it
/// runs when that run ends, that is when a newer run starts (before its body runs) or when the derivation is freed.
///
/// Cleanups run in registration order, on the thread that ends the run, so they must be `Sendable`. A cleanup
/// registered by a run that has already ended runs at once. Outside an async derivation's body it traps.
///
/// ```swift
/// let user = derive { () async throws -> User in
///     let request = api.startLoading(id: userID.value)
///     await onCleanup { request.cancel() }
///     return try await request.value
/// }
/// ```
///
/// Threading: from the body's task or its child tasks. Lifetime: the closure is kept until it runs.
@_disfavoredOverload
public func onCleanup(_ body: @escaping @Sendable () -> Void) async {
    guard let run = AsyncRun.current else { cleanupOutsideBody() }
    run.register(cleanup: body)
}

@inline(never)
private func cleanupOutsideBody() -> Never {
    if AsyncRun.current != nil {
        fatalError(
            """
            Ripple: onCleanup { } was called from synchronous code inside an async derivation's body. A cleanup of \
            an async run runs on the thread that ends the run, so it must be Sendable: write \
            `await onCleanup { ... }` in the body itself.
            """
        )
    }
    let inside = EvaluationThreadState.innermostRuntime.map {
        " (it was called while \($0.debugName) was running a registered subscriber)"
    } ?? ""
    fatalError(
        """
        Ripple: onCleanup was called outside an effect or derivation body\(inside). A cleanup belongs to the body \
        that is running: it runs before that body's next run and when its node stops. Fix: call onCleanup from \
        inside Effect { ... } or derive { ... }; elsewhere, undo the work yourself when you are done with it.
        """
    )
}
