/// Code a node runs when it is created, gains its first reader, changes, loses its last reader, or is released.
///
/// Pass one to a declaration (`declare.atom(lifecycle:)`, or a function of the key for a family), or to a plain
/// node: `atom(0, lifecycle:)`, `derive(lifecycle:) { ... }`. The same value gives the same hooks in the same order
/// whichever way the node was made. The hooks run after the operation that caused them: when the outermost batch
/// (or write, or read, or effect creation) on the thread that caused them returns, in the order their events
/// happened; never inside a derivation's body or an effect's run. A hook may read and write Ripple state; the
/// writes flush as usual, and hooks they cause run before the first returns.
///
/// ```swift
/// let counter = declare.atom(lifecycle: Lifecycle(
///     initialized: { print("counter created") },
///     updated: { old, new in UserDefaults.standard.set(new, forKey: "counter") },
///     released: { print("counter released") }
/// )) { UserDefaults.standard.integer(forKey: "counter") }
/// ```
///
/// - `initialized` runs once per instance, after the instance was created (its first use in a runtime, or its
///   first use after a release).
/// - `watched` runs when the instance gains its first reader (an effect, a derivation, an observer), and
///   `unwatched` when it loses the last one; they alternate, starting with `watched`.
/// - `updated` gets the value before and after a change: for an atom, every write that changes its value (by its
///   equality); for a derivation, every recomputation that produces a different value (a derivation is lazy, so
///   only when something reads it).
/// - `released` runs once, after the instance was released.
///
/// `initialized`, `watched` and `unwatched` may take a ``LifecycleContext``: the instance's runtime, its value, a
/// way to write it (for an atom), and cleanups to run when it stops being watched or is released. With it, a hook
/// needs no global and no look-up to reach its own instance. An atom that counts the seconds it is watched:
///
/// ```swift
/// let seconds = declare.atom(lifecycle: Lifecycle(watched: { context in
///     let timer = Timer.scheduledTimer(withTimeInterval: 1, repeats: true) { _ in
///         try? context.update { $0 += 1 }
///     }
///     context.onUnwatched { timer.invalidate() }
/// })) { 0 }
/// ```
///
/// Threading: the hooks run on the thread that caused them; they must be `Sendable`.
public struct Lifecycle<Value>: Sendable {
    /// Runs after an instance was created.
    public var initialized: (@Sendable () -> Void)?
    /// Runs after an instance was created, with its context (the `initialized: { context in ... }` form); after
    /// ``initialized`` when both are set.
    var initializedInContext: (@Sendable (LifecycleContext<Value>) -> Void)?
    /// Runs after an instance gained its first reader, with its context.
    public var watched: (@Sendable (LifecycleContext<Value>) -> Void)?
    /// Runs after an instance's value changed, with the value before and after.
    public var updated: (@Sendable (_ old: Value, _ new: Value) -> Void)?
    /// Runs after an instance lost its last reader, with its context (after the cleanups registered with
    /// ``LifecycleContext/onUnwatched(_:)``).
    public var unwatched: (@Sendable (LifecycleContext<Value>) -> Void)?
    /// Runs after an instance was released (after the cleanups registered with
    /// ``LifecycleContext/onRelease(_:)``).
    public var released: (@Sendable () -> Void)?
    /// Not API: called with a declared atom's instance as soon as it is made, before it is installed and shared,
    /// on the thread that made it, with its runtime as ``Runtime/current``: where a persisted atom attaches its
    /// write observer (`AtomObject.observeWrites(_:)`), so that no write of the instance can come before it. An
    /// instance made and then dropped for one another thread installed first gets it too.
    package var atomMade: (@Sendable (AtomObject<Value>) -> Void)?

    /// Creates a set of hooks; leave out the ones you do not need.
    ///
    /// ```swift
    /// let log = Lifecycle<Int>(updated: { old, new in print(old, "→", new) })
    /// ```
    ///
    /// - Parameters:
    ///   - initialized: runs after an instance was created.
    ///   - watched: runs after an instance gained its first reader, with its context.
    ///   - updated: runs after an instance's value changed.
    ///   - unwatched: runs after an instance lost its last reader, with its context.
    ///   - released: runs after an instance was released.
    ///
    /// Threading: the hooks run on the thread that caused them.
    public init(
        initialized: (@Sendable () -> Void)? = nil,
        watched: (@Sendable (LifecycleContext<Value>) -> Void)? = nil,
        updated: (@Sendable (_ old: Value, _ new: Value) -> Void)? = nil,
        unwatched: (@Sendable (LifecycleContext<Value>) -> Void)? = nil,
        released: (@Sendable () -> Void)? = nil
    ) {
        self.initialized = initialized
        self.watched = watched
        self.updated = updated
        self.unwatched = unwatched
        self.released = released
    }

    /// Creates a set of hooks whose `initialized` hook takes the instance's context: to start work for the
    /// instance's whole life and stop it when it is released.
    ///
    /// ```swift
    /// let clock = declare.atom(lifecycle: Lifecycle(initialized: { context in
    ///     let observer = NotificationCenter.default.addObserver(
    ///         forName: .NSSystemClockDidChange, object: nil, queue: nil
    ///     ) { _ in try? context.set(Date()) }
    ///     context.onRelease { NotificationCenter.default.removeObserver(observer) }
    /// })) { Date() }
    /// ```
    ///
    /// - Parameters:
    ///   - initialized: runs after an instance was created, with its context.
    ///   - watched: runs after an instance gained its first reader, with its context.
    ///   - updated: runs after an instance's value changed.
    ///   - unwatched: runs after an instance lost its last reader, with its context.
    ///   - released: runs after an instance was released.
    ///
    /// Threading: the hooks run on the thread that caused them.
    public init(
        initialized: @escaping @Sendable (LifecycleContext<Value>) -> Void,
        watched: (@Sendable (LifecycleContext<Value>) -> Void)? = nil,
        updated: (@Sendable (_ old: Value, _ new: Value) -> Void)? = nil,
        unwatched: (@Sendable (LifecycleContext<Value>) -> Void)? = nil,
        released: (@Sendable () -> Void)? = nil
    ) {
        self.init(watched: watched, updated: updated, unwatched: unwatched, released: released)
        initializedInContext = initialized
    }

    /// Whether no hook is set: a node made with it keeps no record of its hooks.
    var isEmpty: Bool {
        initialized == nil && initializedInContext == nil && watched == nil && updated == nil && unwatched == nil
            && released == nil
    }
}
