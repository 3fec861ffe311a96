// Plain nodes with lifecycle hooks: `atom(_:lifecycle:)` and `derive(lifecycle:_:)` take the same ``Lifecycle`` a
// declaration takes, and run its hooks in the same order. The hooks live in an out-of-line record
// (`InstanceLifecycle`, in the node's extras): a node made without them pays nothing.

/// Creates an atom holding `value`, compared with `==`, with lifecycle hooks.
///
/// The hooks run as a declared atom's do: `initialized` after the atom is created, `watched` when it gains its
/// first reader, `updated` after each write that changes it, `unwatched` when its last reader goes, `released`
/// once the atom is freed. A hook that takes a ``LifecycleContext`` writes the atom through it, with no capture of
/// the atom itself (which would keep it alive).
///
/// ```swift
/// let seconds = atom(0, lifecycle: Lifecycle(watched: { context in
///     let timer = Timer.scheduledTimer(withTimeInterval: 1, repeats: true) { _ in
///         try? context.update { $0 += 1 }
///     }
///     context.onUnwatched { timer.invalidate() }
/// }))
/// ```
///
/// - Parameters:
///   - value: the initial value.
///   - label: the name used in trap messages; by default the file and line of this call.
///   - lifecycle: the hooks.
///   - fileID: the file of the call (leave the default).
///   - line: the line of the call (leave the default).
///
/// Threading: from any thread; the hooks run on the thread that caused them. Lifetime: as `atom(_:label:fileID:line:)`:
/// the hooks' context does not keep the atom alive.
@inlinable
public func atom<T: Equatable>(
    _ value: T, label: String? = nil, lifecycle: Lifecycle<T>, fileID: String = #fileID, line: Int = #line
) -> AtomObject<T> {
    AtomObject(initial: value, equality: .equatable, label: label, fileID: fileID, line: line).starting(lifecycle)
}

/// Creates an atom holding `value`, compared with your own equality, with lifecycle hooks (see
/// `atom(_:label:lifecycle:fileID:line:)`).
///
/// ```swift
/// let position = atom(0.0, equals: { abs($0 - $1) < 0.5 }, lifecycle: Lifecycle(updated: { print($0, "→", $1) }))
/// ```
///
/// - Parameters:
///   - value: the initial value.
///   - equals: returns true when two values are the same for the atom's readers; it must not read or write Ripple
///     nodes.
///   - label: the name used in trap messages; by default the file and line of this call.
///   - lifecycle: the hooks.
///   - fileID: the file of the call (leave the default).
///   - line: the line of the call (leave the default).
///
/// Threading and lifetime: as `atom(_:label:lifecycle:fileID:line:)`.
@inlinable
public func atom<T>(
    _ value: T, equals: @escaping @Sendable (T, T) -> Bool, label: String? = nil, lifecycle: Lifecycle<T>,
    fileID: String = #fileID, line: Int = #line
) -> AtomObject<T> {
    AtomObject(initial: value, equals: equals, label: label, fileID: fileID, line: line).starting(lifecycle)
}

/// Creates a derivation compared with `==`, with lifecycle hooks.
///
/// The hooks run as a declared derivation's do: `initialized` after it is created, `watched` when it gains its
/// first reader, `updated` after each recomputation that changes its value (a derivation is lazy: only when
/// something reads it), `unwatched` when its last reader goes, `released` once it is freed.
///
/// ```swift
/// let count = atom(0)
/// let doubled = derive(lifecycle: Lifecycle(watched: { _ in print("doubled is watched") })) { count.value * 2 }
/// ```
///
/// - Parameters:
///   - label: the name used in trap messages; by default the file and line of this call.
///   - lifecycle: the hooks.
///   - fileID: the file of the call (leave the default).
///   - line: the line of the call (leave the default).
///   - body: computes the value from other nodes; it must not read the derivation itself.
///
/// Threading: from any thread; the hooks run on the thread that caused them. Lifetime: as
/// `derive(label:fileID:line:_:)`: the hooks' context does not keep the derivation alive.
@inlinable
public func derive<T: Equatable>(
    label: String? = nil, lifecycle: Lifecycle<T>, fileID: String = #fileID, line: Int = #line,
    @_inheritActorContext _ body: @escaping @isolated(any) @Sendable () -> T
) -> Derivation<T> {
    Derivation(
        body: callableWhereIsolated(body), recompute: Derivation.recompute(equals: { $0 == $1 }, lifecycle),
        label: label, fileID: fileID, line: line, isolation: BodyIsolation(body.isolation)
    ).starting(lifecycle)
}

/// Creates a derivation whose every recomputation is a change (for values that are not `Equatable`), with
/// lifecycle hooks (see `derive(label:lifecycle:fileID:line:_:)`).
///
/// ```swift
/// let size = atom(2)
/// let buffer = derive(lifecycle: Lifecycle(released: { print("buffer freed") })) {
///     NSMutableData(length: size.value)!                    // not Equatable
/// }
/// ```
///
/// - Parameters:
///   - label: the name used in trap messages; by default the file and line of this call.
///   - lifecycle: the hooks.
///   - fileID: the file of the call (leave the default).
///   - line: the line of the call (leave the default).
///   - body: computes the value from other nodes; it must not read the derivation itself.
///
/// Threading and lifetime: as `derive(label:lifecycle:fileID:line:_:)`.
@inlinable
public func derive<T>(
    label: String? = nil, lifecycle: Lifecycle<T>, fileID: String = #fileID, line: Int = #line,
    @_inheritActorContext _ body: @escaping @isolated(any) @Sendable () -> T
) -> Derivation<T> {
    Derivation(
        body: callableWhereIsolated(body), recompute: Derivation.recompute(equals: nil, lifecycle), label: label,
        fileID: fileID, line: line, isolation: BodyIsolation(body.isolation)
    ).starting(lifecycle)
}

/// Creates a derivation that compares successive values with your own equality, with lifecycle hooks (see
/// `derive(label:lifecycle:fileID:line:_:)`).
///
/// ```swift
/// let raw = atom(1.04)
/// let rounded = derive(equals: { abs($0 - $1) < 0.1 }, lifecycle: Lifecycle(updated: { print($1) })) { raw.value }
/// ```
///
/// - Parameters:
///   - equals: returns true when two values are the same for the derivation's readers; it must not read or write
///     Ripple nodes.
///   - label: the name used in trap messages; by default the file and line of this call.
///   - lifecycle: the hooks.
///   - fileID: the file of the call (leave the default).
///   - line: the line of the call (leave the default).
///   - body: computes the value from other nodes; it must not read the derivation itself.
///
/// Threading and lifetime: as `derive(label:lifecycle:fileID:line:_:)`.
@inlinable
public func derive<T>(
    equals: @escaping @Sendable (T, T) -> Bool, label: String? = nil, lifecycle: Lifecycle<T>,
    fileID: String = #fileID, line: Int = #line,
    @_inheritActorContext _ body: @escaping @isolated(any) @Sendable () -> T
) -> Derivation<T> {
    Derivation(
        body: callableWhereIsolated(body), recompute: Derivation.recompute(equals: equals, lifecycle), label: label,
        fileID: fileID, line: line, isolation: BodyIsolation(body.isolation)
    ).starting(lifecycle)
}

extension RippleNode {
    /// Gives this node, just created and not yet shared, the record of `lifecycle`'s hooks (none for an empty one),
    /// and queues its `initialized` hooks: they run before the creating call returns, outside every batch and
    /// evaluation. Returns the node.
    @usableFromInline
    final func starting<Value, Node: RippleNode>(_ lifecycle: Lifecycle<Value>) -> Node {
        let node = unsafeDowncast(self, to: Node.self)
        let hooks = ErasedLifecycle(lifecycle)
        if hooks.isEmpty { return node }
        let record = InstanceLifecycle(runtime: runtime, hooks: hooks, label: label)
        record.attach(to: self)
        attach(declaredInstance: nil, lifecycle: record)
        runtime.startLifecycle(record, of: self)
        return node
    }
}

extension Derivation {
    /// The recompute of a plain derivation made with `lifecycle`: the usual one, or one that also reports each
    /// change to the `updated` hook when it is set.
    @usableFromInline
    static func recompute(equals: ((Value, Value) -> Bool)?, _ lifecycle: Lifecycle<Value>) -> Recompute {
        if lifecycle.updated != nil { return storingAndReporting(equals: equals) }
        return equals.map(storing(equals:)) ?? storingEveryResult
    }

    /// A result equal to the cached value by `equals` (when given) is no change; a change is reported to the node's
    /// lifecycle record, which queues its `updated` hook with the values before and after. The first result is no
    /// update.
    static func storingAndReporting(equals: ((Value, Value) -> Bool)?) -> Recompute {
        { derivation in
            let next = derivation.body()
            guard derivation.hasValue else {
                derivation.storeFirst(next)
                return true
            }
            if let equals, equals(derivation.cached.pointee, next) { return false }
            derivation.lifecycle?.reportUpdate(old: derivation.cached.pointee, new: next)
            derivation.cached.pointee = next
            return true
        }
    }
}
