// The undo histories of one runtime, told when a thread's outermost batch ends. A history counts its open step in
// the runtime's counter of work waiting for the end of a batch (`Runtime.pendingHooksCount`, shared with the
// lifecycle hooks of declared state), so that a batch's end takes its slow path (`Runtime.runPendingHooks`) only
// while a step is open: with no history recording, a write pays nothing.
internal import CRippleThreadState

/// A runtime's recording histories, held weakly: a history records while its owner keeps it.
final class UndoRecorders {
    private struct WeakHistory {
        weak var history: UndoHistory?
    }

    private let lock = ParkingLock()
    private var histories: [WeakHistory] = []

    deinit { lock.deallocate() }

    func add(_ history: UndoHistory) {
        lock.withLock {
            histories.removeAll { $0.history == nil }
            histories.append(WeakHistory(history: history))
        }
    }

    /// Called at the end of each batch while some step is open: when the calling thread has left its outermost
    /// batch and evaluates nothing, the steps it opened are closed.
    func batchEnded() {
        guard ripple_thread_state_batch_depth() == 0, EvaluationThreadState.innermost == nil else { return }
        let recording = lock.withLock { histories.compactMap(\.history) }
        for history in recording { history.outermostBatchEnded() }
    }
}

// `histories` is read and written only under `lock`; the lock's word is allocated once and freed in deinit.
extension UndoRecorders: @unchecked Sendable {}
