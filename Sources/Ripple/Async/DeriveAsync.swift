/// Creates an async derivation whose `Equatable` results cut propagation: a result equal to the previous one,
/// with no ``TypedAsyncPhase/suspending`` in between, is no change.
///
/// Its failures have the type the body throws: a body declared `throws(FetchError)` gives a
/// `TypedAsyncDerivation<T, FetchError>` (its phase's `error` is a `FetchError?`), an untyped `throws` an
/// ``AsyncDerivation`` (`E` is `any Error`).
///
/// The body runs in a task started by the first read of ``TypedAsyncDerivation/phase`` or
/// ``TypedAsyncDerivation/value`` (directly, or by an effect or derivation that reads it), never before; again when
/// something it read changed and the derivation is observed or read; and on ``TypedAsyncDerivation/refresh()``. It
/// belongs to ``Runtime/current``, and nodes it creates do too.
///
/// ```swift
/// let query = atom("swift")
/// let results = derive { () async throws -> [Repository] in
///     try await search(query.value)
/// }
/// let books = derive { () async throws(FetchError) -> [Book] in
///     try await catalog.books(matching: query.value)     // throws only FetchError
/// }
/// if books.phase.error == .noData { showEmptyState() }
/// ```
///
/// - Parameters:
///   - label: the name used in trap messages; by default the file and line of this call.
///   - fileID: the file of the call (leave the default).
///   - line: the line of the call (leave the default).
///   - body: computes the value, reading other nodes before and after its `await`s; it should stop early when
///     its task is cancelled (`Task.checkCancellation()`), which happens when its result is no longer wanted.
///
/// Threading: from any thread; the body runs on the cooperative pool, or on the actor it is isolated to.
/// Lifetime: the derivation and its body live as long as you (or live readers, or callers awaiting its value)
/// hold it; a run in flight does not keep it alive.
public func derive<T: Equatable, E: Error>(
    label: String? = nil, fileID: String = #fileID, line: Int = #line,
    @_inheritActorContext _ body: @escaping @isolated(any) @Sendable () async throws(E) -> sending T
) -> TypedAsyncDerivation<T, E> {
    TypedAsyncDerivation(starter: starter(running: body), equals: ==, label: label, fileID: fileID, line: line)
}

/// Creates an async derivation whose results always count as changes (for values that are not `Equatable`).
///
/// As the `Equatable` form, without equality: dependents re-run after every run. Failures have the type the body
/// throws, as there.
///
/// ```swift
/// let image = derive { () async throws -> CGImage in try await loadImage(url.value) }
/// ```
///
/// - Parameters:
///   - label: the name used in trap messages; by default the file and line of this call.
///   - fileID: the file of the call (leave the default).
///   - line: the line of the call (leave the default).
///   - body: computes the value, as for the `Equatable` form.
///
/// Threading and lifetime: as for the `Equatable` form.
public func derive<T, E: Error>(
    label: String? = nil, fileID: String = #fileID, line: Int = #line,
    @_inheritActorContext _ body: @escaping @isolated(any) @Sendable () async throws(E) -> sending T
) -> TypedAsyncDerivation<T, E> {
    TypedAsyncDerivation(starter: starter(running: body), equals: nil, label: label, fileID: fileID, line: line)
}

/// Creates an async derivation that compares successive results with your own equality.
///
/// When `equals(previous, new)` is true for two successive successes (no ``TypedAsyncPhase/suspending`` in
/// between), the new result is no change. Failures have the type the body throws, as for the `Equatable` form.
///
/// ```swift
/// let quote = derive(equals: { abs($0 - $1) < 0.01 }) { () async throws in try await price(symbol.value) }
/// ```
///
/// - Parameters:
///   - equals: returns true when two values are the same for the derivation's readers. It must not read or write
///     Ripple nodes.
///   - label: the name used in trap messages; by default the file and line of this call.
///   - fileID: the file of the call (leave the default).
///   - line: the line of the call (leave the default).
///   - body: computes the value, as for the `Equatable` form.
///
/// Threading and lifetime: as for the `Equatable` form.
public func derive<T, E: Error>(
    equals: @escaping @Sendable (T, T) -> Bool, label: String? = nil, fileID: String = #fileID, line: Int = #line,
    @_inheritActorContext _ body: @escaping @isolated(any) @Sendable () async throws(E) -> sending T
) -> TypedAsyncDerivation<T, E> {
    TypedAsyncDerivation(starter: starter(running: body), equals: equals, label: label, fileID: fileID, line: line)
}

// Bodies that throw nothing: without these, `E` would be inferred as `Never` and such a body would give a
// `TypedAsyncDerivation<T, Never>`, where code written before typed failures expects an `AsyncDerivation<T>`.

/// Creates an async derivation of a body that throws nothing, whose `Equatable` results cut propagation, as the
/// throwing form does: an ``AsyncDerivation``, like the derivation of an untyped body.
///
/// ```swift
/// let greeting = derive { () async in "hello" }       // an AsyncDerivation<String>
/// ```
///
/// - Parameters:
///   - label: the name used in trap messages; by default the file and line of this call.
///   - fileID: the file of the call (leave the default).
///   - line: the line of the call (leave the default).
///   - body: computes the value, as for the throwing form.
///
/// Threading and lifetime: as for the throwing form.
public func derive<T: Equatable>(
    label: String? = nil, fileID: String = #fileID, line: Int = #line,
    @_inheritActorContext _ body: @escaping @isolated(any) @Sendable () async -> sending T
) -> AsyncDerivation<T> {
    AsyncDerivation(starter: nonThrowingStarter(running: body), equals: ==, label: label, fileID: fileID, line: line)
}

/// Creates an async derivation of a body that throws nothing, whose results always count as changes: an
/// ``AsyncDerivation``.
///
/// ```swift
/// let snapshot = derive { () async -> CGImage in await render(scene.value) }
/// ```
///
/// - Parameters:
///   - label: the name used in trap messages; by default the file and line of this call.
///   - fileID: the file of the call (leave the default).
///   - line: the line of the call (leave the default).
///   - body: computes the value, as for the throwing form.
///
/// Threading and lifetime: as for the throwing form.
public func derive<T>(
    label: String? = nil, fileID: String = #fileID, line: Int = #line,
    @_inheritActorContext _ body: @escaping @isolated(any) @Sendable () async -> sending T
) -> AsyncDerivation<T> {
    AsyncDerivation(starter: nonThrowingStarter(running: body), equals: nil, label: label, fileID: fileID, line: line)
}

/// Creates an async derivation of a body that throws nothing, compared with your own equality: an
/// ``AsyncDerivation``.
///
/// ```swift
/// let estimate = derive(equals: { abs($0 - $1) < 0.01 }) { () async in await model.estimate(input.value) }
/// ```
///
/// - Parameters:
///   - equals: returns true when two values are the same for the derivation's readers. It must not read or write
///     Ripple nodes.
///   - label: the name used in trap messages; by default the file and line of this call.
///   - fileID: the file of the call (leave the default).
///   - line: the line of the call (leave the default).
///   - body: computes the value, as for the throwing form.
///
/// Threading and lifetime: as for the throwing form.
public func derive<T>(
    equals: @escaping @Sendable (T, T) -> Bool, label: String? = nil, fileID: String = #fileID, line: Int = #line,
    @_inheritActorContext _ body: @escaping @isolated(any) @Sendable () async -> sending T
) -> AsyncDerivation<T> {
    AsyncDerivation(
        starter: nonThrowingStarter(running: body), equals: equals, label: label, fileID: fileID, line: line)
}

/// Starts a run of `body`: its result resolves the run, on the body's actor (so that effects isolated to it, a
/// main-actor view model's, run inline with the result instead of in another job). The body returns its value as
/// `sending`, so the compiler checks that nothing else holds it when the run's task applies it.
private func starter<T, E: Error>(
    running body: @escaping @isolated(any) @Sendable () async throws(E) -> sending T
) -> TypedAsyncDerivation<T, E>.Starter {
    { run, node in
        run.start {
            await runAndResolve(on: body.isolation, body, run: run, node: node)
        }
    }
}

private func runAndResolve<T, E: Error>(
    on actor: isolated (any Actor)?, _ body: @isolated(any) () async throws(E) -> sending T, run: AsyncRun,
    node: WeakAsyncDerivation<T, E>
) async {
    let result: Result<T, E>
    do throws(E) { result = .success(try await body()) } catch { result = .failure(error) }
    node.node?.resolve(run, with: result)
}

/// Starts a run of a body that throws nothing. Converting the body to a throwing function instead, to share the
/// form above, would wrap it in a thunk: an allocation per derivation (175 bytes more per async node measured by
/// `scripts/bench --shape async`).
private func nonThrowingStarter<T>(
    running body: @escaping @isolated(any) @Sendable () async -> sending T
) -> AsyncDerivation<T>.Starter {
    { run, node in
        run.start {
            await runAndResolve(on: body.isolation, body, run: run, node: node)
        }
    }
}

private func runAndResolve<T>(
    on actor: isolated (any Actor)?, _ body: @isolated(any) () async -> sending T, run: AsyncRun,
    node: WeakAsyncDerivation<T, any Error>
) async {
    let value = await body()
    node.node?.resolve(run, with: .success(value))
}

extension TypedAsyncDerivation where Failure == any Error {
    /// Follows an `AsyncSequence`: the phase is ``TypedAsyncPhase/suspending`` until the first element, then the latest
    /// element; ``TypedAsyncPhase/failure(_:)`` when the sequence throws; the last element stays when it finishes.
    ///
    /// Iteration starts on the first read (like an async derivation's run: by an effect, a derivation, a caller of
    /// ``value`` or a plain read of ``phase``) and goes on until the sequence ends or the derivation is freed, even
    /// while nothing observes it: many sequences (an `AsyncStream`) cannot be iterated again once an iteration was
    /// cancelled, so a derivation that stopped when its last observer went would have nothing to show when the
    /// next one came. ``refresh()`` iterates the sequence again from a new iterator. Every element is a change (see
    /// the `Equatable` form for cut-off).
    ///
    /// ```swift
    /// let (stream, continuation) = AsyncStream.makeStream(of: Double.self)
    /// let price = AsyncDerivation(following: stream)
    /// let ticker = Effect { print(price.phase) }     // suspending
    /// continuation.yield(101.5)                       // success(101.5)
    /// ```
    ///
    /// - Parameters:
    ///   - sequence: the elements to follow; iterated in a task of its own.
    ///   - label: the name used in trap messages; by default the file and line of this call.
    ///   - fileID: the file of the call (leave the default).
    ///   - line: the line of the call (leave the default).
    ///
    /// Threading: from any thread. Lifetime: freeing the derivation cancels the iteration.
    public convenience init<S: AsyncSequence & Sendable>(
        following sequence: S, label: String? = nil, fileID: String = #fileID, line: Int = #line
    ) where S.Element == Value {
        self.init(
            starter: Self.starter(iterating: sequence), equals: nil, label: label, fileID: fileID, line: line)
    }

    /// Follows an `AsyncSequence` of `Equatable` elements: an element equal to the previous one is no change.
    ///
    /// As ``init(following:label:fileID:line:)-84960``, with equality.
    ///
    /// ```swift
    /// let status = AsyncDerivation(following: connection.statusUpdates)
    /// ```
    ///
    /// - Parameters:
    ///   - sequence: the elements to follow; iterated in a task of its own.
    ///   - label: the name used in trap messages; by default the file and line of this call.
    ///   - fileID: the file of the call (leave the default).
    ///   - line: the line of the call (leave the default).
    ///
    /// Threading and lifetime: as for the other form.
    public convenience init<S: AsyncSequence & Sendable>(
        following sequence: S, label: String? = nil, fileID: String = #fileID, line: Int = #line
    ) where S.Element == Value, Value: Equatable {
        self.init(starter: Self.starter(iterating: sequence), equals: ==, label: label, fileID: fileID, line: line)
    }

    /// Starts a run that iterates `sequence`, resolving the run with each element (a run may resolve many times
    /// while it is current), then with the error it throws, if any.
    private static func starter<S: AsyncSequence & Sendable>(iterating sequence: S) -> Starter
    where S.Element == Value {
        { run, node in
            run.start {
                do {
                    for try await element in sequence {
                        guard let derivation = node.node, !Task.isCancelled else { return }
                        derivation.resolve(run, with: .success(element))
                    }
                } catch {
                    node.node?.resolve(run, with: .failure(error))
                }
            }
        }
    }
}
