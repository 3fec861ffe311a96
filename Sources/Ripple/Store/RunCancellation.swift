/// Whether one run of a store's ``Work`` was cancelled: what its ``Send`` consults, whichever thread or task calls
/// it, rather than the caller's own `Task.isCancelled` (a completion handler, a dispatch queue or a detached task
/// is not the run's task, and was never cancelled).
///
/// The store cancels a run (``cancel()``) on the thread that reduces its actions, before the reduction that
/// cancelled it returns. Each action a run sends is then kept or dropped atomically with that:
/// - a store reduces an action from a run only after looking here on the reducing thread, the only thread that
///   cancels runs while it reduces: between the look and the reduction no cancellation can happen;
/// - a test store takes the action (``deliverUnlessCancelled(_:)``) while holding this run's lock, which
///   ``cancel()`` takes too: an action is handed over entirely before the cancellation, or not at all.
final class RunCancellation {
    private let lock = ParkingLock()
    private var cancelled = false

    deinit {
        lock.deallocate()
    }

    /// Marks the run cancelled; its later sends do nothing. Called outside the store's lock: a test store's hook,
    /// which ``deliverUnlessCancelled(_:)`` runs holding this lock, may wait for the store's.
    func cancel() {
        lock.withLock { cancelled = true }
    }

    /// Whether ``cancel()`` was called.
    var isCancelled: Bool {
        lock.withLock { cancelled }
    }

    /// Runs `deliver` unless the run was cancelled, holding off any cancellation until it returns.
    func deliverUnlessCancelled(_ deliver: () -> Void) {
        lock.withLock { if !cancelled { deliver() } }
    }
}

// `cancelled` is read and written only inside `lock.withLock`, so sharing the object between threads is safe.
extension RunCancellation: @unchecked Sendable {}
