/// Code a declaration runs when one of its instances is created, changes, or is released.
///
/// Pass one to a declaration (`declare.atom(lifecycle:)`, or a function of the key for a family). The hooks run
/// after the operation that caused them: when the outermost batch (or write, or read) on the thread that caused
/// them returns, in the order their events happened; never inside a derivation's body or an effect's run. A hook
/// may read and write Ripple state; the writes flush as usual, and hooks they cause run before the first returns.
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
/// - `updated` gets the value before and after a change: for an atom, every write that changes its value (by its
///   equality); for a derivation, every recomputation that produces a different value (a derivation is lazy, so
///   only when something reads it).
/// - `released` runs once, after the instance was released.
///
/// Threading: the hooks run on the thread that caused them; they must be `Sendable`.
public struct Lifecycle<Value>: Sendable {
    /// Runs after an instance was created.
    public var initialized: (@Sendable () -> Void)?
    /// Runs after an instance's value changed, with the value before and after.
    public var updated: (@Sendable (_ old: Value, _ new: Value) -> Void)?
    /// Runs after an instance was released.
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
    ///   - updated: runs after an instance's value changed.
    ///   - released: runs after an instance was released.
    ///
    /// Threading: the hooks run on the thread that caused them.
    public init(
        initialized: (@Sendable () -> Void)? = nil,
        updated: (@Sendable (_ old: Value, _ new: Value) -> Void)? = nil,
        released: (@Sendable () -> Void)? = nil
    ) {
        self.initialized = initialized
        self.updated = updated
        self.released = released
    }
}
