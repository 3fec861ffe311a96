internal import CRipple

/// A mutable value that derivations and effects depend on when they read it.
///
/// Reading ``value`` inside a derivation or an effect records a dependency of that reader on the atom; writing a
/// different value marks the readers and, outside a ``batch(_:)``, runs the effects that depend on it before the
/// write returns. Writing a value equal to the current one (by `==`, or the atom's own equality) does nothing.
/// Create one with `atom(_:label:fileID:line:)`, or declare a property with ``Atom`` and reach the object as its
/// projected value (`$count`).
///
/// ```swift
/// let count = atom(0)
/// let log = Effect { print("count is", count.value) }   // prints "count is 0"
/// count.value = 1                                        // prints "count is 1"
/// count.value = 1                                        // equal: nothing runs
/// _ = log
/// ```
///
/// ## Threading
/// Any thread may read and write an atom at any time (see ``Runtime`` for the model). Each write is atomic, but
/// `count.value += 1` is a read and then a write: use ``update(_:)`` for a read-modify-write that no other
/// thread's write can slip into.
///
/// ## Lifetime
/// The atom leaves the graph when its last reference goes. Derivations and effects that read it keep it alive.
public final class AtomObject<Value>: RippleNode, Publisher {
    // The flags first: they fill the end of RippleNode's last word (see there).

    /// What happened to `latest` since the last commit (`AtomPendingWrites`): whether the next commit must compare
    /// the values, or knows the answer already. Usable from inlinable code: the inlined write (`store`) sets it.
    @usableFromInline @exclusivity(unchecked) var pendingWrites: UInt8 = 0
    /// ``isRestorable`` (cleared by `AtomFlags.notRestorable`) and whether a write observer is attached
    /// (`AtomFlags.observed`, AtomObject+WriteObserver.swift), in the byte the restorable flag took alone. Touched
    /// only while the graph is held. Usable from inlinable code: the inlined write (`store`) tests it.
    @usableFromInline @exclusivity(unchecked) var flags: UInt8 = 0

    /// The latest value written: what ``value`` returns.
    @usableFromInline @exclusivity(unchecked) var latest: Value
    /// The value readers saw at the last commit: a write counts as a change only if it differs from this one,
    /// so a value written and written back before anyone re-validates is no change. For a value of plain bytes
    /// (`_isPOD`), up to date only once a write was stored since the commit (`committedIsCurrent`): the commit
    /// leaves it, and the first write after it copies `latest` here (`store`), where the value's type is known,
    /// instead of the commit's copy through the value witness table in generic code. (A value with references is
    /// copied by the commit, so that the value before a write is not kept alive until the next one.) Usable from
    /// inlinable code for that.
    @usableFromInline @exclusivity(unchecked) var committed: Value
    /// The value the atom was created with: what ``reset()`` writes back. Usable from inlinable code: the
    /// inlinable `init` sets it.
    @usableFromInline let initial: Value
    /// The atom's equality, in one word (`AtomEquality`): `==`, never equal (every write and every commit is a
    /// change), or the atom's own closure: its function alone when it has no context, else a box the atom owns
    /// (released by the deinit).
    @usableFromInline let equality: AtomEquality<Value>

    /// An atom with an equality closure: `equals` nil means every write is a change. Named apart from the public
    /// initializers so that `AtomObject(value, equals: ...)` resolves to them. The value and `equals` are consumed:
    /// the caller's copies become the node's. Inlinable, as the `init` it calls.
    @inlinable
    convenience init(
        initial value: consuming Value, equals: consuming ((Value, Value) -> Bool)?, label: borrowing String?,
        fileID: borrowing String, line: Int
    ) {
        // Not `equals.map(...) ?? ...`: passing the closure through generic code wraps it in reabstraction thunks.
        let equality: AtomEquality<Value>
        if let equals = consume equals { equality = AtomEquality(equals) } else { equality = .never }
        self.init(initial: value, equality: equality, label: label, fileID: fileID, line: line)
    }

    /// Every atom. The value is consumed: the caller's copy becomes the node's; so is the box made for `equality`
    /// if it has one (`AtomEquality.init(_:)`), which the atom releases. The label and the place are borrowed: an
    /// unlabeled atom keeps neither string (`RippleNode.init`), so that the caller's literals cost no retain and no
    /// release.
    ///
    /// Inlinable, so that it is specialized where the value type is known (`atom(_:)` and the wrapper are
    /// inlinable too): generic, it copied the value three times through its value witnesses and found each field
    /// through the type's metadata (about 100 instructions per atom). What does not depend on `Value` is
    /// RippleNode's `init` and `createSourceNode(_:)`, out of line.
    @inlinable
    init(
        initial value: consuming Value, equality: AtomEquality<Value>, label: borrowing String?,
        fileID: borrowing String, line: Int
    ) {
        latest = copy value
        committed = copy value
        initial = consume value
        self.equality = equality
        // A value of plain bytes: the commit callback makes the common commit itself (`commitFromCallback`).
        super.init(
            runtime: .current, extras: .labeled(label), fileID: fileID, line: line,
            hasDirectCallbacks: _isPOD(Value.self))
        RippleNode.createSourceNode(Unmanaged.passUnretained(self).toOpaque())
        assert(
            hasPendingWritesWhereTheCommitReadsThem,
            "Ripple: internal error: an atom's pendingWrites is not where the commit callback's view reads it.")
    }

    /// Whether `pendingWrites` is where the commit callback's view of an atom (`commitFromCallback`) reads it: the
    /// check of the inlinable `init` (in debug builds).
    @usableFromInline var hasPendingWritesWhereTheCommitReadsThem: Bool {
        pendingWritesAddress
            == Unmanaged<AtomObject<ErasedAtomValue>>.fromOpaque(Unmanaged.passUnretained(self).toOpaque())
            ._withUnsafeGuaranteedRef { $0.pendingWritesAddress }
    }

    /// Where `pendingWrites` is in the object. (A final class's stored property without observers is accessed in
    /// place.)
    private var pendingWritesAddress: UnsafeRawPointer {
        withUnsafeMutablePointer(to: &pendingWrites) { UnsafeRawPointer($0) }
    }

    override var kindName: String { "atom" }

    override var valueDescription: String? {
        (latest as? any CustomStringConvertible)?.description
    }

    /// Whether `committed` holds the value readers saw at the last commit: always for a value with references; for
    /// plain bytes, once a write was stored since the commit (the first one copies it, `store`). Until then
    /// `latest` is that value (an in-place mutation, `didMutate`, leaves plain bytes as they were).
    @inlinable @inline(__always)
    var committedIsCurrent: Bool {
        !_isPOD(Value.self) || pendingWrites & AtomPendingWrites.written != 0
    }

    override var committedValueDescription: String? {
        let value = committedIsCurrent ? committed : latest
        return (value as? any CustomStringConvertible)?.description
    }

    /// Writes `newValue`, as setting ``value`` does, and tells a tracer where the write was made: a property setter
    /// cannot know its caller's file and line, so a traced write through ``value`` names no place.
    ///
    /// ```swift
    /// let quantity = atom(4, label: "quantity")
    /// quantity.set(5)            // a tracer shows: write quantity (Cart.swift:12) 4 → 5
    /// ```
    ///
    /// - Parameters:
    ///   - newValue: the value to store; equal to the current one, it is no write.
    ///   - fileID: the file of the call (leave the default).
    ///   - line: the line of the call (leave the default).
    ///
    /// Threading: from any thread, like a write of ``value``.
    public func set(_ newValue: Value, fileID: String = #fileID, line: Int = #line) {
        exclusively {
            if runtime.tracer != nil { state.pointee.writeSite = "\(fileID):\(line)" }
            store(newValue)
            state.pointee.writeSite = nil
        }
    }

    /// Writes back the value the atom was created with, as setting ``value`` to it does: equal to the current
    /// value, it is no write and nothing runs.
    ///
    /// ```swift
    /// let count = atom(0)
    /// count.value = 5
    /// count.reset()              // count.value == 0; readers re-run once
    /// count.reset()              // already 0: nothing runs
    /// ```
    ///
    /// A declared atom resets through its projected value: `$count.reset()`. A ``Runtime/restore(_:)`` or a
    /// write does not change what `reset()` writes.
    ///
    /// Threading: from any thread, like a write of ``value``.
    public func reset() {
        exclusively { store(initial) }
    }

    deinit {
        // Out of the graph before `latest` and `committed` go: until then another thread's flush may commit this
        // atom for a `values` observer, which does not keep it alive. (And before the equality's box goes: that
        // commit may compare.)
        leaveGraphBeforeFreeing()
        equality.release()
    }

    /// The atom's value.
    ///
    /// Getting it records a read (inside a derivation or effect, a dependency on this atom) and returns the latest
    /// value written, also inside a batch. Setting it stores the new value unless it equals the current one; a
    /// new value marks the atom's readers and, outside a batch, runs the effects that depend on it before the
    /// setter returns, in the order they were created.
    ///
    /// ```swift
    /// let name = atom("Ripple")
    /// name.value = "Ripple 2"       // dependents re-run
    /// name.value += "!"             // a get, then a set
    /// ```
    ///
    /// Threading: from any thread; each read and each write is atomic. A trap occurs when the atom is read inside a
    /// derivation or effect of another runtime.
    @inlinable
    public var value: Value {
        get {
            // Inside an evaluation of this runtime (most reads): `beginRead()`'s common case, inlined. Anywhere
            // else, one call.
            if _slowPath(!isEvaluatingOnThisThread) { return valueOutsideEvaluation() }
            // The engine's status: a failed read (a cycle, for instance) traps, and nothing is kept across the
            // call that does (no register saved for the value, no frame in a getter of its own). The read holds
            // no section to end.
            let status = readInEvaluation()
            if _slowPath(status != RippleNode.heldByEvaluationTicket) { failRead(status) }
            return latest
        }
        @inline(__always) set {
            // `exclusively`, spelled out: the write inside a batch or a body (the common case) stores in the
            // setter itself, without the call to a closure of its own. Inlined into the writer: a write inside a
            // batch is made in the batch's own code, where the thread-local marks the batch just set are known,
            // without a call and a frame of its own; a write that may not hold the graph takes a call.
            if _fastPath(threadHoldsGraph()) { return store(newValue) }
            storeHoldingGraph(newValue)
        }
    }

    /// The read of ``value`` outside evaluations of this runtime on this thread. Inside the runtime's own batch,
    /// when the atom was not written since its last commit (so its node is up to date: a write marks it stale, and
    /// only the commit clears both), the batch holds the graph and the value is loaded without the engine's read
    /// section (`threadHoldsGraphInOwnBatch()`), about 130 instructions a read less (`runtime.batch { n.value
    /// += 1 }`). `pendingWrites` is loaded only once the graph is known to be held. Anywhere else, or after a
    /// write (the read commits it), the section. Specialized where the value type is known, out of line.
    @inlinable @inline(never)
    func valueOutsideEvaluation() -> Value {
        if threadHoldsGraphInOwnBatch() && pendingWrites == 0 {
            noteReadInOwnBatch()
            return latest
        }
        let ticket = beginReadOutsideEvaluation()
        let value = latest
        endRead(ticket)
        return value
    }

    /// The write of ``value`` when this thread may not hold the graph yet: in a batch of its own (which runs the
    /// effects the write made due before it returns). Out of line, so that the inlined setter stays short.
    @inlinable @inline(never)
    func storeHoldingGraph(_ newValue: Value) {
        exclusivelyHoldingGraph { store(newValue) }
    }

    /// Reads and writes the value in one atomic step: `body` gets the current value to modify in place, and no
    /// other thread reads or writes the graph until it returns. A result that equals the value before (by the
    /// atom's equality) is no write. Returns what `body` returns.
    ///
    /// ```swift
    /// let hits = atom(0)
    /// DispatchQueue.concurrentPerform(iterations: 1_000) { _ in
    ///     hits.update { $0 += 1 }
    /// }
    /// print(hits.value)           // 1000: no increment lost
    /// ```
    ///
    /// - Parameter body: modifies the value. It may read other nodes (untracked outside derivations and effects)
    ///   but should be short: every other thread using the runtime waits for it.
    ///
    /// Threading: from any thread. Like a write, it runs the effects that depend on the change before it returns,
    /// outside a batch.
    @inlinable
    @discardableResult
    public func update<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try exclusively {
            var next = latest
            let result = try body(&next)
            store(next)
            return result
        }
    }

    /// Makes `next` the value unless it equals the current one. Called while the graph is held. Inlined into the
    /// write (the setter of ``value``, `update`), which is specialized where the value type is known.
    @inlinable @inline(__always)
    func store(_ next: Value) {
        if equality.areEqual(latest, next) { return }
        // Plain bytes: the first write since the commit brings `committed` up to date (see there); specialized,
        // a load and a store.
        if !committedIsCurrent { committed = latest }
        // The first write since the commit differs from `latest`, which equals `committed` then: a change the commit
        // need not compare again. A second one may write the committed value back: the commit compares. (`written`
        // on each write; `writtenAgain`, the next bit, once `written` is set already: no branch.)
        let pending = pendingWrites
        // A declared instance's first write: its runtime keeps it from now on (the bit is never set otherwise).
        if _slowPath(pending & AtomPendingWrites.unwrittenDeclaration != 0) { return storeFirstDeclaredWrite(next) }
        pendingWrites = pending | AtomPendingWrites.written | (pending & AtomPendingWrites.written) &<< 1
        // A change hook needs the old value, which the assignment below would drop: only then the slow path.
        if _slowPath(state.pointee.changeHookCount != 0) { return storeReportingChange(next) }
        // A write observer (a persisted atom's) gets the value written: only an observed atom takes this branch.
        if _slowPath(flags & AtomFlags.observed != 0) { return storeNotifyingObserver(next) }
        latest = next
        announceSourceWrite()
    }

    /// `store`'s first write of a declared instance that was not written yet (or since its reset): the runtime's
    /// declarations keep the instance from now on, so that the value is not lost when nobody holds the node
    /// (``RippleNode/keepWrittenDeclaration()``); then the write. Out of line: no other atom has the bit.
    @usableFromInline @inline(never)
    func storeFirstDeclaredWrite(_ next: Value) {
        pendingWrites &= ~AtomPendingWrites.unwrittenDeclaration
        keepWrittenDeclaration()
        store(next)
    }

    /// Makes this declared instance unwritten again, after a write of its default (a reset, an override): the
    /// runtime stops keeping it for its write, and its next write is kept again. Returns the reference the
    /// runtime held, to let go of once the graph is free. Called while the graph is held. Does nothing for an
    /// instance the runtime keeps anyway (`keepAlive`), for other atoms, and while an in-place mutation waits for
    /// its commit (whose fast path clears every bit): the instance then stays kept, and no write is lost.
    override func forgetDeclaredWrite() -> RippleNode? {
        guard let record = declaredInstance, record.keepsWrites, markUnwritten() else { return nil }
        return record.forgetWrite(of: self)
    }

    /// Marks a declared instance that nothing wrote yet: its first write asks the runtime to keep it. Called once,
    /// by the instance's installation, before the node is shared.
    override func markUnwrittenDeclaration() {
        exclusively { _ = markUnwritten() }
    }

    /// Sets `unwrittenDeclaration`, unless an in-place mutation waits for its commit (whose fast path clears every
    /// bit): returns whether it did. Called while the graph is held, by the store too (an eviction).
    override func markUnwritten() -> Bool {
        if pendingWrites & AtomPendingWrites.mutatedInPlace != 0 { return false }
        pendingWrites |= AtomPendingWrites.unwrittenDeclaration
        return true
    }

    /// Writes `value`, the declaration's default evaluated again, and forgets that the instance was written: what
    /// a declared atom's reset and an override do, in one step of the graph (no other write slips between them,
    /// which would then not be kept).
    func writeDefault(_ value: Value) {
        let released = exclusively { () -> RippleNode? in
            store(value)
            return forgetDeclaredWrite()
        }
        _ = released  // let go of here, outside the graph
    }

    /// Makes this declared instance unwritten again without writing it (`AtomFamily.remove(_:)`).
    func forgetWrite() {
        let released = exclusively { forgetDeclaredWrite() }
        _ = released  // let go of here, outside the graph
    }

    /// `store` while change hooks are installed: the write, then the change handed to every hook, while the
    /// graph is still held (so hooks see changes in the order writes are applied). Kept out of line so that the
    /// inlined write stays small.
    @usableFromInline @inline(never)
    func storeReportingChange(_ next: Value) {
        let old = latest
        latest = next
        announceSourceWrite()
        runtime.reportChange(AtomChange(atom: self, oldValue: old, newValue: next))
    }

    /// Whether ``Runtime/snapshot()`` captures this atom and ``Runtime/restore(_:)`` writes it back. True by
    /// default; set it to false for values that must not travel back in time or be copied into a snapshot
    /// (a secret, a handle to a resource, a value owned by the system): the atom is then listed in
    /// ``Snapshot/skipped`` instead.
    ///
    /// ```swift
    /// let token = atom("s3cr3t", label: "token")
    /// token.isRestorable = false
    /// let snapshot = Runtime.current.snapshot()
    /// print(snapshot.skipped.map(\.label))      // ["token"]
    /// ```
    ///
    /// Threading: from any thread; the change applies to the snapshots captured after it. Declared atoms
    /// (``Atom``) opt out through their projected value: `$token.isRestorable = false`.
    public var isRestorable: Bool {
        get { exclusively { flags & AtomFlags.notRestorable == 0 } }
        set {
            exclusively {
                flags = newValue ? flags & ~AtomFlags.notRestorable : flags | AtomFlags.notRestorable
            }
        }
    }

    override var isSkippedBySnapshots: Bool { flags & AtomFlags.notRestorable != 0 }

    override func captureValue() -> CapturedValue? {
        isSkippedBySnapshots ? nil : CapturedAtomValue(latest, equals: equality.closure())
    }

    override func restoreValue(_ captured: CapturedValue) {
        // The snapshot found this node by its engine handle, whose generation is checked: it is the node that
        // made `captured`, so the box holds a `Value`.
        store(unsafeDowncast(captured, to: CapturedAtomValue<Value>.self).value)
    }

    override func writeBack(_ value: Any) {
        // `value` came from an `AtomChange` of this atom (Transaction.swift, UndoHistory.swift), which holds the
        // atom's `Value` as `Any`.
        store(value as! Value)
    }

    override func commit() -> Bool {
        // The commit callback makes this test itself for a value of plain bytes (`commitFromCallback`), and
        // calls here only when it fails. Otherwise the values are compared, out of line. A value of plain bytes is
        // not copied to `committed` here: the next write does it (see there), where a copy through the value
        // witness table, a call in this generic code, is a load and a store.
        if _fastPath(AtomPendingWrites.commitIsAChange(pendingWrites)) {
            pendingWrites = 0
            if !_isPOD(Value.self) { committed = latest }
            return true
        }
        return commitComparingValues()
    }

    /// The engine's commit callback's path for a source with the `.directCallbacks` trait (of the sources, only an
    /// atom whose value is plain bytes has it): `commit()`'s common case (one write since the last commit, or an
    /// in-place mutation: a change, and nothing to copy for plain bytes) made in the callback, without a class
    /// call and a frame of its own on every commit; any other case takes the class call, out of line
    /// (`Runtime.commitByClassCall`).
    ///
    /// The callback does not know `Value`, so it sees the atom as an `AtomObject<ErasedAtomValue>`, only once the
    /// trait says it is an atom of plain bytes. That view reads `pendingWrites` only, the first stored property
    /// after RippleNode's, at the same offset whatever `Value` is: no `Value`, no type metadata.
    @inline(__always)
    static func commitFromCallback(_ node: UnsafeMutableRawPointer) -> Bool where Value == ErasedAtomValue {
        let committed = Unmanaged<AtomObject<ErasedAtomValue>>.fromOpaque(node)._withUnsafeGuaranteedRef { atom in
            if _fastPath(AtomPendingWrites.commitIsAChange(atom.pendingWrites)) {
                atom.pendingWrites = 0
                return true
            }
            return false
        }
        if _fastPath(committed) { return true }
        // A class call: `AtomObject` is final, so a call on the view would run the view's own commit.
        return Runtime.commitByClassCall(node)
    }

    /// The commit after several writes, or none that this object saw: compares the value readers saw with the
    /// latest one. Generic code (the engine reaches it through the class): `areEqual(committed, latest)` would copy
    /// both values into temporaries first. `equals` must not touch the graph, so nothing writes them while it
    /// runs.
    @inline(never)
    private func commitComparingValues() -> Bool {
        if !committedIsCurrent { committed = latest }
        let changed = !AtomObject.compare(&committed, &latest, by: equality)
        // A declared instance's reset may have marked it unwritten since the write this commit sees: kept.
        pendingWrites &= AtomPendingWrites.unwrittenDeclaration
        committed = latest
        return changed
    }

    /// `equality.areEqual(a, b)`, with the values borrowed where they are.
    @inline(__always)
    private static func compare(_ a: inout Value, _ b: inout Value, by equality: AtomEquality<Value>) -> Bool {
        equality.areEqual(a, b)
    }

    override func externalMutation() {
        exclusively {
            if _slowPath(pendingWrites & AtomPendingWrites.unwrittenDeclaration != 0) {
                pendingWrites &= ~AtomPendingWrites.unwrittenDeclaration
                keepWrittenDeclaration()
            }
            pendingWrites |= AtomPendingWrites.mutatedInPlace
            announceSourceWrite()
            // Mutated in place: the value before is gone, so the change shows the value after on both sides.
            if _slowPath(state.pointee.changeHookCount != 0) {
                runtime.reportChange(AtomChange(atom: self, oldValue: latest, newValue: latest))
            } else if _slowPath(flags & AtomFlags.observed != 0) {
                notifyWriteObserver(latest)
            }
        }
    }
}

/// The `Value` of the view the engine's commit callback takes of every atom of plain bytes
/// (`AtomObject.commitFromCallback`), whatever its real `Value`: never stored, never read.
struct ErasedAtomValue {}

/// The bits of an atom's `pendingWrites`, cleared by each commit (but `unwrittenDeclaration`).
@usableFromInline enum AtomPendingWrites {
    /// A write since the last commit stored a value that its comparison found different from `latest`.
    @inlinable static var written: UInt8 { 1 }
    /// More than one such write: the last may have written the committed value back.
    @inlinable static var writtenAgain: UInt8 { 2 }
    /// `Runtime.didMutate` announced an in-place mutation: the commit is a change whatever equality says.
    @inlinable static var mutatedInPlace: UInt8 { 4 }
    /// Not a write: the atom is a declared instance that nothing wrote since its creation or its reset, which
    /// its runtime does not keep yet (`AtomObject.storeFirstDeclaredWrite`). No commit clears it: with it set, the
    /// commit's fast paths, which clear every bit (one write alone, an in-place mutation), are never taken (it is
    /// never set while an in-place mutation waits), and the slow path keeps it.
    @inlinable static var unwrittenDeclaration: UInt8 { 8 }

    /// Whether the commit of an atom whose `pendingWrites` are `pending` is a change without comparing values: one
    /// write since the last commit (its own comparison found it a change, see `AtomObject.store`), or an in-place
    /// mutation (a change whatever equality says). Otherwise (several writes, or none the atom saw) the commit
    /// compares.
    @inline(__always)
    static func commitIsAChange(_ pending: UInt8) -> Bool {
        pending == written || pending & mutatedInPlace != 0
    }
}

extension AtomObject where Value: Equatable {
    /// Creates an atom holding `value`, compared with `==`: the same as `atom(_:label:fileID:line:)`.
    ///
    /// The atom belongs to ``Runtime/current``.
    ///
    /// ```swift
    /// let temperature = AtomObject(72)
    /// temperature.value = 73
    /// ```
    ///
    /// - Parameters:
    ///   - value: the initial value.
    ///   - label: the name used in trap messages; by default the file and line of this call.
    ///   - fileID: the file of the call (leave the default).
    ///   - line: the line of the call (leave the default).
    ///
    /// Threading: from any thread. Lifetime: as for `atom(_:label:fileID:line:)`.
    @inlinable
    public convenience init(_ value: Value, label: String? = nil, fileID: String = #fileID, line: Int = #line) {
        self.init(initial: value, equality: .equatable, label: label, fileID: fileID, line: line)
    }
}

extension AtomObject {
    /// Creates an atom holding `value`, compared with your own equality: the same as
    /// `atom(_:equals:label:fileID:line:)`.
    ///
    /// ```swift
    /// let position = AtomObject(CGPoint.zero, equals: { $0.x == $1.x && $0.y == $1.y })
    /// ```
    ///
    /// - Parameters:
    ///   - value: the initial value.
    ///   - equals: returns true when two values are the same for the atom's readers; it must not read or write
    ///     Ripple nodes.
    ///   - label: the name used in trap messages; by default the file and line of this call.
    ///   - fileID: the file of the call (leave the default).
    ///   - line: the line of the call (leave the default).
    ///
    /// Threading: from any thread. Lifetime: as for `atom(_:equals:label:fileID:line:)`.
    @inlinable
    public convenience init(
        _ value: Value, equals: @escaping @Sendable (Value, Value) -> Bool, label: String? = nil,
        fileID: String = #fileID, line: Int = #line
    ) {
        self.init(initial: value, equals: equals, label: label, fileID: fileID, line: line)
    }
}

// The atom's mutable state (`latest`, `committed`, `pendingWrites`; `initial` never changes) is written only while
// its runtime's graph is held exclusively (writes and `update` run in a batch; commits run inside engine calls) and
// read either there or between rp_node_read_begin and rp_node_read_end, which the engine guarantees no write
// overlaps (include/ripple.h, "threads"). So sharing the object between threads is safe when its values are.
extension AtomObject: @unchecked Sendable where Value: Sendable {}

/// Creates an atom holding `value`, compared with `==`.
///
/// The atom belongs to ``Runtime/current``. A write of a value equal to the current one does nothing.
///
/// ```swift
/// let count = atom(0)
/// let doubled = derive { count.value * 2 }
/// count.value = 21
/// print(doubled.value)        // 42
/// ```
///
/// - Parameters:
///   - value: the initial value.
///   - label: the name used in trap messages; by default the file and line of this call.
///   - fileID: the file of the call (leave the default).
///   - line: the line of the call (leave the default).
///
/// Threading: from any thread. Lifetime: the atom lives as long as you (or the
/// derivations and effects that read it) hold it.
@inlinable
public func atom<T: Equatable>(
    _ value: T, label: String? = nil, fileID: String = #fileID, line: Int = #line
) -> AtomObject<T> {
    AtomObject(initial: value, equality: .equatable, label: label, fileID: fileID, line: line)
}

/// Creates an atom holding `value`, compared with your own equality.
///
/// A write of a value for which `equals(current, new)` is true does nothing. Any type works, `Equatable` or not.
///
/// ```swift
/// let temperature = atom(20.0, equals: { abs($0 - $1) < 0.5 })
/// temperature.value = 20.2                 // "equal": nothing runs
/// ```
///
/// - Parameters:
///   - value: the initial value.
///   - equals: returns true when two values are the same for the atom's readers. Called on writes and on
///     commits; it must not read or write Ripple nodes.
///   - label: the name used in trap messages; by default the file and line of this call.
///   - fileID: the file of the call (leave the default).
///   - line: the line of the call (leave the default).
///
/// Threading: from any thread. Lifetime: the atom (and `equals`) live as long
/// as you (or the derivations and effects that read it) hold it.
@inlinable
public func atom<T>(
    _ value: T, equals: @escaping @Sendable (T, T) -> Bool, label: String? = nil, fileID: String = #fileID,
    line: Int = #line
) -> AtomObject<T> {
    AtomObject(initial: value, equals: equals, label: label, fileID: fileID, line: line)
}
