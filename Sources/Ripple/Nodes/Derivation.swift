internal import CRipple

#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// A cached value computed from other nodes, recomputed only when something it read has changed.
///
/// A derivation is lazy: its body runs on the first read of ``value``, and again only when it is read (directly,
/// or by an effect re-validating) after one of the values its last run read has changed. Each run records exactly
/// what it read, so dependencies follow the code's branches. When a recomputation produces a value equal to the
/// previous one (`==` for `Equatable` values, or the derivation's own equality), nothing downstream re-runs;
/// without equality every recomputation counts as a change. Create one with `derive(_:)` or declare a property
/// with ``Derived``.
///
/// ```swift
/// let first = atom("Ada"), last = atom("Lovelace")
/// let full = derive { "\(first.value) \(last.value)" }
/// print(full.value)          // runs the body: "Ada Lovelace"
/// print(full.value)          // cached
/// last.value = "Byron"
/// print(full.value)          // runs again: "Ada Byron"
/// ```
///
/// ## Threading
/// Its body runs on the thread of the read (or write) that needs it, never on two threads at once; reads of an
/// up-to-date value from several threads do not wait for each other. The body keeps the isolation of the code that
/// creates the derivation: created outside any actor, it must be `Sendable` (the compiler checks it) and the
/// derivation may be read from any thread; created on the main actor (or another actor), it may touch that actor's
/// state, and computing it anywhere else traps with a message that names it. An up-to-date value can be read from
/// anywhere: only a recomputation runs the body.
///
/// ## Lifetime
/// A derivation leaves the graph when its last reference goes. Live effects (and derivations they read) that read
/// it keep it alive. The body closure is kept as long as the derivation: capture the nodes it reads strongly and
/// anything that owns the derivation weakly.
public final class Derivation<Value>: RippleNode, Publisher, Subscriber {
    /// Runs the derivation's body, stores the result in its cache and reports whether the value changed. Built
    /// where the value type is known (``derive(_:)`` and ``Derived`` are inlinable), so that the body's call, the
    /// comparison and the store are specialized code, not generic value-witness calls; it captures nothing (the
    /// usual ones: `storingEveryResult`, `storingUnlessEqual`), so a derivation allocates no closure context of its
    /// own, and keeps it in one word (`DerivationRecompute`). The engine's compute callback reaches it through one
    /// class call (`compute(host:changed:)`), which hands it the derivation.
    @usableFromInline typealias Recompute = (_ derivation: Derivation<Value>) -> Bool

    /// Whether `cached` is initialized. First: it fills the end of RippleNode's last word (see there).
    @usableFromInline @exclusivity(unchecked) var hasValue = false
    /// Whether a compute must do more than call `recompute`'s function: check the body's isolation
    /// (`isBoundToActor`), run the cleanups the last run registered (`hasCleanups`), or call a recompute that is a
    /// box (`DerivationRecompute.isBoxed`), which the callback's common paths, testing this flag, never see. One
    /// flag, so that the common compute tests one byte.
    /// Kept in step with `readerRetention` (`.retainedDirectCompute` only while false), which the engine's compute
    /// callback tests instead: set, it takes the derivation off the callback's common path; cleared, it puts a
    /// derivation its readers retain back on it (as does `compute(host:changed:)`, for one they have just
    /// retained). Touched while the graph is held (and in `init`, before the node has readers).
    private var prepares: Bool {
        @inline(__always) get { needsPreparing }
        set {
            needsPreparing = newValue
            if readerRetention != .none { readerRetention = newValue ? .retained : .retainedDirectCompute }
        }
    }
    /// Storage of `prepares`.
    @exclusivity(unchecked) private var needsPreparing = false
    /// The recompute, in one word (`DerivationRecompute`): its function, or a box the deinit releases.
    /// (Internal, not private: `DerivationRecomputeTests` check which it is.)
    let recompute: DerivationRecompute<Value>
    /// The body, called by `recompute`.
    @usableFromInline let body: () -> Value
    /// Where the cached value is, initialized by the first compute (`hasValue`). A pointer rather than an
    /// `Optional<Value>` property: generic code over `Optional<Value>` looks up its type metadata on every access,
    /// which would cost more than the rest of a read. It is `storage` itself when the value fits there
    /// (`fitsInline`, known from the type alone: no load), and the memory whose address `storage` keeps otherwise.
    @inlinable var cached: UnsafeMutablePointer<Value> {
        @inline(__always) get {
            if Derivation.fitsInline {
                // Objects never move: `storage`'s address is fixed for the object's lifetime. Computed from the
                // object's address rather than taken with `&storage`, which the thread sanitizer counts as a write.
                return (Unmanaged.passUnretained(self).toOpaque() + Derivation.storageOffset)
                    .assumingMemoryBound(to: Value.self)
            }
            return UnsafeMutablePointer(bitPattern: UInt(truncatingIfNeeded: storage)).unsafelyUnwrapped
        }
    }
    /// Where `storage` is in the object: after the header (16 bytes), RippleNode's fields and the two flags (24),
    /// the recompute (8) and the body (16), none of which depends on `Value`. `init` checks it.
    @inlinable static var storageOffset: Int { 64 }
    /// A cached value of at most 8 bytes aligned to at most 8 (an `Int`, a `Double`, a `Bool`, an `Array`, a
    /// `Dictionary`, a reference, a small enum), or the address of the memory that holds a larger one (a `String`,
    /// an `Optional<Int>`, a struct of two words): most derivations keep their value in the object itself, which
    /// saves an allocation when the derivation is created, a free when it goes, and the allocation's own bytes.
    /// One word, not two: the object then takes an 80-byte malloc block, not a 96-byte one; a value of 9 to 16
    /// bytes pays a 32-byte block of its own instead (issue 37's pair, an atom and a derivation of an `Int`, is the
    /// common case it is sized for). Never read or written as an integer except for that address: only through
    /// `cached`, bound to `Value`. The address is set once, in `init`, before the node is shared.
    @usableFromInline @exclusivity(unchecked) var storage: UInt64 = 0
    // Cleanups registered by the last run (``onCleanup(_:)-37wcr``) are kept in the node's extras
    // (`RippleNode.appendCleanup(_:)`): few derivations register any, and a word here would take every derivation
    // of a word from a 96-byte block to a 112-byte one.

    /// Every derivation, its recompute given as a closure: made into its one word here, inlined where the caller
    /// is specialized, so that the usual recomputes are seen there to have no context (no retain, release or test
    /// of one at run time: generic, the closure's copies cost each derivation about 50 instructions).
    @inlinable
    convenience init(
        body: consuming @escaping () -> Value, recompute: consuming @escaping Recompute, label: borrowing String?,
        fileID: borrowing String, line: Int, runtime: consuming Runtime = .current,
        isolation: consuming BodyIsolation = .none
    ) {
        self.init(
            body: body, oneWordRecompute: DerivationRecompute(recompute), label: label, fileID: fileID, line: line,
            runtime: runtime, isolation: isolation)
    }

    /// Every derivation. The closures and the runtime are consumed: the caller's references become the node's (and
    /// the recompute's box, if it has one). The isolation is consumed too, and goes once the extras are made:
    /// destroyed only when `init` ends, it would keep the compiler retaining `self` around the engine call
    /// (`createNode`).
    @usableFromInline
    init(
        body: consuming @escaping () -> Value, oneWordRecompute recompute: DerivationRecompute<Value>,
        label: borrowing String?, fileID: borrowing String, line: Int, runtime: consuming Runtime,
        isolation: consuming BodyIsolation
    ) {
        self.body = consume body
        // Decided once, here: a runtime without the setting pays nothing per evaluation.
        let stored: DerivationRecompute<Value>
        if runtime.tracksObservableReads {
            stored = DerivationRecompute(runtime.trackingObservableReads(of: recompute.closure()))
            recompute.release()
        } else {
            stored = recompute
        }
        self.recompute = stored
        // A value that does not fit in the object gets memory of its own (a value that fits is bound below, once
        // `self` exists).
        if !Derivation.fitsInline { storage = UInt64(UInt(bitPattern: Derivation.allocateCache())) }
        // The actor the body was created on, where it is computed only (elsewhere it traps).
        let extras = NodeExtras.forBody(label: label, isolation: consume isolation)
        // No reader yet: nothing to keep in step.
        needsPreparing = !(extras?.isolation.isNone ?? true) || stored.isBoxed
        super.init(runtime: runtime, extras: consume extras, fileID: fileID, line: line, hasDirectCallbacks: true)
        // Lazy: the engine node computes nothing before the first read, after the cache is bound below.
        createNode(.RP_KIND_COMPUTED)
        // A final class's stored property without observers is accessed in place: this is `storage` itself.
        let address = withUnsafeMutableBytes(of: &storage) { $0.baseAddress.unsafelyUnwrapped }
        precondition(
            address == Unmanaged.passUnretained(self).toOpaque() + Derivation.storageOffset,
            "Ripple: internal error: Derivation.storageOffset does not match the object's layout; update it.")
        if Derivation.fitsInline { _ = address.bindMemory(to: Value.self, capacity: 1) }
    }

    /// Stores the first result: the cache is initialized from now on.
    @inlinable @inline(__always)
    func storeFirst(_ value: Value) {
        cached.initialize(to: value)
        hasValue = true
    }

    /// Every result is a change.
    @inlinable
    static var storingEveryResult: Recompute {
        { derivation in
            let next = derivation.body()
            if derivation.hasValue { derivation.cached.pointee = next } else { derivation.storeFirst(next) }
            return true
        }
    }

    /// A result equal to the cached value by `equals` is no change.
    @inlinable
    static func storing(equals: @escaping (Value, Value) -> Bool) -> Recompute {
        { derivation in
            let next = derivation.body()
            guard derivation.hasValue else {
                derivation.storeFirst(next)
                return true
            }
            if equals(derivation.cached.pointee, next) { return false }
            derivation.cached.pointee = next
            return true
        }
    }

    override func copyValueForRollback() -> Any? {
        hasValue ? cached.pointee : nil
    }

    override func restoreValueForRollback(_ copy: Any) {
        // `copy` came from `copyValueForRollback()` of this node: a `Value`.
        cached.pointee = copy as! Value
    }

    deinit {
        // Out of the graph first: until then another thread's flush may re-validate this derivation for a `values`
        // observer (which does not keep it alive), and a compute writes `cached`.
        leaveGraphBeforeFreeing()
        if hasCleanups { for cleanup in takeCleanups() { cleanup() } }
        if hasValue { cached.deinitialize(count: 1) }
        if !Derivation.fitsInline { Derivation.deallocateCache(cached) }
        recompute.release()
    }

    /// Whether a `Value` fits in `storage`: decided by the type alone.
    @inlinable static var fitsInline: Bool {
        MemoryLayout<Value>.size <= MemoryLayout<UInt64>.size
            && MemoryLayout<Value>.alignment <= MemoryLayout<UInt64>.alignment
    }

    /// Memory for a cached value that does not fit in `storage`: from malloc, unless the value is aligned beyond
    /// what malloc guarantees. (`UnsafeMutablePointer.allocate` takes the runtime's aligned path, `posix_memalign`,
    /// about 200 instructions more per derivation created.)
    private static func allocateCache() -> UnsafeMutablePointer<Value> {
        guard MemoryLayout<Value>.alignment <= mallocAlignment else { return .allocate(capacity: 1) }
        guard let memory = malloc(max(MemoryLayout<Value>.size, 1)) else {
            fatalError("Ripple: out of memory creating a derivation.")
        }
        return memory.bindMemory(to: Value.self, capacity: 1)
    }

    /// Frees what `allocateCache()` returned.
    private static func deallocateCache(_ cache: UnsafeMutablePointer<Value>) {
        if MemoryLayout<Value>.alignment <= mallocAlignment { free(cache) } else { cache.deallocate() }
    }

    /// The alignment of every block malloc returns (16 on the 64-bit platforms Swift runs on).
    private static var mallocAlignment: Int { 2 * MemoryLayout<Int>.size }

    /// The derivation's value, brought up to date first.
    ///
    /// Reading it records a read (inside another derivation or an effect, a dependency on this one), recomputes
    /// the body if something it read changed since the last run, and returns the cached value.
    ///
    /// ```swift
    /// let items = atom([3, 1, 2])
    /// let sorted = derive { items.value.sorted() }
    /// print(sorted.value)        // [1, 2, 3]
    /// ```
    ///
    /// Threading: from any thread. Reading a derivation inside its own body,
    /// directly or through others, traps with a message that names the cycle.
    @inlinable
    public var value: Value {
        // Inside an evaluation of this runtime (the common case) the ticket is 0 and the read is done: the load
        // needs no section. Any other ticket (outside evaluations, or a failed read) takes the call.
        let ticket = beginEvaluationRead()
        if _slowPath(ticket != RippleNode.heldByEvaluationTicket) { return value(readingOutsideEvaluation: ticket) }
        if _slowPath(!hasValue) { missingValue(ticket) }
        return cached.pointee
    }

    /// ``value`` when `beginEvaluationRead()` did not read inside an evaluation. Outside evaluations of this
    /// runtime on this thread, a value whose type is plain bytes (`_isPOD`) is copied inside the engine's read
    /// section, in the common case by one engine call once `copiesOutsideEvaluation()` says so: for a value of at
    /// most 8 bytes, made from here and returned in a register (`copyWordOutsideEvaluation(copying:byteCount:)`),
    /// with no stack canary; for a larger one, into a temporary (`copyOutsideEvaluation(copying:into:byteCount:)`).
    /// Any other is loaded between
    /// the section's begin and end. A failed read inside an evaluation traps with its status. Specialized where the
    /// value type is known, out of line so that the common read stays short.
    @inlinable @inline(never)
    func value(readingOutsideEvaluation ticket: UInt32) -> Value {
        let value = readValue(outsideEvaluation: ticket)
        // The read may have computed the derivation, giving what it read a first reader: the `watched` hooks that
        // queued run before the read returns.
        runQueuedHooks()
        return value
    }

    /// The read of ``value(readingOutsideEvaluation:)``.
    @inlinable @inline(__always)
    func readValue(outsideEvaluation ticket: UInt32) -> Value {
        guard ticket == RippleNode.outsideEvaluationTicket else {
            endRead(ticket)  // a failed read inside an evaluation: traps with its status
            missingValue(ticket)
        }
        // Plain bytes that fit in a word (an `Int`, a `Double`, a `Bool`, a small enum): copied by one call that
        // returns them in a register.
        if _isPOD(Value.self) && MemoryLayout<Value>.size <= MemoryLayout<UInt64>.size {
            let word =
                _fastPath(copiesOutsideEvaluation())
                ? copyWordOutsideEvaluation(copying: UnsafeRawPointer(cached), byteCount: MemoryLayout<Value>.size)
                : readWordInSection(copying: UnsafeRawPointer(cached), byteCount: MemoryLayout<Value>.size)
            // A read that left no value never copied one: an internal error.
            if _slowPath(!hasValue) { missingValue(RippleNode.heldByEvaluationTicket) }
            return withUnsafeBytes(of: word) { $0.load(as: Value.self) }
        }
        if _isPOD(Value.self) {
            return withUnsafeTemporaryAllocation(of: Value.self, capacity: 1) { buffer in
                let destination = buffer.baseAddress.unsafelyUnwrapped
                if _fastPath(copiesOutsideEvaluation()) {
                    copyOutsideEvaluation(
                        copying: UnsafeRawPointer(cached), into: UnsafeMutableRawPointer(destination),
                        byteCount: MemoryLayout<Value>.size)
                } else {
                    readOutsideEvaluation(
                        copying: UnsafeRawPointer(cached), into: UnsafeMutableRawPointer(destination),
                        byteCount: MemoryLayout<Value>.size)
                }
                // A read that left no value never copied one: an internal error.
                if _slowPath(!hasValue) { missingValue(RippleNode.heldByEvaluationTicket) }
                return destination.move()
            }
        }
        let section = beginReadOutsideEvaluation()
        if _slowPath(!hasValue) { missingValue(section) }
        let value = cached.pointee
        endRead(section)
        return value
    }

    /// Brings the cached value up to date without recording a read.
    ///
    /// This is what the runtime does when an effect re-validates the derivation; you rarely need it. Inside a
    /// derivation or effect it does not make this derivation a dependency.
    ///
    /// ```swift
    /// let total = derive { expensiveSum() }
    /// total.run()                // compute now, ahead of the first read
    /// ```
    ///
    /// Threading: as for ``value``.
    public func run() {
        _ = rp_untracked_begin(graph)
        recordRead()
        _ = rp_untracked_end(graph)
    }

    /// Runs the body again although nothing it read changed: for a value that depends on something outside the
    /// graph (the clock, a file, a cache you cleared).
    ///
    /// The derivation is marked out of date, as when one of its inputs changes. Unobserved, it recomputes
    /// lazily, on the next read of ``value``; observed (an effect reads it, directly or through other
    /// derivations), it recomputes before `refresh()` returns, or when the enclosing ``batch(_:)`` ends. Its
    /// readers then see the new value glitch-free and re-run once, and only if the new value differs from the old
    /// one (equality cut-off). Several refreshes in one batch compute it once.
    ///
    /// ```swift
    /// let now = derive { Date.now.formatted(date: .omitted, time: .shortened) }
    /// let clock = Effect { print(now.value) }
    /// now.refresh()              // the body runs again; the effect prints only if the text changed
    /// _ = clock
    /// ```
    ///
    /// Threading: from any thread, like a write. Calling it from inside the derivation's own body (directly, or
    /// from a body it is reading) traps: the value being computed cannot already be out of date.
    public func refresh() {
        let status = rp_node_invalidate(graph, handle)
        if _slowPath(status != .RP_OK) { failRefresh(status) }
    }

    @inline(never)
    private func failRefresh(_ status: rp_status_t) -> Never {
        guard status == .RP_EBUSY else { runtime.fail(status, "refreshing", node: self) }
        fatalError(
            """
            Ripple: derivation \(label) was refreshed while it was being computed (refresh() was called from its \
            own body, or from a body it was reading at the time). The value being computed is the one a refresh \
            would ask for. Fix: call refresh() from outside the derivation's body, for example from an effect or \
            after the read.
            """)
    }

    override var kindName: String { "derivation" }

    override var valueDescription: String? {
        hasValue ? (cached.pointee as? any CustomStringConvertible)?.description : nil
    }

    override func compute(host: UnsafeMutableRawPointer, changed: UnsafeMutablePointer<Bool>) -> rp_status_t {
        changed.pointee = evaluating(host: host) {
            if _slowPath(prepares) { prepare() }
            return recompute.run(self)
        }
        // A compute the callback's common path did not make (the watched callback leaves this to here).
        takeCommonComputePathIfRetained()
        return .RP_OK
    }

    /// The engine's compute callback's common path, for a node whose `readerRetention` is
    /// `.retainedDirectCompute` (the callback checks): a derivation its readers keep alive, with nothing to prepare,
    /// whose runtime the thread marks as evaluating already. Runs `recompute` itself, one call from the callback to
    /// the specialized code, instead of a class call to `compute(host:changed:)` and a second call from there: that
    /// frame less on every compute. Returns false, having done nothing, when the thread does not mark the runtime
    /// (the callback then takes its general path, which dispatches on the node's class).
    ///
    /// The callback does not know `Value`, so it sees the node as a `Derivation<ErasedDerivationValue>`, only once
    /// `readerRetention` says it is a derivation (only a derivation sets `.retainedDirectCompute`). That view reads
    /// the same memory for every `Value`: no stored property of `Derivation` has a layout that depends on `Value`
    /// (the cached value lives in `storage`, a word, or behind its address; `init` checks that `storageOffset`
    /// holds for each `Value`), so `recompute` is at the same offset in every derivation; and `recompute` takes the
    /// derivation as a class reference, one pointer whatever `Value` is (`DerivationRecompute`). The view touches nothing else: no
    /// `Value`, no type metadata.
    @inline(__always)
    static func recomputeFromCallback(
        _ node: UnsafeMutableRawPointer, host: UnsafeMutableRawPointer, changed: UnsafeMutablePointer<Bool>
    ) -> Bool where Value == ErasedDerivationValue {
        // The callback checked `readerRetention` (`.retainedDirectCompute`): a derivation, with nothing to prepare.
        if _slowPath(!EvaluationThreadState.names(host)) { return false }
        return Unmanaged<Derivation<ErasedDerivationValue>>.fromOpaque(node)._withUnsafeGuaranteedRef { derivation in
            changed.pointee = derivation.recompute.runFunction(derivation)
            return true
        }
    }

    /// The compute of a derivation from the compute callback's paths other than the direct one, when it has nothing
    /// to prepare and the thread marks its runtime as evaluating: runs `recompute` from here, as
    /// `recomputeFromCallback` does, instead of a class call to `compute(host:changed:)`. Returns false, having
    /// done nothing, otherwise.
    /// - `retained`: a derivation its readers retain that is not `.retainedDirectCompute` yet (the general path,
    ///   `Runtime.computeRetained`, for a node with the `.directCallbacks` trait). It becomes
    ///   `.retainedDirectCompute`, so that its first compute after it gained its readers is as short as the next
    ///   ones (in a graph where each node recomputes once per change, it is the only one). The retention is set
    ///   before the body runs: a cleanup the body registers sets `prepares`, which puts it back.
    /// - Otherwise a derivation its readers do not retain (`Runtime.computeUnlessDeinitializing`, which holds a
    ///   strong reference meanwhile): a derivation that gains and loses its only reader by turns (unstable
    ///   dependencies) takes this path on every compute. The retention is left as `compute(host:changed:)` leaves
    ///   it: a reader that retained it during the compute makes it `.retainedDirectCompute`.
    @inline(__always)
    static func recomputeFromGeneralPath(
        _ node: UnsafeMutableRawPointer, host: UnsafeMutableRawPointer, changed: UnsafeMutablePointer<Bool>,
        retained: Bool
    ) -> Bool where Value == ErasedDerivationValue {
        Unmanaged<Derivation<ErasedDerivationValue>>.fromOpaque(node)._withUnsafeGuaranteedRef { derivation in
            if _slowPath(derivation.needsPreparing || !EvaluationThreadState.names(host)) { return false }
            if retained { derivation.readerRetention = .retainedDirectCompute }
            changed.pointee = derivation.recompute.runFunction(derivation)
            if !retained { derivation.takeCommonComputePathIfRetained() }
            return true
        }
    }

    /// After a compute off the callback's common path: if the readers retain the derivation and it has nothing to
    /// prepare, the next compute takes that path (`.retainedDirectCompute`).
    @inline(__always)
    private func takeCommonComputePathIfRetained() {
        if readerRetention == .retained && !needsPreparing { readerRetention = .retainedDirectCompute }
    }

    /// Before a run of the body: checks where it runs (an isolated body), then runs the last run's cleanups.
    @inline(never)
    private func prepare() {
        if isBoundToActor { checkIsolation() }
        if hasCleanups {
            runCleanups()
            prepares = isBoundToActor || recompute.isBoxed
        }
    }

    override func register(cleanup: @escaping () -> Void) -> Bool {
        appendCleanup(cleanup)
        prepares = true
        return true
    }

    /// The derivation's value: the same as ``value``, for code written against a wrapper whose projected value
    /// was the wrapper itself (`$title.wrappedValue`).
    ///
    /// ```swift
    /// @Derived var title = "Count: \(count)"
    /// print($title.value)          // prefer this
    /// ```
    ///
    /// Threading: as for ``value``.
    @available(*, deprecated, renamed: "value", message: "$name of a @Derived property is its Derivation: read .value")
    @inlinable
    public var wrappedValue: Value {
        value
    }

    /// Traps unless the body's actor runs the calling code.
    @inline(never)
    private func checkIsolation() {
        let isolation = self.isolation
        isolation.preconditionIsolated(
            """
            Ripple: derivation \(label) was created on \(isolation.name), so its body may only run there, but it \
            had to be computed on another thread or actor (a read or an effect there needed its value). Read it \
            on \(isolation.name) only; or, to read it anywhere, create it outside any actor (a nonisolated \
            function) with a body that is Sendable.
            """)
    }

    /// A read that left no value: a failed read (a cycle, for instance) traps with its own message when its ticket
    /// ends; any other is an internal error.
    @usableFromInline @inline(never)
    func missingValue(_ ticket: UInt32) -> Never {
        endRead(ticket)
        fatalError("Ripple: internal error: derivation \(label) was read but never computed. Please report it.")
    }
}

/// The `Value` of the view the engine's compute callback takes of every derivation (`Derivation.computeFromCallback`),
/// whatever its real `Value`: never stored, never read.
struct ErasedDerivationValue {}

extension Derivation where Value: Equatable {
    /// A result equal (`==`) to the cached value is no change: the type's own `==`, specialized where the type is
    /// known.
    @inlinable
    static var storingUnlessEqual: Recompute {
        { derivation in
            let next = derivation.body()
            guard derivation.hasValue else {
                derivation.storeFirst(next)
                return true
            }
            if derivation.cached.pointee == next { return false }
            derivation.cached.pointee = next
            return true
        }
    }
}

/// Creates a derivation whose `Equatable` value cuts propagation when a recomputation gives an equal value.
///
/// The body runs on the first read and again after something it read changed; it belongs to
/// ``Runtime/current``.
///
/// ```swift
/// let count = atom(3)
/// let isEven = derive { count.value % 2 == 0 }
/// let log = Effect { print("even:", isEven.value) }   // prints "even: false"
/// count.value = 5                                      // isEven recomputes to false: the effect does not run
/// _ = log
/// ```
///
/// - Parameters:
///   - label: the name used in trap messages; by default the file and line of this call.
///   - fileID: the file of the call (leave the default).
///   - line: the line of the call (leave the default).
///   - body: computes the value from other nodes. It may write atoms (the write applies at once); it must not read
///     the derivation itself.
///
/// Threading: from any thread. Lifetime: the derivation and its body live as
/// long as you (or live readers) hold it.
@inlinable
public func derive<T: Equatable>(
    label: String? = nil, fileID: String = #fileID, line: Int = #line,
    @_inheritActorContext _ body: __owned @escaping @isolated(any) @Sendable () -> T
) -> Derivation<T> {
    // Each `derive` takes the body owned, so that the closure the caller made becomes the derivation's without a
    // retain for the call and a release after it. `__owned` rather than `consuming`: Swift 6.3.1's SILGen crashes
    // (signal 11) on a `consuming` `@isolated(any)` parameter.
    let isolation = BodyIsolation(body.isolation)
    return Derivation(
        body: callableWhereIsolated(consume body), recompute: Derivation.storingUnlessEqual, label: label,
        fileID: fileID, line: line, isolation: isolation)
}

/// Creates a derivation whose value is never considered equal to the previous one: every recomputation is a
/// change.
///
/// Used for values that are not `Equatable`; dependents re-run whenever the body re-runs.
///
/// ```swift
/// let size = atom(2)
/// let buffer = derive { NSMutableData(length: size.value)! }   // not Equatable
/// ```
///
/// - Parameters:
///   - label: the name used in trap messages; by default the file and line of this call.
///   - fileID: the file of the call (leave the default).
///   - line: the line of the call (leave the default).
///   - body: computes the value from other nodes; it must not read the derivation itself.
///
/// Threading: from any thread. Lifetime: the derivation and its body live as
/// long as you (or live readers) hold it.
@inlinable
public func derive<T>(
    label: String? = nil, fileID: String = #fileID, line: Int = #line,
    @_inheritActorContext _ body: __owned @escaping @isolated(any) @Sendable () -> T
) -> Derivation<T> {
    let isolation = BodyIsolation(body.isolation)
    return Derivation(
        body: callableWhereIsolated(consume body), recompute: Derivation.storingEveryResult, label: label,
        fileID: fileID, line: line, isolation: isolation)
}

/// Creates a derivation that compares successive values with your own equality.
///
/// When `equals(previous, new)` is true the recomputation is not a change: the cached value stays and nothing
/// downstream re-runs.
///
/// ```swift
/// let raw = atom(1.04)
/// let rounded = derive(equals: { abs($0 - $1) < 0.1 }) { raw.value }
/// ```
///
/// - Parameters:
///   - equals: returns true when two values are the same for the derivation's readers. It must not read or write
///     Ripple nodes.
///   - label: the name used in trap messages; by default the file and line of this call.
///   - fileID: the file of the call (leave the default).
///   - line: the line of the call (leave the default).
///   - body: computes the value from other nodes; it must not read the derivation itself.
///
/// Threading: from any thread. Lifetime: the derivation, its body and
/// `equals` live as long as you (or live readers) hold it.
@inlinable
public func derive<T>(
    equals: @escaping @Sendable (T, T) -> Bool, label: String? = nil, fileID: String = #fileID, line: Int = #line,
    @_inheritActorContext _ body: __owned @escaping @isolated(any) @Sendable () -> T
) -> Derivation<T> {
    let isolation = BodyIsolation(body.isolation)
    return Derivation(
        body: callableWhereIsolated(consume body), recompute: Derivation.storing(equals: equals), label: label,
        fileID: fileID, line: line, isolation: isolation)
}

// The cached value is written only by `compute(host:changed:)`, which the engine calls while the graph is held
// exclusively, and read between rp_node_read_begin and rp_node_read_end, which no compute overlaps
// (include/ripple.h, "threads"). The body runs under the same exclusion, so it never runs on two threads at once;
// and it runs only where its isolation allows: a body created outside any actor is `@Sendable` (checked at the
// creation site), and `compute(host:changed:)` checks that an actor-isolated body's actor is current before running
// it (`BodyIsolation`). So sharing the object between threads is safe when its values are.
extension Derivation: @unchecked Sendable where Value: Sendable {}
