// Reset and refresh of declared state: a declared atom goes back to its default, evaluated again (its override's,
// if the runtime has one); a declared derivation recomputes although its inputs did not change. Both act on the
// current runtime's instance, and do nothing when it has none (there is nothing to reset or refresh).

extension DeclaredAtom {
    /// Writes the default again into this declaration's instance in the current runtime: the default is
    /// evaluated afresh (the runtime's override, if any), and the write is an ordinary one (equal: no change).
    /// The instance counts as unwritten again: the runtime no longer keeps it for its write, and releases it once
    /// nothing holds or reads it.
    ///
    /// ```swift
    /// let draft = declare.atom { "" }
    /// let held = draft.node
    /// held.value = "Hello"
    /// draft.reset()
    /// print(held.value)        // ""
    /// ```
    ///
    /// Threading: from any thread. Does nothing if the runtime has no instance.
    public func reset() {
        let runtime = Runtime.forDeclarations
        guard let node = existingNode else { return }
        node.writeDefault(runtime.creatingInstance(currentBody(in: runtime)))
    }
}

extension AtomFamily {
    /// Writes the default again into the member for `key` in the current runtime, evaluated afresh. The member
    /// counts as unwritten again, as after ``remove(_:)``.
    ///
    /// ```swift
    /// let score = declare.atomFamily { (player: String) in 0 }
    /// score.reset("ada")
    /// ```
    ///
    /// - Parameter key: which member.
    ///
    /// Threading: from any thread. Does nothing if the member does not exist.
    public func reset(_ key: Key) {
        let runtime = Runtime.forDeclarations
        guard let node = existingNode(for: key) else { return }
        node.writeDefault(runtime.creatingInstance(currentBody(for: key, in: runtime)))
    }
}

extension DeclaredDerivation {
    /// Recomputes this declaration's instance in the current runtime although nothing it read changed, as
    /// ``Derivation/refresh()`` does.
    ///
    /// ```swift
    /// let now = declare.derived { Date() }
    /// now.refresh()             // readers see a new date
    /// ```
    ///
    /// Threading: from any thread, not from the derivation's own body. Does nothing if the runtime has no
    /// instance.
    public func refresh() {
        existingNode?.refresh()
    }
}

extension DerivationFamily {
    /// Recomputes the member for `key` in the current runtime although nothing it read changed.
    ///
    /// ```swift
    /// let avatar = declare.derivedFamily { (id: Int) in cache.image(for: id) }
    /// avatar.refresh(42)
    /// ```
    ///
    /// - Parameter key: which member.
    ///
    /// Threading: as for ``DeclaredDerivation/refresh()``. Does nothing if the member does not exist.
    public func refresh(_ key: Key) {
        existingNode(for: key)?.refresh()
    }
}

extension TypedDeclaredAsyncDerivation {
    /// Starts a new run of this declaration's instance in the current runtime with the same inputs, and returns
    /// the phase it produced once it has finished, as ``TypedAsyncDerivation/refresh()``.
    ///
    /// ```swift
    /// let phase = await book.refresh()      // fetch again
    /// print(phase?.value?.title ?? "no book")
    /// ```
    ///
    /// - Returns: the phase after the new run, typed as ``phase`` is, or nil when the runtime has no instance
    ///   (nothing was refreshed).
    ///
    /// Threading: from any task. Does nothing if the runtime has no instance.
    @discardableResult
    public func refresh() async -> TypedAsyncPhase<Value, Failure>? {
        await existingNode?.refresh()
    }
}
