internal import CRipple
internal import CRippleThreadState

// The read path of declarations (`DeclaredAtom.value`, `DeclaredDerivation.value`), split as a node read is
// (`RippleNode.beginRead`/`endRead`): the generic, inlinable accessor loads the value after
// `beginDeclaredRead(_:)`, so that it is specialized in the caller's module. One test of the section's ticket tells
// the common case (inside an evaluation: load and return) from the others (a read outside an evaluation, which
// `endDeclaredRead(_:)` ends after the load, and a miss, which takes the general path).
//
// Inside an evaluation (a read in a derivation's or an effect's body), a read costs a node read plus the slot
// look-up: the runtime is the thread's evaluating one (a thread-local: no task-local look-up, no reference count),
// the runtime's slot table gives the instance in one indexed load without a lock (ripple_slot_table.h), and one
// engine call records the read. The evaluation holds the graph until it returns, so nothing frees the instance
// before the accessor's load, and lifecycle hooks wait for the outermost batch or read anyway: the read has no
// section to end and no hooks to run. The two are free functions, not static methods: a static method's unused
// metatype argument costs every read a forwarding thunk.

/// A read of a declaration's instance in progress: the instance's object (nil: take the general path), the
/// engine's read section to end (if any), and the runtime the read goes to.
@usableFromInline
struct DeclaredReadSection {
    /// The instance's object: never nil when the ticket is ``heldByEvaluation``; nil for a miss.
    @usableFromInline let object: UnsafeMutableRawPointer?
    /// ``heldByEvaluation``, the ticket of the read section `endDeclaredRead(_:)` closes, or ``missed``.
    @usableFromInline let ticket: UInt32
    /// The runtime the read goes to, unretained (the caller's runtime, alive for the read).
    @usableFromInline let runtime: Unmanaged<Runtime>

    /// The ticket of a read inside an evaluation: the object is there, and there is no section to end (the
    /// engine's tickets are never 0).
    @inlinable static var heldByEvaluation: UInt32 { 0 }

    /// The ticket of a miss, which is not 0 so that the accessor's first test sends it on.
    static let missed: UInt32 = .max

    /// Whether the read was made inside an evaluation: the accessor loads the object's value and is done.
    @inlinable var isHeldByEvaluation: Bool { ticket == DeclaredReadSection.heldByEvaluation }

    init(object: UnsafeMutableRawPointer?, ticket: UInt32, runtime: Runtime) {
        self.object = object
        self.ticket = ticket
        self.runtime = Unmanaged.passUnretained(runtime)
    }

    /// A miss in `runtime`: no object, no section.
    @inline(never)
    static func miss(in runtime: Runtime) -> DeclaredReadSection {
        DeclaredReadSection(object: nil, ticket: missed, runtime: runtime)
    }
}

/// Starts a read of the declaration at `index` in the runtime declarations use now: the one evaluating on this
/// thread, else `Runtime.current`.
@usableFromInline
func beginDeclaredRead(_ index: Int) -> DeclaredReadSection {
    guard let evaluating = EvaluationThreadState.innermost else { return beginDeclaredReadOutsideEvaluation(index) }
    return Unmanaged<Runtime>.fromOpaque(evaluating)._withUnsafeGuaranteedRef { runtime in
        let entry = ripple_slot_table_get(runtime.declarationSlots, index)
        let handle = rp_node_t(slot: entry.slot, generation: entry.generation, graph_tag: entry.graph_tag)
        // No instance, or a failed read (which the general path reports, and which a handle read while a writer
        // changes the entry makes: see ripple_slot_table_get): a miss, made out of line, so that the common path
        // returns its section with nothing to select.
        guard let object = entry.object, rp_node_read(runtime.graph, handle) == .RP_OK else {
            return DeclaredReadSection.miss(in: runtime)
        }
        return DeclaredReadSection(object: object, ticket: DeclaredReadSection.heldByEvaluation, runtime: runtime)
    }
}

/// `beginDeclaredRead(_:)` outside any evaluation on this thread: in `Runtime.current` (a task-local), inside a read
/// section of the instance's node that `endDeclaredRead(_:)` closes. A read an async run may make (the runtime has
/// runs in flight) takes the general path, which tracks it for the run.
@inline(never)
private func beginDeclaredReadOutsideEvaluation(_ index: Int) -> DeclaredReadSection {
    let runtime = Runtime.current
    let entry = ripple_slot_table_get(runtime.declarationSlots, index)
    guard let object = entry.object, ripple_counter_load(runtime.asyncRunsInFlight) == 0 else {
        return DeclaredReadSection.miss(in: runtime)
    }
    var section = rp_read_section_t()
    let handle = rp_node_t(slot: entry.slot, generation: entry.generation, graph_tag: entry.graph_tag)
    guard rp_node_read_begin(runtime.graph, handle, &section) == .RP_OK else {
        return DeclaredReadSection.miss(in: runtime)
    }
    // The node is in the graph and cannot leave it before the section ends: its object is alive until then.
    return DeclaredReadSection(object: object, ticket: section.ticket, runtime: runtime)
}

/// Ends a read that `beginDeclaredRead(_:)` opened outside an evaluation (its object was not nil and it was not
/// held by the evaluation), then runs the lifecycle hooks waiting, which the read may have queued (a
/// recomputation's update hooks).
@usableFromInline
func endDeclaredRead(_ section: DeclaredReadSection) {
    section.runtime._withUnsafeGuaranteedRef { runtime in
        var readSection = rp_read_section_t(ticket: section.ticket)
        let status = rp_node_read_end(runtime.graph, &readSection)
        if _slowPath(status != .RP_OK) { runtime.fail(status, "reading a declaration", node: nil) }
        runtime.declarations.runHooksIfPending()
    }
}
