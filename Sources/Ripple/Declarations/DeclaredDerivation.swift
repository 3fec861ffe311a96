/// A derivation declared once, as a global or static value, with one instance per runtime.
///
/// Make one with `declare.derived { ... }`. Its body reads nodes and other declarations; its instance (a
/// ``Derivation``) is created in the current runtime on first use and is lazy and cached like any derivation.
///
/// ```swift
/// let todos = declare.atom { [Todo]() }
/// let remaining = declare.derived { todos.value.filter { !$0.isDone }.count }
///
/// withIsolatedRuntime {
///     let list = todos.node
///     list.value = [Todo("Buy milk")]
///     print(remaining.value)            // 1
/// }
/// ```
///
/// ## Threading
/// As for ``DeclaredAtom``: from any thread. The body runs wherever a read needs it, so it must be `Sendable`.
///
/// ## Lifetime
/// As for ``DeclaredAtom``: an instance lives while a caller holds ``node`` or a live reader reads it (or for the
/// runtime's lifetime with `keepAlive: true`); once released, the next use computes it afresh.
public final class DeclaredDerivation<Value>: Sendable {
    /// The slot, the body, the equality, the hooks.
    @usableFromInline let declaration: Declaration<Value, @Sendable () -> Value, Lifecycle<Value>>

    init(_ declaration: Declaration<Value, @Sendable () -> Value, Lifecycle<Value>>) {
        self.declaration = declaration
    }

    /// This declaration's instance in the current runtime (the one evaluating on this thread, else
    /// ``Runtime/current``), created if it has none.
    ///
    /// ```swift
    /// let total = declare.derived { prices.value.reduce(0, +) }
    /// let node = total.node             // a Derivation<Int>
    /// let show = Effect { print(node.value) }
    /// ```
    ///
    /// Threading: from any thread. Lifetime: holding the node keeps the instance alive.
    public var node: Derivation<Value> {
        instance(in: .forDeclarations)
    }

    @inline(never)
    func makeInstance(in runtime: Runtime) -> Derivation<Value> {
        let box = ReplaceableBody(currentBody(in: runtime), in: runtime)
        return install(in: runtime, body: box) {
            box.makeDerivation(
                equals: declaration.equals, reportsUpdates: declaration.lifecycle.updated != nil,
                label: declaration.explicitLabel,
                fileID: declaration.fileID, line: declaration.line)
        }
    }

    /// The value of this declaration's instance in the current runtime: a tracked read, as
    /// ``Derivation/value``.
    ///
    /// ```swift
    /// let doubled = declare.derived { count.value * 2 }
    /// print(doubled.value)
    /// ```
    ///
    /// Threading: from any thread.
    @inlinable
    public var value: Value {
        // Inside an evaluation, the common case: a look-up and the engine's read, inlined here; nothing to end.
        if let object = readDeclaredInEvaluation(declaration.index) { return Self.value(of: object) }
        let section = beginDeclaredRead(declaration.index)
        guard let object = section.object else {
            // Read as a node (which creates the instance, or handles the read better: see `beginDeclaredRead(_:)`),
            // then run the update hooks its recomputation queued, if outermost. The node comes back as a pointer,
            // where a value of a generic type would come back through memory and cost the common path a store
            // and a load.
            let node = node
            let value = node.value
            Self.runHooksIfPending(after: node)
            return value
        }
        let value = Self.value(of: object)
        endDeclaredRead(section)
        return value
    }

    /// The value of the instance `object` points to, inside a read that keeps it alive.
    @inlinable @inline(__always)
    static func value(of object: UnsafeMutableRawPointer) -> Value {
        Unmanaged<Derivation<Value>>.fromOpaque(object)._withUnsafeGuaranteedRef { $0.cached.pointee }
    }

    /// Runs the lifecycle hooks a read of `node` queued, if this thread is outside every batch and evaluation.
    @usableFromInline
    static func runHooksIfPending(after node: Derivation<Value>) {
        node.runtime.declarations.runHooksIfPending()
    }

    /// The instance in the current runtime if it has one, without creating it (and without recording a read).
    ///
    /// ```swift
    /// print(remaining.existingNode == nil)      // true until first used
    /// ```
    ///
    /// Threading: from any thread. Lifetime: the returned node keeps the instance alive.
    public var existingNode: Derivation<Value>? {
        existingInstance
    }

    /// An override that makes this declaration's value `value` in a runtime.
    ///
    /// ```swift
    /// withIsolatedRuntime(overriding: remaining.overridden(with: 3)) {
    ///     print(remaining.value)    // 3
    /// }
    /// ```
    ///
    /// - Parameter value: the value the instance takes.
    ///
    /// Threading: the override is a value; apply it from any thread.
    public func overridden(with value: Value) -> Override where Value: Sendable {
        overridden { value }
    }

    /// An override that computes this declaration with `body` instead of the declared one. An existing instance
    /// switches at once: what reads it re-validates in the same flush.
    ///
    /// ```swift
    /// let fake = remaining.overridden { 42 }
    /// ```
    ///
    /// - Parameter body: the new body; it may read nodes and declarations, which it then depends on.
    ///
    /// Threading: as for ``overridden(with:)``.
    public func overridden(by body: @escaping @Sendable () -> Value) -> Override {
        override(with: body)
    }
}

extension DeclaredDerivation: PlainDeclaration {}

/// The body of one declared derivation's instance, which an override replaces. A synchronous instance is then
/// refreshed (``Derivation/refresh()``); an async one reads `generation` (a hidden atom) at the start of each
/// run, so replacing the body and bumping it makes the run stale in the override's batch, like any write.
final class ReplaceableBody<Body> {
    /// Read and written only while the graph is held (in the compute, at the start of a run inside a batch, and
    /// in an override's batch).
    @exclusivity(unchecked) private var body: Body
    /// For async instances only: bumped by a replacement.
    private let generation: AtomObject<Int>?
    /// The runtime of the instance.
    let runtime: Runtime

    init(_ body: Body, in runtime: Runtime, tracksReplacement: Bool = false) {
        self.body = body
        self.runtime = runtime
        generation = tracksReplacement
            ? runtime.creatingInstance { AtomObject(initial: 0, equals: nil, label: nil, fileID: "", line: 0) }
            : nil
    }

    /// The current body, read inside the instance's compute (the graph is held).
    var current: Body { body }

    /// The current body for an async run's task, which does not hold the graph: a read of `generation` (so that
    /// a replacement makes the run stale), then the body, loaded inside a batch.
    var currentFromRun: Body {
        _ = generation?.value
        return runtime.batch { body }
    }

    /// The body held by the record of `node`, a declared derivation's instance.
    static func of(_ node: RippleNode) -> ReplaceableBody<Body> {
        unsafeDowncast(node.declaredInstance.unsafelyUnwrapped.body.unsafelyUnwrapped, to: ReplaceableBody<Body>.self)
    }

    /// Runs `next` from now on; an async instance's run in flight is stale at once (a synchronous instance is
    /// refreshed by its caller, `Derivation.applyOverride(_:)`). Called inside an override's batch.
    func replace(with next: Body) {
        body = next
        generation?.value &+= 1
    }
}

extension ReplaceableBody {
    /// A declared derivation instance's node: a derivation that runs the current body, with the declaration's
    /// equality, and queues the update hook when a recomputation changes the value (`reportsUpdates`).
    func makeDerivation<Value>(
        equals: ((Value, Value) -> Bool)?, reportsUpdates: Bool, label: String?, fileID: String, line: Int
    ) -> Derivation<Value> where Body == @Sendable () -> Value {
        Derivation(
            body: { [self] in current() },
            recompute: reportsUpdates
                ? Derivation.storingAndReporting(equals: equals)
                : equals.map(Derivation.storing(equals:)) ?? Derivation.storingEveryResult,
            label: label, fileID: fileID, line: line, runtime: runtime)
    }
}

// `body` is touched only while the runtime's graph is held (see its comment), and bodies are Sendable closures;
// `generation` is a Sendable node and `runtime` is Sendable.
extension ReplaceableBody: @unchecked Sendable {}
