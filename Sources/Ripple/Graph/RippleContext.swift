/// Task-local configuration of Ripple.
///
/// ```swift
/// let runtime = Runtime()
/// RippleContext.$runtimeOverride.withValue(runtime) {
///     let count = atom(0)                  // created in `runtime`
///     assert(count.runtime === runtime)
/// }
/// ```
///
/// Prefer `withIsolatedRuntime(_:)` and `withIsolatedRuntime(using:_:)`, which set the override for you.
///
/// Threading: the values are task-local: child tasks inherit them, other tasks do not see them.
public enum RippleContext {
    /// The runtime ``Runtime/current`` returns instead of ``Runtime/shared``, or nil.
    ///
    /// ```swift
    /// withIsolatedRuntime {
    ///     assert(RippleContext.runtimeOverride != nil)
    /// }
    /// ```
    ///
    /// Threading: task-local; inherited by child tasks (not by detached tasks). Lifetime: the binding keeps the
    /// runtime alive for the duration of `withValue`; nodes created meanwhile keep it alive afterwards.
    @TaskLocal public static var runtimeOverride: Runtime?
}

/// Runs `body` with a fresh ``Runtime`` as ``Runtime/current``, and returns its result.
///
/// Nodes created inside belong to the fresh runtime, so tests do not share state. The runtime is freed when the
/// body returned and the nodes created in it are gone.
///
/// ```swift
/// @Test func doubling() {
///     withIsolatedRuntime {
///         @Atom var a = 1
///         @Derived var doubled = a * 2
///         #expect(doubled == 2)
///     }
/// }
/// ```
///
/// Threading: runs `body` synchronously on the calling thread. Lifetime: nodes that escape the body keep the
/// runtime alive and keep using it.
// Not disfavored: as in the original Ripple, a synchronous body picks this overload in every context, async ones
// included, so `withIsolatedRuntime { ... }` needs no `await` inside an async test. A body that awaits picks the
// async overload.
public func withIsolatedRuntime<T>(
    isolation: isolated (any Actor)? = #isolation, _ body: () throws -> T
) rethrows -> T {
    let runtime = Runtime()
    defer {
        runtime.dropDeadSubscribers()
        runtime.declarations.dropKeptAlive()  // keep-alive instances hold the runtime: they go with the body
    }
    return try RippleContext.$runtimeOverride.withValue(runtime, operation: body)
}

/// Runs the asynchronous `body` with a fresh ``Runtime`` as ``Runtime/current`` for it and its child tasks, and
/// returns its result.
///
/// ```swift
/// @Test func isolatedGraphs() async {
///     let sum: Int = await withIsolatedRuntime {
///         @Atom var x = 1; @Atom var y = 2; @Derived var s = x + y; return s
///     }
///     #expect(sum == 3)
/// }
/// ```
///
/// - Parameters:
///   - isolation: the caller's actor isolation (leave the default): `body` runs on it, so it need not be
///     `Sendable`.
///   - body: the code to run against the fresh runtime; its child tasks use it too.
///
/// Threading: `body` runs in the caller's isolation; child tasks inherit the override (detached tasks do not).
/// Lifetime: as for the synchronous version.
public func withIsolatedRuntime<T>(
    isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
) async rethrows -> T {
    let runtime = Runtime()
    defer {
        runtime.dropDeadSubscribers()
        runtime.declarations.dropKeptAlive()  // keep-alive instances hold the runtime: they go with the body
    }
    return try await RippleContext.$runtimeOverride.withValue(runtime, operation: body, isolation: isolation)
}

/// Runs `body` with `runtime` as ``Runtime/current``, and returns its result.
///
/// Use it to go back to a runtime you kept, for instance to create more nodes in the graph of an earlier
/// isolated test step.
///
/// ```swift
/// let runtime = Runtime()
/// let count = withIsolatedRuntime(using: runtime) { atom(0) }
/// let doubled = withIsolatedRuntime(using: runtime) { derive { count.value * 2 } }
/// ```
///
/// Threading: runs `body` synchronously on the calling thread; other threads may use `runtime` meanwhile.
/// Lifetime: the binding keeps `runtime` alive while `body` runs.
// Not disfavored, for the same reason as `withIsolatedRuntime(_:)`: a synchronous body needs no `await`.
public func withIsolatedRuntime<T>(
    using runtime: Runtime, isolation: isolated (any Actor)? = #isolation, _ body: () throws -> T
) rethrows -> T {
    defer { runtime.dropDeadSubscribers() }
    return try RippleContext.$runtimeOverride.withValue(runtime, operation: body)
}

/// Runs the asynchronous `body` with `runtime` as ``Runtime/current`` for it and its child tasks, and returns its
/// result.
///
/// ```swift
/// let runtime = Runtime()
/// let value: Int = await withIsolatedRuntime(using: runtime) {
///     let a = atom(20)
///     await Task.yield()
///     return a.value + 1
/// }
/// ```
///
/// - Parameters:
///   - runtime: the runtime to make current.
///   - isolation: the caller's actor isolation (leave the default): `body` runs on it, so it need not be
///     `Sendable`.
///   - body: the code to run against `runtime`; its child tasks use it too.
///
/// Threading: `body` runs in the caller's isolation; other threads may use `runtime` meanwhile.
/// Lifetime: the binding keeps `runtime` alive while `body` runs.
public func withIsolatedRuntime<T>(
    using runtime: Runtime, isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
) async rethrows -> T {
    defer { runtime.dropDeadSubscribers() }
    return try await RippleContext.$runtimeOverride.withValue(runtime, operation: body, isolation: isolation)
}
