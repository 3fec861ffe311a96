/// An atom declared once, as a global or static value, with one instance per runtime.
///
/// Make one with `declare.atom { default }`. Its instance (an ``AtomObject``) is created in the current runtime
/// on first use, from the default, and lives there: every test in `withIsolatedRuntime` gets a fresh one. Reading
/// ``value`` inside a derivation or an effect tracks like reading a node; ``node`` is the instance itself, to pass
/// to code that takes nodes.
///
/// ```swift
/// let todos = declare.atom { [Todo]() }
///
/// withIsolatedRuntime {
///     let list = todos.node             // holds the instance while `list` lives
///     list.value.append(Todo("Buy milk"))
///     print(todos.value.count)          // 1
/// }
/// ```
///
/// ## Threading
/// Usable from any thread, like a node: each runtime's instance is created once, whichever threads race for it.
///
/// ## Lifetime
/// A write is never lost: an instance that was written keeps its value until ``reset()`` or an override writes
/// its default back, or its runtime ends, whether or not anything holds or reads it. An instance never written (or
/// written back to its default) lives while something holds it: a caller holding ``node``, or a live effect (or a
/// derivation a live effect reads) that read it; then it is released, and the next use starts again from the
/// default. Declare it `keepAlive: true` to keep it for the runtime's lifetime, written or not.
public final class DeclaredAtom<Value>: Sendable {
    /// The slot, the default (computed at the instance's creation and on ``reset()``), the equality, the hooks.
    @usableFromInline let declaration: Declaration<Value, @Sendable () -> Value, Lifecycle<Value>>

    init(_ declaration: Declaration<Value, @Sendable () -> Value, Lifecycle<Value>>) {
        self.declaration = declaration
    }

    /// This declaration's instance in the current runtime (the one evaluating on this thread, else
    /// ``Runtime/current``), created from the default if it has none.
    ///
    /// ```swift
    /// let count = declare.atom { 0 }
    /// let node = count.node        // an AtomObject<Int>
    /// node.value += 1
    /// print(count.value)           // 1: the same instance, held by `node`
    /// ```
    ///
    /// Threading: from any thread. Lifetime: holding the node keeps the instance alive.
    public var node: AtomObject<Value> {
        instance(in: .forDeclarations)
    }

    @inline(never)
    func makeInstance(in runtime: Runtime) -> AtomObject<Value> {
        install(in: runtime) {
            runtime.creatingInstance {
                let node = AtomObject(
                    initial: currentBody(in: runtime)(), equality: declaration.atomEquality.forAnAtom(),
                    label: declaration.explicitLabel, fileID: declaration.fileID, line: declaration.line)
                declaration.lifecycle.atomMade?(node)
                return node
            }
        }
    }

    /// The value of this declaration's instance in the current runtime (created from the default on first use).
    ///
    /// Getting it records a read, like ``AtomObject/value``; setting it writes the instance.
    ///
    /// ```swift
    /// let name = declare.atom { "Ripple" }
    /// let greeting = declare.derived { "Hello, \(name.value)" }
    /// ```
    ///
    /// Threading: from any thread. Lifetime: see the type's discussion: a written instance is kept until its reset,
    /// whether or not anything holds it.
    @inlinable
    public var value: Value {
        get {
            // Inside an evaluation, the common case: a look-up and the engine's read, inlined here; nothing to end.
            if let object = readDeclaredInEvaluation(declaration.index) { return Self.value(of: object) }
            let section = beginDeclaredRead(declaration.index)
            guard let object = section.object else { return instance(forReadIn: section.runtime).value }
            let value = Self.value(of: object)
            endDeclaredRead(section)
            return value
        }
        set { node.value = newValue }
    }

    /// The value of the instance `object` points to, inside a read that keeps it alive.
    @inlinable @inline(__always)
    static func value(of object: UnsafeMutableRawPointer) -> Value {
        Unmanaged<AtomObject<Value>>.fromOpaque(object)._withUnsafeGuaranteedRef { $0.latest }
    }

    /// The instance in `runtime`, created if it has none: for a read that creates it, or that a node read handles
    /// better (see `beginDeclaredRead(_:)`). The accessor reads the node it returns (a pointer, where a value of a
    /// generic type would come back through memory and cost the common path a store and a load).
    @usableFromInline
    func instance(forReadIn runtime: Unmanaged<Runtime>) -> AtomObject<Value> {
        instance(in: runtime.takeUnretainedValue())
    }

    /// Reads and writes the instance's value in one atomic step, as ``AtomObject/update(_:)``.
    ///
    /// ```swift
    /// let hits = declare.atom(keepAlive: true) { 0 }
    /// hits.update { $0 += 1 }
    /// ```
    ///
    /// - Parameter body: modifies the value.
    ///
    /// Threading: from any thread.
    @discardableResult
    public func update<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try node.update(body)
    }

    /// The instance in the current runtime if it has one, without creating it (and without recording a read).
    ///
    /// ```swift
    /// let count = declare.atom { 0 }
    /// print(count.existingNode == nil)     // true: never used here
    /// ```
    ///
    /// Threading: from any thread. Lifetime: the returned node keeps the instance alive.
    public var existingNode: AtomObject<Value>? {
        existingInstance
    }

    /// An override that makes `value` this declaration's default in a runtime.
    ///
    /// Give it to `withIsolatedRuntime(overriding:_:)` or ``Runtime/override(_:)-(Override...)``. An existing instance takes
    /// the new default at once.
    ///
    /// ```swift
    /// withIsolatedRuntime(overriding: count.overridden(with: 10)) {
    ///     print(count.value)    // 10
    /// }
    /// ```
    ///
    /// - Parameter value: the value to use as the default.
    ///
    /// Threading: the override is a value; apply it from any thread.
    public func overridden(with value: Value) -> Override where Value: Sendable {
        overridden { value }
    }

    /// An override that computes this declaration's default in a runtime with `body` instead of the declared one.
    ///
    /// ```swift
    /// let fake = count.overridden { Int.random(in: 1...6) }
    /// ```
    ///
    /// - Parameter body: computes the default; it may read other declarations.
    ///
    /// Threading: as for ``overridden(with:)``.
    public func overridden(by body: @escaping @Sendable () -> Value) -> Override {
        override(with: body)
    }
}

extension DeclaredAtom: PlainDeclaration {}
