internal import CRipple
internal import CRippleThreadState

/// One dependency graph: the atoms, derivations and effects created in it, and the edges between them.
///
/// Every node belongs to the runtime that was ``Runtime/current`` when it was created, and all its reads and
/// writes go to that runtime's graph. Most code never names a runtime: nodes land in ``Runtime/shared``, and
/// tests give each test a fresh graph with `withIsolatedRuntime(_:)`.
///
/// ```swift
/// let runtime = Runtime()
/// withIsolatedRuntime(using: runtime) {
///     let count = atom(0)
///     let doubled = derive { count.value * 2 }
///     print(doubled.value)            // 0
///     count.value = 21
///     print(doubled.value)            // 42
/// }
/// ```
///
/// ## Threading
/// One runtime may be used from any thread, task or actor at once. Every write, ``batch(_:)`` and
/// ``AtomObject/update(_:)`` is atomic, and all of them happen in one order; a read returns a value consistent with
/// a prefix of that order, and a derivation's value always comes from one consistent set of its inputs. Reads of
/// up-to-date values do not wait for each other; a write, or a read that has to recompute, holds the graph while
/// it works (other threads wait for it). Derivation bodies and effects never run on two threads at once: a body
/// runs on the thread whose read or write needed it, and an effect by default on the thread of the write (or
/// batch end) that triggered it. Bind an effect that touches main-actor state to ``EffectScheduler/mainActor``
/// (`Effect(on: .mainActor) { ... }`) so that writes from other threads are rendered there, coalesced. Code that
/// holds the graph (a batch, a body, an effect) must not wait for another thread that uses the same runtime.
///
/// ## Lifetime
/// Every node holds its runtime strongly, so a runtime lives at least as long as its nodes; when its last node
/// and its last user reference are gone, it frees its graph. ``Runtime/shared`` lives for the whole process.
public final class Runtime {
    /// The process-wide runtime: where nodes go when no ``RippleContext/runtimeOverride`` is set.
    ///
    /// ```swift
    /// let count = atom(0)                                   // outside withIsolatedRuntime
    /// assert(count.runtime === Runtime.shared)
    /// ```
    ///
    /// Threading: like every runtime, usable from any thread, task or actor.
    /// Lifetime: it is never freed.
    public static let shared = Runtime()

    /// The runtime new nodes are created in, and that ``batch(_:)`` and ``untracked(_:)`` use.
    ///
    /// It is the task-local ``RippleContext/runtimeOverride`` when one is set (by `withIsolatedRuntime(_:)`
    /// or `withIsolatedRuntime(using:_:)`), otherwise ``Runtime/shared``.
    ///
    /// ```swift
    /// withIsolatedRuntime {
    ///     assert(Runtime.current !== Runtime.shared)
    /// }
    /// ```
    ///
    /// Threading: the override is a task-local value, so child tasks inherit it and other tasks do not see it.
    /// Lifetime: the returned runtime is retained by the caller like any object.
    public static var current: Runtime {
        boundRuntime ?? shared
    }

    /// ``RippleContext/runtimeOverride``, read without `TaskLocal.get()`: that function is generic and not
    /// inlinable, so it copies the `Runtime?` through its value witnesses, about 100 instructions more than the
    /// look-up itself, paid by every node created. A `TaskLocal`'s key is the `TaskLocal` object's address (its
    /// `key` and `withValue` are emitted into client code, so that is part of the Concurrency library's ABI), and
    /// the runtime's look-up returns the address of the bound value (nil when none is bound: the default, nil).
    @inline(__always)
    static var boundRuntime: Runtime? {
        let key = Unmanaged.passUnretained(RippleContext.$runtimeOverride).toOpaque()
        guard let value = taskLocalValue(forKey: key) else { return nil }
        return value.load(as: Runtime?.self)
    }

    /// What reads and writes need (the change hook count, a tracked read's section), in memory allocated once:
    /// nodes reach this pointer through their unowned reference to the runtime, so a read or a write costs no
    /// reference counting and no exclusivity check. Only the thread holding the graph touches it.
    @usableFromInline let state: UnsafeMutablePointer<RuntimeState>

    /// The installed change hooks (`onChange`), in installation order. Read and written only while the graph is
    /// held, like `state`: no exclusivity check (each change reported to the hooks made two).
    @exclusivity(unchecked) var changeHooks: [ChangeHook.Registration] = []

    /// The writes of the open transactions, to roll back or to report once the outermost commits
    /// (Transaction.swift). Touched only while the graph is held: no exclusivity check.
    @exclusivity(unchecked) var transactionJournal = TransactionJournal()

    /// The undo histories recording in this runtime, told when a thread's outermost batch ends (UndoHistory.swift).
    let undoRecorders = UndoRecorders()

    /// How many async derivation runs of this runtime have a task in flight (`AsyncRun`), counted atomically. A
    /// declaration's read outside evaluations checks it (one relaxed load) before it reads without the node, which
    /// a run's read needs for its tracking. A node's read checks the count over every runtime instead
    /// (`ripple_async_runs_in_flight`): the run may be another runtime's, whose body must not read the node.
    @usableFromInline let asyncRunsInFlight: UnsafeMutablePointer<CLong>

    /// The engine's graph. Written once, in `init`, before the runtime is shared; nodes keep a copy.
    @usableFromInline @exclusivity(unchecked) private(set) var graph: OpaquePointer

    /// The graph's tag (rp_graph_tag), which every node handle carries: nodes keep their handle's slot and
    /// generation only. Written once, in `init`, like `graph`.
    @usableFromInline @exclusivity(unchecked) private(set) var graphTag: UInt32 = 0

    /// How many times one effect may run in a single flush before Ripple traps with a runaway-effect message.
    let settleBound: Int

    /// Source nodes standing for user-defined ``Publisher`` objects, created on their first tracked read.
    /// A dictionary is allowed here only: Ripple's own nodes never go through it.
    var publisherNodes: [ObjectIdentifier: PublisherNode] = [:]

    /// The instances of declared state in this runtime (``DeclaredAtom``, ``DeclaredDerivation``, families), their
    /// overrides and their pending lifecycle hooks.
    let declarations: DeclarationStore
    /// Objects that libraries built on Ripple keep per runtime (``attachment(_:make:)``); they go with it.
    let attachments = RuntimeAttachments()

    /// The slot table of ``declarations`` (a `ripple_slot_table`), read without a lock by a declaration's read
    /// (`readDeclaredInEvaluation(_:)`, `beginDeclaredRead(_:)`): kept here so that a read inside a body reaches
    /// it in one load from the evaluating runtime. Opaque, so that this file needs no public import for the
    /// inlinable read.
    @usableFromInline let declarationSlots: OpaquePointer

    /// How many lifecycle hooks of ``declarations`` wait (the store's counter, `DeclarationStore.hasPendingHooks`),
    /// kept here so that the end of a batch inlined into a write (`Runtime.endBatch()`) tests it with one load from
    /// the runtime. A plain `CLong` pointer, loaded relaxed in C: no public import for the inlinable end.
    @usableFromInline let pendingHooksCount: UnsafeMutablePointer<CLong>

    /// The Observation probe (`ObservationProbe.shared`), kept here so that a read outside evaluations, which asks
    /// it whether Observation is tracking, reaches it with one load. Unmanaged: the static keeps it alive for the
    /// whole process, and a strong (or unowned) reference would be retained and released around every probe.
    @usableFromInline let observationProbe = Unmanaged.passUnretained(ObservationProbe.shared)

    /// Effect nodes standing for user-defined ``Subscriber`` objects registered with ``register(_:)``.
    var subscriberNodes: [ObjectIdentifier: SubscriberNode] = [:]

    /// The relays that tell Swift's Observation about changes of the nodes it tracked, by node identity; only
    /// for nodes read inside `withObservationTracking` (ObservationBridge.swift). Touched only while the graph is
    /// held.
    var observationRelays: [ObjectIdentifier: ObservationRelay] = [:]

    /// The tracer ``startTracing(_:)-((TraceEvent)->Void)`` installed, told every event by the engine's trace callback; nil when
    /// nothing traces. Touched only while the graph is held.
    var tracer: (@Sendable (TraceEvent) -> Void)?

    /// Whether every derivation and effect body of this runtime tracks the `@Observable` properties it reads, as
    /// if the whole body were wrapped in `observing(_:)`.
    ///
    /// Set when the runtime is created (``init(settleBound:tracksObservableReads:)``), false for
    /// ``Runtime/shared``. When false, only the reads inside `observing { }` are tracked, and an `@Observable`
    /// property read directly in a body is not a dependency.
    ///
    /// ```swift
    /// let runtime = Runtime(tracksObservableReads: true)
    /// assert(runtime.tracksObservableReads)
    /// assert(!Runtime.shared.tracksObservableReads)
    /// ```
    ///
    /// Threading: immutable, readable from any thread.
    public let tracksObservableReads: Bool

    /// Creates an empty runtime with its own graph.
    ///
    /// ```swift
    /// let runtime = Runtime(settleBound: 10)
    /// withIsolatedRuntime(using: runtime) {
    ///     let a = atom(0)
    ///     let e = Effect { if a.value < 5 { a.value += 1 } }   // settles after 6 runs: fine
    ///     _ = e
    /// }
    /// ```
    ///
    /// A runtime that tracks `@Observable` reads in every body, without `observing { }`:
    ///
    /// ```swift
    /// @Observable @MainActor final class Settings { var currency = "EUR" }
    /// let settings = Settings()
    /// let runtime = Runtime(tracksObservableReads: true)
    /// let label = withIsolatedRuntime(using: runtime) { derive { "Prices in \(settings.currency)" } }
    /// settings.currency = "USD"        // on the main actor: label recomputes after this job
    /// ```
    ///
    /// - Parameters:
    ///   - settleBound: how many times one effect may run in one flush. An effect that keeps writing
    ///     what it (or an effect it triggers) reads is stopped past this bound with a trap that names it.
    ///     Must be at least 1.
    ///   - tracksObservableReads: whether every derivation and effect body of the runtime runs as if wrapped in
    ///     `observing { }`, so that the `@Observable` properties it reads are dependencies with the same
    ///     guarantees and threading rules (``tracksObservableReads``). It costs each evaluation one
    ///     `withObservationTracking`: 52% more instructions on the deep-chain benchmark (K1), whose bodies read no
    ///     `@Observable` object. False by default, where a body pays nothing for it.
    ///
    /// Threading: usable from any thread. Lifetime: freed when the last reference to it (including the one every node holds) goes.
    public init(settleBound: Int = 100, tracksObservableReads: Bool = false) {
        precondition(
            settleBound >= 1 && settleBound <= Int(UInt32.max),
            "Ripple: Runtime(settleBound: \(settleBound)): the bound must be between 1 and \(UInt32.max)."
        )
        self.settleBound = settleBound
        self.tracksObservableReads = tracksObservableReads
        _ = ObjectLayoutCheck.usesInlineReferenceCounts
        let declarations = DeclarationStore()
        self.declarations = declarations
        declarationSlots = OpaquePointer(declarations.slots)
        pendingHooksCount = declarations.pendingCount
        state = .allocate(capacity: 1)
        state.initialize(to: RuntimeState())
        asyncRunsInFlight = .allocate(capacity: 1)
        asyncRunsInFlight.initialize(to: 0)
        graph = OpaquePointer(bitPattern: 1).unsafelyUnwrapped  // replaced below, once `self` can be handed out
        let host = Unmanaged.passUnretained(self).toOpaque()
        var config = rp_graph_config_t()
        config.callbacks = Runtime.makeCallbacks(host: host)
        config.allocator = nil
        config.settle_bound = UInt32(settleBound)
        var created: OpaquePointer?
        let status = rp_graph_create(&config, &created)
        guard status == .RP_OK, let created else {
            Runtime.failedToCreateGraph(status)
        }
        graph = created
        var tag: UInt32 = 0
        let tagStatus = rp_graph_tag(created, &tag)
        guard tagStatus == .RP_OK else { Runtime.failedToCreateGraph(tagStatus) }
        graphTag = tag
    }

    deinit {
        // Only nodes standing for user-defined publishers and subscribers can still exist: they do not own the
        // runtime. Mark them so that their own deinit (when the dictionaries go) does not touch the freed graph.
        for node in publisherNodes.values { node.isDisposed = true }
        for node in subscriberNodes.values { node.isDisposed = true }
        let status = rp_graph_destroy(graph)
        if _slowPath(status != .RP_OK) {
            failedToDestroyGraph(status)
        }
        state.deinitialize(count: 1)
        state.deallocate()
        asyncRunsInFlight.deallocate()
    }

    /// The node whose compute or run is in progress in this runtime on the calling thread (the innermost one), or
    /// nil: the engine knows it (`rp_graph_evaluating`), so evaluations keep no copy of their own. Nil on threads
    /// that do not hold the graph. Untracked sections do not hide it; an async derivation's start of a run, and
    /// its task's reads in a track section, name the async derivation.
    var evaluatingNode: RippleNode? {
        var data: UnsafeMutableRawPointer?
        _ = rp_graph_evaluating(graph, nil, &data)  // RP_EINVAL only for a NULL argument
        return data.map { Unmanaged<RippleNode>.fromOpaque($0).takeUnretainedValue() }
    }

    /// The effect whose body is running right now in this runtime on the calling thread (not its cleanups, and not
    /// a derivation its body is reading), or nil.
    var runningEffect: Effect? {
        guard let effect = evaluatingNode as? Effect, effect.isRunning else { return nil }
        return effect
    }

    /// This runtime as the pointer stored in the thread-local evaluation slot. Usable from inlinable code: the
    /// batch's begin and end and the write's "does this thread hold the graph" test, inlined into a write, use it.
    @usableFromInline var opaqueSelf: UnsafeMutableRawPointer {
        @inlinable @inline(__always) get { Unmanaged.passUnretained(self).toOpaque() }
    }
}

/// A runtime's evaluation state, reached by nodes and callbacks through `Runtime.state` (a plain pointer). Only the
/// thread holding the graph reads or writes it: what other threads need (the graph, the runtime's identity) lives
/// elsewhere, because a mutating access to this struct counts as an access to all of it.
@usableFromInline
struct RuntimeState {
    /// How many change hooks (`Runtime.onChange`) are installed. An atom's write checks it (one load, one
    /// predictable branch) and takes the slow path that builds an `AtomChange` only when it is not zero, so the
    /// change log costs nothing while nobody listens. Inlinable: the check is in `AtomObject.store`.
    @usableFromInline var changeHookCount = 0

    /// The async node whose track section the thread holding the graph opened for a read (`RippleNode.beginRead`).
    var trackedRunNode = rp_node_t()

    /// The ticket of that read's section, for its end.
    var trackedRunReadTicket: UInt32 = 0

    /// Where the write in progress was made (`AtomObject.set(_:fileID:line:)`), for a tracer; nil otherwise.
    var writeSite: String?
}

// The runtime is handed between tasks and threads. It is @unchecked because the compiler cannot see what guards its
// mutable state: `RuntimeState` and the publisher/subscriber dictionaries are read and written only while the
// engine's graph is held exclusively, by engine callbacks or inside `batch` (include/ripple.h, "Conventions" and
// "threads"); everything else is immutable after `init`. Reads that share the graph touch none of it.
extension Runtime: @unchecked Sendable {}

/// The Concurrency runtime's task-local look-up (`TaskLocal.get()` calls it): the address of the value bound to
/// `key` in the current task (or, outside tasks, on the current thread), nil when none is bound. The address stays
/// valid while the binding does, which covers the caller's scope.
///
/// The ABI guarantee it rests on: `swift_task_localValueGet` is an entry point of the Concurrency runtime
/// (`SWIFT_EXPORT_FROM(swift_Concurrency) SWIFT_CC(swift)` in swift/Runtime/Concurrency.h) since its first ABI
/// (Swift 5.5), listed in the runtime's compatibility-override table (CompatibilityOverrideConcurrency.def), which
/// exists because shipped binaries call these entry points, and imported directly by binaries Apple ships; the
/// stable ABI on Apple platforms keeps its name and its Swift-convention signature, which this declaration repeats.
@_silgen_name("swift_task_localValueGet")
private func taskLocalValue(forKey key: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer?
