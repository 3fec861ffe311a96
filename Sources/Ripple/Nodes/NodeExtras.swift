/// What few nodes have, kept out of the node itself: the label given at creation (``RippleNode/label``), the actor
/// an actor-bound body runs on, a deferred effect's scheduler, for the instance of a declaration its record, for a
/// node made with a ``Lifecycle`` the record of its hooks, an atom's write observer, and the cleanups a derivation's
/// or an effect's last run registered. Written only before the node is shared, but the write observer and the
/// cleanups (while the graph is held).
///
/// Not a field of the node: a word in every node for what few of them have would take each kind one malloc size
/// class up (an atom of a word 80 → 96 bytes, a derivation 96 → 112, an effect 64 → 80). The node finds its extras
/// in `NodeExtrasTable`, by its address, and says it has some with a trait (`createdWithExtras`: the label, the
/// isolation and the scheduler, fixed at creation) and a mark (`hasExtras`: anything, set while the graph is held).
@usableFromInline
final class NodeExtras {
    let label: String?
    let isolation: BodyIsolation
    let scheduler: (any EffectScheduler)?
    var declaredInstance: DeclaredInstanceRecord?
    var lifecycle: InstanceLifecycle?
    /// An atom's write observer (AtomObject+WriteObserver.swift): a persisted atom's way to its storage.
    var writeObserver: AtomWriteObserver?
    /// Cleanups registered by the last run of a derivation's or an effect's body (``onCleanup(_:)-37wcr``), in
    /// registration order: they run before the next run and when the node stops. Touched while the graph is held,
    /// and by the node's deinit.
    var cleanups: [() -> Void] = []

    init(label: String?, isolation: BodyIsolation, scheduler: (any EffectScheduler)?) {
        self.label = label
        self.isolation = isolation
        self.scheduler = scheduler
    }

    /// The node is going (its deinit took these extras out of the table after leaving the graph): the
    /// declaration's record takes the instance out of its store first, then the hooks' record forgets the node's
    /// address and queues the release, so that a `released` hook that uses the declaration again finds it gone.
    deinit {
        declaredInstance = nil
        lifecycle?.nodeDidGo()
    }

    /// The extras of a node without a body: nil unless it has a label. Inlinable: an atom's inlinable `init` calls
    /// it, and an unlabeled atom, the common case, then makes no call for it.
    @inlinable @inline(__always)
    static func labeled(_ label: String?) -> NodeExtras? {
        guard let label else { return nil }
        return labeling(label)
    }

    /// The extras of a labeled node without a body.
    @usableFromInline
    static func labeling(_ label: String) -> NodeExtras {
        NodeExtras(label: label, isolation: .none, scheduler: nil)
    }

    /// The extras of a derivation or of a synchronous effect: nil for an unlabeled body that may run anywhere, the
    /// common case. (A function rather than a failable initializer, which would allocate the object before failing.)
    @inline(__always)
    static func forBody(label: String?, isolation: BodyIsolation) -> NodeExtras? {
        if label == nil, isolation.isNone { return nil }
        return NodeExtras(label: label, isolation: isolation, scheduler: nil)
    }
}

/// The extras of every live node that has some, by the node's address, for the whole process (nodes of every
/// runtime: a node's deinit, which takes its entry out, may run while its runtime is going too). A node adds its
/// entry in `init` or while its graph is held, and takes it out in its deinit, before its memory can be reused:
/// an address names one live node at a time. Behind a lock, because a label is read on any thread; the nodes that
/// have extras are few, and their hot paths (a derivation's compute, an effect's run, an atom's write) test a
/// bit of the node, not the table.
enum NodeExtrasTable {
    /// The extras of `node`, which has an entry (its `createdWithExtras` trait or `hasExtras` mark says so).
    static func extras(of node: RippleNode) -> NodeExtras {
        let key = NodeAddress(node)
        return table.lock.withLock { table.entries[key] }.unsafelyUnwrapped
    }

    /// Makes `extras` the entry of `node`, which has none.
    static func add(_ extras: NodeExtras, for node: RippleNode) {
        let key = NodeAddress(node)
        table.lock.withLock { table.entries[key] = extras }
    }

    /// Takes the entry of `node` out of the table and returns it (the caller lets it go when it is done).
    static func remove(for node: RippleNode) -> NodeExtras? {
        let key = NodeAddress(node)
        return table.lock.withLock { table.entries.removeValue(forKey: key) }
    }

    /// The entry of the node at `key`, if there is one: for tests, which check that a node's deinit takes its
    /// entry out.
    static func entry(at key: ObjectIdentifier) -> NodeExtras? {
        table.lock.withLock { table.entries[NodeAddress(key)] }
    }

    private static let table = Table()

    /// The entries and their lock; lives as long as the process.
    private final class Table: @unchecked Sendable {
        let lock = ParkingLock()
        /// Touched only while `lock` is held: no dynamic exclusivity check (a declared family member's creation
        /// and teardown made about 250 instructions of them).
        @exclusivity(unchecked) var entries: [NodeAddress: NodeExtras] = [:]
    }
}

/// A node's address as the table's key. Hashed with one multiplication and a fold rather than `Hasher`'s SipHash
/// rounds (about 180 instructions of a family member's creation and teardown): the keys are addresses that the
/// allocator hands out, not input an attacker chooses, and the fold brings the product's mixed high bits down to
/// the low bits that pick a bucket.
struct NodeAddress: Hashable {
    let bits: UInt

    init(_ node: RippleNode) { self.init(ObjectIdentifier(node)) }

    init(_ identifier: ObjectIdentifier) { bits = UInt(bitPattern: identifier) }

    func hash(into hasher: inout Hasher) { hasher.combine(bits) }

    /// What `Dictionary` calls for the bucket (the seed is the table's own, varied per storage).
    func _rawHashValue(seed: Int) -> Int {
        let product = (bits ^ UInt(bitPattern: seed)) &* 0x9E37_79B9_7F4A_7C15
        return Int(bitPattern: product ^ (product >> 32))
    }
}
