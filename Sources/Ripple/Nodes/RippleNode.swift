internal import CRipple
internal import CRippleThreadState

/// The base of every node in a Ripple graph: ``AtomObject``, ``Derivation``, ``AsyncDerivation`` and ``Effect``.
///
/// A node is one vertex of its runtime's dependency graph. It has a ``label`` that names it in every trap message
/// and the ``runtime`` it belongs to. You never create a `RippleNode` directly and cannot subclass it: use
/// `atom(_:label:fileID:line:)`, `derive(label:fileID:line:_:)` or ``Effect``.
///
/// ```swift
/// let count = atom(0, label: "count")
/// let node: RippleNode = count
/// print(node.label)                       // "count"
/// assert(node.runtime === Runtime.current)
/// ```
///
/// ## Threading
/// A node may be used from any thread, like its runtime: see ``Runtime`` for the model.
///
/// ## Lifetime
/// A node lives in the graph exactly as long as its Swift object: releasing the last reference removes it from the
/// graph at once (synchronously, no task hop). While something reads it (a live effect, or a derivation that a
/// live effect reads), the readers keep it alive, so dropping your own reference to a link in a live chain never
/// breaks the chain. A node keeps its runtime alive.
public class RippleNode {
    /// The runtime this node belongs to: the one that was ``Runtime/current`` when it was created.
    ///
    /// ```swift
    /// let runtime = Runtime()
    /// let a = withIsolatedRuntime(using: runtime) { atom(1) }
    /// assert(a.runtime === runtime)
    /// ```
    ///
    /// All reads and writes of the node go to this runtime's graph, whatever ``Runtime/current`` is at the time.
    /// Lifetime: the node keeps it alive.
    public var runtime: Runtime {
        unownedRuntime
    }

    /// The runtime, unowned: Ripple's own nodes hold a strong reference by hand (`ownsRuntime`: retained in
    /// `init`, released at the end of `deinit`), one word instead of an unowned and an optional strong reference;
    /// the runtime itself owns the internal nodes that stand for user-defined publishers and subscribers (a
    /// strong reference back would be a cycle).
    @usableFromInline unowned(unsafe) let unownedRuntime: Runtime

    /// The runtime's evaluation state, reached without reference counting (only while the graph is held).
    /// Inlinable for the change-log check of an atom's write. Read through the runtime rather than stored: a
    /// word less per node, for a load on paths that already run a body.
    @inlinable var state: UnsafeMutablePointer<RuntimeState> {
        unownedRuntime.state
    }

    /// The engine's graph of this node's runtime, read through the runtime rather than stored: a word less per
    /// node, for a load on paths that already make an engine call.
    @usableFromInline var graph: OpaquePointer {
        @inlinable @inline(__always) get { unownedRuntime.graph }
    }

    /// Where the node was created: the `#fileID` and `#line` of the call ("" and 0 for Ripple's internal nodes),
    /// kept once per place in `CreationSites` and named by the number in the low bits of `lineAndTraits`: no word
    /// of the node's own. The label, if any, is kept apart (`extras`), so that creating a node does not build a
    /// string: the label and the place are only needed by trap messages and inspection.
    var creationPlace: (fileID: String, line: Int) { CreationSites.site(lineAndTraits & Traits.siteMask) }
    /// The `#fileID` of the node's creation (see `creationPlace`).
    var fileID: String { creationPlace.fileID }
    /// The `#line` of the node's creation (see `creationPlace`).
    var line: Int { creationPlace.line }

    /// The label given at creation, if any.
    var explicitLabel: String? { has(.createdWithExtras) ? NodeExtrasTable.extras(of: self).label : nil }

    /// For the instance of a declaration, what ties it to the declaration (its deinit takes the instance out of
    /// the runtime's store); nil for every other node. Set once, before the node is shared, while the graph is
    /// held (`attach(declaredInstance:lifecycle:)`): inspection, which lists every live node and reads its label,
    /// may already reach it. Read while the graph is held.
    var declaredInstance: DeclaredInstanceRecord? { extras?.declaredInstance }

    /// The record of the node's ``Lifecycle`` hooks, for a node made with one (a declaration's instance whose
    /// declaration has hooks, `atom(_:lifecycle:)`, `derive(lifecycle:_:)`); nil for every other node. Set once,
    /// with `declaredInstance`, before the node is shared. Read while the graph is held: a mark says whether there
    /// is one, so that a node with other extras (a label, a declaration's record) looks nothing up for it.
    final var lifecycle: InstanceLifecycle? {
        marks & NodeMarks.hasLifecycle != 0 ? NodeExtrasTable.extras(of: self).lifecycle : nil
    }

    /// Sets `declaredInstance` and `lifecycle`, before the node is shared: kept in the node's extras, made here if
    /// it has none (a node without hooks or a declaration pays nothing for them).
    final func attach(declaredInstance record: DeclaredInstanceRecord?, lifecycle: InstanceLifecycle?) {
        exclusively {
            let extras = extrasMadeIfNone()
            extras.declaredInstance = record
            extras.lifecycle = lifecycle
            setMark(NodeMarks.hasLifecycle, lifecycle != nil)
        }
    }

    /// The write observer attached to this atom (AtomObject+WriteObserver.swift); nil for every other node. Set
    /// while the graph is held (inspection may read the extras then), read by the atom's writes, which hold it too.
    /// A mark says whether there is one: a change of an atom with other extras (a label, a declaration's record),
    /// reported to the runtime's change hooks, looks nothing up for it.
    var writeObserver: AtomWriteObserver? {
        get { marks & NodeMarks.hasWriteObserver != 0 ? NodeExtrasTable.extras(of: self).writeObserver : nil }
        set {
            extrasMadeIfNone().writeObserver = newValue
            setMark(NodeMarks.hasWriteObserver, newValue != nil)
        }
    }

    /// The actor the node's body was created on, where it runs only; `.none` for a body that may run anywhere
    /// (the common case) and for nodes without a body. Immutable: the main actor is a trait, another actor is
    /// kept in the extras.
    final var isolation: BodyIsolation {
        if has(.mainActorBody) { return .mainActor }
        if has(.actorBody) { return NodeExtrasTable.extras(of: self).isolation }
        return .none
    }

    /// Whether the node's body was created on an actor (the main actor or another), where it runs only: when
    /// false, it may run anywhere, with no check. Immutable.
    final var isBoundToActor: Bool {
        lineAndTraits & (Traits.mainActorBody.rawValue | Traits.actorBody.rawValue) != 0
    }

    /// Where a deferred effect's runs go; nil for every other node. Immutable.
    final var scheduler: (any EffectScheduler)? {
        has(.createdWithExtras) ? NodeExtrasTable.extras(of: self).scheduler : nil
    }

    /// Whether the node has extras (`NodeExtras`: a label, an isolation, a scheduler, a declaration's record,
    /// lifecycle hooks, a write observer, cleanups). Read while the graph is held, or by the deinit.
    final var hasExtras: Bool { marks & NodeMarks.hasExtras != 0 }

    /// The node's extras, if it has any (see `NodeExtras`: they are kept in `NodeExtrasTable`, not in the node).
    /// Read while the graph is held, or by the deinit.
    private var extras: NodeExtras? { hasExtras ? NodeExtrasTable.extras(of: self) : nil }

    /// The node's extras, made (and added to the table) if it has none. Called while the graph is held, or before
    /// the node is shared.
    private func extrasMadeIfNone() -> NodeExtras {
        if hasExtras { return NodeExtrasTable.extras(of: self) }
        let extras = NodeExtras(label: nil, isolation: .none, scheduler: nil)
        NodeExtrasTable.add(extras, for: self)
        marks |= NodeMarks.hasExtras
        return extras
    }

    /// Whether cleanups registered by the last run of the node's body wait (see `appendCleanup(_:)`). Read while
    /// the graph is held, or by the deinit.
    final var hasCleanups: Bool { marks & NodeMarks.hasCleanups != 0 }

    /// Keeps `cleanup`, registered by the running body, to run before the next run (`runCleanups()`) or when the
    /// node stops (`takeCleanups()`), in the node's extras (made if it has none). Called while the graph is held.
    final func appendCleanup(_ cleanup: @escaping () -> Void) {
        extrasMadeIfNone().cleanups.append(cleanup)
        marks |= NodeMarks.hasCleanups
    }

    /// Takes the waiting cleanups out of the node, which no longer has any. Called while the graph is held, or by
    /// the deinit.
    final func takeCleanups() -> [() -> Void] {
        guard hasCleanups else { return [] }
        marks &= ~NodeMarks.hasCleanups
        let extras = NodeExtrasTable.extras(of: self)
        defer { extras.cleanups = [] }
        return extras.cleanups
    }

    /// Runs and forgets the waiting cleanups in registration order, without recording reads, including those
    /// registered while they run: what effects and derivations do before their next run. Called while the graph
    /// is held.
    final func runCleanups() {
        _ = rp_untracked_begin(graph)
        while hasCleanups {
            for cleanup in takeCleanups() { cleanup() }
        }
        _ = rp_untracked_end(graph)
    }

    // The fields below come last, smallest last, so that the node ends unaligned (38 bytes) and a subclass's first
    // two flags fill the rest of the word (an atom's, a derivation's, an effect's): with them an atom holding a word
    // takes 72 bytes, a derivation 88, an effect 56, each the most of its malloc size class (80, 96 and 64 bytes).

    /// The engine's handle without its graph tag, which is the runtime's (`handle` puts them together): the slot in
    /// the low half, the generation in the high half. Set once, when the node is created: for an effect, by its
    /// first run or its scheduling, which happen inside rp_node_create while the graph is held, and never written
    /// again (a scheduled update reads it on another thread without holding the graph). One word, written at once.
    /// Usable from inlinable code: the read inside an evaluation, inlined into the reader (RippleNode+Reads.swift),
    /// loads it.
    @usableFromInline @exclusivity(unchecked) var slotAndGeneration: UInt64 = 0

    /// Whether the node has no handle yet: only inside `createNode`, where an effect's first run or scheduling
    /// sets it. Read while the graph is held.
    final var awaitsHandle: Bool { slotAndGeneration == 0 }

    /// Where the node was created (the number of its place in `CreationSites`, see `creationPlace`) in the low
    /// bits, and the node's fixed traits in the high bits (`Traits`): one word with the handle's, without a byte
    /// per trait.
    private let lineAndTraits: UInt32

    /// The fixed facts about a node, kept in the high bits of `lineAndTraits`.
    struct Traits: OptionSet {
        let rawValue: UInt32
        /// `init` retained the runtime, so `deinit` releases it.
        static let ownsRuntime = Traits(rawValue: 1 << 31)
        /// The engine's watched/unwatched callbacks retain and release this object.
        static let retainsWhileWatched = Traits(rawValue: 1 << 30)
        /// The effect behind a ``values`` sequence (see `Effect.isValuesObserver`).
        static let valuesObserver = Traits(rawValue: 1 << 29)
        /// A ``Derivation``, an ``Effect`` (final classes) or an ``AtomObject`` whose value is plain bytes
        /// (`_isPOD`), which the engine's callbacks reach without a class call: the compute callback, which only
        /// computed nodes reach, views such a node as a derivation (`Runtime.computeRetained`); the run callback,
        /// which only effect-kind nodes reach, as an effect (`Effect.runFromCallback`); the commit callback, which
        /// only sources reach, as an atom of plain bytes (`AtomObject.commitFromCallback`). One bit for the three:
        /// a derivation is never run or committed, an effect never computed or committed, an atom never computed
        /// or run.
        static let directCallbacks = Traits(rawValue: 1 << 28)
        /// The node was created with extras (`NodeExtras`: a label, an isolation or a scheduler), which
        /// `NodeExtrasTable` keeps until its deinit.
        static let createdWithExtras = Traits(rawValue: 1 << 27)
        /// The node's body was created on the main actor (`BodyIsolation.mainActor`), where it runs only.
        static let mainActorBody = Traits(rawValue: 1 << 26)
        /// The node's body was created on another actor, kept in its extras (`BodyIsolation.actor`).
        static let actorBody = Traits(rawValue: 1 << 25)
        /// The bits below the traits, which keep the number of the node's creation place (`CreationSites`).
        static let siteMask: UInt32 = (1 << 25) - 1
    }

    /// Whether the node was created with `trait`.
    @inline(__always)
    final func has(_ trait: Traits) -> Bool {
        lineAndTraits & trait.rawValue != 0
    }

    /// `init` retained the runtime, so `deinit` releases it.
    private var ownsRuntime: Bool { has(.ownsRuntime) }

    /// Whether the engine's watched/unwatched callbacks retain and release this object.
    final var retainsWhileWatched: Bool { has(.retainsWhileWatched) }

    /// Whether the watched callback retained this object (its first reader was not a ``values`` observer), so
    /// the unwatched callback releases it, and how the engine's compute callback may compute it
    /// (`ReaderRetention`). One byte, so that the common compute tests one byte for both. Touched only while the
    /// graph is held.
    @exclusivity(unchecked) var readerRetention = ReaderRetention.none

    /// The watched callback retained this object, so the unwatched callback releases it.
    final var isRetainedByReaders: Bool { readerRetention != .none }

    /// The node has left the graph (an effect cancelled, a user publisher unregistered, the runtime freed).
    var isDisposed: Bool {
        get { marks & NodeMarks.disposed != 0 }
        set { setMark(NodeMarks.disposed, newValue) }
    }

    /// Sets or clears `mark` (`NodeMarks`). Called while the graph is held, in `init` or by the deinit.
    private func setMark(_ mark: UInt8, _ isSet: Bool) {
        marks = isSet ? marks | mark : marks & ~mark
    }

    /// What may change about the node (`NodeMarks`), in one byte. Touched only while the graph is held, in `init`
    /// and by the deinit.
    @exclusivity(unchecked) private var marks: UInt8 = 0

    /// The name of this node in trap messages: the label given at creation, else `"<fileID>:<line>"` of the place
    /// where it was created.
    ///
    /// ```swift
    /// let total = derive(label: "cart total") { 42 }
    /// print(total.label)                      // "cart total"
    /// let other = atom(0)                     // created in Cart.swift, line 12
    /// print(other.label)                      // "MyApp/Cart.swift:12"
    /// ```
    ///
    /// Threading and lifetime: immutable; safe to read at any time while you hold the node.
    public var label: String {
        if let explicitLabel { return explicitLabel }
        let place = creationPlace
        return "\(place.fileID):\(place.line)"
    }

    /// Where the node was created, as `"<fileID>:<line>"` (the same as ``label`` for an unlabeled node), or nil for
    /// a node Ripple made for itself (the observer behind a `values` stream, a user ``Publisher``'s node).
    ///
    /// ```swift
    /// let total = derive(label: "cart total") { 42 }      // Cart.swift, line 7
    /// print(total.creationSite ?? "")                       // "MyApp/Cart.swift:7"
    /// ```
    ///
    /// Threading and lifetime: immutable.
    public var creationSite: String? {
        let place = creationPlace
        return place.fileID.isEmpty ? nil : "\(place.fileID):\(place.line)"
    }

    /// What kind of node this is, as inspection shows it: "atom", "derivation", "async derivation", "effect",
    /// "values observer", "publisher" or "subscriber". Overridden by each kind.
    var kindName: String { "node" }

    /// The node's current value as text, when it has one and its type is `CustomStringConvertible` (without
    /// bringing it up to date, or recording a read). Called while the graph is held. Overridden by value nodes.
    var valueDescription: String? { nil }

    /// For an atom, the value its readers last saw (before writes not yet committed), as text. Called while the
    /// graph is held.
    var committedValueDescription: String? { nil }

    /// Creates the Swift side of a node. The subclass then creates the engine node (`createNode`), once `self`
    /// is fully initialized, because the engine keeps a pointer to it.
    ///
    /// `extras`: the node's rare settings, from `NodeExtras.labeled(_:)` or `NodeExtras.forBody(label:isolation:)`
    /// (nil when it has none).
    ///
    /// `runtime` and `extras` are consumed: each becomes the node's own reference (for `runtime`, when the node
    /// owns it), without a retain of its own and a release of the caller's. `fileID` is borrowed: only its place's
    /// number is kept (`CreationSites`), so the caller's string (a `#fileID` literal) is neither retained for the
    /// call nor released by it.
    @usableFromInline
    init(runtime: consuming Runtime, extras: consuming NodeExtras?, fileID: borrowing String, line: Int,
         ownsRuntime: Bool = true, retainsWhileWatched: Bool = true, isValuesObserver: Bool = false,
         hasDirectCallbacks: Bool = false) {
        self.unownedRuntime = runtime
        var traits: Traits = []
        if hasDirectCallbacks { traits.insert(.directCallbacks) }
        if ownsRuntime { traits.insert(.ownsRuntime) }
        if retainsWhileWatched { traits.insert(.retainsWhileWatched) }
        if isValuesObserver { traits.insert(.valuesObserver) }
        if let extras {
            traits.insert(.createdWithExtras)
            switch extras.isolation {
            case .none: break
            case .mainActor: traits.insert(.mainActorBody)
            case .actor: traits.insert(.actorBody)
            }
        }
        self.lineAndTraits = CreationSites.number(fileID: fileID, line: max(line, 0)) | traits.rawValue
        if ownsRuntime { _ = Unmanaged.passRetained(runtime) }
        _ = consume runtime
        if let extras = consume extras {
            NodeExtrasTable.add(extras, for: self)
            marks = NodeMarks.hasExtras
        }
    }

    deinit {
        leaveGraphBeforeFreeing()
        if _slowPath(hasExtras) {
            letGoOfExtrasAndRuntime()
        } else if ownsRuntime {
            // Last: subclasses' deinits and stored properties are gone by now, and nothing below uses the runtime.
            Unmanaged.passUnretained(unownedRuntime).release()
        }
    }

    /// The end of the deinit of a node with extras, out of line: a node without any (most) makes no release of an
    /// empty reference for them.
    @inline(never)
    private func letGoOfExtrasAndRuntime() {
        // Out of the table before the memory can be reused; let go of after the runtime, as a stored property would
        // be (their deinit takes a declared instance out of its store and queues a `released` hook).
        let extras = NodeExtrasTable.remove(for: self)
        if ownsRuntime { Unmanaged.passUnretained(unownedRuntime).release() }
        _ = extras
    }

    /// Removes the node from the graph at the start of a deinit, before the subclass frees anything its callbacks
    /// touch. Until rp_node_dispose returns (it waits for the graph), another thread's flush may still reach the
    /// node: a `values` observer does not keep what it observes alive. The callbacks do not run a body once the
    /// deinit has begun (`Runtime.makeCallbacks`), but a commit still reads an atom's values. Idempotent.
    @inline(__always)
    final func leaveGraphBeforeFreeing() {
        if isDisposed { return }
        isDisposed = true
        let status = rp_node_dispose(graph, handle)
        if _slowPath(status != .RP_OK) { runtime.fail(status, "freeing", node: self) }
    }

    /// Creates this object's node in the engine. For an effect, the first run (or its scheduling) happens before
    /// this returns.
    ///
    /// The node is handed over as a plain pointer: the engine gets a pointer to `self`, so a call made on `self`
    /// itself would make the compiler assume the engine may release it, and retain `self` around the call and
    /// release it after (20 to 30 instructions per node). The caller (an `init`) keeps the node alive.
    @inline(__always)
    final func createNode(_ kind: rp_kind_t) {
        RippleNode.createNode(Unmanaged.passUnretained(self).toOpaque(), kind)
    }

    /// `createNode(.RP_KIND_SOURCE)` of the atom at `node`, for the inlinable `init` of an atom, which cannot name
    /// the engine's kinds. A plain pointer, as for `createNode(_:)`: a method called on the atom made the caller
    /// retain it around the call and release it after.
    @usableFromInline
    static func createSourceNode(_ node: UnsafeMutableRawPointer) {
        createNode(node, .RP_KIND_SOURCE)
    }

    /// `createNode(_:)` of the node at `node`, which the caller keeps alive.
    @inline(never)
    private static func createNode(_ node: UnsafeMutableRawPointer, _ kind: rp_kind_t) {
        let object = Unmanaged<RippleNode>.fromOpaque(node)
        var created = rp_node_t()  // not &handle: an effect's callbacks set `handle` during this call
        // The observer behind a `values` sequence reads weakly: its reads do not make the engine call `watched`,
        // so they do not keep what it reads alive, whatever other readers come before or after it.
        let options = object._withUnsafeGuaranteedRef { $0.has(.valuesObserver) } ? UInt32(RP_NODE_WEAK_READS) : 0
        let status = rp_node_create_with(object._withUnsafeGuaranteedRef { $0.graph }, kind, options, node, &created)
        // An effect's handle was set inside the call, while the graph was held; writing it again here, after the
        // graph was released, would race with a scheduled update reading it on another thread.
        if kind == .RP_KIND_SOURCE || kind == .RP_KIND_COMPUTED || kind == .RP_KIND_ASYNC {
            object._withUnsafeGuaranteedRef { $0.handle = created }
        }
        if _slowPath(status != .RP_OK) { object.takeUnretainedValue().failToCreate(status) }
    }

    /// Traps for a node the engine could not create.
    @inline(never)
    private func failToCreate(_ status: rp_status_t) -> Never {
        runtime.fail(status, "creating", node: self)
    }

    /// Leaves the graph now. Idempotent. Used by effects (cancel) and the nodes standing for user types; called
    /// while the graph is held.
    final func disposeNode() {
        if isDisposed { return }
        isDisposed = true
        let status = rp_node_dispose(graph, handle)
        if _slowPath(status != .RP_OK) { runtime.fail(status, "disposing", node: self) }
    }

    /// Runs an effect-kind node again now, re-recording what it reads (at once, even inside a batch). Its place in
    /// the creation order stays.
    final func runEffectNow() {
        let status = rp_effect_run(graph, handle)
        if _slowPath(status != .RP_OK) { runtime.fail(status, "running", node: self) }
        runQueuedHooks()
    }

    /// Records a read of this node: brings it up to date and, inside a derivation or effect, makes it a
    /// dependency of that reader.
    final func recordRead() {
        endRead(beginRead())
    }

    /// A read outside evaluations that copies the value, `byteCount` bytes of plain memory at `source` that only
    /// the graph's computes and writes change, into `destination`, when `copiesOutsideEvaluation()` says so: one
    /// engine call (`rp_node_read_copy`) that opens the read section, copies and ends it, where a section's begin
    /// and end take two. Traps if the read fails.
    @usableFromInline @inline(never)
    final func copyOutsideEvaluation(
        copying source: UnsafeRawPointer, into destination: UnsafeMutableRawPointer, byteCount: Int
    ) {
        let status = rp_node_read_copy(graph, handle, destination, source, byteCount)
        if _slowPath(status != .RP_OK) { failSection(status.rawValue) }
    }

    /// `copyWordOutsideEvaluation(copying:byteCount:)` when `copiesOutsideEvaluation()` says no: the section's
    /// read (`readOutsideEvaluation(copying:into:byteCount:)`), into a word. Out of line: the word's address would
    /// cost the caller a stack canary.
    @usableFromInline @inline(never)
    final func readWordInSection(copying source: UnsafeRawPointer, byteCount: Int) -> UInt64 {
        var word: UInt64 = 0
        withUnsafeMutableBytes(of: &word) { bytes in
            readOutsideEvaluation(copying: source, into: bytes.baseAddress.unsafelyUnwrapped, byteCount: byteCount)
        }
        return word
    }

    /// The same read when `copiesOutsideEvaluation()` says no: between the section's begin and end
    /// (``beginReadOutsideEvaluation()``, which traps inside another runtime's evaluation, reads for an async run,
    /// applies waiting writes of observed properties and records a read Observation tracks).
    @usableFromInline @inline(never)
    final func readOutsideEvaluation(
        copying source: UnsafeRawPointer, into destination: UnsafeMutableRawPointer, byteCount: Int
    ) {
        let ticket = beginReadOutsideEvaluation()
        destination.copyMemory(from: source, byteCount: byteCount)
        endRead(ticket)
    }

    /// Opens the engine's read section.
    @inline(__always)
    private func beginSection() -> UInt32 {
        let result = ripple_read_section_begin(graph, handle)
        let status = UInt32(truncatingIfNeeded: result)
        if _slowPath(status != 0) { failSection(status) }
        return UInt32(truncatingIfNeeded: result >> 32) ^ RippleNode.sectionTicketMark
    }

    /// Traps for a write of a source that the engine refused with `status` (`announceSourceWrite()`).
    @usableFromInline @inline(never)
    final func failWrite(_ status: UInt32) -> Never {
        runtime.fail(rp_status_t(rawValue: status) ?? .RP_ECORRUPT, "writing", node: self)
    }

    /// Traps for a read that failed with `status` (outside evaluations, or inside one: `readInEvaluation()`), from
    /// inlinable code.
    @usableFromInline @inline(never)
    final func failRead(_ status: UInt32) -> Never {
        failSection(status)
    }

    /// Traps for a read section that failed with `status`.
    @inline(never)
    private func failSection(_ status: UInt32) -> Never {
        runtime.fail(rp_status_t(rawValue: status) ?? .RP_ECORRUPT, "reading", node: self)
    }

    /// ``beginRead()`` outside an evaluation of this runtime on this thread: inside another runtime's (a trap), in an
    /// async derivation's run, or anywhere else (where Observation may be tracking).
    @usableFromInline @inline(never)
    final func beginReadOutsideEvaluation() -> UInt32 {
        // A node read inside another runtime's evaluation on this thread could not be tracked. Only this thread's
        // record is consulted: other threads may be evaluating in this runtime meanwhile.
        if let innermost = EvaluationThreadState.innermost {
            runtime.failForeignRead(nodeLabel: label, evaluating: innermost)
        }
        if _slowPath(ripple_async_runs_in_flight_load() != 0), let run = AsyncRun.current {
            // Outside any evaluation on this thread, the read may belong to an async derivation's run: only looked
            // up (a task-local) while some runtime has runs in flight. Any runtime's, not only this node's: the run
            // may be another runtime's, whose body must not read this node (`beginRead(for:)` traps).
            return beginRead(for: run)
        }
        // Before the read: it must not see a value from before the main actor's writes of observed properties.
        if _slowPath(PendingObservedWrites.arePending) { PendingObservedWrites.apply(in: runtime) }
        // Inside `withObservationTracking`, Observation records the read.
        if _slowPath(ObservationProbe.isTracking(unownedRuntime.observationProbe)) { recordObservedRead() }
        return beginSection()
    }

    /// The part of ``beginReadOutsideEvaluation()`` that a read without a section still makes (an atom's read in its
    /// runtime's batch, `AtomObject.valueOutsideEvaluation()`): inside `withObservationTracking`, Observation
    /// records the read. The caller has made the other tests (`threadHoldsGraphInOwnBatch()`).
    @usableFromInline @inline(never)
    final func noteReadInOwnBatch() {
        if _slowPath(ObservationProbe.isTracking(unownedRuntime.observationProbe)) { recordObservedRead() }
    }

    /// Ends the read started by ``beginRead()``; when the read held the graph, runs the effects it made due.
    /// Inlined into the reader: a read inside an evaluation (the common case) ends with one comparison, and only
    /// a read that opened a section makes a call.
    @inlinable @inline(__always)
    final func endRead(_ ticket: UInt32) {
        if _slowPath(ticket != RippleNode.heldByEvaluationTicket) { endSection(ticket) }
    }

    /// ``endRead(_:)`` of a read that opened a section (outside an evaluation of this runtime on this thread).
    @usableFromInline @inline(never)
    final func endSection(_ ticket: UInt32) {
        if _slowPath(ticket == RippleNode.trackedForRunTicket) { return endReadForRun() }
        if _slowPath(ticket <= RippleNode.failedReadTicketLimit) { failSection(ticket) }
        let status = ripple_read_section_end(graph, ticket ^ RippleNode.sectionTicketMark)
        if _slowPath(status != .RP_OK) { runtime.fail(status, "reading", node: self) }
        // A derivation the read computed may have given nodes their first reader (`watched` hooks wait) or changed.
        runQueuedHooks()
    }

    /// ``runQueuedHooks()`` when something waits.
    @usableFromInline @inline(never)
    final func runQueuedHooksNow() {
        unownedRuntime.declarations.runHooksIfOutermost()
    }

    /// Tickets, as ``beginRead()`` returns them:
    /// - 0 (``heldByEvaluationTicket``): a read inside an evaluation of the node's runtime on this thread, no
    ///   section to end;
    /// - up to ``failedReadTicketLimit``: the status of such a read that failed (the engine's statuses are small);
    /// - ``trackedForRunTicket``: a read inside a track section of an async run;
    /// - ``outsideEvaluationTicket``: from `beginEvaluationRead()` only, a read not made yet;
    /// - anything else: an engine section's ticket xor ``sectionTicketMark``. The engine's tickets are small stripe
    ///   numbers, UInt32.max - 2 for a read by a compute or run, or UInt32.max for another read by the thread
    ///   holding the graph, so marked they are none of the above.
    @inlinable static var heldByEvaluationTicket: UInt32 { 0 }

    /// What `beginEvaluationRead()` returns for a read outside evaluations of the node's runtime on this thread:
    /// nothing read yet.
    @inlinable static var outsideEvaluationTicket: UInt32 { 0x2000_0000 }

    /// The largest ticket that is the status of a failed read inside an evaluation.
    static let failedReadTicketLimit: UInt32 = 0xFFFF

    /// The ticket of a read made inside a track section of an async run.
    static let trackedForRunTicket: UInt32 = 0x4000_0000

    /// Xor-ed with an engine section's ticket: see ``heldByEvaluationTicket``.
    static let sectionTicketMark: UInt32 = 0x8000_0000

    /// A read made by an async derivation's run (its task or a child task of it): inside a track section, so that
    /// the engine records it as a dependency of the run's node, while the run is current. A superseded run's reads
    /// record nothing.
    @inline(never)
    private func beginRead(for run: AsyncRun) -> UInt32 {
        if run.runtime !== unownedRuntime {
            runtime.failForeignRead(nodeLabel: label, evaluating: Unmanaged.passUnretained(run.runtime).toOpaque())
        }
        let tracking = rp_async_track_begin(graph, run.node, run.id)
        guard tracking == .RP_OK else {
            // Superseded, its node freed, or the thread is inside an untracked section: a plain read.
            var section = rp_read_section_t()
            let status = rp_node_read_begin(graph, handle, &section)
            if _slowPath(status != .RP_OK) { runtime.fail(status, "reading", node: self) }
            return section.ticket ^ RippleNode.sectionTicketMark
        }
        state.pointee.trackedRunNode = run.node  // the graph is held: the section's end finds it here
        var section = rp_read_section_t()
        let status = rp_node_read_begin(graph, handle, &section)
        if _slowPath(status != .RP_OK) {
            _ = rp_async_track_end(graph, run.node)
            runtime.fail(status, "reading", node: self)
        }
        state.pointee.trackedRunReadTicket = section.ticket
        return RippleNode.trackedForRunTicket
    }

    @inline(never)
    private func endReadForRun() {
        var section = rp_read_section_t(ticket: state.pointee.trackedRunReadTicket)
        var status = rp_node_read_end(graph, &section)
        let status2 = rp_async_track_end(graph, state.pointee.trackedRunNode)
        if status == .RP_OK { status = status2 }
        if _slowPath(status != .RP_OK) { runtime.fail(status, "reading", node: self) }
        runQueuedHooks()
    }

    /// Holds the graph exclusively around `body` (a batch: effects it makes due run when it ends), so that
    /// `body` may read and write this node's Swift state. Reentrant on the thread that holds the graph.
    ///
    /// A write inside a batch or inside a body of this runtime (the common case) runs `body` directly: this
    /// thread holds the graph already, and a nested batch would change nothing (its end cannot flush inside
    /// the outer batch or evaluation, and lifecycle hooks wait for the outermost batch).
    @inlinable
    final func exclusively<T>(_ body: () throws -> T) rethrows -> T {
        if threadHoldsGraph() { return try body() }
        return try exclusivelyHoldingGraph(body)
    }

    /// ``exclusively(_:)`` when this thread may not hold the graph yet: a batch around `body`, specialized where
    /// the caller is. The runtime is reached without a retain (a method call on the unowned(unsafe) reference
    /// would retain it and release it after the batch): this node keeps it alive while the caller holds the node,
    /// or, for a node the runtime owns, the runtime is alive while the node is.
    @inlinable
    final func exclusivelyHoldingGraph<T>(_ body: () throws -> T) rethrows -> T {
        try Unmanaged.passUnretained(unownedRuntime)._withUnsafeGuaranteedRef { try $0.holdingGraph(body) }
    }

    /// Computes a derivation as the evaluation in progress of its runtime (`host`, the runtime as the engine hands
    /// it to callbacks): runs its body inside ``evaluating(host:_:)`` and sets `changed` to whether the value
    /// changed. Called by the engine's compute callback, whose work it finishes (the callback calls it last and
    /// returns its status).
    func compute(host: UnsafeMutableRawPointer, changed: UnsafeMutablePointer<Bool>) -> rp_status_t {
        preconditionFailure("Ripple: internal error: a compute was called on \(label), which is not a derivation.")
    }

    /// Commits a written source: reports whether the value readers will see differs from the one they last saw.
    /// Called by the engine.
    func commit() -> Bool {
        true
    }

    /// Runs an effect-kind node as the evaluation in progress of its runtime (`host`, the runtime as the engine
    /// hands it to callbacks): enters the evaluation, runs ``runEffect()`` and leaves. Called by the engine's run
    /// callback, with a strong reference held for the duration. ``Effect`` overrides it with its run inlined.
    func run(host: UnsafeMutableRawPointer) {
        evaluating(host: host) { runEffect() }
    }

    /// Runs `body` as the evaluation in progress of this node's runtime (`host`, the runtime as the engine hands it
    /// to callbacks): with the runtime as the thread's innermost evaluating one (`EvaluationThreadState`). Which
    /// node evaluates, the engine knows (`Runtime.evaluatingNode`): nothing else to save. Inlined into each kind's
    /// compute or run, so that the engine's callback reaches the node's code through one class call and the
    /// evaluation costs no frame of its own.
    @inline(__always)
    final func evaluating<T>(host: UnsafeMutableRawPointer, _ body: () -> T) -> T {
        EvaluationThreadState.evaluating(host, body)
    }

    /// The body of an effect-kind node's run (see `run(host:)`).
    func runEffect() {
        preconditionFailure("Ripple: internal error: runEffect() called on \(label), which is not an effect.")
    }

    /// Hands an update of a deferred effect to its scheduler. Called by the engine while the graph is held.
    func scheduleUpdate() {
        preconditionFailure("Ripple: internal error: scheduleUpdate() called on \(label), which is not an effect.")
    }

    /// Keeps a cleanup registered by this node's running body (``onCleanup(_:)-37wcr``) and returns true; false
    /// when no body of this node is running (an effect's cleanups, an async derivation's start of a run, a
    /// subscriber), where `onCleanup` traps. Called while the graph is held, on the runtime's evaluating node.
    func register(cleanup: @escaping () -> Void) -> Bool {
        false
    }

    /// `Runtime.didMutate(_:)` for Ripple's own nodes: only atoms react.
    func externalMutation() {}

    /// The node's value for a ``Snapshot``: nil for nodes that are not atoms. Overridden by `AtomObject`, which
    /// also answers nil when it opted out (``AtomObject/isRestorable``). Called while the graph is held.
    func captureValue() -> CapturedValue? { nil }

    /// Whether `runtime.snapshot()` leaves this node out and lists it as skipped: true only for an atom that
    /// opted out. Called while the graph is held.
    var isSkippedBySnapshots: Bool { false }

    /// Asks the runtime's declarations to keep this declared instance, written for the first time (or since its
    /// reset): a write must not be lost when nobody holds the node. Lets go of the members the family's eviction
    /// policy gives up for it. Called while the graph is held.
    final func keepWrittenDeclaration() {
        let evicted = declaredInstance?.keepWritten(self)
        _ = evicted  // released here: their records take them out of the store and queue their release hooks
    }

    /// Makes a declared atom instance unwritten again (`AtomObject`); nil for other nodes.
    func forgetDeclaredWrite() -> RippleNode? {
        nil
    }

    /// Marks a declared atom instance as not written yet (`AtomObject`); nothing for other nodes.
    func markUnwrittenDeclaration() {}

    /// Marks a declared atom instance as not written since, while the graph is held, if it can (`AtomObject`);
    /// false for other nodes.
    func markUnwritten() -> Bool {
        false
    }

    /// Writes back a value captured by ``captureValue()`` of this same node, as a write. Called while the graph
    /// is held, inside the restore's batch.
    func restoreValue(_ captured: CapturedValue) {
        preconditionFailure("Ripple: internal error: restoreValue(_:) called on \(label), which is not an atom.")
    }

    /// A copy of the node's cached value for a transaction's savepoint, which gives it back if the transaction
    /// rolls back after the node recomputed (`restoreValueForRollback(_:)`); nil when the node keeps none (the
    /// engine then recomputes it at the rollback). Overridden by `Derivation`. Called while the graph is held.
    func copyValueForRollback() -> Any? { nil }

    /// Makes `copy`, which `copyValueForRollback()` of this same node returned, its cached value again.
    func restoreValueForRollback(_ copy: Any) {}

    /// Writes back `value`, a value this same node reported in an ``AtomChange`` (a transaction's rollback, an
    /// undo), as a write: through the same path as a setter, so that the change log, the commit and every
    /// listener see an ordinary write. Called while the graph is held.
    func writeBack(_ value: Any) {
        preconditionFailure("Ripple: internal error: writeBack(_:) called on \(label), which is not an atom.")
    }
}

/// The bits of `RippleNode.marks`.
enum NodeMarks {
    /// The node has left the graph (`RippleNode.isDisposed`).
    static let disposed: UInt8 = 1
    /// The node has extras, in `NodeExtrasTable` (`RippleNode.hasExtras`).
    static let hasExtras: UInt8 = 2
    /// Cleanups registered by the last run of the node's body wait (`RippleNode.hasCleanups`).
    static let hasCleanups: UInt8 = 4
    /// The node's extras hold lifecycle hooks (`RippleNode.lifecycle`).
    static let hasLifecycle: UInt8 = 8
    /// The node's extras hold a write observer (`RippleNode.writeObserver`).
    static let hasWriteObserver: UInt8 = 16
}

/// What `RippleNode.readerRetention` says: whether the node's readers retain it and, for a derivation they retain,
/// whether its compute is the common one (`Derivation.recomputeFromCallback`: nothing to prepare). The compute
/// callback's fast path then tests this byte alone, where it tested the retention, the derivation trait and the
/// derivation's `prepares` one after another.
enum ReaderRetention: UInt8 {
    /// Not retained by its readers (none, or only a ``values`` observer): a compute first takes a reference.
    case none
    /// Retained by its readers; any node.
    case retained
    /// Retained by its readers, and a ``Derivation`` with nothing to prepare (`prepares` false): its compute runs
    /// `recompute` straight from the callback. Set by the derivation's first compute once retained (in
    /// `Runtime.computeRetained`, or `compute(host:changed:)`) and when `prepares` clears, and kept in step with
    /// `prepares`.
    case retainedDirectCompute
}
