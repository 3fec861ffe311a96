internal import CRipple

/// Code that runs once now and again whenever something it read has changed.
///
/// An effect runs its body synchronously when it is created, recording what the body reads. After a change to
/// any of those values, once the change is known to matter (a derivation it read is re-validated first; if its
/// value is equal, the effect does not run), the effect runs again. Effects triggered by one change or one batch
/// run in the order they were created, each at most once per flush unless a write made during the flush triggers
/// it again. Each run happens inside an implicit batch: its writes apply at once, and the effects they trigger
/// run after it returns. Register work to undo with ``onCleanup(_:)-37wcr``.
///
/// ```swift
/// @Atom var count = 0
/// let render = Effect {                  // keep the Effect alive
///     print("Count: \(count)")           // prints "Count: 0" now
/// }
/// count += 1                             // prints "Count: 1"
/// render.cancel()
/// count += 1                             // nothing
/// ```
///
/// ## Threading
/// The effects of one runtime never run at the same time as each other, or as a derivation's body. Where the body
/// runs follows where the effect was created, and the compiler checks the body accordingly:
/// - Created on the main actor (a view, a view model, a `@MainActor` test), the body is isolated to the main actor:
///   it may touch main-actor state and mutate what it captures. When the change that makes it due happens on the
///   main actor, it runs at once, inside the write, exactly like a synchronous effect; when another thread writes,
///   the run is enqueued on the main actor, and every change made until it starts coalesces into it.
/// - Created on another actor, it runs on that actor, always as an enqueued job (the first run too).
/// - Created outside any actor, the body must be `Sendable` (the compiler rejects non-`Sendable` captures and
///   mutated locals) and runs synchronously on the thread of the write (or batch end) that triggered it.
/// - Created with a scheduler (`Effect(on: .mainActor) { ... }`), it runs where the scheduler puts it: see
///   ``EffectScheduler``.
///
/// ``cancel()`` and ``isCancelled`` may be used from any thread; ``run()`` runs the body at once, so it must be
/// called where the body may run (it traps elsewhere, naming the effect).
///
/// ## Lifetime
/// An effect runs while it is strongly referenced and not cancelled: releasing the last reference stops it at once
/// (synchronously, running its cleanups), exactly like ``cancel()``. The runtime never keeps an effect alive, and an
/// effect created inside another effect's body is not owned by it. A live effect keeps alive everything it
/// reads. The body closure lives until the effect is cancelled or freed: capture the effect's owner weakly to avoid a
/// cycle.
///
/// > Important: Keep the effect. `_ = Effect { ... }` silences the unused-result warning but releases the effect at
/// > once: it runs once, inside `init`, and never again. Store it (`let render = Effect { ... }`, a property, or
/// > an array of effects that lives as long as the screen).
public final class Effect: RippleNode, Subscriber {
    // The flags first: they fill the end of RippleNode's last word (see there).

    /// The body is running (guards ``run()`` called from inside it; `onCleanup` and `Runtime.runningEffect` tell
    /// the body from the cleanups before it).
    @exclusivity(unchecked) private(set) var isRunning = false
    /// Backs ``isCancelled``; like every other stored property here, touched only while the graph is held.
    @exclusivity(unchecked) private var cancelled = false
    /// The body; released by ``cancel()`` so that what it captures (often the effect itself) can go.
    @exclusivity(unchecked) private var body: (() -> Void)?
    // Cleanups registered by the current run are kept in the node's extras (`RippleNode.appendCleanup(_:)`): a
    // word here would take every effect from a 64-byte block to an 80-byte one.

    /// The effect observes a node for a `values` sequence: its reads do not keep that node alive. (A trait of the
    /// node: no byte of its own.)
    var isValuesObserver: Bool { has(.valuesObserver) }

    /// Whether the effect has stopped, by ``cancel()`` or because its last reference went.
    ///
    /// ```swift
    /// let e = Effect { }
    /// e.cancel()
    /// assert(e.isCancelled)
    /// ```
    ///
    /// Threading: from any thread.
    public var isCancelled: Bool {
        exclusively { cancelled }
    }

    /// Creates an effect in ``Runtime/current`` and runs its body once, now.
    ///
    /// ```swift
    /// let title = atom("Home")
    /// let effect = Effect(label: "window title") { window.title = title.value }
    /// ```
    ///
    /// - Parameters:
    ///   - label: the name used in trap messages; by default the file and line of this call.
    ///   - fileID: the file of the call (leave the default).
    ///   - line: the line of the call (leave the default).
    ///   - body: the code to run. What it reads becomes the effect's dependencies; it may write atoms, create
    ///     and cancel effects (itself included), and register cleanups.
    ///
    /// Threading: the body keeps the isolation of the code that creates the effect (see "Threading" above). On
    /// the main actor, or outside any actor, the first run happens on the calling thread before `init` returns
    /// (even inside a batch); on another actor it is enqueued there. Lifetime: keep a strong reference for as long
    /// as the effect should run.
    public convenience init(
        label: borrowing String? = nil, fileID: borrowing String = #fileID, line: Int = #line,
        @_inheritActorContext _ body: @escaping @isolated(any) @Sendable () -> Void
    ) {
        let isolation = BodyIsolation(body.isolation)
        // The scheduler is made before the isolation is handed over (arguments are evaluated in order); made into a
        // local first, the existential was copied and destroyed through its value witnesses.
        self.init(
            runtime: .current, scheduler: isolation.scheduler, isolation: consume isolation, label: label,
            fileID: fileID, line: line, body: callableWhereIsolated(consume body))
    }

    /// Every effect: synchronous when `scheduler` is nil, deferred to it otherwise. `isolation` is where the body
    /// may run: `scheduler` then runs it there.
    ///
    /// The body and the runtime are consumed: the caller's references become the node's; so is the isolation,
    /// which goes into the extras or once they are made (a copy and a destroy of it were two calls per effect).
    private init(
        runtime: consuming Runtime, scheduler: consuming (any EffectScheduler)?,
        isolation: consuming BodyIsolation = .none,
        isValuesObserver: Bool = false, label: borrowing String?, fileID: borrowing String, line: Int,
        body: consuming @escaping () -> Void
    ) {
        // Decided once, here: a runtime without the setting pays nothing per run. Ripple's own observers read
        // Ripple nodes only.
        if runtime.tracksObservableReads && !isValuesObserver {
            self.body = runtime.trackingObservableReads(of: body)
        } else {
            self.body = consume body
        }
        // Where a deferred or actor-bound effect runs is kept with the node's other rare settings: a synchronous
        // `Sendable` effect, the common case, stores nothing for it. (The existential is switched on once and
        // moved, not compared with nil: each comparison copies it.)
        let kind: rp_kind_t
        let extras: NodeExtras?
        switch consume scheduler {
        case .none:
            kind = .RP_KIND_EFFECT
            extras = .forBody(label: label, isolation: consume isolation)
        case .some(let scheduler):
            kind = .RP_KIND_DEFERRED_EFFECT
            extras = NodeExtras(label: copy label, isolation: consume isolation, scheduler: scheduler)
        }
        super.init(
            runtime: runtime, extras: consume extras, fileID: fileID, line: line, isValuesObserver: isValuesObserver,
            hasDirectCallbacks: true)
        createNode(kind)
        // The first run may have queued lifecycle hooks (instances it created, nodes it gave their first reader):
        // they run now, unless a batch or an evaluation is around this creation.
        runQueuedHooks()
    }

    /// Creates an effect in ``Runtime/current`` whose runs go to `scheduler`, the first one included.
    ///
    /// When something the body read changes, the effect asks `scheduler` for one run; every change made until
    /// that run starts coalesces into it, and the run sees the latest values. A run still never overlaps
    /// another effect of the runtime.
    ///
    /// ```swift
    /// let progress = atom(0.0)
    /// let log = Effect(on: .actor(logger)) { print("progress", progress.value) }
    /// Task.detached { for step in 1...100 { progress.value = Double(step) / 100 } }
    /// ```
    ///
    /// - Parameters:
    ///   - scheduler: where runs happen: ``EffectScheduler/mainActor``, ``EffectScheduler/actor(_:)``, or
    ///     your own ``EffectScheduler``.
    ///   - label: the name used in trap messages; by default the file and line of this call.
    ///   - fileID: the file of the call (leave the default).
    ///   - line: the line of the call (leave the default).
    ///   - body: the code to run, as for ``init(label:fileID:line:_:)``.
    ///
    /// Threading: `init` returns at once; the first run is scheduled. Lifetime: keep a strong reference for as
    /// long as the effect should run; a run scheduled for an effect that is gone by then does nothing.
    // Disfavored so that `Effect(on: .mainActor) { ... }` picks the main-actor overload, whose body may touch
    // main-actor state; this one requires a Sendable body.
    @_disfavoredOverload
    public convenience init(
        on scheduler: some EffectScheduler, label: String? = nil, fileID: String = #fileID, line: Int = #line,
        _ body: @escaping @Sendable () -> Void
    ) {
        self.init(runtime: .current, scheduler: scheduler, label: label, fileID: fileID, line: line, body: body)
    }

    /// Creates an effect in ``Runtime/current`` whose body runs on the main actor, the first run included.
    ///
    /// The usual way to render state that any thread may write: each run sees the latest values, and bursts of
    /// writes made between two runs coalesce into one.
    ///
    /// ```swift
    /// @MainActor final class CounterLabel { var text = "" }
    /// let label = CounterLabel()
    /// let count = atom(0)
    /// let render = Effect(on: .mainActor) { label.text = "Count: \(count.value)" }
    /// Task.detached { for _ in 0..<1_000 { count.update { $0 += 1 } } }
    /// ```
    ///
    /// - Parameters:
    ///   - scheduler: ``EffectScheduler/mainActor``.
    ///   - label: the name used in trap messages; by default the file and line of this call.
    ///   - fileID: the file of the call (leave the default).
    ///   - line: the line of the call (leave the default).
    ///   - body: main-actor code to run, as for ``init(label:fileID:line:_:)``.
    ///
    /// Threading: `init` may be called from any thread and returns at once. Lifetime: as for
    /// ``init(on:label:fileID:line:_:)``.
    public convenience init(
        on scheduler: MainActorScheduler, label: String? = nil, fileID: String = #fileID, line: Int = #line,
        _ body: @escaping @MainActor () -> Void
    ) {
        self.init(runtime: .current, scheduler: scheduler, label: label, fileID: fileID, line: line) {
            MainActor.assumeIsolated(body)
        }
    }

    /// The observer behind a `values` sequence: a synchronous effect in `runtime` whose reads do not keep what
    /// they read alive. The engine node is created with weak reads (`RippleNode.createNode(_:)`), so the engine's
    /// `watched` and `unwatched` callbacks, which retain and release, follow the node's other readers only.
    convenience init(observingIn runtime: Runtime, label: String, _ body: @escaping () -> Void) {
        self.init(
            runtime: runtime, scheduler: nil, isValuesObserver: true, label: label, fileID: "", line: 0, body: body)
    }

    /// A `values` observer is Ripple's own node, shown apart from the effects the program created.
    override var kindName: String { isValuesObserver ? "values observer" : "effect" }

    override func register(cleanup: @escaping () -> Void) -> Bool {
        guard isRunning else { return false }  // its cleanups are running, not its body
        appendCleanup(cleanup)
        return true
    }

    deinit {
        // No cleanups to run (or cancelled already): leaving the graph is all that cancel() would do, and needs no
        // batch around it; the body goes with the object, outside the graph. No run is in progress or can start
        // (a run holds a strong reference), so `hasCleanups` is read without the graph, as the other deinits do.
        if cancelled || !hasCleanups {
            leaveGraphBeforeFreeing()
        } else {
            cancelWhenFreed()
        }
    }

    /// `cancel()` for a deinit with cleanups to run: out of line, so that the common deinit stays small (inlined,
    /// `cancel()` makes the compiler retain and release the object around freeing its fields).
    @inline(never)
    private func cancelWhenFreed() {
        cancel()
    }

    /// Runs the body again now, re-recording its dependencies.
    ///
    /// Pending cleanups run first. The effect keeps its place in the creation order that flushes follow. Does
    /// nothing on a cancelled effect or from inside the effect's own body.
    ///
    /// ```swift
    /// var renders = 0
    /// let e = Effect { renders += 1 }
    /// e.run()
    /// assert(renders == 2)
    /// ```
    ///
    /// Threading: from any thread; the body runs on the calling thread before `run()` returns, even inside a
    /// batch, and even for an effect bound to a scheduler.
    public func run() {
        isolation.preconditionIsolated(
            """
            Ripple: Effect \(label) was created on \(isolation.name), and its body may only run there, but run() \
            was called elsewhere. Call run() on \(isolation.name) (for instance inside `await MainActor.run { }`).
            """)
        exclusively {
            if cancelled || isRunning { return }
            runEffectNow()
        }
    }

    /// Stops the effect at once: runs its pending cleanups (in registration order), leaves the graph and releases
    /// its body closure (and what it captures).
    ///
    /// Idempotent. Allowed inside the effect's own body: the rest of that run still executes, and cleanups it
    /// registers after the call run when the body returns (the body closure is released then too).
    ///
    /// ```swift
    /// let ticks = atom(0)
    /// let e = Effect {
    ///     print("tick", ticks.value)
    ///     onCleanup { print("stopped") }
    /// }
    /// e.cancel()                    // prints "stopped"
    /// ticks.value = 1               // nothing runs
    /// e.cancel()                    // nothing: already cancelled
    /// ```
    ///
    /// Threading: from any thread. Lifetime: the effect object stays valid; only its node is gone.
    public func cancel() {
        exclusively {
            if cancelled { return }
            cancelled = true
            runCleanups()
            disposeNode()
            // Cancelled during its own run (by its body, or by an effect the body ran): the body is still running,
            // and `runEffect()` releases it once it returns.
            if !isRunning { body = nil }
        }
    }

    override func scheduleUpdate() {
        // A main-actor effect made due on the main actor runs now, like a synchronous effect (no job to allocate).
        if case .mainActor = isolation, MainActorCheck.isCurrent {
            update()
            return
        }
        guard let scheduler else {
            preconditionFailure("Ripple: internal error: the synchronous effect \(label) was scheduled.")
        }
        scheduler.schedule { [weak self] in self?.update() }
    }

    /// Runs a deferred effect if something it read changed since it last ran (its scheduled job).
    private func update() {
        let status = rp_effect_update(graph, handle)
        // Stale: cancelled (or freed) since it was scheduled; nothing to run.
        if _slowPath(status != .RP_OK && status != .RP_ESTALE) { runtime.fail(status, "updating", node: self) }
        runQueuedHooks()
    }

    /// The base's `run(host:)` with this class's `runEffect()` inlined. (Not through `evaluating(host:_:)`: inside
    /// a closure, the body's in-place call in `runEffect()` would become a copy, a retain and a release per run.)
    ///
    /// A flush marks its runtime evaluating once (`Runtime.endBatch()`): then the slot names it already and the run
    /// costs one comparison. Otherwise (an effect's first run, inside its creation; a scheduled update)
    /// `runMarked(host:)` marks it around the run.
    override func run(host: UnsafeMutableRawPointer) {
        runInline(host: host)
    }

    /// The engine's run callback's path for a node with the `.directCallbacks` trait (of the effect-kind nodes,
    /// only an `Effect` has it): `run(host:)` inlined into the callback, instead of a class call and a frame of its
    /// own on every run. `node` is the effect, which the callback holds a strong reference to.
    @inline(__always)
    static func runFromCallback(_ node: UnsafeMutableRawPointer, host: UnsafeMutableRawPointer) {
        Unmanaged<Effect>.fromOpaque(node)._withUnsafeGuaranteedRef { $0.runInline(host: host) }
    }

    /// The body of `run(host:)`.
    @inline(__always)
    private func runInline(host: UnsafeMutableRawPointer) {
        if _fastPath(EvaluationThreadState.names(host)) { return runEffect() }
        runMarked(host: host)
    }

    /// `run(host:)` when the thread's slot does not name the runtime yet: saves it, points it at the runtime
    /// around the run and puts it back. Out of line, so that the common path saves no register for it.
    @inline(never)
    private func runMarked(host: UnsafeMutableRawPointer) {
        let outer = EvaluationThreadState.enter(host)
        runEffect()
        EvaluationThreadState.exit(restoring: outer)
    }

    @inline(__always)
    override func runEffect() {
        if hasCleanups { runCleanups() }
        guard !cancelled else { return }  // a cleanup cancelled it
        isRunning = true
        Effect.call(&body)
        isRunning = false
        if cancelled {  // during the run (by the body, or by an effect it ran)
            if hasCleanups { runCleanups() }  // registered after cancel() inside the body
            body = nil
        }
    }

    /// Calls `body` in place, without the retain and release of its context that a copy would cost. Sound because
    /// nothing replaces the stored body while it runs: ``cancel()`` inside the body leaves the release to the end
    /// of the run.
    @inline(__always)
    private static func call(_ body: inout (() -> Void)?) {
        body?()
    }
}

// An effect's stored properties are touched only while its runtime's graph is held exclusively: runs happen inside
// engine calls, and `cancel()`, `run()` and `isCancelled` hold the graph themselves. Bodies never run on two
// threads at once (one runtime's effects and derivations never overlap). And a body runs only where its isolation
// allows, so handing the effect to another thread cannot make a body race with the code that created it:
// - a body created outside any actor is `@Sendable` (checked by the compiler at the creation site), and runs on
//   the writer's thread;
// - a body isolated to an actor (non-Sendable captures allowed) runs only on that actor: `BodyIsolation` gives
//   such an effect a scheduler that runs it at once only when the main actor's executor is current and otherwise
//   enqueues it there (`scheduleUpdate`), and `run()` checks the isolation before running it;
// - `Effect(on:)` bodies are `@Sendable`, or `@MainActor` and run through `MainActor.assumeIsolated` by a scheduler
//   that runs jobs on the main actor;
// - the `values` observer's body is Ripple's own, capturing only a continuation (Sendable) and a weak node.
extension Effect: @unchecked Sendable {}
