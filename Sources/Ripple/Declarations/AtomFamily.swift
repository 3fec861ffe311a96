/// A declared atom parameterized by a key: one instance per key per runtime, created on first use of that key.
///
/// Make one with `declare.atomFamily { (key: Key) in default }` and call it with a key to get that key's
/// instance, an ``AtomObject``: `draft(42).value`.
///
/// ```swift
/// let draft = declare.atomFamily { (postID: Int) in "" }
///
/// withIsolatedRuntime {
///     let first = draft(1)
///     first.value = "Hello"
///     print(draft(1).value)     // "Hello": the same instance while `first` holds it
///     print(draft(2).value)     // "": another key, another instance
/// }
/// ```
///
/// ## Threading
/// From any thread; each key's instance is created once per runtime.
///
/// ## Lifetime
/// Each member lives as a ``DeclaredAtom``'s instance does: a member that was written keeps its value whether or
/// not anything holds or reads it, until ``remove(_:)``, ``reset(_:)`` or an override, or until the family's
/// eviction policy (``FamilyEviction``, `declare.atomFamily(evicting:)`) gives it up; an unwritten member lives
/// while a caller holds it or a live reader reads it (or for the runtime's lifetime with `keepAlive: true`). A
/// released member leaves the family's table (its `released` hook runs), so a family holds only the members in
/// use and the written ones it keeps.
public final class AtomFamily<Key: Hashable & Sendable, Value>: Sendable {
    /// The slot, the default of a key's member, the equality, the hooks of a key's member.
    let declaration: KeyedDeclaration<Key, Value>
    /// When written members are given up.
    let eviction: FamilyEviction

    init(_ declaration: KeyedDeclaration<Key, Value>, eviction: FamilyEviction = .never) {
        self.declaration = declaration
        self.eviction = eviction
    }

    var writtenLimit: Int? { eviction.writtenLimit }

    /// The instance for `key` in the current runtime (the one evaluating on this thread, else
    /// ``Runtime/current``), created from the default if it has none.
    ///
    /// ```swift
    /// let score = declare.atomFamily { (player: String) in 0 }
    /// score("ada").value += 1
    /// ```
    ///
    /// - Parameter key: which member.
    ///
    /// Threading: from any thread. Lifetime: holding the node keeps the member alive.
    public func callAsFunction(_ key: Key) -> AtomObject<Value> {
        member(for: key)
    }

    @inline(never)
    func makeMember(for key: Key, in runtime: Runtime) -> AtomObject<Value> {
        let hooks = hooks(for: key)
        return install(key, in: runtime, hooks: hooks) {
            runtime.creatingInstance {
                let node = AtomObject(
                    initial: currentBody(for: key, in: runtime)(), equality: declaration.atomEquality.forAnAtom(),
                    label: declaration.memberLabel(for: key), fileID: declaration.fileID, line: declaration.line)
                hooks.atomMade?(node)
                return node
            }
        }
    }

    /// The member for `key` in the current runtime if it has one, without creating it.
    ///
    /// ```swift
    /// print(score.existingNode(for: "ada") == nil)    // true until first used
    /// ```
    ///
    /// - Parameter key: which member.
    ///
    /// Threading: from any thread. Lifetime: the returned node keeps the member alive.
    public func existingNode(for key: Key) -> AtomObject<Value>? {
        existingMember(for: key)
    }

    /// Stops keeping the member for `key` for its write, in the current runtime: it becomes an unwritten member
    /// again, released (its `released` hook runs) as soon as nothing holds or reads it, and the next use after that
    /// starts from the default. A member in use stays, with its value, until that use ends; writing it again keeps
    /// it again.
    ///
    /// ```swift
    /// let draft = declare.atomFamily { (postID: Int) in "" }
    /// draft(7).value = "Hello"           // kept although nothing holds it
    /// draft.remove(7)                    // released: nothing holds it
    /// print(draft(7).value)              // ""
    /// ```
    ///
    /// - Parameter key: which member.
    ///
    /// Threading: from any thread. Does nothing if the member does not exist or was not written.
    public func remove(_ key: Key) {
        existingNode(for: key)?.forgetWrite()
    }

    /// How many members of this family are alive in the current runtime.
    ///
    /// ```swift
    /// let held = score("ada")
    /// print(score.instanceCount)        // 1
    /// ```
    ///
    /// Threading: from any thread; a snapshot that other threads may change at once.
    public var instanceCount: Int {
        memberCount
    }

    /// An override of the member for `key` only: its default is `value`. It wins over an override of the whole
    /// family made before it, and a later whole-family override replaces it.
    ///
    /// ```swift
    /// withIsolatedRuntime(overriding: score.overridden("ada", with: 100)) {
    ///     print(score("ada").value, score("grace").value)    // 100 0
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - key: which member.
    ///   - value: the member's default.
    ///
    /// Threading: the override is a value; apply it from any thread.
    public func overridden(_ key: Key, with value: Value) -> Override where Value: Sendable {
        override(key, with: { value })
    }

    /// An override of the whole family: every member, existing and future, takes `body(key)` as its default.
    /// Existing members take it at once, in the override's batch.
    ///
    /// ```swift
    /// withIsolatedRuntime(overriding: score.overridden { player in player == "ada" ? 100 : 0 }) {
    ///     print(score("ada").value)          // 100
    /// }
    /// ```
    ///
    /// - Parameter body: computes a member's default from its key.
    ///
    /// Threading: the override is a value; apply it from any thread.
    public func overridden(by body: @escaping @Sendable (Key) -> Value) -> Override {
        overrideFamily(with: body)
    }
}

extension AtomFamily: FamilyDeclaration {}
