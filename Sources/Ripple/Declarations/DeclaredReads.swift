internal import CRipple
internal import CRippleThreadState

// The read path of declarations (`DeclaredAtom.value`, `DeclaredDerivation.value`), split as a node read is
// (`RippleNode.beginRead`/`endRead`): the generic, inlinable accessor loads the value between
// `beginDeclaredRead(_:)` and `endDeclaredRead(_:)`, so that it is specialized in the caller's module, and calls the
// second only when the section says it must (`DeclaredReadSection.mustEnd`).
//
// Inside an evaluation (a read in a derivation's or an effect's body, the common case), a read costs a node read
// plus the slot look-up: the runtime is the thread's evaluating one (a thread-local: no task-local look-up, no
// reference count), the runtime's slot table gives the instance without a lock, and one engine call records the
// read. The evaluation holds the graph until it returns, so nothing frees the instance before the accessor's load,
// and lifecycle hooks wait for the outermost batch or read anyway: the read has no section to end and no hooks to
// run. The two are free functions, not static methods: a static method's unused metatype argument costs every
// read a forwarding thunk.

/// A read of a declaration's instance in progress: the instance's object (nil: take the general path), the
/// engine's read section to end (if any), and the runtime the read goes to.
@usableFromInline
struct DeclaredReadSection {
    @usableFromInline let object: UnsafeMutableRawPointer?
    /// The ticket of the read section `endDeclaredRead(_:)` closes, or ``heldByEvaluation``.
    @usableFromInline let ticket: UInt32
    /// The runtime the read goes to, unretained (the caller's runtime, alive for the read).
    @usableFromInline let runtime: Unmanaged<Runtime>

    /// The ticket of a read inside an evaluation, which opens no section (the engine's tickets are never 0).
    @inlinable static var heldByEvaluation: UInt32 { 0 }

    /// Whether the accessor must call `endDeclaredRead(_:)` after its load: only after a read outside an
    /// evaluation, which opened a section and, being outermost, may have lifecycle hooks to run.
    @inlinable var mustEnd: Bool { ticket != DeclaredReadSection.heldByEvaluation }
}

/// Starts a read of the declaration at `index` in the runtime declarations use now: the one evaluating on this
/// thread, else `Runtime.current`.
@usableFromInline
func beginDeclaredRead(_ index: Int) -> DeclaredReadSection {
    guard let evaluating = EvaluationThreadState.innermost else { return beginDeclaredReadOutsideEvaluation(index) }
    return Unmanaged<Runtime>.fromOpaque(evaluating)._withUnsafeGuaranteedRef { runtime in
        let entry = ripple_slot_table_get(runtime.declarationSlots, index)
        let handle = rp_node_t(slot: entry.slot, generation: entry.generation, graph_tag: entry.graph_tag)
        // No instance yet, or a failed read (which the general path reports): a nil object.
        let read = entry.object != nil && rp_node_read(runtime.graph, handle) == .RP_OK
        return DeclaredReadSection(
            object: read ? entry.object : nil, ticket: DeclaredReadSection.heldByEvaluation,
            runtime: Unmanaged.passUnretained(runtime))
    }
}

/// `beginDeclaredRead(_:)` outside any evaluation on this thread: in `Runtime.current` (a task-local), inside a read
/// section of the instance's node that `endDeclaredRead(_:)` closes. A read an async run may make (the runtime has
/// runs in flight) takes the general path, which tracks it for the run.
@inline(never)
private func beginDeclaredReadOutsideEvaluation(_ index: Int) -> DeclaredReadSection {
    let runtime = Runtime.current
    let miss = DeclaredReadSection(object: nil, ticket: 0, runtime: Unmanaged.passUnretained(runtime))
    let entry = ripple_slot_table_get(runtime.declarationSlots, index)
    guard let object = entry.object, ripple_counter_load(runtime.asyncRunsInFlight) == 0 else { return miss }
    var section = rp_read_section_t()
    let handle = rp_node_t(slot: entry.slot, generation: entry.generation, graph_tag: entry.graph_tag)
    guard rp_node_read_begin(runtime.graph, handle, &section) == .RP_OK else { return miss }
    // The node is in the graph and cannot leave it before the section ends: its object is alive until then.
    return DeclaredReadSection(object: object, ticket: section.ticket, runtime: miss.runtime)
}

/// Ends a read that `beginDeclaredRead(_:)` opened outside an evaluation (its object was not nil and `mustEnd` is
/// true), then runs the lifecycle hooks waiting, which the read may have queued (a recomputation's update hooks).
@usableFromInline
func endDeclaredRead(_ section: DeclaredReadSection) {
    section.runtime._withUnsafeGuaranteedRef { runtime in
        var readSection = rp_read_section_t(ticket: section.ticket)
        let status = rp_node_read_end(runtime.graph, &readSection)
        if _slowPath(status != .RP_OK) { runtime.fail(status, "reading a declaration", node: nil) }
        runtime.declarations.runHooksIfPending()
    }
}
