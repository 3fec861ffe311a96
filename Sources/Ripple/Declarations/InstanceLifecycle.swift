internal import CRipple
internal import CRippleThreadState

/// The hooks of one node that has a ``Lifecycle`` (a declared instance, or a plain `atom(_:lifecycle:)` or
/// `derive(lifecycle:_:)`), and what its ``LifecycleContext`` reaches: the node's address until it goes, and the
/// cleanups registered through the context.
///
/// The node keeps it out of line (`NodeExtras.lifecycle`): a node without hooks pays nothing for it. The node owns
/// it; a context holds it too, but it never holds the node: it keeps the node's address, unretained, and takes a
/// strong reference only for the length of a context's read or write, with a try-retain that fails once the node's
/// deinit has begun. The node's extras clear the address as the node goes (`nodeDidGo()`), under the lock a
/// context takes to retain it, so the address is never used after the node's memory is freed. So a timer that
/// keeps a context keeps this record (and the runtime), never the node: the node goes when its readers and holders
/// do, and a late write is reported (`LifecycleContextError.released`).
///
/// Events are queued on the runtime's hook queue (`DeclarationStore.enqueue`), in the order they happen, and
/// handled when the queue runs: the state below (watched, released, cleanups) follows that order, not the engine's.
final class InstanceLifecycle {
    /// The instance's runtime, where the hooks are queued.
    let runtime: Runtime
    /// The hooks.
    let hooks: ErasedLifecycle
    /// The node's label, for errors.
    let label: String
    /// Guards the properties below.
    private let lock = ParkingLock()
    /// The node's address while it lives (unretained); nil before it is attached and once it goes.
    private var node: UnsafeMutableRawPointer?
    /// The node went (or lost its install race): no more events.
    private var isGone = false
    /// The node never became the instance (another thread's won the race): no hook runs for it.
    private var isDiscarded = false
    /// Whether the queue has handled a `watched` event with no `unwatched` after it.
    private var isWatched = false
    /// Whether the queue has handled the release.
    private var isReleased = false
    /// Cleanups to run at the next `unwatched` (or the release), in registration order.
    private var unwatchedCleanups: [@Sendable () -> Void] = []
    /// Cleanups to run at the release, in registration order.
    private var releaseCleanups: [@Sendable () -> Void] = []

    init(runtime: Runtime, hooks: ErasedLifecycle, label: String) {
        self.runtime = runtime
        self.hooks = hooks
        self.label = label
    }

    deinit {
        lock.deallocate()
    }

    /// Ties the record to `node`, before the node is shared.
    func attach(to node: RippleNode) {
        lock.withLock { self.node = Unmanaged.passUnretained(node).toOpaque() }
    }

    /// The node lost its install race and goes unseen: no hook runs, not even `released`.
    func discard() {
        lock.withLock {
            isDiscarded = true
            node = nil
        }
    }

    /// Queues the `initialized` hooks: the node was created (and installed, for a declaration).
    func nodeWasCreated() {
        guard hooks.initialized != nil || hooks.initializedInContext != nil else { return }
        runtime.declarations.enqueue { [self] in
            hooks.initialized?()
            hooks.initializedInContext?(self)
        }
    }

    /// The node gained its first reader. Called by the engine's `watched` callback, which must not call into the
    /// graph: queued without running; the end of the batch, read or effect creation that caused it runs it.
    func nodeWasWatched() {
        guard hooks.tracksWatching else { return }
        runtime.declarations.enqueue(runningNow: false) { [self] in handleWatched() }
    }

    /// The node lost its last reader. Called by the engine's `unwatched` callback, which may call into the graph:
    /// runs at once when this thread is outside every batch and evaluation.
    func nodeWasUnwatched() {
        guard hooks.tracksWatching else { return }
        runtime.declarations.enqueue { [self] in handleUnwatched() }
    }

    /// The node is going (its extras' deinit): forgets its address, then queues the release.
    func nodeDidGo() {
        let report = lock.withLock {
            node = nil
            defer { isGone = true }
            return !isDiscarded && !isGone
        }
        guard report else { return }
        runtime.declarations.enqueue { [self] in handleRelease() }
    }

    /// Queues the `updated` hook for a change of the node's value: an atom's (from the runtime's change log) or a
    /// derivation's recomputation.
    func reportUpdate(old: Any, new: Any) {
        guard let updated = hooks.updated else { return }
        runtime.declarations.enqueue { updated(old, new) }
    }

    /// The node, retained, unless it went or its deinit has begun.
    func liveNode() -> RippleNode? {
        lock.withLock {
            guard let node, ripple_object_try_retain(node) else { return nil }
            return Unmanaged<RippleNode>.fromOpaque(node).takeRetainedValue()
        }
    }

    /// Whether the node went (its address is forgotten).
    var isNodeGone: Bool {
        lock.withLock { node == nil }
    }

    /// Keeps `cleanup` for the next `unwatched` (or the release), or for the release; runs it at once when that
    /// already happened.
    func register(_ cleanup: @escaping @Sendable () -> Void, untilRelease: Bool) {
        let kept = lock.withLock {
            if isReleased { return false }
            if untilRelease {
                releaseCleanups.append(cleanup)
            } else {
                guard isWatched else { return false }
                unwatchedCleanups.append(cleanup)
            }
            return true
        }
        if !kept { cleanup() }
    }

    private func handleWatched() {
        let proceed = lock.withLock {
            guard !isReleased, !isWatched else { return false }
            isWatched = true
            return true
        }
        if proceed { hooks.watched?(self) }
    }

    private func handleUnwatched() {
        let cleanups: [@Sendable () -> Void]? = lock.withLock {
            guard !isReleased, isWatched else { return nil }
            isWatched = false
            defer { unwatchedCleanups = [] }
            return unwatchedCleanups
        }
        guard let cleanups else { return }
        for cleanup in cleanups { cleanup() }
        hooks.unwatched?(self)
    }

    private func handleRelease() {
        let cleanups = lock.withLock {
            isReleased = true
            isWatched = false
            defer {
                unwatchedCleanups = []
                releaseCleanups = []
            }
            return unwatchedCleanups + releaseCleanups
        }
        for cleanup in cleanups { cleanup() }
        hooks.released?()
    }
}

// Every mutable property is touched under `lock`; `runtime`, `hooks` and `label` are immutable and Sendable. The
// node's address is used only under the lock, through a try-retain, while `nodeDidGo()` (which takes the same lock)
// has not cleared it: the node's memory is still there. So sharing the record between threads is safe.
extension InstanceLifecycle: @unchecked Sendable {}

/// A ``Lifecycle`` with its value type erased, as a node's record keeps it.
struct ErasedLifecycle: Sendable {
    let initialized: (@Sendable () -> Void)?
    let initializedInContext: (@Sendable (InstanceLifecycle) -> Void)?
    let watched: (@Sendable (InstanceLifecycle) -> Void)?
    let updated: (@Sendable (Any, Any) -> Void)?
    let unwatched: (@Sendable (InstanceLifecycle) -> Void)?
    let released: (@Sendable () -> Void)?
    /// Whether no hook is set: the node gets no record.
    let isEmpty: Bool

    /// The hooks given (none by default).
    private init(
        initialized: (@Sendable () -> Void)? = nil, initializedInContext: (@Sendable (InstanceLifecycle) -> Void)? = nil,
        watched: (@Sendable (InstanceLifecycle) -> Void)? = nil, updated: (@Sendable (Any, Any) -> Void)? = nil,
        unwatched: (@Sendable (InstanceLifecycle) -> Void)? = nil, released: (@Sendable () -> Void)? = nil
    ) {
        self.initialized = initialized
        self.initializedInContext = initializedInContext
        self.watched = watched
        self.updated = updated
        self.unwatched = unwatched
        self.released = released
        isEmpty =
            initialized == nil && initializedInContext == nil && watched == nil && updated == nil && unwatched == nil
            && released == nil
    }

    init<Value>(_ lifecycle: Lifecycle<Value>) {
        // Most declarations have no hooks; called from unspecialized code (a family's member creation), each
        // context hook below would look up the metadata of its function type: about 200 ns per member created.
        if lifecycle.isEmpty {
            self.init()
            return
        }
        self.init(
            initialized: lifecycle.initialized, initializedInContext: Self.erased(lifecycle.initializedInContext),
            watched: Self.erased(lifecycle.watched), updated: Self.erased(lifecycle.updated),
            unwatched: Self.erased(lifecycle.unwatched), released: lifecycle.released)
    }

    /// An `updated` hook, as one that takes the values erased: the change log and the derivation report the node's
    /// own values, which are `Value`s.
    private static func erased<Value>(
        _ typed: (@Sendable (_ old: Value, _ new: Value) -> Void)?
    ) -> (@Sendable (Any, Any) -> Void)? {
        guard let typed else { return nil }
        let erased: @Sendable (Any, Any) -> Bool = { old, new in
            typed(old as! Value, new as! Value)
            return true
        }
        return { old, new in _ = erased(old, new) }
    }

    /// A hook that takes a context, as one that takes the record it makes the context of.
    private static func erased<Value>(
        _ typed: (@Sendable (LifecycleContext<Value>) -> Void)?
    ) -> (@Sendable (InstanceLifecycle) -> Void)? {
        guard let typed else { return nil }
        return { instance in typed(LifecycleContext(instance)) }
    }

    /// Whether the node's record follows its readers coming and going: a hook watches, or a context (which may
    /// register a cleanup for `unwatched`) exists.
    var tracksWatching: Bool {
        watched != nil || unwatched != nil || initializedInContext != nil
    }
}
