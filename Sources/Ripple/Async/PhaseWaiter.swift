/// One caller of ``TypedAsyncDerivation/value`` waiting for a phase that is not suspending: the continuation to
/// resume once, and the observer effect that keeps the derivation observed meanwhile.
///
/// Resumed by the observer (inside a flush, holding the graph) or by the task's cancellation handler, whichever
/// comes first; the handler must not wait for the graph (a flush may be delivering to the same task), so both go
/// through a lock around a few stores.
final class PhaseWaiter {
    private let lock = ParkingLock()
    private var continuation: CheckedContinuation<Void, any Error>?
    private var observer: Effect?
    /// The phase settled before the continuation was installed.
    private var settled = false
    /// The waiting task was cancelled before the continuation was installed.
    private var cancelled = false

    deinit {
        lock.deallocate()
    }

    func install(_ continuation: CheckedContinuation<Void, any Error>) {
        let outcome: Result<Void, any Error>? = lock.withLock {
            if cancelled { return .failure(CancellationError()) }
            if settled { return .success(()) }
            self.continuation = continuation
            return nil
        }
        if let outcome { continuation.resume(with: outcome) }
    }

    func keep(_ observer: Effect) {
        lock.withLock { self.observer = observer }
    }

    /// Takes the observer for the waiting task to cancel (it holds this waiter: a cycle until then).
    func takeObserver() -> Effect? {
        lock.withLock {
            defer { observer = nil }
            return observer
        }
    }

    func resume() {
        finish(with: .success(()), marking: \.settled)
    }

    func cancel() {
        finish(with: .failure(CancellationError()), marking: \.cancelled)
    }

    private func finish(
        with outcome: Result<Void, any Error>, marking flag: ReferenceWritableKeyPath<PhaseWaiter, Bool>
    ) {
        let waiting = lock.withLock {
            if continuation == nil { self[keyPath: flag] = true }
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume(with: outcome)
    }
}

// Every stored property is touched only under the lock; the continuation is resumed once, outside it.
extension PhaseWaiter: @unchecked Sendable {}
