// Imported publicly, as in RippleNode+Reads.swift and for the same reason: a batch's begin and end are inlinable,
// so that a write outside any batch makes their engine calls and thread-local updates itself. No public declaration
// mentions their types; `import Ripple` does not make them visible.
public import CRipple
public import CRippleThreadState

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
        // Inlinable, so that the body's call is specialized where `T` is known, and the batch's begin and end are
        // inlined into the caller: the common case (nothing waiting, no hook queued) makes no call of Ripple's.
        // No `defer`: its body became a function of its own, called after every batch. A throwing body ends the
        // batch in the catch, a copy the compiler drops when `body` cannot throw.
        let outer = beginMarkedBatch()
        let result: T
        do {
            result = try body()
        } catch {
            endMarkedBatch(restoring: outer)
            throw error
        }
        endMarkedBatch(restoring: outer)
        return result
    }

    /// Begins an explicit ``batch(_:)`` and marks it on this thread, so that a write Observation announces inside
    /// it (before the value is stored) reaches Ripple when the batch ends, once the write is complete
    /// (ObservedProperties.swift). Returns the mark it replaced, for `endMarkedBatch(restoring:)`. Inlinable, like
    /// ``beginBatch()``, into the caller of ``batch(_:)``.
    @inlinable @inline(__always)
    func beginMarkedBatch() -> UnsafeMutableRawPointer? {
        beginBatch()
        let outer = ripple_thread_state_batching()
        ripple_thread_state_set_batching(opaqueSelf)
        return outer
    }

    /// Ends the batch `beginMarkedBatch()` began: puts back the thread's outer mark, then ends the batch (its
    /// effects run). Inlinable, like ``endBatch()``.
    @inlinable @inline(__always)
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

    /// Begins a batch: takes the graph and counts the batch on this thread. Inlinable, and so inlined into a write
    /// outside any batch (`RippleNode.exclusivelyHoldingGraph`): the common case, nothing waiting, is the engine
    /// call and two thread-local updates in the writer; applying waiting writes of observed properties is out of
    /// line.
    @inlinable @inline(__always)
    func beginBatch() {
        let status = rp_batch_begin(graph)
        if _slowPath(status != .RP_OK) { failBatch(status, "beginning a batch") }
        ripple_thread_state_add_batch_depth(1)
        // In this batch: its effects see the main actor's earlier writes of observed properties too.
        if _slowPath(ripple_pending_observed_writes_load() != 0) { applyPendingObservedWrites() }
    }

    /// Ends the batch ``beginBatch()`` began (its effects run). Inlinable like it: the common case, no lifecycle
    /// hook queued, is the engine call, the thread-local marks and one load in the writer; running the hooks is
    /// out of line.
    @inlinable @inline(__always)
    func endBatch() {
        ripple_thread_state_add_batch_depth(-1)
        // The flush runs computes and effects of this runtime, all while this thread holds the graph: marked as
        // evaluating it once here, the computes find the mark set and leave it alone (`EvaluationThreadState`).
        // Lifecycle hooks queued meanwhile wait for the mark to go, and run below.
        let outer = ripple_thread_state_evaluating()
        ripple_thread_state_set_evaluating(opaqueSelf)
        let status = rp_batch_end(graph)
        ripple_thread_state_set_evaluating(outer)
        if _slowPath(status != .RP_OK) { failBatch(status, "ending a batch") }
        // Lifecycle hooks of declared state run once the outermost batch has flushed (`hasPendingHooks`, loaded
        // through the runtime's copy of the counter's pointer).
        if _slowPath(ripple_counter_load(pendingHooksCount) != 0) { runPendingHooks() }
    }

    /// The rare work of ``beginBatch()``: applies the main actor's waiting writes of observed properties.
    @usableFromInline @inline(never)
    func applyPendingObservedWrites() {
        PendingObservedWrites.apply(in: self)
    }

    /// The rare work of ``endBatch()``: runs the queued lifecycle hooks if this batch was the outermost.
    @usableFromInline @inline(never)
    func runPendingHooks() {
        declarations.runHooksIfOutermost()
        // The counter also counts the undo steps open in this runtime (UndoRecorders): a step ends with the
        // outermost batch of the thread that opened it.
        undoRecorders.batchEnded()
    }

    /// Traps for a batch's begin or end that the engine refused with `status`.
    @usableFromInline @inline(never)
    func failBatch(_ status: rp_status_t, _ operation: StaticString) -> Never {
        fail(status, "\(operation)", node: nil)
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
