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
public final class DerivationFamily<Key: Hashable & Sendable, Value> {
    let index: Int
    let body: @Sendable (Key) -> Value
    let equals: ((Value, Value) -> Bool)?
    let keepAlive: Bool
    let lifecycle: (@Sendable (Key) -> Lifecycle<Value>)?
    let explicitLabel: String?
    let fileID: String
    let line: Int

    init(
        equals: ((Value, Value) -> Bool)?, keepAlive: Bool,
        lifecycle: (@Sendable (Key) -> Lifecycle<Value>)?, label: String?, fileID: String, line: Int,
        body: @escaping @Sendable (Key) -> Value
    ) {
        index = DeclarationIndex.next()
        self.body = body
        self.equals = equals
        self.keepAlive = keepAlive
        self.lifecycle = lifecycle
        self.explicitLabel = label
        self.fileID = fileID
        self.line = line
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
        let runtime = Runtime.forDeclarations
        if let existing = runtime.declarations.existing(family: index, for: key) {
            return unsafeDowncast(existing, to: Derivation<Value>.self)
        }
        return makeNode(for: key, in: runtime)
    }

    @inline(never)
    private func makeNode(for key: Key, in runtime: Runtime) -> Derivation<Value> {
        let table = runtime.declarations.table(of: index, keyedBy: Key.self)
        let lifecycle = lifecycle?(key) ?? Lifecycle()
        let (member, family) = runtime.declarations.override(family: index, for: key)
        let familyBody = (family as? @Sendable (Key) -> Value) ?? body
        let memberBody = (member as? @Sendable () -> Value) ?? { familyBody(key) }
        let box = ReplaceableBody<@Sendable () -> Value>(memberBody, in: runtime)
        let node = runtime.createInstance(
            in: table, for: key, keepAlive: keepAlive, lifecycle: ErasedLifecycle(lifecycle), body: box
        ) {
            box.makeDerivation(
                equals: equals, updated: lifecycle.updated, label: explicitLabel.map { "\($0)(\(key))" }, fileID: fileID,
                line: line)
        }
        return unsafeDowncast(node, to: Derivation<Value>.self)
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
        Runtime.forDeclarations.declarations.existing(family: index, for: key)
            .map { unsafeDowncast($0, to: Derivation<Value>.self) }
    }

    /// How many members of this family are alive in the current runtime.
    ///
    /// ```swift
    /// print(greeting.instanceCount)
    /// ```
    ///
    /// Threading: from any thread; a snapshot that other threads may change at once.
    public var instanceCount: Int {
        Runtime.forDeclarations.declarations.memberCount(family: index)
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
        let body: @Sendable () -> Value = { value }
        return Override { runtime in
            runtime.declarations.setOverride(body, family: self.index, for: key)
            if let node = runtime.declarations.existing(family: self.index, for: key) {
                ReplaceableBody<@Sendable () -> Value>.of(node).replace(with: body, in: node)
            }
        }
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
        Override { runtime in
            runtime.declarations.setOverride(body, for: self.index)
            for (key, node) in runtime.declarations.liveMembers(family: self.index, keyedBy: Key.self) {
                ReplaceableBody<@Sendable () -> Value>.of(node).replace(with: { body(key) }, in: node)
            }
        }
    }
}

// Every stored property is immutable. All but the equality are Sendable; the equality is `==` (which captures only
// the value's type) or a closure the caller passed as `@Sendable`. So sharing a declaration between threads is safe.
extension DerivationFamily: @unchecked Sendable {}
