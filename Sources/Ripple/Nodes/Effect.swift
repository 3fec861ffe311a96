internal import CRipple

/// Code that runs once now and again whenever something it read has changed.
///
/// An effect runs its body synchronously when it is created, recording what the body reads. After a change to
/// any of those values, once the change is known to matter (a derivation it read is re-validated first; if its
/// value is equal, the effect does not run), the effect runs again. Effects triggered by one change or one batch
/// run in the order they were created, each at most once per flush unless a write made during the flush triggers
/// it again. Each run happens inside an implicit batch: its writes apply at once, and the effects they trigger
/// run after it returns. Register work to undo with ``onCleanup(_:)``.
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
/// Use an effect from one thread at a time, like its ``RippleNode/runtime``. The body runs on the thread of the
/// write (or batch end) that triggered it.
///
/// ## Lifetime
/// An effect runs while it is strongly referenced and not cancelled: releasing the last reference stops it at once
/// (synchronously, running its cleanups), exactly like ``cancel()``. The runtime never keeps an effect alive, and an
/// effect created inside another effect's body is not owned by it. A live effect keeps alive everything it
/// reads. The body closure lives until the effect is cancelled or freed: capture the effect's owner weakly to avoid a
/// cycle.
public final class Effect: RippleNode, Subscriber {
    /// The body; released by ``cancel()`` so that what it captures (often the effect itself) can go.
    @exclusivity(unchecked) private var body: (() -> Void)?
    /// Cleanups registered by the current run, in registration order.
    @exclusivity(unchecked) var cleanups: [() -> Void] = []
    /// The body is running (guards ``run()`` called from inside it).
    @exclusivity(unchecked) private var isRunning = false

    /// Whether the effect has stopped, by ``cancel()`` or because its last reference went.
    ///
    /// ```swift
    /// let e = Effect { }
    /// e.cancel()
    /// assert(e.isCancelled)
    /// ```
    ///
    /// Threading: read it on the runtime's thread.
    @exclusivity(unchecked) public private(set) var isCancelled = false

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
    /// Threading: the first run happens on the calling thread before `init` returns (even inside a batch).
    /// Lifetime: keep a strong reference for as long as the effect should run.
    public init(label: String? = nil, fileID: String = #fileID, line: Int = #line, _ body: @escaping () -> Void) {
        self.body = body
        super.init(runtime: .current, label: label, fileID: fileID, line: line)
        createNode(.RP_KIND_EFFECT)
    }

    deinit {
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
    /// Threading: on the runtime's thread; the body runs before `run()` returns, even inside a batch.
    public func run() {
        if isCancelled || isRunning { return }
        runEffectNow()
    }

    /// Stops the effect at once: runs its pending cleanups (in registration order), leaves the graph and releases
    /// its body closure (and what it captures).
    ///
    /// Idempotent. Allowed inside the effect's own body: the rest of that run still executes, and cleanups it
    /// registers after the call run when the body returns.
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
    /// Threading: on the runtime's thread. Lifetime: the effect object stays valid; only its node is gone.
    public func cancel() {
        if isCancelled { return }
        isCancelled = true
        runCleanups()
        disposeNode()
        body = nil
    }

    override func runEffect() {
        if !cleanups.isEmpty { runCleanups() }
        guard !isCancelled, let body else { return }  // a cleanup cancelled it
        let state = self.state
        isRunning = true
        state.pointee.runningEffect = Unmanaged.passUnretained(self)
        body()
        state.pointee.runningEffect = nil  // the run callback restores the outer value
        isRunning = false
        if isCancelled, !cleanups.isEmpty { runCleanups() }  // registered after cancel() inside the body
    }

    /// Runs and forgets the pending cleanups, in registration order, without recording reads.
    private func runCleanups() {
        _ = rp_untracked_begin(graph)
        while !cleanups.isEmpty {
            let pending = cleanups
            cleanups = []
            for cleanup in pending { cleanup() }
        }
        _ = rp_untracked_end(graph)
    }
}
