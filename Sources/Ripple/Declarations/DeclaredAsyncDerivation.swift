/// A declared async derivation whose failures are `any Error`: the declaration of a body that throws untyped errors,
/// or none. Everything about it is documented on ``TypedDeclaredAsyncDerivation``, the same type with the failure
/// type as a parameter.
///
/// ```swift
/// let book: DeclaredAsyncDerivation<Book> = declare.derived { () async throws in try await api.book() }
/// ```
public typealias DeclaredAsyncDerivation<Value: Sendable> = TypedDeclaredAsyncDerivation<Value, any Error>

/// An async derivation declared once, as a global or static value, with one instance per runtime.
///
/// Make one with `declare.derived { () async throws -> Value in ... }` (a ``DeclaredAsyncDerivation``), or with a
/// body declared `throws(E)`, whose instance's phase has errors of type `E` (`Failure`), as
/// ``TypedAsyncDerivation`` describes; its overrides throw `E` too. Its instance (a ``TypedAsyncDerivation``) is
/// created in the current runtime on first use; its body runs with that runtime as ``Runtime/current``, so the
/// declarations it reads are that runtime's (and their overrides apply).
///
/// ```swift
/// let apiClient = declare.atom(equals: { _, _ in false }) { APIClient() as any APIClientProtocol }
/// let book = declare.derived { () async throws -> Book in
///     try await apiClient.value.fetchBook(isbn: "978-0")
/// }
///
/// withIsolatedRuntime(overriding: apiClient.overridden(with: MockAPIClient())) { () async throws in
///     print(try await book.node.value.title)
/// }
/// ```
///
/// ## Threading
/// From any thread; the body runs on the cooperative pool.
///
/// ## Lifetime
/// As for ``DeclaredDerivation``; releasing the instance cancels its run in flight.
public final class TypedDeclaredAsyncDerivation<Value: Sendable, Failure: Error>: Sendable {
    /// The slot, the body, the equality, the hooks.
    let declaration: Declaration<Value, @Sendable () async throws(Failure) -> Value, Lifecycle<Value>>

    init(_ declaration: Declaration<Value, @Sendable () async throws(Failure) -> Value, Lifecycle<Value>>) {
        self.declaration = declaration
    }

    /// This declaration's instance in the current runtime, created if it has none (without starting a run: that
    /// happens on the first read of its phase or value).
    ///
    /// ```swift
    /// let node = book.node              // an AsyncDerivation<Book>
    /// print(node.phase)                 // suspending: the first read starts the run
    /// ```
    ///
    /// Threading: from any thread. Lifetime: holding the node keeps the instance alive.
    public var node: TypedAsyncDerivation<Value, Failure> {
        instance(in: .forDeclarations)
    }

    @inline(never)
    func makeInstance(in runtime: Runtime) -> TypedAsyncDerivation<Value, Failure> {
        let box = ReplaceableBody(currentBody(in: runtime), in: runtime, tracksReplacement: true)
        return install(in: runtime, body: box) {
            runtime.creatingInstance {
                TypedAsyncDerivation<Value, Failure>(
                    starter: TypedAsyncDerivation.starter(running: box), equals: declaration.equals,
                    label: declaration.explicitLabel, fileID: declaration.fileID, line: declaration.line,
                    runtime: runtime)
            }
        }
    }

    /// Where the instance's value stands: a tracked read of ``TypedAsyncDerivation/phase``.
    ///
    /// ```swift
    /// let render = Effect { print(book.phase) }
    /// ```
    ///
    /// Threading: from any thread.
    public var phase: TypedAsyncPhase<Value, Failure> {
        node.phase
    }

    /// The instance in the current runtime if it has one, without creating it.
    ///
    /// ```swift
    /// print(book.existingNode == nil)
    /// ```
    ///
    /// Threading: from any thread. Lifetime: the returned node keeps the instance alive.
    public var existingNode: TypedAsyncDerivation<Value, Failure>? {
        existingInstance
    }

    /// An override that makes this declaration succeed with `value` in a runtime.
    ///
    /// ```swift
    /// withIsolatedRuntime(overriding: book.overridden(with: Book(title: "Fake"))) { ... }
    /// ```
    ///
    /// - Parameter value: the value every run returns.
    ///
    /// Threading: the override is a value; apply it from any thread.
    public func overridden(with value: Value) -> Override {
        overridden { value }
    }

    /// An override that runs `body` instead of the declared body. An existing instance's current run is stale at
    /// once: if it is observed, a run of the new body starts in the override's flush.
    ///
    /// ```swift
    /// let failing = book.overridden { throw URLError(.notConnectedToInternet) }
    /// ```
    ///
    /// - Parameter body: the new body; it throws the declaration's error type.
    ///
    /// Threading: as for ``overridden(with:)``.
    public func overridden(by body: @escaping @Sendable () async throws(Failure) -> Value) -> Override {
        override(with: body)
    }
}

extension TypedDeclaredAsyncDerivation: PlainDeclaration {}

extension TypedAsyncDerivation {
    /// Starts a run of a declared derivation's current body (a run has its runtime as ``Runtime/current``, so the
    /// declarations it reads are that runtime's). Reading the body (and its hidden generation atom) is the run's
    /// first dependency, so an override makes the run stale.
    static func starter(running box: ReplaceableBody<@Sendable () async throws(Failure) -> Value>) -> Starter
    where Value: Sendable {
        { run, node in
            run.start {
                let body = box.currentFromRun
                let result: Result<Value, Failure>
                do throws(Failure) { result = .success(try await body()) } catch { result = .failure(error) }
                node.node?.resolve(run, with: result)
            }
        }
    }
}
