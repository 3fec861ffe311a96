// Declared state: atoms, derivations and families written once, as global or static values, with one instance
// per runtime. Built on the node API (each instance is an `AtomObject` or a `Derivation`) and on a per-runtime
// store of instances (`DeclarationStore`); overrides, lifecycle hooks and the test context's look-ups go through
// that store. See the "Declared state" and "Testing with overrides" articles.

/// Where declarations are made: `declare.atom { ... }`, `declare.derived { ... }`, and their families.
///
/// ```swift
/// let todos = declare.atom { [Todo]() }
/// let filter = declare.atom { Filter.all }
/// let filtered = declare.derived { todos.value.filter(filter.value.includes) }
/// let user = declare.atomFamily { (id: Int) in User.placeholder(id) }
/// ```
///
/// Threading: a value with no state; declarations are `Sendable`, made to be global `let`s.
public let declare = DeclarationMaker()

/// The type of ``declare``: makes declarations. Use it through ``declare``.
///
/// ```swift
/// let count = declare.atom { 0 }
/// ```
///
/// Threading: stateless and `Sendable`.
public struct DeclarationMaker: Sendable {
    init() {}

    /// Declares an atom: one instance per runtime, starting from `makeDefault()`, compared with `==`.
    ///
    /// ```swift
    /// let todos = declare.atom { [Todo]() }
    /// let settings = declare.atom(keepAlive: true) { Settings.load() }
    /// ```
    ///
    /// - Parameters:
    ///   - label: the name of its instances in trap messages; by default the file and line of the declaration.
    ///   - keepAlive: keep each runtime's instance for the runtime's lifetime instead of releasing it when
    ///     nothing holds it.
    ///   - lifecycle: hooks run when an instance is created, changes and is released.
    ///   - fileID: the file of the declaration (leave the default).
    ///   - line: the line of the declaration (leave the default).
    ///   - makeDefault: computes the starting value (on creation, and on reset); it may read other declarations
    ///     (untracked).
    ///
    /// Threading: from any thread. Lifetime: see ``DeclaredAtom``.
    public func atom<Value: Equatable>(
        label: String? = nil, keepAlive: Bool = false, lifecycle: Lifecycle<Value> = Lifecycle(),
        fileID: String = #fileID, line: Int = #line, _ makeDefault: @escaping @Sendable () -> Value
    ) -> DeclaredAtom<Value> {
        DeclaredAtom(
            Declaration(
                body: makeDefault, equals: { $0 == $1 }, keepAlive: keepAlive, lifecycle: lifecycle, label: label,
                fileID: fileID, line: line))
    }

    /// Declares an atom compared with your own equality (for values that are not `Equatable`).
    ///
    /// ```swift
    /// let client = declare.atom(equals: { $0 === $1 }) { APIClient() as AnyObject }
    /// ```
    ///
    /// - Parameters:
    ///   - equals: returns true when two values are the same for readers.
    ///   - label: the name of its instances in trap messages.
    ///   - keepAlive: keep each runtime's instance for the runtime's lifetime.
    ///   - lifecycle: hooks run when an instance is created, changes and is released.
    ///   - fileID: the file of the declaration (leave the default).
    ///   - line: the line of the declaration (leave the default).
    ///   - makeDefault: computes the starting value.
    ///
    /// Threading: from any thread. Lifetime: see ``DeclaredAtom``.
    public func atom<Value>(
        equals: @escaping @Sendable (Value, Value) -> Bool, label: String? = nil, keepAlive: Bool = false,
        lifecycle: Lifecycle<Value> = Lifecycle(), fileID: String = #fileID, line: Int = #line,
        _ makeDefault: @escaping @Sendable () -> Value
    ) -> DeclaredAtom<Value> {
        DeclaredAtom(
            Declaration(
                body: makeDefault, equals: equals, keepAlive: keepAlive, lifecycle: lifecycle, label: label,
                fileID: fileID, line: line))
    }

    /// Declares a derivation: one lazy, cached instance per runtime, whose recomputations that give an equal
    /// value (`==`) change nothing downstream.
    ///
    /// ```swift
    /// let remaining = declare.derived { todos.value.filter { !$0.isDone }.count }
    /// ```
    ///
    /// - Parameters:
    ///   - label: the name of its instances in trap messages.
    ///   - keepAlive: keep each runtime's instance for the runtime's lifetime.
    ///   - lifecycle: hooks run when an instance is created, recomputes to a new value and is released.
    ///   - fileID: the file of the declaration (leave the default).
    ///   - line: the line of the declaration (leave the default).
    ///   - body: computes the value from nodes and declarations.
    ///
    /// Threading: from any thread. Lifetime: see ``DeclaredDerivation``.
    public func derived<Value: Equatable>(
        label: String? = nil, keepAlive: Bool = false, lifecycle: Lifecycle<Value> = Lifecycle(),
        fileID: String = #fileID, line: Int = #line, _ body: @escaping @Sendable () -> Value
    ) -> DeclaredDerivation<Value> {
        DeclaredDerivation(
            Declaration(
                body: body, equals: { $0 == $1 }, keepAlive: keepAlive, lifecycle: lifecycle, label: label,
                fileID: fileID, line: line))
    }

    /// Declares a derivation whose recomputations always count as changes (for values that are not
    /// `Equatable`).
    ///
    /// ```swift
    /// let client = declare.derived { APIClient(baseURL: baseURL.value) as any APIClientProtocol }
    /// ```
    ///
    /// - Parameters:
    ///   - label: the name of its instances in trap messages.
    ///   - keepAlive: keep each runtime's instance for the runtime's lifetime.
    ///   - lifecycle: hooks run when an instance is created, recomputes and is released.
    ///   - fileID: the file of the declaration (leave the default).
    ///   - line: the line of the declaration (leave the default).
    ///   - body: computes the value from nodes and declarations.
    ///
    /// Threading: from any thread. Lifetime: see ``DeclaredDerivation``.
    public func derived<Value>(
        label: String? = nil, keepAlive: Bool = false, lifecycle: Lifecycle<Value> = Lifecycle(),
        fileID: String = #fileID, line: Int = #line, _ body: @escaping @Sendable () -> Value
    ) -> DeclaredDerivation<Value> {
        DeclaredDerivation(
            Declaration(
                body: body, equals: nil, keepAlive: keepAlive, lifecycle: lifecycle, label: label,
                fileID: fileID, line: line))
    }

    /// Declares an async derivation: one instance per runtime, whose body runs in a task started by the first
    /// read of its phase or value, and again when what it read changes (see ``TypedAsyncDerivation``). `Equatable`
    /// results equal to the previous one change nothing downstream. Its failures have the type the body throws:
    /// `E` for a body declared `throws(E)`, `any Error` for an untyped one (a ``DeclaredAsyncDerivation``).
    ///
    /// ```swift
    /// let book = declare.derived { () async throws -> Book in
    ///     try await apiClient.value.fetchBook(isbn: isbn.value)
    /// }
    /// let shelf = declare.derived { () async throws(FetchError) -> [Book] in
    ///     try await catalog.shelf()
    /// }
    /// if shelf.phase.error == .noData { showEmptyShelf() }
    /// ```
    ///
    /// - Parameters:
    ///   - label: the name of its instances in trap messages.
    ///   - keepAlive: keep each runtime's instance for the runtime's lifetime.
    ///   - lifecycle: hooks run when an instance is created and released (`updated` is not called for async
    ///     derivations: observe ``TypedDeclaredAsyncDerivation/phase`` instead).
    ///   - fileID: the file of the declaration (leave the default).
    ///   - line: the line of the declaration (leave the default).
    ///   - body: computes the value, reading nodes and declarations before and after its `await`s.
    ///
    /// Threading: from any thread. Lifetime: see ``TypedDeclaredAsyncDerivation``.
    public func derived<Value: Sendable & Equatable, E: Error>(
        label: String? = nil, keepAlive: Bool = false, lifecycle: Lifecycle<Value> = Lifecycle(),
        fileID: String = #fileID, line: Int = #line, _ body: @escaping @Sendable () async throws(E) -> Value
    ) -> TypedDeclaredAsyncDerivation<Value, E> {
        TypedDeclaredAsyncDerivation(
            Declaration(
                body: body, equals: { $0 == $1 }, keepAlive: keepAlive, lifecycle: lifecycle, label: label,
                fileID: fileID, line: line))
    }

    /// Declares an async derivation whose results always count as changes (for values that are not
    /// `Equatable`). Failures have the type the body throws, as for the `Equatable` form.
    ///
    /// ```swift
    /// let image = declare.derived { () async throws -> Data in try await download(url.value) }
    /// ```
    ///
    /// - Parameters:
    ///   - label: the name of its instances in trap messages.
    ///   - keepAlive: keep each runtime's instance for the runtime's lifetime.
    ///   - lifecycle: hooks run when an instance is created and released.
    ///   - fileID: the file of the declaration (leave the default).
    ///   - line: the line of the declaration (leave the default).
    ///   - body: computes the value.
    ///
    /// Threading: from any thread. Lifetime: see ``TypedDeclaredAsyncDerivation``.
    public func derived<Value: Sendable, E: Error>(
        label: String? = nil, keepAlive: Bool = false, lifecycle: Lifecycle<Value> = Lifecycle(),
        fileID: String = #fileID, line: Int = #line, _ body: @escaping @Sendable () async throws(E) -> Value
    ) -> TypedDeclaredAsyncDerivation<Value, E> {
        TypedDeclaredAsyncDerivation(
            Declaration(
                body: body, equals: nil, keepAlive: keepAlive, lifecycle: lifecycle, label: label,
                fileID: fileID, line: line))
    }

    // Bodies that throw nothing give a `DeclaredAsyncDerivation`, as before typed failures (rather than a
    // declaration whose failure is `Never`).

    /// Declares an async derivation whose body throws nothing, with `Equatable` results: a
    /// ``DeclaredAsyncDerivation``, as for an untyped body.
    ///
    /// ```swift
    /// let greeting = declare.derived { () async in "hello" }
    /// ```
    ///
    /// - Parameters:
    ///   - label: the name of its instances in trap messages.
    ///   - keepAlive: keep each runtime's instance for the runtime's lifetime.
    ///   - lifecycle: hooks run when an instance is created and released.
    ///   - fileID: the file of the declaration (leave the default).
    ///   - line: the line of the declaration (leave the default).
    ///   - body: computes the value.
    ///
    /// Threading: from any thread. Lifetime: see ``TypedDeclaredAsyncDerivation``.
    public func derived<Value: Sendable & Equatable>(
        label: String? = nil, keepAlive: Bool = false, lifecycle: Lifecycle<Value> = Lifecycle(),
        fileID: String = #fileID, line: Int = #line, _ body: @escaping @Sendable () async -> Value
    ) -> DeclaredAsyncDerivation<Value> {
        derived(
            label: label, keepAlive: keepAlive, lifecycle: lifecycle, fileID: fileID, line: line,
            body as @Sendable () async throws -> Value)
    }

    /// Declares an async derivation whose body throws nothing, whose results always count as changes: a
    /// ``DeclaredAsyncDerivation``.
    ///
    /// ```swift
    /// let snapshot = declare.derived { () async -> Data in await renderer.png() }
    /// ```
    ///
    /// - Parameters:
    ///   - label: the name of its instances in trap messages.
    ///   - keepAlive: keep each runtime's instance for the runtime's lifetime.
    ///   - lifecycle: hooks run when an instance is created and released.
    ///   - fileID: the file of the declaration (leave the default).
    ///   - line: the line of the declaration (leave the default).
    ///   - body: computes the value.
    ///
    /// Threading: from any thread. Lifetime: see ``TypedDeclaredAsyncDerivation``.
    public func derived<Value: Sendable>(
        label: String? = nil, keepAlive: Bool = false, lifecycle: Lifecycle<Value> = Lifecycle(),
        fileID: String = #fileID, line: Int = #line, _ body: @escaping @Sendable () async -> Value
    ) -> DeclaredAsyncDerivation<Value> {
        derived(
            label: label, keepAlive: keepAlive, lifecycle: lifecycle, fileID: fileID, line: line,
            body as @Sendable () async throws -> Value)
    }

    /// Declares a family of atoms: one instance per key per runtime, starting from `makeDefault(key)`.
    ///
    /// ```swift
    /// let draft = declare.atomFamily { (postID: Int) in "" }
    /// draft(7).value = "Hello"
    /// ```
    ///
    /// - Parameters:
    ///   - label: the name of its members in trap messages (followed by the key).
    ///   - keepAlive: keep each member for the runtime's lifetime.
    ///   - evicting: when written members are given up: by default never (until removed, reset or overridden);
    ///     `.keepingAtMost(n)` bounds them (see ``FamilyEviction``).
    ///   - lifecycle: the hooks of the member for a key.
    ///   - fileID: the file of the declaration (leave the default).
    ///   - line: the line of the declaration (leave the default).
    ///   - makeDefault: computes a member's starting value from its key.
    ///
    /// Threading: from any thread. Lifetime: see ``AtomFamily``.
    public func atomFamily<Key: Hashable & Sendable, Value: Equatable>(
        label: String? = nil, keepAlive: Bool = false, evicting: FamilyEviction = .never,
        lifecycle: (@Sendable (Key) -> Lifecycle<Value>)? = nil,
        fileID: String = #fileID, line: Int = #line, _ makeDefault: @escaping @Sendable (Key) -> Value
    ) -> AtomFamily<Key, Value> {
        AtomFamily(
            Declaration(
                body: makeDefault, equals: { $0 == $1 }, keepAlive: keepAlive, lifecycle: lifecycle, label: label,
                fileID: fileID, line: line),
            eviction: evicting)
    }

    /// Declares a family of derivations: one lazy, cached instance per key per runtime, compared with `==`.
    ///
    /// ```swift
    /// let userName = declare.derivedFamily { (id: Int) in users.value[id]?.name ?? "?" }
    /// print(userName(1).value)
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
    /// Threading: from any thread. Lifetime: see ``DerivationFamily``.
    public func derivedFamily<Key: Hashable & Sendable, Value: Equatable>(
        label: String? = nil, keepAlive: Bool = false, lifecycle: (@Sendable (Key) -> Lifecycle<Value>)? = nil,
        fileID: String = #fileID, line: Int = #line, _ body: @escaping @Sendable (Key) -> Value
    ) -> DerivationFamily<Key, Value> {
        DerivationFamily(
            Declaration(
                body: body, equals: { $0 == $1 }, keepAlive: keepAlive, lifecycle: lifecycle, label: label,
                fileID: fileID, line: line))
    }
}
