/// A replacement of a declaration (or a whole family) in one runtime: a fixed value or another body.
///
/// Make one from the declaration (`apiClient.overridden(with: MockAPIClient())`, `user.overridden { id in ... }`)
/// and apply it when creating an isolated runtime (`withIsolatedRuntime(overriding:_:)`) or to a running one
/// (``Runtime/override(_:)-(Override...)``). An override applies before or after the declaration's first use: an instance
/// created later starts from it, and an existing one switches at once, in one batch, so that everything
/// downstream sees the override together (glitch-free; each effect runs once).
///
/// ```swift
/// @Test func fetchesWithTheMock() {
///     withIsolatedRuntime(overriding: apiClient.overridden(with: MockAPIClient(book: expected))) {
///         #expect(bookTitle.value == expected.title)
///     }
/// }
/// ```
///
/// Threading: a value; apply it from any thread. Lifetime: an applied override lasts as long as its runtime;
/// applying another override of the same declaration replaces it.
public struct Override: Sendable {
    /// Registers the override in a runtime and switches existing instances; called inside a batch.
    let apply: @Sendable (Runtime) -> Void
}

extension Runtime {
    /// Applies `overrides` to this runtime, in one batch: existing instances switch together, and effects that
    /// read them run once, when the batch ends.
    ///
    /// ```swift
    /// let runtime = Runtime.current
    /// runtime.override(todos.overridden(with: [Todo("Fake")]), filter.overridden(with: .all))
    /// ```
    ///
    /// - Parameter overrides: the overrides, applied in order (a later one of the same declaration wins).
    ///
    /// Threading: from any thread, like a batch.
    public func override(_ overrides: Override...) {
        override(overrides)
    }

    /// Applies `overrides` to this runtime in one batch, as ``override(_:)-(Override...)``.
    ///
    /// ```swift
    /// runtime.override([todos.overridden(with: [])])
    /// ```
    ///
    /// - Parameter overrides: the overrides, applied in order.
    ///
    /// Threading: from any thread, like a batch.
    public func override(_ overrides: [Override]) {
        batch {
            for override in overrides { override.apply(self) }
        }
    }

    /// How many instances of declarations (plain and family members) are alive in this runtime.
    ///
    /// ```swift
    /// withIsolatedRuntime {
    ///     let held = todos.node
    ///     print(Runtime.current.declaredInstanceCount)      // 1
    /// }
    /// ```
    ///
    /// Threading: from any thread; a snapshot that other threads may change at once.
    public var declaredInstanceCount: Int {
        declarations.instanceCount
    }
}

/// Runs `body` with a fresh ``Runtime`` as ``Runtime/current``, with `overrides` applied before it starts.
///
/// ```swift
/// @Test func showsTheFakeUser() {
///     withIsolatedRuntime(overriding: user.overridden { id in User(id: id, name: "Fake") }) {
///         #expect(user(1).value.name == "Fake")
///     }
/// }
/// ```
///
/// - Parameters:
///   - overrides: replacements of declarations for this runtime.
///   - isolation: the caller's actor isolation (leave the default).
///   - body: the code to run against the fresh runtime.
///
/// Threading and lifetime: as `withIsolatedRuntime(_:)`.
public func withIsolatedRuntime<T>(
    overriding overrides: Override..., isolation: isolated (any Actor)? = #isolation, _ body: () throws -> T
) rethrows -> T {
    try withIsolatedRuntime {
        Runtime.current.override(overrides)
        return try body()
    }
}

/// Runs the asynchronous `body` with a fresh ``Runtime`` as ``Runtime/current``, with `overrides` applied before
/// it starts.
///
/// ```swift
/// @Test func fetches() async throws {
///     try await withIsolatedRuntime(overriding: apiClient.overridden(with: MockAPIClient())) { () async throws in
///         #expect(try await book.node.value.title == "A book")
///     }
/// }
/// ```
///
/// - Parameters:
///   - overrides: replacements of declarations for this runtime.
///   - isolation: the caller's actor isolation (leave the default).
///   - body: the code to run against the fresh runtime; its child tasks use it too.
///
/// Threading and lifetime: as the asynchronous `withIsolatedRuntime(_:)`.
public func withIsolatedRuntime<T>(
    overriding overrides: Override..., isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
) async rethrows -> T {
    try await withIsolatedRuntime { () async throws -> T in
        Runtime.current.override(overrides)
        return try await body()
    }
}
