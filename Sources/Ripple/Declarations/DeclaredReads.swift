// Imported publicly, and in this file only, so that the inlinable read below can use them: the accessors inline
// the look-up of a read inside an evaluation into the caller's code. No public declaration mentions their types;
// `import Ripple` does not make them visible.
public import CRipple
public import CRippleThreadState

// The read path of declarations (`DeclaredAtom.value`, `DeclaredDerivation.value`).
//
// The common read, one inside an evaluation (a derivation's or an effect's body), is inlined into the generic
// accessor, and so into its caller: `readDeclaredInEvaluation(_:)` loads the thread's evaluating runtime, finds the
// instance in that runtime's slot table and makes the engine's read, the one call. It costs a node read plus the
// slot look-up: the runtime is the thread's evaluating one (a thread-local: no task-local look-up, no reference
// count), the runtime's slot table gives the instance in one indexed load without a lock (ripple_slot_table.h),
// and one engine call records the read. The evaluation holds the graph until it returns, so nothing frees the
// instance before the accessor's load, and lifecycle hooks wait for the outermost batch or read anyway: the read
// has no section to end and no hooks to run. A look-up in a function of its own (a call that returns the object,
// or one that finds the instance and another that reads it) cost 1.5x a node read: the calls and the registers
// kept across the engine's; inlined, it costs about 1.2x.
//
// Every other read (outside an evaluation, a miss, a failed engine read) takes `beginDeclaredRead(_:)` and
// `endDeclaredRead(_:)`, split as a node read is (`RippleNode.beginRead`/`endRead`) so that the value is loaded by
// code specialized in the caller's module. All are free functions, not static methods: a static method's unused
// metatype argument costs every read a forwarding thunk.

/// Reads the instance of the declaration at `index` inside the evaluation running on this thread: finds it in the
/// evaluating runtime's slot table and makes the engine's read of its node. Returns the instance's object, whose
/// value the accessor loads; nil when nothing evaluates on this thread, the runtime has no instance (or a writer is
/// changing the entry), or the engine's read failed (the instance's node left the graph, a cycle, or a handle read
/// while a writer changed the entry: see ripple_slot_table_find). The accessor then takes the general path
/// (`beginDeclaredRead(_:)`), which reports what needs reporting.
@inlinable @inline(__always)
func readDeclaredInEvaluation(_ index: Int) -> UnsafeMutableRawPointer? {
    // EvaluationThreadState.innermost, read through its C function: the enum is internal, not usable here.
    guard let evaluating = ripple_thread_state_evaluating() else { return nil }
    return Unmanaged<Runtime>.fromOpaque(evaluating)._withUnsafeGuaranteedRef { runtime in
        let found = ripple_slot_table_find(UnsafePointer(runtime.declarationSlots), index)
        guard let object = found.object else { return nil }
        let node = rp_node_t(
            slot: UInt32(truncatingIfNeeded: found.handle), generation: UInt32(truncatingIfNeeded: found.handle >> 32),
            graph_tag: found.graph_tag)
        return rp_node_read(runtime.graph, node) == .RP_OK ? object : nil
    }
}

/// A read of a declaration's instance on the general path: the instance's object (nil: a miss, read through the
/// instance's node), the engine's read section to end, and the runtime the read goes to.
@usableFromInline
struct DeclaredReadSection {
    /// The instance's object, or nil for a miss.
    @usableFromInline let object: UnsafeMutableRawPointer?
    /// The ticket of the read section `endDeclaredRead(_:)` closes (when ``object`` is not nil).
    @usableFromInline let ticket: UInt32
    /// The runtime the read goes to, unretained (the caller's runtime, alive for the read).
    @usableFromInline let runtime: Unmanaged<Runtime>

    init(object: UnsafeMutableRawPointer?, ticket: UInt32, runtime: Runtime) {
        self.object = object
        self.ticket = ticket
        self.runtime = Unmanaged.passUnretained(runtime)
    }

    /// A miss in `runtime`: no object, no section.
    static func miss(in runtime: Runtime) -> DeclaredReadSection {
        DeclaredReadSection(object: nil, ticket: 0, runtime: runtime)
    }
}

/// Starts a read of the declaration at `index` that the common path (`readDeclaredInEvaluation(_:)`) did not make.
/// Inside an evaluation on this thread, a miss in the evaluating runtime: the accessor reads the instance's node,
/// which creates the instance or reports what the engine's read reported. Outside any evaluation, in
/// `Runtime.current` (a task-local), inside a read section of the instance's node that `endDeclaredRead(_:)` closes;
/// a read an async run may make (the runtime has runs in flight) is a miss too, and the node's read tracks it for
/// the run.
@usableFromInline @inline(never)
func beginDeclaredRead(_ index: Int) -> DeclaredReadSection {
    if let evaluating = EvaluationThreadState.innermost {
        return DeclaredReadSection.miss(in: Unmanaged<Runtime>.fromOpaque(evaluating).takeUnretainedValue())
    }
    let runtime = Runtime.current
    let entry = ripple_slot_table_get(UnsafePointer(runtime.declarationSlots), index)
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

/// Ends a read that `beginDeclaredRead(_:)` opened (its object was not nil), then runs the lifecycle hooks waiting,
/// which the read may have queued (a recomputation's update hooks).
@usableFromInline
func endDeclaredRead(_ section: DeclaredReadSection) {
    section.runtime._withUnsafeGuaranteedRef { runtime in
        var readSection = rp_read_section_t(ticket: section.ticket)
        let status = rp_node_read_end(runtime.graph, &readSection)
        if _slowPath(status != .RP_OK) { runtime.fail(status, "reading a declaration", node: nil) }
        runtime.declarations.runHooksIfPending()
    }
}
