/// A declared derivation parameterized by a key: one instance per key per runtime, created on first use of that
/// key.
///
/// Make one with `declare.derivedFamily { (key: Key) in ... }` and call it with a key to get that key's
/// instance, a ``Derivation``: `userName(42).value`.
///
/// ```swift
/// let users = declare.atom { [1: "Ada", 2: "Grace"] }
/// let userName = declare.derivedFamily { (id: Int) in users.value[id] ?? "?" }
/// print(userName(2).value)        // "Grace"
/// ```
///
/// ## Threading
/// From any thread; each key's instance is created once per runtime.
///
/// ## Lifetime
/// As for ``AtomFamily``: each member lives while it is held or read by a live reader; released members leave
/// the family's table.
public final class DerivationFamily<Key: Hashable & Sendable, Value>: Sendable {
    /// The slot, the body of a key's member, the equality, the hooks of a key's member.
    let declaration: KeyedDeclaration<Key, Value>

    init(_ declaration: KeyedDeclaration<Key, Value>) {
        self.declaration = declaration
    }

    /// The instance for `key` in the current runtime (the one evaluating on this thread, else
    /// ``Runtime/current``), created if it has none.
    ///
    /// ```swift
    /// let greeting = declare.derivedFamily { (name: String) in "Hello, \(name)" }
    /// print(greeting("Ada").value)
    /// ```
    ///
    /// - Parameter key: which member.
    ///
    /// Threading: from any thread. Lifetime: holding the node keeps the member alive.
    public func callAsFunction(_ key: Key) -> Derivation<Value> {
        member(for: key)
    }

    @inline(never)
    func makeMember(for key: Key, in runtime: Runtime) -> Derivation<Value> {
        let hooks = hooks(for: key)
        let box = ReplaceableBody(currentBody(for: key, in: runtime), in: runtime)
        return install(key, in: runtime, hooks: hooks, body: box) {
            box.makeDerivation(
                equals: declaration.equals, reportsUpdates: hooks.updated != nil,
                label: declaration.memberLabel(for: key),
                fileID: declaration.fileID, line: declaration.line)
        }
    }

    /// The member for `key` in the current runtime if it has one, without creating it.
    ///
    /// ```swift
    /// print(greeting.existingNode(for: "Ada") == nil)
    /// ```
    ///
    /// - Parameter key: which member.
    ///
    /// Threading: from any thread. Lifetime: the returned node keeps the member alive.
    public func existingNode(for key: Key) -> Derivation<Value>? {
        existingMember(for: key)
    }

    /// How many members of this family are alive in the current runtime.
    ///
    /// ```swift
    /// print(greeting.instanceCount)
    /// ```
    ///
    /// Threading: from any thread; a snapshot that other threads may change at once.
    public var instanceCount: Int {
        memberCount
    }

    /// An override of the member for `key` only: it takes `value`. It wins over an override of the whole family
    /// made before it, and a later whole-family override replaces it.
    ///
    /// ```swift
    /// withIsolatedRuntime(overriding: greeting.overridden("Ada", with: "Welcome back")) { ... }
    /// ```
    ///
    /// - Parameters:
    ///   - key: which member.
    ///   - value: the member's value.
    ///
    /// Threading: the override is a value; apply it from any thread.
    public func overridden(_ key: Key, with value: Value) -> Override where Value: Sendable {
        override(key, with: { value })
    }

    /// An override of the whole family: every member, existing and future, computes `body(key)` instead. Existing
    /// members switch at once, in the override's batch; what reads them re-validates in the same flush.
    ///
    /// ```swift
    /// withIsolatedRuntime(overriding: greeting.overridden { name in "Hi, \(name)" }) {
    ///     print(greeting("Ada").value)       // "Hi, Ada"
    /// }
    /// ```
    ///
    /// - Parameter body: the new body, given the member's key.
    ///
    /// Threading: the override is a value; apply it from any thread.
    public func overridden(by body: @escaping @Sendable (Key) -> Value) -> Override {
        overrideFamily(with: body)
    }
}

extension DerivationFamily: FamilyDeclaration {
    /// A derivation is never written: nothing to keep.
    var writtenLimit: Int? { nil }
}
