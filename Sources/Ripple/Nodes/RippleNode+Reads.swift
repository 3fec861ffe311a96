// Imported publicly, as in DeclaredReads.swift and for the same reason: the read inside an evaluation below is
// inlinable, so that its thread-local look-up and engine call are made in the accessor's caller (a body) rather than
// in a function of their own. No public declaration mentions their types; `import Ripple` does not make them
// visible.
public import CRipple
public import CRippleThreadState

extension RippleNode {
    /// The engine's handle of this node: its slot and generation (`slotAndGeneration`) with the graph's tag. Here,
    /// beside the inlinable reads and writes that use it, because its type is the engine's (publicly imported here).
    @usableFromInline var handle: rp_node_t {
        @inlinable @inline(__always) get {
            rp_node_t(
                slot: UInt32(truncatingIfNeeded: slotAndGeneration),
                generation: UInt32(truncatingIfNeeded: slotAndGeneration &>> 32), graph_tag: unownedRuntime.graphTag)
        }
        @inline(__always) set {
            slotAndGeneration = UInt64(newValue.slot) | UInt64(newValue.generation) &<< 32
        }
    }

    /// Starts a read: brings the node up to date and, inside a derivation or effect, makes it a dependency of
    /// that reader. Until ``endRead(_:)``, no thread writes, computes or frees anything in the graph, so the
    /// caller loads the node's value in between, and nothing else: a graph call from inside the section
    /// deadlocks. Returns the section's ticket for ``endRead(_:)``.
    ///
    /// A read inside an evaluation returns the engine's status as the ticket: 0 (``heldByEvaluationTicket``) when
    /// it succeeded, and otherwise a ticket that names the failure (a cycle, for instance), with which
    /// ``endRead(_:)`` traps: the value the caller loads in between is the node's last one, still initialized (a
    /// derivation that never computed checks the ticket before it loads anything). Inlined into the accessor, and
    /// so into the body that reads: the common read costs the thread-local comparison and the engine call, without
    /// a frame of its own (about 5 instructions a read less than the call every read inside a body made).
    @inlinable @inline(__always)
    final func beginRead() -> UInt32 {
        // Most reads happen inside an evaluation of this runtime: one comparison. Every other read takes the call.
        if _slowPath(!isEvaluatingOnThisThread) { return beginReadOutsideEvaluation() }
        return readInEvaluation()
    }

    /// ``beginRead()`` for a caller that finishes reads outside evaluations itself (`Derivation.value`): inside an
    /// evaluation of this runtime on this thread, the same read (the engine's status as the ticket); anywhere else,
    /// nothing done and ``outsideEvaluationTicket``.
    @inlinable @inline(__always)
    final func beginEvaluationRead() -> UInt32 {
        if _slowPath(!isEvaluatingOnThisThread) { return RippleNode.outsideEvaluationTicket }
        return readInEvaluation()
    }

    /// Whether this node's runtime is the innermost one evaluating on this thread (`EvaluationThreadState`, read
    /// through its C function: the enum is internal, not usable here). Compared as integers: an optional pointer
    /// compared with a pointer costs a test and two flags more.
    @inlinable @inline(__always)
    final var isEvaluatingOnThisThread: Bool {
        UInt(bitPattern: ripple_thread_state_evaluating())
            == UInt(bitPattern: unownedRuntime.opaqueSelf)
    }

    /// The engine's read of this node inside an evaluation of its runtime on this thread, which holds the graph
    /// until the evaluation returns: nothing can change between this call and the caller's load, so the read needs
    /// no section. Returns the engine's status.
    @inlinable @inline(__always)
    final func readInEvaluation() -> UInt32 {
        rp_node_read(graph, handle).rawValue
    }

    /// Whether this thread holds the graph already, without a graph call: inside a ``Runtime/batch(_:)`` of this
    /// runtime, or inside one of its bodies (the engine runs computes and effects while the graph is held). Both
    /// thread-local marks are set only after the graph was taken and put back before it is let go. False while
    /// writes of observed properties wait: a batch applies them first. Inlined into `exclusively`, and so into a
    /// write: the test is three loads and compares in the writer, where a call of its own cost about 7
    /// instructions more.
    @inlinable @inline(__always)
    final func threadHoldsGraph() -> Bool {
        ripple_thread_state_holds(unownedRuntime.opaqueSelf)
    }

    /// Whether a read outside evaluations of this runtime needs none of the cases `beginReadOutsideEvaluation()`
    /// handles besides Observation's: no evaluation of any runtime on this thread (inside another's, a read
    /// traps), no async run of any runtime in flight (which may be the reader: of this runtime, tracked; of
    /// another, a trap), no write of an observed property waiting (to apply first).
    @inlinable @inline(__always)
    final var readsOutsideEvaluationPlainly: Bool {
        UInt(bitPattern: ripple_thread_state_evaluating()) == 0
            && ripple_async_runs_in_flight_load() == 0
            && ripple_pending_observed_writes_load() == 0
    }

    /// Whether this thread holds the graph inside an explicit ``Runtime/batch(_:)`` of this node's runtime and
    /// reads plainly there (`readsOutsideEvaluationPlainly`; an async run in flight is excluded because a batch
    /// inside its task would belong to it). There a read of an idle, up-to-date source needs no read section: the
    /// batch holds the graph exclusively, and the engine's section would only nest in it, find the node fresh and,
    /// in a batch, neither flush nor run anything. Inlined into the atom's read outside evaluations
    /// (`AtomObject.valueOutsideEvaluation()`).
    @inlinable @inline(__always)
    final func threadHoldsGraphInOwnBatch() -> Bool {
        UInt(bitPattern: ripple_thread_state_batching()) == UInt(bitPattern: unownedRuntime.opaqueSelf)
            && readsOutsideEvaluationPlainly
    }

    /// Whether a read outside evaluations of this runtime on this thread may copy the value by one engine call
    /// (`copyOutsideEvaluation(copying:into:byteCount:)`): no other runtime evaluates on this thread (a trap), no
    /// async run may be the reader, no writes of observed properties wait, and Observation does not track reads on
    /// this thread. Otherwise the read takes the general path, with its section
    /// (`readOutsideEvaluation(copying:into:byteCount:)`), which handles each of those. Asked before the caller
    /// makes the copy's arguments: nothing of them is kept across the probe's call into Observation. Inlined into
    /// the caller (`Derivation.value(readingOutsideEvaluation:)`): a call of its own cost its frame and the
    /// registers it saved, about 12 instructions a read.
    @inlinable @inline(__always)
    final func copiesOutsideEvaluation() -> Bool {
        if _slowPath(!readsOutsideEvaluationPlainly) { return false }
        return !ObservationProbe.mayBeTracking(unownedRuntime.observationProbe)
    }

    /// A read outside evaluations of a value of plain bytes, `byteCount` (at most 8) at `source`, that only the
    /// graph's computes and writes change, when `copiesOutsideEvaluation()` says so: the value's bytes, first in
    /// the word returned. One engine call (rp_node_read_copy) through `ripple_read_copy_word`, which copies into a
    /// word of its own and returns it in registers: the caller passes no address of a local and needs no stack
    /// canary. Inlined into the caller (`Derivation.value(readingOutsideEvaluation:)`): the call to the engine is
    /// made from there, without a frame of its own. Traps if the read fails.
    @inlinable @inline(__always)
    final func copyWordOutsideEvaluation(copying source: UnsafeRawPointer, byteCount: Int) -> UInt64 {
        let copied = ripple_read_copy_word(graph, handle, source, byteCount)
        if _slowPath(copied.status != 0) { failRead(UInt32(truncatingIfNeeded: copied.status)) }
        return copied.word
    }

    /// Tells the engine that a source's value was written (rp_source_set). Called while the graph is held. Inlined
    /// into an atom's write (`AtomObject.store`): one engine call, without a frame of its own; a failure traps
    /// out of line.
    @inlinable @inline(__always)
    final func announceSourceWrite() {
        let status = rp_source_set(graph, handle).rawValue
        if _slowPath(status != 0) { failWrite(status) }
    }

    /// Runs the lifecycle hooks queued meanwhile, if this thread is outside every batch and evaluation: after an
    /// engine call made outside a batch that may compute or run (a read, an effect's creation or scheduled update,
    /// an async run's read), where the engine's `watched` callback queued hooks it could not run. One load when
    /// nothing waits. Inlinable for the top-level read of a derivation.
    @inlinable @inline(__always)
    final func runQueuedHooks() {
        if _slowPath(ripple_counter_load(unownedRuntime.pendingHooksCount) != 0) { runQueuedHooksNow() }
    }
}
