// Async/: values computed by async bodies (async derivations and followed AsyncSequences). Built on the engine's
// async nodes (include/ripple.h, "async nodes"): a node's compute starts a run (`AsyncRun`, a task), the run's reads
// reach the engine through track sections (`RippleNode.beginRead`), its result through a resolve section
// (`TypedAsyncDerivation.resolve`), and `value` waits with an observer effect (`PhaseWaiter`).
internal import CRipple

/// A value computed by an `async` body from other nodes, whose failures are `any Error`: the derivation of a body
/// that throws untyped errors, or none.
///
/// Everything about it is documented on ``TypedAsyncDerivation``, the same type with the failure type as a
/// parameter: `derive { () async throws -> User in ... }` gives an `AsyncDerivation<User>`, and a body declared
/// `throws(FetchError)` a `TypedAsyncDerivation<User, FetchError>`.
///
/// ```swift
/// let greeting: AsyncDerivation<String> = derive { () async throws in "hello" }
/// ```
public typealias AsyncDerivation<Value> = TypedAsyncDerivation<Value, any Error>

/// A value computed by an `async` body from other nodes: its ``phase`` says whether the run for the current inputs
/// is in flight or finished, and ``value`` awaits the result.
///
/// Create one with `derive { () async throws -> Value in ... }` (an ``AsyncDerivation``, `Failure` is `any Error`) or
/// `derive { () async throws(FetchError) -> Value in ... }` (`Failure` is `FetchError`), or follow an `AsyncSequence`
/// with ``init(following:label:fileID:line:)-84960``. Like a ``Derivation`` it is lazy: nothing starts before the first
/// read of ``phase``, ``lastValue`` or ``value`` (directly, or by an effect or derivation that reads it). Every Ripple
/// read its body makes, before or after an `await`, in child tasks too (`async let`, task groups), is a dependency of
/// the run; detached tasks are not part of the run.
///
/// When something the run read changes, the run is stale. If the derivation is observed (a live effect depends on it,
/// directly or through others, or a caller awaits ``value``), the write's flush cancels the stale run's task, sets
/// ``phase`` to ``TypedAsyncPhase/suspending`` and starts a new run; otherwise nothing starts until the next read. A
/// run's result is applied only while the run is current: a cancelled or superseded run never changes the phase, even
/// if it ignores cancellation and finishes last. Applying a result is a write: readers of ``phase`` update as after an
/// atom write, glitch-free.
///
/// ```swift
/// let userID = atom(1)
/// let user = derive { () async throws -> User in
///     try await api.user(id: userID.value)
/// }
/// let render = Effect {
///     switch user.phase {
///     case .suspending: print("loading…", user.lastValue?.name ?? "")
///     case .success(let user): print(user.name)
///     case .failure(let error): print(error)
///     }
/// }
/// userID.value = 2            // cancels the run for 1 if it is still in flight, loads 2
/// ```
///
/// ## Typed failures
/// A body declared `throws(E)` makes `Failure` `E`: ``phase`` is a `TypedAsyncPhase<Value, E>` whose
/// ``TypedAsyncPhase/error`` is an `E?`, so `phase.error == .noData` needs no cast when `E` is `Equatable`, and
/// ``refresh()`` returns the same typed phase. Cancellation never shows in the phase, so it never needs a place in
/// `E`: a run is cancelled only when it is no longer current (its inputs changed, ``refresh()`` started another,
/// or the derivation was freed), and the result of a run that is not current is never applied, whatever it
/// returns or throws. The phase goes from ``TypedAsyncPhase/suspending`` to the result of the run that replaced
/// it. Only the awaiting caller's own cancellation is reported, as a `CancellationError` thrown by ``value``
/// (which is why ``value`` throws `any Error`: the body's `E`, or that).
///
/// ```swift
/// enum FetchError: Error { case noData }
/// let books = derive { () async throws(FetchError) -> [String] in throw .noData }
/// let phase = await books.refresh()
/// print(phase.error == .noData)           // true
/// ```
///
/// ## Threading
/// Bodies run on the cooperative pool, or on the actor they are isolated to (a body written on the main actor runs
/// there); the graph is never held while a body awaits. ``phase`` and ``lastValue`` may be read from any thread,
/// ``value`` and ``refresh()`` awaited from any task.
///
/// ## Lifetime
/// Freeing the derivation cancels its run and runs the run's cleanups; runs do not keep it alive. Live effects that
/// read it, and callers awaiting ``value``, keep it alive.
public final class TypedAsyncDerivation<Value, Failure: Error>: RippleNode {
    /// Starts the body of `run` in the run's task, which ends by resolving the run on `node`.
    typealias Starter = (_ run: AsyncRun, _ node: WeakAsyncDerivation<Value, Failure>) -> Void

    private let starter: Starter
    /// Whether two successive results are the same for readers; nil: every result is a change.
    private let equals: ((Value, Value) -> Bool)?
    /// What readers see; written inside the compute (a new run) and resolve sections, read inside read sections.
    @exclusivity(unchecked) private var storedPhase: TypedAsyncPhase<Value, Failure> = .suspending
    /// The value of the last successful run, kept while a new one is in flight.
    @exclusivity(unchecked) private var storedLastValue: Value?
    /// The current run, ended (cancelled, its cleanups run) when the next one starts or the derivation goes.
    @exclusivity(unchecked) private var currentRun: AsyncRun?

    init(
        starter: @escaping Starter, equals: ((Value, Value) -> Bool)?, label: String?, fileID: String, line: Int,
        runtime: Runtime = .current
    ) {
        self.starter = starter
        self.equals = equals
        super.init(runtime: runtime, extras: .labeled(label), fileID: fileID, line: line)
        createNode(.RP_KIND_ASYNC)
    }

    deinit {
        // Out of the graph first: afterwards no compute starts a run, and the run's late calls find a stale handle.
        leaveGraphBeforeFreeing()
        currentRun?.end()
    }

    /// Where the value stands: the run for the current inputs in flight (``TypedAsyncPhase/suspending``), or its
    /// result; a failure has the error type the body declared (`any Error` for an untyped body).
    ///
    /// A tracked, synchronous read, like reading a derivation's value: inside a derivation or effect it is a
    /// dependency, and reading it brings the derivation up to date, starting a run when it has none for the
    /// current inputs (the first read returns ``TypedAsyncPhase/suspending``).
    ///
    /// ```swift
    /// let greeting = derive { () async in "hello" }
    /// print(greeting.phase)            // suspending: the run has just started
    /// ```
    ///
    /// Threading: from any thread.
    public var phase: TypedAsyncPhase<Value, Failure> {
        let ticket = beginRead()
        let phase = storedPhase
        endRead(ticket)
        return phase
    }

    /// The value of the last run that succeeded, kept while a newer run is in flight (so a screen need not flash
    /// empty while it reloads), or nil before the first success.
    ///
    /// A tracked read, like ``phase``.
    ///
    /// ```swift
    /// Text(profile.lastValue?.name ?? "…")
    ///     .opacity(profile.phase.isSuspending ? 0.5 : 1)
    /// ```
    ///
    /// Threading: from any thread.
    public var lastValue: Value? {
        let ticket = beginRead()
        let value = storedLastValue
        endRead(ticket)
        return value
    }

    override var kindName: String { "async derivation" }

    override var valueDescription: String? {
        storedPhase.description
    }

    /// Starts a run when the engine asks (the first read, or a read or flush after an input changed, or
    /// `refresh()`): ends the previous run, sets the phase to suspending, and reports whether readers see a change.
    override func compute(host: UnsafeMutableRawPointer, changed: UnsafeMutablePointer<Bool>) -> rp_status_t {
        // Not a derivation whose body runs now: a cleanup of the previous run that calls the synchronous onCleanup
        // is outside any body (`register(cleanup:)` refuses it).
        changed.pointee = evaluating(host: host) { startRun() }
        return .RP_OK
    }

    /// Ends the previous run, starts a new one and reports whether readers see a change.
    private func startRun() -> Bool {
        if let previous = currentRun {
            // Its cleanups are user code: what they read is not a dependency of the new run.
            _ = rp_untracked_begin(graph)
            previous.end()
            _ = rp_untracked_end(graph)
        }
        var id: UInt64 = 0
        let status = rp_async_run(graph, handle, &id)
        if _slowPath(status != .RP_OK) { runtime.fail(status, "starting a run of", node: self) }
        let run = AsyncRun(runtime: runtime, node: handle, id: id)
        currentRun = run
        starter(run, WeakAsyncDerivation(self))
        if case .suspending = storedPhase { return false }
        storedPhase = .suspending
        return true
    }

    /// The task of the current run while it runs (nil before the first run and once it finished): tests await it
    /// to know that a run they superseded has finished (its result was offered and refused).
    var currentRunTask: Task<Void, Never>? {
        exclusively { currentRun?.runningTask }
    }

    /// Applies a result of `run`, if the run is still current and nothing it read changed: a write of the phase,
    /// which runs the effects it makes due on this thread.
    func resolve(_ run: AsyncRun, with result: Result<Value, Failure>) {
        let status = rp_async_resolve_begin(graph, handle, run.id)
        switch status {
        case .RP_OK: break
        case .RP_ESUPERSEDED, .RP_ESTALE: return  // a newer run's result counts, or the derivation is gone
        default: runtime.fail(status, "resolving a run of", node: self)
        }
        let changed: Bool
        switch (storedPhase, result) {
        case (.success(let previous), .success(let next)):
            changed = !(equals?(previous, next) ?? false)
        default:
            changed = true
        }
        if changed {
            switch result {
            case .success(let value):
                storedPhase = .success(value)
                storedLastValue = value
            case .failure(let error):
                storedPhase = .failure(error)
            }
        }
        let ended = rp_async_resolve_end(graph, handle, changed)
        if _slowPath(ended != .RP_OK) { runtime.fail(ended, "resolving a run of", node: self) }
    }

    /// The result for the latest inputs: the value, or the error the run threw.
    ///
    /// Awaiting it observes the derivation: while a caller waits, a change to what the run read starts a new run,
    /// and the caller waits for that one (a superseded run's cancellation is never reported to it). Inside an
    /// async derivation's body it is a dependency, like ``phase``, so chains of async derivations update end to
    /// end.
    ///
    /// ```swift
    /// let settings = derive { () async throws in try await api.settings() }
    /// let theme = derive { () async throws in try await settings.value.theme }
    /// print(try await theme.value)
    /// ```
    ///
    /// Threading: from any task. Cancelling the awaiting task throws `CancellationError` (so this throws
    /// `any Error` even when the body's errors are typed: a `Failure`, or that).
    public var value: Value {
        get async throws {
            while true {
                switch phase {
                case .success(let value): return value
                case .failure(let error): throw error
                case .suspending: try await waitUntilSettled()
                }
            }
        }
    }

    /// Runs the body again now, with the same inputs, cancelling a run in flight, and returns the phase it
    /// produced once the new run (or one that superseded it) has finished.
    ///
    /// The phase goes to ``TypedAsyncPhase/suspending`` (``lastValue`` keeps the last success) and then to the new
    /// result, as after an input change. The result is discardable: `await feed.refresh()` only waits.
    ///
    /// ```swift
    /// let feed = derive { () async throws in try await api.feed() }
    /// let phase = await feed.refresh()     // pull to refresh
    /// if case .failure(let error) = phase { show(error) }
    /// ```
    ///
    /// - Returns: the phase after the run, typed as ``phase`` is: ``TypedAsyncPhase/success(_:)`` or
    ///   ``TypedAsyncPhase/failure(_:)``; or ``TypedAsyncPhase/suspending`` when the awaiting task was cancelled
    ///   before the run finished.
    ///
    /// Threading: from any task. Cancelling the awaiting task returns at once; the run goes on. The returned phase
    /// is read untracked: calling `refresh()` makes nothing depend on the derivation.
    @discardableResult
    public func refresh() async -> TypedAsyncPhase<Value, Failure> {
        let status = rp_async_restart(graph, handle)
        if _slowPath(status != .RP_OK) { runtime.fail(status, "refreshing", node: self) }
        while true {
            let phase = storedPhaseUntracked()
            guard phase.isSuspending else { return phase }
            do { try await waitUntilSettled() } catch { return phase }
        }
    }

    /// The phase, read untracked (refresh() is not a dependency of anything).
    private func storedPhaseUntracked() -> TypedAsyncPhase<Value, Failure> {
        exclusively { storedPhase }
    }

    /// Suspends until the phase is not suspending, observing the derivation meanwhile (an effect that reads its
    /// phase), so that a stale run is replaced at once. Throws `CancellationError` when the waiting task is
    /// cancelled; the cancellation handler only resumes the waiter and never waits for the graph.
    private func waitUntilSettled() async throws {
        let waiter = PhaseWaiter()
        defer { waiter.takeObserver()?.cancel() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                waiter.install(continuation)
                waiter.keep(Effect(observingIn: runtime, label: "awaiting \(label)") { [weak self] in
                    guard let self, self.phase.isSuspending else { return waiter.resume() }
                })
            }
        } onCancel: {
            waiter.cancel()
        }
    }
}

/// A weak reference to an async derivation that its run's task can hold: runs do not keep their node alive.
struct WeakAsyncDerivation<Value, Failure: Error>: @unchecked Sendable {
    // Only `resolve` is called through it, which holds the graph for everything it touches (see
    // `TypedAsyncDerivation`'s Sendable conformance); loading a weak reference is thread-safe.
    weak var node: TypedAsyncDerivation<Value, Failure>?
    init(_ node: TypedAsyncDerivation<Value, Failure>) { self.node = node }
}

// The stored phase, last value and current run are written only by `compute(host:changed:)` and `resolve`, which
// hold the graph exclusively (the engine calls compute with it held; resolve runs inside a resolve section), and by
// the deinit; they are read inside read sections, which no write overlaps (include/ripple.h, "threads"). The body
// runs in the run's task, on its own isolation, never under the graph. So sharing the object between threads is
// safe when its values are.
extension TypedAsyncDerivation: @unchecked Sendable where Value: Sendable {}
