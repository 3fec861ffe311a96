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
/// Each member lives as a ``DeclaredAtom``'s instance does: while a caller holds it or a live reader reads it
/// (or for the runtime's lifetime with `keepAlive: true`). A released member leaves the family's table, so a
/// family used with many keys holds only the members in use.
public final class AtomFamily<Key: Hashable & Sendable, Value> {
    let index: Int
    let makeDefault: @Sendable (Key) -> Value
    let equals: (Value, Value) -> Bool
    let keepAlive: Bool
    let lifecycle: (@Sendable (Key) -> Lifecycle<Value>)?
    let explicitLabel: String?
    let fileID: String
    let line: Int

    init(
        equals: @escaping (Value, Value) -> Bool, keepAlive: Bool,
        lifecycle: (@Sendable (Key) -> Lifecycle<Value>)?, label: String?, fileID: String, line: Int,
        makeDefault: @escaping @Sendable (Key) -> Value
    ) {
        index = DeclarationIndex.next()
        self.makeDefault = makeDefault
        self.equals = equals
        self.keepAlive = keepAlive
        self.lifecycle = lifecycle
        self.explicitLabel = label
        self.fileID = fileID
        self.line = line
    }

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
        let runtime = Runtime.forDeclarations
        if let existing = runtime.declarations.existing(family: index, for: key) {
            return unsafeDowncast(existing, to: AtomObject<Value>.self)
        }
        return makeNode(for: key, in: runtime)
    }

    @inline(never)
    private func makeNode(for key: Key, in runtime: Runtime) -> AtomObject<Value> {
        let table = runtime.declarations.table(of: index, keyedBy: Key.self)
        let hooks = ErasedLifecycle(lifecycle?(key) ?? Lifecycle())
        let node = runtime.createInstance(in: table, for: key, keepAlive: keepAlive, lifecycle: hooks) {
            runtime.creatingInstance {
                AtomObject(
                    initial: currentDefault(for: key, in: runtime)(), equals: equals,
                    label: explicitLabel.map { "\($0)(\(key))" }, fileID: fileID, line: line)
            }
        }
        return unsafeDowncast(node, to: AtomObject<Value>.self)
    }

    /// The default of `key`'s member in `runtime`: the member's override, the family's, or the declared one.
    func currentDefault(for key: Key, in runtime: Runtime) -> @Sendable () -> Value {
        let (member, family) = runtime.declarations.override(family: index, for: key)
        if let member = member as? @Sendable () -> Value { return member }
        let body = (family as? @Sendable (Key) -> Value) ?? makeDefault
        return { body(key) }
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
        Runtime.forDeclarations.declarations.existing(family: index, for: key)
            .map { unsafeDowncast($0, to: AtomObject<Value>.self) }
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
        Runtime.forDeclarations.declarations.memberCount(family: index)
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
        Override { runtime in
            runtime.declarations.setOverride({ value } as @Sendable () -> Value, family: self.index, for: key)
            runtime.declarations.existing(family: self.index, for: key)
                .map { unsafeDowncast($0, to: AtomObject<Value>.self).value = value }
        }
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
        Override { runtime in
            runtime.declarations.setOverride(body, for: self.index)
            for (key, node) in runtime.declarations.liveMembers(family: self.index, keyedBy: Key.self) {
                unsafeDowncast(node, to: AtomObject<Value>.self).value = runtime.creatingInstance { body(key) }
            }
        }
    }
}

// Every stored property is immutable. All but the equality are Sendable; the equality is `==` (which captures only
// the value's type) or a closure the caller passed as `@Sendable`. So sharing a declaration between threads is safe.
extension AtomFamily: @unchecked Sendable {}
