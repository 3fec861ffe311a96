/// What ties a node to the declaration it is an instance of, in one runtime. The node owns it
/// (`RippleNode.declaredInstance`), so it goes with the node: its deinit takes the node out of the runtime's
/// ``DeclarationStore`` and queues the release hook.
final class DeclaredInstanceRecord {
    /// The store the instance is in.
    let store: DeclarationStore
    /// Takes the node (given by its address) out of the store, unless another instance already replaced it.
    private let detach: @Sendable (UnsafeMutableRawPointer) -> Void
    /// The declaration's hooks for this instance.
    let hooks: ErasedLifecycle
    /// The body of a declared derivation's instance, which an override replaces; nil for atoms.
    let body: AnyObject?
    /// The node's address, set once the node exists (before the record is shared).
    var node: UnsafeMutableRawPointer?
    /// Whether the node became the store's instance (false when another thread's instance won the race).
    var isInstalled = false

    init(store: DeclarationStore, hooks: ErasedLifecycle, body: AnyObject?,
         detach: @escaping @Sendable (UnsafeMutableRawPointer) -> Void) {
        self.store = store
        self.hooks = hooks
        self.body = body
        self.detach = detach
    }

    deinit {
        guard isInstalled, let node else { return }
        detach(node)
        if let released = hooks.released { store.enqueue(released) }
    }

    /// Queues the update hook for a change of an atom instance (from the runtime's change log).
    func reportUpdate(old: Any, new: Any) {
        guard let updated = hooks.updated else { return }
        store.enqueue { updated(old, new) }
    }
}

/// A ``Lifecycle`` with its value type erased, as a record keeps it.
struct ErasedLifecycle: Sendable {
    let initialized: (@Sendable () -> Void)?
    let updated: (@Sendable (Any, Any) -> Void)?
    let released: (@Sendable () -> Void)?

    init<Value>(_ lifecycle: Lifecycle<Value>) {
        initialized = lifecycle.initialized
        released = lifecycle.released
        if let typed = lifecycle.updated {
            // The change log reports the atom's own values: they are `Value`s.
            let erased: @Sendable (Any, Any) -> Bool = { old, new in
                typed(old as! Value, new as! Value)
                return true
            }
            updated = { old, new in _ = erased(old, new) }
        } else {
            updated = nil
        }
    }
}
