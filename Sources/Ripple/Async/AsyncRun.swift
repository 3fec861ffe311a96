internal import CRipple
internal import CRippleThreadState

/// One run of an async node: the task that runs its body, the engine's id for it, and the cleanups its body
/// registered.
///
/// The body's task carries the run as a task-local value (``AsyncRun/current``), inherited by its child tasks
/// (`async let`, task groups) and not by detached tasks: a read made there names the run to the engine, which
/// records it as a dependency of the node while the run is current (`RippleNode.beginRead`).
///
/// The run holds its runtime (the engine's graph must outlive a late read or result of the task) but not its node:
/// freeing the node cancels the run, and the task's late calls find the node's handle stale.
final class AsyncRun {
    /// The run whose body (or a child task of it) is executing, or nil.
    @TaskLocal static var current: AsyncRun?

    let runtime: Runtime
    let node: rp_node_t
    let id: UInt64

    /// Guards `cleanups`, `isOver`, `task` and `taskFinished`: the body registers cleanups from its own task while the node ends
    /// the run from a compute (holding the graph) or its deinit. Never held while waiting for the graph.
    private let lock = ParkingLock()
    private var cleanups: [() -> Void] = []
    private var isOver = false
    private var task: Task<Void, Never>?
    private var taskFinished = false

    init(runtime: Runtime, node: rp_node_t, id: UInt64) {
        self.runtime = runtime
        self.node = node
        self.id = id
        ripple_counter_add(runtime.asyncRunsInFlight, 1)
        ripple_async_runs_in_flight_add(1)
    }

    deinit {
        lock.deallocate()
    }

    /// Starts the run's task, which calls `body` with this run as ``current``, and the runtime as
    /// ``Runtime/current``, and ends by counting itself out of the runtime's runs in flight. The run forgets the
    /// task once it finished: a finished task still costs over a kilobyte, and an idle async derivation keeps its
    /// last run.
    func start(_ body: @escaping @Sendable () async -> Void) {
        let task = Task.detached { [self] in
            await AsyncRun.$current.withValue(self) {
                await RippleContext.$runtimeOverride.withValue(runtime) {
                    await body()
                }
            }
            lock.withLock {
                taskFinished = true
                self.task = nil
            }
            ripple_counter_add(runtime.asyncRunsInFlight, -1)
            ripple_async_runs_in_flight_add(-1)
        }
        let cancelNow = lock.withLock {
            if !taskFinished { self.task = task }
            return isOver
        }
        if cancelNow { task.cancel() }
    }

    /// Registers a cleanup of the body: it runs when the run ends (superseded, or its node freed), or now if it
    /// has ended already.
    func register(cleanup: @escaping () -> Void) {
        let runNow = lock.withLock {
            if isOver { return true }
            cleanups.append(cleanup)
            return false
        }
        if runNow { cleanup() }
    }

    /// Ends the run: cancels its task and runs its cleanups, in registration order. Idempotent.
    func end() {
        let (task, pending) = lock.withLock {
            isOver = true
            defer { cleanups = [] }
            return (self.task, cleanups)
        }
        task?.cancel()
        for cleanup in pending { cleanup() }
    }

    /// The run's task while it runs (nil once it finished), for tests that wait for a superseded run to finish.
    var runningTask: Task<Void, Never>? {
        lock.withLock { task }
    }
}

// Its mutable state (`cleanups`, `isOver`, `task`) is touched only under its lock; everything else is
// immutable. Cleanups are closures the body registered from its own isolation and run once, by whoever ends the
// run: the same contract as an effect's cleanups, which run on the thread of the change that ends the run.
extension AsyncRun: @unchecked Sendable {}
