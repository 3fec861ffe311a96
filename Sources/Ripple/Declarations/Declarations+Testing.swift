// The test context for declared state: declarations are `TrackedValue`s (reading one reads the current runtime's
// instance), and recording a declaration's changes records its instance and holds it, so that the instance lives
// as long as the recording.

extension DeclaredAtom: TrackedValue {
    /// The value of the current runtime's instance: a tracked read, as ``value``.
    ///
    /// ```swift
    /// let count = declare.atom { 0 }
    /// print(count.trackedValue)
    /// ```
    ///
    /// Threading: from any thread.
    public var trackedValue: Value { value }

    /// The runtime a use of this declaration goes to now: the one evaluating on this thread, else
    /// ``Runtime/current``.
    ///
    /// ```swift
    /// withIsolatedRuntime { assert(count.runtime === Runtime.current) }
    /// ```
    ///
    /// Threading: from any thread.
    public var runtime: Runtime { .forDeclarations }

    /// The name of the declaration's instances: the label given at declaration, else `"<fileID>:<line>"`.
    ///
    /// ```swift
    /// let count = declare.atom(label: "count") { 0 }
    /// print(count.label)        // "count"
    /// ```
    ///
    /// Threading: immutable.
    public var label: String { declaration.label }
}

extension DeclaredAtom where Value: Sendable {
    /// Records every change of the current runtime's instance, in order, holding the instance while the
    /// recording lives (see `recordChanges()` of ``TrackedValue``).
    ///
    /// ```swift
    /// let changes = count.recordChanges()
    /// count.value = 1
    /// #expect(try await changes.next() == 1)
    /// ```
    ///
    /// Threading: from any thread. Lifetime: the instance lives at least as long as the recording.
    public func recordChanges() -> ChangeRecording<Value> {
        node.recordChanges()
    }
}

extension DeclaredDerivation: TrackedValue {
    /// The value of the current runtime's instance: a tracked read, as ``value``.
    ///
    /// ```swift
    /// print(doubled.trackedValue)
    /// ```
    ///
    /// Threading: from any thread.
    public var trackedValue: Value { value }

    /// The runtime a use of this declaration goes to now: the one evaluating on this thread, else
    /// ``Runtime/current``.
    ///
    /// ```swift
    /// withIsolatedRuntime { assert(doubled.runtime === Runtime.current) }
    /// ```
    ///
    /// Threading: from any thread.
    public var runtime: Runtime { .forDeclarations }

    /// The name of the declaration's instances: the label given at declaration, else `"<fileID>:<line>"`.
    ///
    /// ```swift
    /// print(doubled.label)
    /// ```
    ///
    /// Threading: immutable.
    public var label: String { declaration.label }
}

extension DeclaredDerivation where Value: Sendable {
    /// Records every change of the current runtime's instance, in order, holding the instance while the
    /// recording lives.
    ///
    /// ```swift
    /// let changes = doubled.recordChanges()
    /// count.value = 2
    /// #expect(try await changes.next() == 4)
    /// ```
    ///
    /// Threading: from any thread. Lifetime: the instance lives at least as long as the recording.
    public func recordChanges() -> ChangeRecording<Value> {
        node.recordChanges()
    }
}

extension TypedDeclaredAsyncDerivation: TrackedValue {
    /// The phase of the current runtime's instance: a tracked read, as ``phase``.
    ///
    /// ```swift
    /// print(book.trackedValue)
    /// ```
    ///
    /// Threading: from any thread.
    public var trackedValue: TypedAsyncPhase<Value, Failure> { phase }

    /// The runtime a use of this declaration goes to now: the one evaluating on this thread, else
    /// ``Runtime/current``.
    ///
    /// ```swift
    /// withIsolatedRuntime { assert(book.runtime === Runtime.current) }
    /// ```
    ///
    /// Threading: from any thread.
    public var runtime: Runtime { .forDeclarations }

    /// The name of the declaration's instances: the label given at declaration, else `"<fileID>:<line>"`.
    ///
    /// ```swift
    /// print(book.label)
    /// ```
    ///
    /// Threading: immutable.
    public var label: String { declaration.label }

    /// Records every change of the current runtime's instance's phase, in order, holding the instance while the
    /// recording lives.
    ///
    /// ```swift
    /// let phases = book.recordChanges()
    /// _ = book.node.phase                     // starts the run
    /// #expect(try await phases.next() == .success(expected))
    /// ```
    ///
    /// Threading: from any thread. Lifetime: the instance lives at least as long as the recording.
    public func recordChanges() -> ChangeRecording<TypedAsyncPhase<Value, Failure>> {
        node.recordChanges()
    }
}
