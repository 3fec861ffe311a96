/// A family of async derivations whose failures are `any Error`: the family of a body that throws untyped errors,
/// or none. Everything about it is documented on ``TypedAsyncDerivationFamily``, the same type with the failure type
/// as a parameter.
///
/// ```swift
/// let book: AsyncDerivationFamily<String, Book> = declare.derivedFamily { isbn in try await api.book(isbn) }
/// ```
public typealias AsyncDerivationFamily<Key: Hashable & Sendable, Value: Sendable> =
    TypedAsyncDerivationFamily<Key, Value, any Error>

/// A declared async derivation parameterized by a key: one instance per key per runtime, created on first use of
/// that key.
///
/// Make one with `declare.derivedFamily { (key: Key) async throws -> Value in ... }` (an
/// ``AsyncDerivationFamily``), or with a body declared `throws(E)`, whose members' phases have errors of type `E`
/// (`Failure`), as ``TypedAsyncDerivation`` describes. Call it with a key to get that key's instance, a
/// ``TypedAsyncDerivation``: with its phases, its stale runs cancelled when what they read
/// changes, and ``TypedAsyncDerivation/refresh()``, like a ``DeclaredAsyncDerivation``'s. Each run has the member's
/// runtime as ``Runtime/current``, so the declarations it reads are that runtime's, overrides included.
///
/// ```swift
/// let book = declare.derivedFamily { (isbn: String) async throws -> String in
///     try await catalog.title(of: isbn)
/// }
/// print(try await book("978-0").value)
/// ```
///
/// ## Threading
/// From any thread; each key's instance is created once per runtime. Bodies run on the cooperative pool.
///
/// ## Lifetime
/// As for ``DerivationFamily``: each member lives while it is held, read by a live reader or awaited; a released
/// member leaves the family's table, and releasing it cancels its run in flight.
public final class TypedAsyncDerivationFamily<Key: Hashable & Sendable, Value: Sendable, Failure: Error>: Sendable {
    /// The slot, the body of a key's member, the equality, the hooks of a key's member.
    let declaration:
        Declaration<Value, @Sendable (Key) async throws(Failure) -> Value, (@Sendable (Key) -> Lifecycle<Value>)?>

    init(
        _ declaration: Declaration<
            Value, @Sendable (Key) async throws(Failure) -> Value, (@Sendable (Key) -> Lifecycle<Value>)?
        >
    ) {
        self.declaration = declaration
    }

    /// The instance for `key` in the current runtime (the one evaluating on this thread, else
    /// ``Runtime/current``), created if it has none, without starting a run: that happens on the first read of its
    /// phase or value.
    ///
    /// ```swift
    /// let cover = declare.derivedFamily { (isbn: String) async throws in try await covers.image(for: isbn) }
    /// print(cover("978-0").phase)     // suspending: the first read starts the run
    /// ```
    ///
    /// - Parameter key: which member.
    ///
    /// Threading: from any thread. Lifetime: holding the node keeps the member alive.
    public func callAsFunction(_ key: Key) -> TypedAsyncDerivation<Value, Failure> {
        member(for: key)
    }

    @inline(never)
    func makeMember(for key: Key, in runtime: Runtime) -> TypedAsyncDerivation<Value, Failure> {
        let box = ReplaceableBody(currentBody(for: key, in: runtime), in: runtime, tracksReplacement: true)
        return install(key, in: runtime, hooks: hooks(for: key), body: box) {
            runtime.creatingInstance {
                TypedAsyncDerivation<Value, Failure>(
                    starter: TypedAsyncDerivation.starter(running: box), equals: declaration.equals,
                    label: declaration.memberLabel(for: key), fileID: declaration.fileID, line: declaration.line,
                    runtime: runtime)
            }
        }
    }

    /// The body of `key`'s member: the family's body applied to the key.
    static func memberBody(_ body: @escaping @Sendable (Key) async throws(Failure) -> Value, for key: Key)
        -> @Sendable () async throws(Failure) -> Value
    {
        applying(body, to: key)
    }

    /// The member for `key` in the current runtime if it has one, without creating it.
    ///
    /// ```swift
    /// print(book.existingNode(for: "978-0") == nil)
    /// ```
    ///
    /// - Parameter key: which member.
    ///
    /// Threading: from any thread. Lifetime: the returned node keeps the member alive.
    public func existingNode(for key: Key) -> TypedAsyncDerivation<Value, Failure>? {
        existingMember(for: key)
    }

    /// How many members of this family are alive in the current runtime.
    ///
    /// ```swift
    /// print(book.instanceCount)
    /// ```
    ///
    /// Threading: from any thread; a snapshot that other threads may change at once.
    public var instanceCount: Int {
        memberCount
    }

    /// Starts a new run of the member for `key` in the current runtime with the same inputs, and returns the phase
    /// it produced once it has finished, as ``TypedAsyncDerivation/refresh()``.
    ///
    /// ```swift
    /// let phase = await book.refresh("978-0")
    /// ```
    ///
    /// - Parameter key: which member.
    /// - Returns: the phase after the new run, typed as the member's phase is, or nil when the member does not exist
    ///   (nothing was refreshed).
    ///
    /// Threading: from any task. Does nothing if the member does not exist.
    @discardableResult
    public func refresh(_ key: Key) async -> TypedAsyncPhase<Value, Failure>? {
        await existingNode(for: key)?.refresh()
    }

    /// An override of the member for `key` only: its runs succeed with `value`. It wins over an override of the
    /// whole family made before it, and a later whole-family override replaces it.
    ///
    /// ```swift
    /// withIsolatedRuntime(overriding: book.overridden("978-0", with: "Fake")) { ... }
    /// ```
    ///
    /// - Parameters:
    ///   - key: which member.
    ///   - value: the value every run of that member returns.
    ///
    /// Threading: the override is a value; apply it from any thread.
    public func overridden(_ key: Key, with value: Value) -> Override {
        override(key, with: { value })
    }

    /// An override of the whole family: every member, existing and future, runs `body(key)` instead. An existing
    /// member's current run is stale at once: if it is observed, a run of the new body starts in the override's
    /// flush.
    ///
    /// ```swift
    /// withIsolatedRuntime(overriding: book.overridden { isbn in "Title of \(isbn)" }) { ... }
    /// ```
    ///
    /// - Parameter body: the new body, given the member's key.
    ///
    /// Threading: the override is a value; apply it from any thread.
    public func overridden(by body: @escaping @Sendable (Key) async throws(Failure) -> Value) -> Override {
        overrideFamily(with: body)
    }
}

extension TypedAsyncDerivationFamily: FamilyDeclaration {
    /// Derivations are never written: the family keeps no member for a write.
    var writtenLimit: Int? { nil }
}

extension DeclarationMaker {
    /// Declares a family of async derivations: one instance per key per runtime (a ``TypedAsyncDerivation``), whose
    /// body runs in a task started by the first read of its phase or value, and again when what it read changes.
    /// `Equatable` results equal to the previous one change nothing downstream. The members' failures have the type
    /// the body throws: `E` for a body declared `throws(E)`, `any Error` for an untyped one (an
    /// ``AsyncDerivationFamily``).
    ///
    /// ```swift
    /// let book = declare.derivedFamily { (isbn: String) async throws -> Book in
    ///     try await apiClient.value.fetchBook(isbn: isbn)
    /// }
    /// let cover = declare.derivedFamily { (isbn: String) async throws(FetchError) -> Data in
    ///     try await covers.image(for: isbn)
    /// }
    /// if cover("978-0").phase.error == .noData { showPlaceholder() }
    /// ```
    ///
    /// - Parameters:
    ///   - label: the name of its members in trap messages (followed by the key).
    ///   - keepAlive: keep each member for the runtime's lifetime.
    ///   - lifecycle: the hooks of the member for a key (`updated` is not called for async derivations: observe
    ///     the member's phase instead).
    ///   - fileID: the file of the declaration (leave the default).
    ///   - line: the line of the declaration (leave the default).
    ///   - body: computes a member's value from its key, reading nodes and declarations before and after its
    ///     `await`s.
    ///
    /// Threading: from any thread. Lifetime: see ``TypedAsyncDerivationFamily``.
    public func derivedFamily<Key: Hashable & Sendable, Value: Sendable & Equatable, E: Error>(
        label: String? = nil, keepAlive: Bool = false, lifecycle: (@Sendable (Key) -> Lifecycle<Value>)? = nil,
        fileID: String = #fileID, line: Int = #line, _ body: @escaping @Sendable (Key) async throws(E) -> Value
    ) -> TypedAsyncDerivationFamily<Key, Value, E> {
        TypedAsyncDerivationFamily(
            Declaration(
                body: body, equals: { $0 == $1 }, keepAlive: keepAlive, lifecycle: lifecycle, label: label,
                fileID: fileID, line: line))
    }

    /// Declares a family of async derivations whose results always count as changes (for values that are not
    /// `Equatable`). Failures have the type the body throws, as for the `Equatable` form.
    ///
    /// ```swift
    /// let thumbnail = declare.derivedFamily { (url: URL) async throws -> Data in try await download(url) }
    /// ```
    ///
    /// - Parameters:
    ///   - label: the name of its members in trap messages (followed by the key).
    ///   - keepAlive: keep each member for the runtime's lifetime.
    ///   - lifecycle: the hooks of the member for a key.
    ///   - fileID: the file of the declaration (leave the default).
    ///   - line: the line of the declaration (leave the default).
    ///   - body: computes a member's value from its key.
    ///
    /// Threading: from any thread. Lifetime: see ``TypedAsyncDerivationFamily``.
    public func derivedFamily<Key: Hashable & Sendable, Value: Sendable, E: Error>(
        label: String? = nil, keepAlive: Bool = false, lifecycle: (@Sendable (Key) -> Lifecycle<Value>)? = nil,
        fileID: String = #fileID, line: Int = #line, _ body: @escaping @Sendable (Key) async throws(E) -> Value
    ) -> TypedAsyncDerivationFamily<Key, Value, E> {
        TypedAsyncDerivationFamily(
            Declaration(
                body: body, equals: nil, keepAlive: keepAlive, lifecycle: lifecycle, label: label,
                fileID: fileID, line: line))
    }

    // Bodies that throw nothing give an `AsyncDerivationFamily`, as before typed failures (rather than a family
    // whose failure is `Never`).

    /// Declares a family of async derivations whose body throws nothing, with `Equatable` results: an
    /// ``AsyncDerivationFamily``, as for an untyped body.
    ///
    /// ```swift
    /// let greeting = declare.derivedFamily { (name: String) async in "Hello, \(name)" }
    /// ```
    ///
    /// - Parameters:
    ///   - label: the name of its members in trap messages (followed by the key).
    ///   - keepAlive: keep each member for the runtime's lifetime.
    ///   - lifecycle: the hooks of the member for a key.
    ///   - fileID: the file of the declaration (leave the default).
    ///   - line: the line of the declaration (leave the default).
    ///   - body: computes a member's value from its key.
    ///
    /// Threading: from any thread. Lifetime: see ``TypedAsyncDerivationFamily``.
    public func derivedFamily<Key: Hashable & Sendable, Value: Sendable & Equatable>(
        label: String? = nil, keepAlive: Bool = false, lifecycle: (@Sendable (Key) -> Lifecycle<Value>)? = nil,
        fileID: String = #fileID, line: Int = #line, _ body: @escaping @Sendable (Key) async -> Value
    ) -> AsyncDerivationFamily<Key, Value> {
        derivedFamily(
            label: label, keepAlive: keepAlive, lifecycle: lifecycle, fileID: fileID, line: line,
            body as @Sendable (Key) async throws -> Value)
    }

    /// Declares a family of async derivations whose body throws nothing, whose results always count as changes:
    /// an ``AsyncDerivationFamily``.
    ///
    /// ```swift
    /// let thumbnail = declare.derivedFamily { (url: URL) async -> Data in await cache.data(for: url) }
    /// ```
    ///
    /// - Parameters:
    ///   - label: the name of its members in trap messages (followed by the key).
    ///   - keepAlive: keep each member for the runtime's lifetime.
    ///   - lifecycle: the hooks of the member for a key.
    ///   - fileID: the file of the declaration (leave the default).
    ///   - line: the line of the declaration (leave the default).
    ///   - body: computes a member's value from its key.
    ///
    /// Threading: from any thread. Lifetime: see ``TypedAsyncDerivationFamily``.
    public func derivedFamily<Key: Hashable & Sendable, Value: Sendable>(
        label: String? = nil, keepAlive: Bool = false, lifecycle: (@Sendable (Key) -> Lifecycle<Value>)? = nil,
        fileID: String = #fileID, line: Int = #line, _ body: @escaping @Sendable (Key) async -> Value
    ) -> AsyncDerivationFamily<Key, Value> {
        derivedFamily(
            label: label, keepAlive: keepAlive, lifecycle: lifecycle, fileID: fileID, line: line,
            body as @Sendable (Key) async throws -> Value)
    }
}
