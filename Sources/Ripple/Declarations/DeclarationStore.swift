internal import CRipple
internal import CRippleThreadState

/// A runtime's instances of declared state: for each declaration (``DeclaredAtom``, ``DeclaredDerivation``), the
/// node that stands for it in this runtime, and for each family one table of members by key.
///
/// The store holds its instances unowned: an instance lives while something holds its node (a caller, or the
/// derivations and effects that read it, which hold what they read strongly), or while the store keeps it alive:
/// declarations made with `keepAlive: true`, and every atom instance once written, so that no write is lost (until
/// its reset or an override writes its default back, or its family's eviction policy gives it up). When the node
/// goes, its ``DeclaredInstanceRecord`` (which the node owns) takes it out of the store and queues its release hook.
/// A look-up takes the store's lock, loads the slot and takes a strong reference with a try-retain, which fails once
/// the node's deinit has begun: the look-up then creates a fresh instance.
///
/// Lifecycle hooks are queued, in the order their events happen, and run when the outermost batch on the thread
/// that caused them ends, or at once when that thread is in no batch and evaluates nothing.
final class DeclarationStore {
    /// Guards every stored property below; never held while calling into the graph or into user code.
    private let lock = ParkingLock()
    /// The node of each plain declaration and its engine handle, by ``DeclarationIndex``: written under `lock`,
    /// read without it by `readDeclaredInEvaluation(_:)` and `beginDeclaredRead(_:)` (ripple_slot_table.h).
    let slots: UnsafeMutablePointer<ripple_slot_table>
    /// The member table of each family, by its index; created on the family's first use in this runtime.
    private var familyTables: [Int: AnyObject] = [:]
    /// Overrides of plain declarations and of whole families, by index: a value of the declaration's body type
    /// (`() -> Value`, or `(Key) -> Value` for a family), set by ``Runtime/override(_:)-(Override...)``.
    private var overrides: [Int: Any] = [:]
    /// Overrides of single family members, by family index and key; they win over the family's override.
    private var memberOverrides: [Int: [AnyHashable: Any]] = [:]
    /// Instances of keep-alive declarations: they stay until the runtime goes (or, for the fresh runtime of
    /// `withIsolatedRuntime`, until its body returns).
    private var keptAlive: [RippleNode] = []
    /// Instances of plain atom declarations that were written: they stay until their reset or an override writes
    /// their default back, or the runtime goes (as `keptAlive`). A family keeps its own (`FamilyTable.written`).
    private var written: [ObjectIdentifier: RippleNode] = [:]
    /// Lifecycle hooks waiting to run, in the order their events happened.
    private var pendingHooks: [() -> Void] = []
    /// How many hooks wait: written under the lock, loaded without it at the end of every batch (one relaxed
    /// load, paired with nothing: a hook queued meanwhile by another thread is run by that thread). The runtime
    /// keeps a copy of the pointer (`Runtime.pendingHooksCount`) for the end of a batch inlined into a write.
    let pendingCount: UnsafeMutablePointer<CLong>
    /// How many live instances the store knows of.
    private var liveCount = 0
    /// Whether the update-hook listener is registered with the runtime's change log.
    var listensForUpdates = false

    init() {
        guard let table = ripple_slot_table_create() else {
            fatalError("Ripple: out of memory creating a runtime's table of declared instances.")
        }
        slots = table
        pendingCount = .allocate(capacity: 1)
        pendingCount.initialize(to: 0)
    }

    deinit {
        ripple_slot_table_destroy(slots)
        lock.deallocate()
        pendingCount.deallocate()
    }

    /// How many slots the table has room for now, without growing (tests check that it grew).
    var slotCapacity: Int {
        Int(ripple_slot_table_capacity(slots))
    }

    /// The live node in `index`'s slot, retained, or nil.
    func existing(at index: Int) -> RippleNode? {
        lock.withLock { retainedNode(at: index) }
    }

    /// The node in `index`'s slot, retained, unless its deinit has begun. Under the lock.
    private func retainedNode(at index: Int) -> RippleNode? {
        var entry = ripple_slot_entry()
        guard ripple_slot_table_load(slots, index, &entry), let object = entry.object,
            ripple_object_try_retain(object)
        else { return nil }
        return Unmanaged<RippleNode>.fromOpaque(object).takeRetainedValue()
    }

    /// Puts `node` in `index`'s slot unless another thread put a live one there first, which is then returned
    /// (retained) instead. Returns nil when `node` went in.
    func install(_ node: RippleNode, at index: Int, keepAlive: Bool) -> RippleNode? {
        lock.withLock {
            if let other = retainedNode(at: index) { return other }
            var dying = ripple_slot_entry()
            // An instance whose deinit began and has not yet taken itself out: replaced here, counted out here.
            if ripple_slot_table_load(slots, index, &dying) { liveCount -= 1 }
            let handle = node.handle
            let entry = ripple_slot_entry(
                object: Unmanaged.passUnretained(node).toOpaque(), slot: handle.slot, generation: handle.generation,
                graph_tag: handle.graph_tag)
            guard ripple_slot_table_store(slots, index, entry) else {
                fatalError("Ripple: out of memory growing a runtime's table of declared instances.")
            }
            liveCount += 1
            if keepAlive { keptAlive.append(node) }
            return nil
        }
    }

    /// Takes `node` out of `index`'s slot if it is still there. Called by the node's record as the node goes.
    func remove(_ node: UnsafeMutableRawPointer, at index: Int) {
        lock.withLock {
            var entry = ripple_slot_entry()
            guard ripple_slot_table_load(slots, index, &entry), entry.object == node else { return }
            _ = ripple_slot_table_store(slots, index, ripple_slot_entry())
            liveCount -= 1
        }
    }

    /// Keeps `node`, a plain declaration's instance that was written.
    func keepWritten(_ node: RippleNode) {
        lock.withLock { written[ObjectIdentifier(node)] = node }
    }

    /// Stops keeping `node` for its write; returns the reference the store held.
    func forgetWritten(_ node: RippleNode) -> RippleNode? {
        lock.withLock { written.removeValue(forKey: ObjectIdentifier(node)) }
    }

    /// Keeps `node`, the member of `table` for `key` that was written. If that makes more written members than the
    /// family's eviction policy allows, gives up the oldest written ones (marked unwritten again, which needs the
    /// graph: the caller, a write, holds it) and returns them, for the caller to let go of outside the lock.
    func keepWritten<Key>(_ node: RippleNode, in table: FamilyTable<Key>, for key: Key) -> [RippleNode] {
        lock.withLock {
            if table.written.updateValue(node, forKey: key) == nil { table.writeOrder.append(key) }
            guard let limit = table.writtenLimit, table.written.count > limit else { return [] }
            var evicted: [RippleNode] = []
            var index = 0
            while table.written.count > limit, index < table.writeOrder.count {
                let oldest = table.writeOrder[index]
                // The member just written stays; one whose in-place mutation waits for its commit cannot be
                // marked unwritten yet, and stays too (kept beyond the bound rather than losing a write).
                if oldest != key, let member = table.written[oldest], member.markUnwritten() {
                    table.written[oldest] = nil
                    table.writeOrder.remove(at: index)
                    evicted.append(member)
                } else {
                    index += 1
                }
            }
            return evicted
        }
    }

    /// Stops keeping `node`, the member of `table` for `key`, for its write; returns the reference the store held.
    func forgetWritten<Key>(_ node: RippleNode, in table: FamilyTable<Key>, for key: Key) -> RippleNode? {
        lock.withLock {
            guard table.written[key] === node else { return nil }
            table.written[key] = nil
            if let position = table.writeOrder.firstIndex(of: key) { table.writeOrder.remove(at: position) }
            return node
        }
    }

    /// The member table of family `index`, created on first use; a family that keeps at most `writtenLimit`
    /// written members (nil: all of them) gives up the oldest beyond it.
    func table<Key: Hashable>(of index: Int, keyedBy: Key.Type, writtenLimit: Int? = nil) -> FamilyTable<Key> {
        lock.withLock {
            if let table = familyTables[index] { return unsafeDowncast(table, to: FamilyTable<Key>.self) }
            let table = FamilyTable<Key>(writtenLimit: writtenLimit)
            familyTables[index] = table
            return table
        }
    }

    /// The live member of family `index` for `key`, retained, or nil.
    func existing<Key: Hashable>(family index: Int, for key: Key) -> RippleNode? {
        lock.withLock {
            guard let table = familyTables[index],
                let node = unsafeDowncast(table, to: FamilyTable<Key>.self).members[key]
            else { return nil }
            return ripple_object_try_retain(node.toOpaque()) ? node.takeRetainedValue() : nil
        }
    }

    /// Puts `node` in `table` for `key`, as ``install(_:at:keepAlive:)`` does for a slot.
    func install<Key>(_ node: RippleNode, in table: FamilyTable<Key>, for key: Key, keepAlive: Bool) -> RippleNode? {
        lock.withLock {
            if let other = table.members[key] {
                if ripple_object_try_retain(other.toOpaque()) { return other.takeRetainedValue() }
                liveCount -= 1  // dying and not yet taken out: replaced here, counted out here
            }
            table.members[key] = Unmanaged.passUnretained(node)
            liveCount += 1
            if keepAlive { keptAlive.append(node) }
            return nil
        }
    }

    /// Takes `node` out of `table` if it is still the member for `key`.
    func remove<Key>(_ node: UnsafeMutableRawPointer, from table: FamilyTable<Key>, for key: Key) {
        lock.withLock {
            guard table.members[key]?.toOpaque() == node else { return }
            table.members[key] = nil
            // Give the storage back after a burst of keys (a dictionary keeps its capacity when emptied).
            if table.members.isEmpty, table.members.capacity > 64 { table.members = [:] }
            liveCount -= 1
        }
    }

    /// Every live member of family `index` with its key, retained.
    func liveMembers<Key: Hashable>(family index: Int, keyedBy: Key.Type) -> [(key: Key, node: RippleNode)] {
        lock.withLock {
            guard let table = familyTables[index] else { return [] }
            return unsafeDowncast(table, to: FamilyTable<Key>.self).members.compactMap { key, node in
                ripple_object_try_retain(node.toOpaque()) ? (key, node.takeRetainedValue()) : nil
            }
        }
    }

    /// How many members family `index` has.
    func memberCount(family index: Int) -> Int {
        lock.withLock {
            guard let table = familyTables[index] else { return 0 }
            return (table as! any FamilyTableProtocol).count
        }
    }

    /// How many live instances this store holds.
    var instanceCount: Int {
        lock.withLock { liveCount }
    }

    /// The override registered for the declaration or family `index`, or nil.
    func override(for index: Int) -> Any? {
        lock.withLock { overrides[index] }
    }

    /// The override of family `index`'s member for `key`: its own, else the family's, else nil.
    func override<Key: Hashable>(family index: Int, for key: Key) -> (member: Any?, family: Any?) {
        lock.withLock { (memberOverrides[index]?[AnyHashable(key)], overrides[index]) }
    }

    /// Registers `body` as the override of family `index`'s member for `key`.
    func setOverride<Key: Hashable>(_ body: Any, family index: Int, for key: Key) {
        lock.withLock { memberOverrides[index, default: [:]][AnyHashable(key)] = body }
    }

    /// Registers `body` as the override of the declaration or family `index`.
    func setOverride(_ body: Any, for index: Int) {
        lock.withLock {
            overrides[index] = body
            memberOverrides[index] = nil  // a whole family's override replaces its members' own
        }
    }

    /// Lets go of the keep-alive instances and of the written ones: used when a fresh isolated runtime's body
    /// returned, since the instances hold the runtime (a cycle otherwise).
    func dropKeptAlive() {
        let dropped = lock.withLock {
            defer {
                keptAlive = []
                written = [:]
                for table in familyTables.values { (table as! any FamilyTableProtocol).dropWritten() }
            }
            return (keptAlive, written, familyTables.values.map { ($0 as! any FamilyTableProtocol).writtenMembers })
        }
        // Released here, outside the lock: their deinit takes it. `_ = dropped` did not say so: -O ended the
        // array's lifetime at `keptAlive = []`, inside the lock, and the first instance's deinit spun on it forever.
        withExtendedLifetime(dropped) {}
    }

    /// Queues a lifecycle hook and runs the queue if this thread is in no batch and evaluates nothing; with
    /// `runningNow` false, only queues it (for the engine's `watched` callback, which must not call into the graph:
    /// the end of the batch, read or effect creation around it runs the queue).
    func enqueue(runningNow: Bool = true, _ hook: @escaping () -> Void) {
        lock.withLock {
            pendingHooks.append(hook)
            ripple_counter_add(pendingCount, 1)
        }
        if runningNow { runHooksIfOutermost() }
    }

    /// Runs the queued hooks, in order, if this thread is in no batch and evaluates nothing. Hooks may write
    /// state, which may queue more hooks: they run too, before this returns.
    func runHooksIfOutermost() {
        guard ripple_thread_state_batch_depth() == 0, EvaluationThreadState.innermost == nil else { return }
        while true {
            let hooks: [() -> Void] = lock.withLock {
                defer {
                    ripple_counter_add(pendingCount, -CLong(pendingHooks.count))
                    pendingHooks = []
                }
                return pendingHooks
            }
            if hooks.isEmpty { return }
            for hook in hooks { hook() }
        }
    }

    /// Runs the queued hooks if there are any and this thread is outside every batch and evaluation: for reads,
    /// whose recomputations may have queued update hooks.
    @inline(__always)
    func runHooksIfPending() {
        if _slowPath(hasPendingHooks) { runHooksIfOutermost() }
    }

    /// Whether hooks are waiting (a relaxed load). The end of a batch loads the same counter through the runtime's
    /// copy of its pointer (`Runtime.pendingHooksCount`).
    @inline(__always)
    var hasPendingHooks: Bool {
        ripple_counter_load(pendingCount) != 0
    }
}

/// The members of one family in one runtime, by key (unowned, as slots are), and the written ones it keeps.
final class FamilyTable<Key: Hashable>: FamilyTableProtocol {
    // Every property is touched only under the store's lock.
    var members: [Key: Unmanaged<RippleNode>] = [:]
    /// The members that were written, kept by the table until reset, overridden, removed or evicted.
    var written: [Key: RippleNode] = [:]
    /// The keys of `written`, oldest first write first: the order of eviction.
    var writeOrder: [Key] = []
    /// How many written members the family keeps at most (its ``FamilyEviction``); nil: all.
    let writtenLimit: Int?

    init(writtenLimit: Int?) {
        self.writtenLimit = writtenLimit
    }

    var count: Int { members.count }

    var writtenMembers: [RippleNode] { Array(written.values) }

    func dropWritten() {
        written = [:]
        writeOrder = []
    }
}

/// A family table whatever its key type, for counting and for letting go of the written members.
protocol FamilyTableProtocol: AnyObject {
    var count: Int { get }
    var writtenMembers: [RippleNode] { get }
    func dropWritten()
}

// The store's mutable state is touched only under `lock` (every method above takes it), except the slot table's
// lock-free reads (see ripple_slot_table.h); the nodes it names are reached through try-retain or inside a read
// section of their node. So sharing it between threads is safe.
extension DeclarationStore: @unchecked Sendable {}
extension FamilyTable: @unchecked Sendable {}
