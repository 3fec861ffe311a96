internal import CRipple
internal import CRippleThreadState

extension Runtime {
    /// Groups writes in this runtime: the effects they trigger run once, when the outermost batch ends.
    ///
    /// Reads inside the batch see the new values (derivations recompute on read). Batches nest. If `body` throws,
    /// the writes it made stay applied, the effects still run, and the error is rethrown.
    ///
    /// ```swift
    /// let runtime = Runtime.current
    /// runtime.batch {
    ///     firstName.value = "Grace"
    ///     lastName.value = "Hopper"
    /// }                                       // effects reading both names run once, here
    /// ```
    ///
    /// Threading: from any thread. Other threads see all of the batch's writes or none: they wait while it runs
    /// (keep it short, and never wait inside it for another thread that uses the runtime). The effects run on
    /// the calling thread before `batch` returns.
    @inlinable
    public func batch<T>(_ body: () throws -> T) rethrows -> T {
        // Inlinable, so that the body's call is specialized where `T` is known: the batch's own work is two calls.
        let outer = beginMarkedBatch()
        defer { endMarkedBatch(restoring: outer) }
        return try body()
    }

    /// Begins an explicit ``batch(_:)`` and marks it on this thread, so that a write Observation announces inside
    /// it (before the value is stored) reaches Ripple when the batch ends, once the write is complete
    /// (ObservedProperties.swift). Returns the mark it replaced, for `endMarkedBatch(restoring:)`.
    @usableFromInline
    func beginMarkedBatch() -> UnsafeMutableRawPointer? {
        beginBatch()
        let outer = ripple_thread_state_batching()
        ripple_thread_state_set_batching(opaqueSelf)
        return outer
    }

    /// Ends the batch `beginMarkedBatch()` began: puts back the thread's outer mark, then ends the batch (its
    /// effects run).
    @usableFromInline
    func endMarkedBatch(restoring outer: UnsafeMutableRawPointer?) {
        ripple_thread_state_set_batching(outer)
        endBatch()
    }

    /// A batch without the thread's batch mark, for Ripple's own writes and updates (`RippleNode.exclusively`): one
    /// thread-local store less per write. A write of an `@Observable` property inside `AtomObject.update`'s body is
    /// then treated as one outside any batch.
    ///
    /// Inlinable, like ``batch(_:)``: a write outside any batch (`RippleNode.exclusively`) reaches it from the
    /// caller's specialized code.
    @inlinable
    func holdingGraph<T>(_ body: () throws -> T) rethrows -> T {
        beginBatch()
        defer { endBatch() }
        return try body()
    }

    @usableFromInline @inline(__always)
    func beginBatch() {
        let status = rp_batch_begin(graph)
        if _slowPath(status != .RP_OK) { fail(status, "beginning a batch", node: nil) }
        ripple_thread_state_add_batch_depth(1)
        // In this batch: its effects see the main actor's earlier writes of observed properties too.
        if _slowPath(PendingObservedWrites.arePending) { PendingObservedWrites.apply(in: self) }
    }

    @usableFromInline @inline(__always)
    func endBatch() {
        ripple_thread_state_add_batch_depth(-1)
        // The flush runs computes and effects of this runtime, all while this thread holds the graph: marked as
        // evaluating it once here, the computes find the mark set and leave it alone (`EvaluationThreadState`).
        // Lifecycle hooks queued meanwhile wait for the mark to go, and run below.
        let outer = ripple_thread_state_evaluating()
        ripple_thread_state_set_evaluating(opaqueSelf)
        let status = rp_batch_end(graph)
        ripple_thread_state_set_evaluating(outer)
        if _slowPath(status != .RP_OK) { fail(status, "ending a batch", node: nil) }
        // Lifecycle hooks of declared state run once the outermost batch has flushed.
        if _slowPath(declarations.hasPendingHooks) { declarations.runHooksIfOutermost() }
    }
}

/// Groups writes in ``Runtime/current``: the effects they trigger run once, when the outermost batch ends.
///
/// Returns the body's value and rethrows its error; writes made before a throw stay applied and effects still run.
///
/// ```swift
/// @Atom var x = 1
/// @Atom var y = 2
/// let log = Effect { print(x + y) }        // prints 3
/// let sum = batch {
///     x = 10
///     y = 20
///     return x + y                         // reads see the new values: 30
/// }                                        // prints 30, once
/// _ = (log, sum)
/// ```
///
/// Threading: from any thread. See ``Runtime/batch(_:)``.
@inlinable
public func batch<T>(_ body: () throws -> T) rethrows -> T {
    try Runtime.current.batch(body)
}
