// Testing: what a test needs to wait for a runtime's work without sleeping. `TrackedValue` is the read that
// `recordChanges()` observes, `ChangeRecording` keeps every committed value in order, `waitUntil(timeout:_:)`
// waits for a condition over tracked reads, and `WaitTimeout` is what both throw when time runs out. They are
// built on observer effects (Nodes/Effect.swift), like the `values` streams (Streams/NodeValues.swift), but
// drop nothing: a recording is a log, not a "latest value" stream.

/// A node whose value can be read with a tracked read: reading ``trackedValue`` inside a derivation or an effect
/// records a dependency on the node, as reading its `value` does.
///
/// ``AtomObject``, ``Derivation`` and ``TypedAsyncDerivation`` (whose tracked value is its
/// ``TypedAsyncDerivation/phase``) conform. Conform your own types that stand for a node, by forwarding to one, to
/// record their changes with ``recordChanges()``.
///
/// ```swift
/// func describe<Node: TrackedValue>(_ node: Node) -> String {
///     "\(node.label) = \(node.trackedValue)"
/// }
/// let count = atom(3, label: "count")
/// print(describe(count))                  // "count = 3"
/// ```
///
/// Threading: the read follows the node's own rules (from any thread for Ripple's nodes). Lifetime: as for the
/// node.
public protocol TrackedValue<Value>: AnyObject {
    /// The type of the value read.
    associatedtype Value

    /// The node's current value, brought up to date, read as a tracked read.
    ///
    /// ```swift
    /// let total = derive { 2 + 2 }
    /// print(total.trackedValue)           // 4, the same as total.value
    /// ```
    var trackedValue: Value { get }

    /// The name of the node in messages, such as a ``WaitTimeout``'s.
    ///
    /// ```swift
    /// print(atom(0, label: "count").label)    // "count"
    /// ```
    var label: String { get }

    /// The runtime whose graph holds the node: observers of the node are created there.
    ///
    /// ```swift
    /// let count = atom(0)
    /// assert(count.runtime === Runtime.current)
    /// ```
    var runtime: Runtime { get }
}

extension AtomObject: TrackedValue {
    /// The atom's ``value``: a tracked read.
    ///
    /// ```swift
    /// let count = atom(1)
    /// print(count.trackedValue)           // 1
    /// ```
    ///
    /// Threading: as for ``value``.
    @inlinable
    public var trackedValue: Value { value }
}

extension Derivation: TrackedValue {
    /// The derivation's ``value``, brought up to date: a tracked read.
    ///
    /// ```swift
    /// let doubled = derive { 21 * 2 }
    /// print(doubled.trackedValue)         // 42
    /// ```
    ///
    /// Threading: as for ``value``.
    @inlinable
    public var trackedValue: Value { value }
}

extension TypedAsyncDerivation: TrackedValue {
    /// The derivation's ``phase``: a tracked read, which starts a run when the derivation is stale.
    ///
    /// ```swift
    /// let user = derive { () async throws in try await api.user() }
    /// print(user.trackedValue)            // suspending, until the run resolves
    /// ```
    ///
    /// Threading: as for ``phase``.
    public var trackedValue: TypedAsyncPhase<Value, Failure> { phase }
}
