// The change log: one hook per runtime that sees every change of an atom's value, in the order the writes are
// applied, with the value before and after. Built on `AtomObject.store`, which takes an out-of-line path that
// reports the change only while a hook is installed (`RuntimeState.changeHookCount`).

/// One change of an atom's value, as a change hook installed with ``Runtime/onChange(_:)`` receives it.
///
/// A change is a write that replaced the atom's value with one that is not equal to it (by `==`, or the atom's
/// own equality), from a setter, ``AtomObject/update(_:)``, a `@Atom` property, an effect's or a derivation's
/// body, or ``Runtime/restore(_:)``. The values are type-erased: print them, or get them back with their type
/// through ``oldValue(as:)`` and ``newValue(as:)``.
///
/// ```swift
/// let quantity = atom(4, label: "quantity")
/// let log = Runtime.current.onChange { change in
///     print(change)                                   // "quantity: 4 → 5"
///     let before = change.oldValue(as: Int.self)      // Optional(4)
///     _ = before
/// }
/// quantity.value = 5
/// _ = log
/// ```
///
/// Threading: made and handed to the hooks on the thread that applied the write, while it holds the graph.
/// Not `Sendable` (the values may not be): copy out what you need (``description``, a value cast to its type)
/// to hand it to another thread. Lifetime: a change keeps its ``atom`` alive while you keep the change.
public struct AtomChange: CustomStringConvertible {
    /// The atom whose value changed (an ``AtomObject``; cast it to its type to read or write it).
    ///
    /// ```swift
    /// let hook = Runtime.current.onChange { change in
    ///     if let count = change.atom as? AtomObject<Int> { print(count.label) }
    /// }
    /// _ = hook
    /// ```
    ///
    /// Lifetime: held strongly by the change.
    public let atom: RippleNode

    /// The value before the write, type-erased. For an in-place mutation announced with
    /// ``Runtime/didMutate(_:)`` the value before is gone: it is the value after, like ``newValue``.
    ///
    /// ```swift
    /// let hook = Runtime.current.onChange { change in print(change.oldValue) }
    /// _ = hook
    /// ```
    public let oldValue: Any

    /// The value the write stored, type-erased.
    ///
    /// ```swift
    /// let hook = Runtime.current.onChange { change in print(change.newValue) }
    /// _ = hook
    /// ```
    public let newValue: Any

    /// Made by `AtomObject.storeReportingChange` and `externalMutation`, while the graph is held.
    init(atom: RippleNode, oldValue: Any, newValue: Any) {
        self.atom = atom
        self.oldValue = oldValue
        self.newValue = newValue
    }

    /// The atom's ``RippleNode/label``: the label given at creation, else where it was created.
    ///
    /// ```swift
    /// let hook = Runtime.current.onChange { change in print(change.label) }   // "quantity"
    /// _ = hook
    /// ```
    public var label: String { atom.label }

    /// Where the atom was created (`"<fileID>:<line>"`): see ``RippleNode/creationSite``.
    ///
    /// ```swift
    /// let hook = Runtime.current.onChange { change in print(change.creationSite ?? "") }  // "MyApp/Cart.swift:12"
    /// _ = hook
    /// ```
    public var creationSite: String? { atom.creationSite }

    /// The value before the write as a `T`, or nil when the atom's value type is not `T`.
    ///
    /// ```swift
    /// let hook = Runtime.current.onChange { change in
    ///     if let before = change.oldValue(as: Int.self) { print(before + 1) }
    /// }
    /// _ = hook
    /// ```
    ///
    /// - Parameter type: the atom's value type.
    public func oldValue<T>(as type: T.Type) -> T? { oldValue as? T }

    /// The value the write stored as a `T`, or nil when the atom's value type is not `T`.
    ///
    /// ```swift
    /// let hook = Runtime.current.onChange { change in
    ///     if let after = change.newValue(as: Int.self) { print(after * 2) }
    /// }
    /// _ = hook
    /// ```
    ///
    /// - Parameter type: the atom's value type.
    public func newValue<T>(as type: T.Type) -> T? { newValue as? T }

    /// `"<label>: <old> → <new>"`, the values as `String(describing:)` prints them.
    ///
    /// ```swift
    /// let hook = Runtime.current.onChange { change in print(change.description) }  // "quantity: 4 → 5"
    /// _ = hook
    /// ```
    public var description: String {
        "\(label): \(String(describing: oldValue)) → \(String(describing: newValue))"
    }
}

/// A change hook installed with ``Runtime/onChange(_:)``: it receives every change of the runtime's atoms while
/// you hold it.
///
/// Like an ``Effect``, its lifetime follows ownership: ``cancel()`` removes it at once, and so does releasing the
/// last reference to it.
///
/// ```swift
/// var hook: ChangeHook? = Runtime.current.onChange { print($0) }
/// hook = nil                                  // removed: later writes are not reported
/// _ = hook
/// ```
///
/// Threading: cancel or release it from any thread; a removal waits for a change being reported on another
/// thread to finish.
public final class ChangeHook {
    /// What the runtime keeps of an installed hook: its body, and the hook's identity to remove it by. The
    /// runtime does not keep the `ChangeHook` itself, whose release removes the registration.
    struct Registration {
        let id: ObjectIdentifier
        let body: @Sendable (AtomChange) -> Void
    }

    /// The runtime the hook is installed in, held strongly (``Runtime/onChange(_:)``).
    private let runtime: Runtime?
    /// The runtime the hook is installed in, held weakly (``Runtime/onChange(retainingRuntime:_:)`` with false).
    private weak var weakRuntime: Runtime?

    init(runtime: Runtime, retaining: Bool) {
        self.runtime = retaining ? runtime : nil
        weakRuntime = runtime
    }

    /// Removes the hook: changes applied after this call are not reported to it. Idempotent.
    ///
    /// ```swift
    /// let hook = Runtime.current.onChange { print($0) }
    /// hook.cancel()
    /// ```
    ///
    /// Threading: from any thread, also from inside the hook's own body.
    public func cancel() {
        (runtime ?? weakRuntime)?.removeChangeHook(ObjectIdentifier(self))
    }

    deinit {
        cancel()
    }
}

// The hook's only state is the runtime reference, immutable after init; the registration it names is read and
// written only while the runtime's graph is held (`Runtime.batch`).
extension ChangeHook: @unchecked Sendable {}

extension Runtime {
    /// Installs a change hook: `body` receives every change of an atom of this runtime, in the order the writes
    /// are applied, with the value before and after, until you cancel or release the returned ``ChangeHook``.
    ///
    /// What counts: each write to an atom (a setter, ``AtomObject/update(_:)``, a `@Atom` property, a write made
    /// by an effect or a derivation body, each write of a ``restore(_:)``) that replaces the value with one that
    /// is not equal to it by the atom's equality. A write of an equal value is not reported. Each write is
    /// reported on its own, batched or not: an atom written from 0 to 1 and back to 0 inside one ``batch(_:)``
    /// gives two changes (0 → 1, 1 → 0), although its readers see no change at all. An in-place mutation
    /// announced with ``didMutate(_:)`` is one change whose old and new values are both the value after it.
    /// Derivations are not reported: they are functions of the atoms, so replaying the atom changes reproduces
    /// them.
    ///
    /// ```swift
    /// let quantity = atom(4, label: "quantity")
    /// let price = atom(5, label: "price")
    /// let hook = Runtime.current.onChange { change in print(change) }
    /// batch {
    ///     quantity.value = 5          // prints "quantity: 4 → 5"
    ///     price.value = 6             // prints "price: 5 → 6"
    /// }
    /// quantity.value = 5              // equal: nothing printed
    /// hook.cancel()
    /// ```
    ///
    /// Hooks run in the order they were installed. With no hook installed, a write pays one predictable branch.
    ///
    /// - Parameter body: receives each change. It runs on the thread that applied the write, while that thread
    ///   holds the graph, before the effects the write makes due: it must be short, must not wait for another
    ///   thread that uses this runtime (that thread waits for the graph: a deadlock), and should not write atoms
    ///   (such a write is a change too, reported to the hooks before `body` returns). It may read nodes.
    /// - Returns: the installed hook. Keep it: releasing it removes the hook.
    ///
    /// Threading: from any thread. Lifetime: the hook keeps this runtime alive; the runtime does not keep the
    /// hook.
    public func onChange(_ body: @escaping @Sendable (AtomChange) -> Void) -> ChangeHook {
        onChange(retainingRuntime: true, body)
    }

    /// Installs a change hook as ``onChange(_:)`` does, which keeps this runtime alive only if `retainingRuntime`
    /// is true: an object the runtime itself keeps (an ``attachment(_:make:)``) holds such a hook without a cycle.
    ///
    /// ```swift
    /// let runtime = Runtime()
    /// let hook = runtime.onChange(retainingRuntime: false) { print($0) }
    /// withIsolatedRuntime(using: runtime) { atom(0, label: "count").value = 1 }   // prints "count: 0 → 1"
    /// _ = hook
    /// ```
    ///
    /// - Parameters:
    ///   - retainingRuntime: whether the hook keeps this runtime alive. When false, the hook is removed with the
    ///     runtime, and ``ChangeHook/cancel()`` after that does nothing.
    ///   - body: receives each change, with the rules of ``onChange(_:)``.
    /// - Returns: the installed hook. Keep it: releasing it removes the hook.
    ///
    /// Threading: from any thread.
    public func onChange(
        retainingRuntime: Bool, _ body: @escaping @Sendable (AtomChange) -> Void
    ) -> ChangeHook {
        let hook = ChangeHook(runtime: self, retaining: retainingRuntime)
        batch {
            changeHooks.append(ChangeHook.Registration(id: ObjectIdentifier(hook), body: body))
            updateChangeHookCount()
        }
        return hook
    }

    /// Removes the hook registered under `id`, if it is still installed.
    func removeChangeHook(_ id: ObjectIdentifier) {
        batch {
            guard let index = changeHooks.firstIndex(where: { $0.id == id }) else { return }
            changeHooks.remove(at: index)
            updateChangeHookCount()
        }
    }

    /// Hands `change` to every installed hook, in installation order, then to its atom's write observer. Called
    /// while the graph is held. Iterates a copy: a hook may cancel itself, or install another, while it runs.
    func reportChange(_ change: AtomChange) {
        // Inside a transaction, the change waits in its journal until the outermost transaction commits (a
        // rollback drops it): no hook sees a write that may still be undone (Transaction.swift).
        if _slowPath(transactionJournal.depth != 0) { return transactionJournal.record(change) }
        for hook in changeHooks { hook.body(change) }
        // The atom's own observer (AtomObject+WriteObserver.swift), which its write calls itself when no hook is
        // installed.
        change.atom.writeObserver?.notify(change.newValue)
    }

    /// Sets the count an atom's write tests (`RuntimeState.changeHookCount`): the hooks installed, plus one while a
    /// transaction is open, whose journal needs every change with its value before. Called while the graph is held.
    func updateChangeHookCount() {
        state.pointee.changeHookCount = changeHooks.count + (transactionJournal.depth != 0 ? 1 : 0)
    }
}
