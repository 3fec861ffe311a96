internal import CRipple
internal import CRippleThreadState

// The read path of declarations (`DeclaredAtom.value`, `DeclaredDerivation.value`).
//
// The common read, one inside an evaluation (a derivation's or an effect's body), is two calls from the generic,
// inlinable accessor: `declaredEntryInEvaluation(_:)` finds the instance and returns it with what the engine's read
// takes, in registers, calling nothing; `readDeclaredEntry(graph:handle:graphTag:)` is the engine's read, a jump.
// The accessor keeps the object across the second call in a register of its own and loads the value: no function
// saves a register or builds a result around the engine call, which a single call returning the object would.
// It costs a node read plus the slot look-up: the runtime is the thread's evaluating one (a thread-local: no
// task-local look-up, no reference count), the runtime's slot table gives the instance in one indexed load without
// a lock (ripple_slot_table.h), and one engine call records the read. The evaluation holds the graph until it
// returns, so nothing frees the instance before the accessor's load, and lifecycle hooks wait for the outermost
// batch or read anyway: the read has no section to end and no hooks to run.
//
// Every other read (outside an evaluation, a miss, a failed engine read) takes `beginDeclaredRead(_:)` and
// `endDeclaredRead(_:)`, split as a node read is (`RippleNode.beginRead`/`endRead`) so that the value is loaded by
// code specialized in the caller's module. All are free functions, not static methods: a static method's unused
// metatype argument costs every read a forwarding thunk.

/// A declaration's instance as a read inside an evaluation finds it in the evaluating runtime's slot table: its
/// object (nil: no evaluation on this thread, no instance, or an entry a writer is changing) and what the engine's
/// read of its node takes. Four words, so that it comes back in registers, in the order that leaves the graph tag
/// where `readDeclaredEntry(graph:handle:graphTag:)` takes it.
@usableFromInline
struct DeclaredEntry {
    /// The instance's object, or nil: then the read takes the general path (`beginDeclaredRead(_:)`).
    @usableFromInline let object: UnsafeMutableRawPointer?
    /// The graph tag of the handle.
    @usableFromInline let graphTag: UInt32
    /// The instance's node handle: its slot, and its generation in the high half.
    @usableFromInline let handle: UInt64
    /// The evaluating runtime's graph; only meaningful when ``object`` is not nil.
    @usableFromInline let graph: OpaquePointer?

    /// Makes the engine's read of the instance's node, if there is an instance: true when the accessor may load
    /// the object's value, false when the read takes the general path.
    @inlinable @inline(__always)
    func read() -> Bool {
        _fastPath(object != nil) && _fastPath(readDeclaredEntry(graph: graph, handle: handle, graphTag: graphTag) == 0)
    }
}

/// The instance of the declaration at `index` in the runtime evaluating on this thread, for a read inside its
/// evaluation; an entry with no object when nothing evaluates here, or the runtime has no instance (or a writer is
/// changing it). Looks and loads, calls nothing: see `readDeclaredEntry(graph:handle:graphTag:)` for the read.
@usableFromInline
func declaredEntryInEvaluation(_ index: Int) -> DeclaredEntry {
    guard let evaluating = EvaluationThreadState.innermost else {
        return DeclaredEntry(object: nil, graphTag: 0, handle: 0, graph: nil)
    }
    return Unmanaged<Runtime>.fromOpaque(evaluating)._withUnsafeGuaranteedRef { runtime in
        let graph = runtime.graph
        let found = ripple_slot_table_find(runtime.declarationSlots, index)
        return DeclaredEntry(object: found.object, graphTag: found.graph_tag, handle: found.handle, graph: graph)
    }
}

/// The engine's read of the node of an entry `declaredEntryInEvaluation(_:)` found (with an object), inside the
/// evaluation that found it: records the read and returns the engine's status, 0 when the node is up to date and
/// the accessor may load the object's value. Any other status (the instance's node left the graph, a cycle, or a
/// handle read while a writer changed the entry: see ripple_slot_table_find) sends the read to the general path,
/// which reports it. Takes the entry's fields where the engine's read takes them: the call is a jump.
@usableFromInline
func readDeclaredEntry(graph: OpaquePointer?, handle: UInt64, graphTag: UInt32) -> UInt32 {
    let node = rp_node_t(
        slot: UInt32(truncatingIfNeeded: handle), generation: UInt32(truncatingIfNeeded: handle >> 32),
        graph_tag: graphTag)
    return rp_node_read(graph.unsafelyUnwrapped, node).rawValue
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

/// Starts a read of the declaration at `index` that the common path (`declaredEntryInEvaluation(_:)`,
/// `readDeclaredEntry(graph:handle:graphTag:)`) did not make. Inside an evaluation on this thread, a miss in the
/// evaluating runtime: the accessor reads the instance's node, which creates the instance or reports what the
/// engine's read reported. Outside any evaluation, in `Runtime.current` (a task-local), inside a read section of the
/// instance's node that `endDeclaredRead(_:)` closes; a read an async run may make (the runtime has runs in flight)
/// is a miss too, and the node's read tracks it for the run.
@usableFromInline @inline(never)
func beginDeclaredRead(_ index: Int) -> DeclaredReadSection {
    if let evaluating = EvaluationThreadState.innermost {
        return DeclaredReadSection.miss(in: Unmanaged<Runtime>.fromOpaque(evaluating).takeUnretainedValue())
    }
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
