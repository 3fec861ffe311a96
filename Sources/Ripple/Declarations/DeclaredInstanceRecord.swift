/// What ties a node to the declaration it is an instance of, in one runtime. The node owns it
/// (`RippleNode.declaredInstance`), so it goes with the node: its deinit takes the node out of the runtime's
/// ``DeclarationStore`` (the node's ``InstanceLifecycle``, if the declaration has hooks, then queues the release
/// hook).
final class DeclaredInstanceRecord {
    /// What the store does for the instance, where it keeps it (its declaration's slot, or its family's table and
    /// key): take it out as it goes, keep it once written, stop keeping it. One closure for the three, made where
    /// the instance is created: each closure is an allocation per instance.
    private let inStore: @Sendable (InstanceChange) -> [RippleNode]
    /// Whether the store keeps the instance once written: false when it keeps it anyway (`keepAlive`).
    let keepsWrites: Bool
    /// The body of a declared derivation's instance, which an override replaces; nil for atoms.
    let body: AnyObject?
    /// The node's address, set once the node exists (before the record is shared).
    var node: UnsafeMutableRawPointer?
    /// Whether the node became the store's instance (false when another thread's instance won the race).
    var isInstalled = false

    init(body: AnyObject?, keepsWrites: Bool, inStore: @escaping @Sendable (InstanceChange) -> [RippleNode]) {
        self.body = body
        self.keepsWrites = keepsWrites
        self.inStore = inStore
    }

    deinit {
        guard isInstalled, let node else { return }
        _ = inStore(.detach(node))
    }

    /// Keeps `node`, this record's instance, written for the first time: returns the members its family's eviction
    /// policy gave up for it, for the caller to let go of outside the store's lock.
    func keepWritten(_ node: RippleNode) -> [RippleNode] {
        inStore(.keep(node))
    }

    /// Stops keeping `node`, this record's instance, for its write; returns the reference the store held, to let
    /// go of outside the store's lock.
    func forgetWrite(of node: RippleNode) -> RippleNode? {
        inStore(.forget(node)).first
    }
}

/// What a store does for one of its instances (`DeclaredInstanceRecord`).
enum InstanceChange {
    /// The node, given by its address, is going: take it out, unless another instance already replaced it.
    case detach(UnsafeMutableRawPointer)
    /// The instance was written for the first time (or since its reset): keep it.
    case keep(RippleNode)
    /// Its default was written back (a reset, an override): stop keeping it for its write.
    case forget(RippleNode)
}
