/// One waiting task of ``ChangeRecording/next(timeout:)`` or ``waitUntil(timeout:in:fileID:line:_:)``: a
/// continuation finished once, by whichever comes first of the awaited event (inside a flush, while the graph is
/// held), the timeout, or the task's cancellation handler. The handler must not wait for the graph, so everything
/// goes through a lock around a few stores. An outcome that comes before the continuation is installed is
/// kept and delivered when it is.
final class OneShotWaiter<Value: Sendable> {
    private let lock = ParkingLock()
    private var continuation: CheckedContinuation<Value, any Error>?
    private var early: Result<Value, any Error>?
    private var finished = false

    deinit {
        lock.deallocate()
    }

    func install(_ continuation: CheckedContinuation<Value, any Error>) {
        let outcome: Result<Value, any Error>? = lock.withLock {
            if let early { return early }
            self.continuation = continuation
            return nil
        }
        if let outcome { continuation.resume(with: outcome) }
    }

    /// Finishes the wait with `outcome` unless it is finished already; returns whether this call finished it.
    @discardableResult
    func finish(_ outcome: Result<Value, any Error>) -> Bool {
        let (accepted, waiting) = lock.withLock { () -> (Bool, CheckedContinuation<Value, any Error>?) in
            if finished { return (false, nil) }
            finished = true
            defer { continuation = nil }
            if continuation == nil { early = outcome }
            return (true, continuation)
        }
        waiting?.resume(with: outcome)
        return accepted
    }

    /// Whether the wait is over.
    var isFinished: Bool {
        lock.withLock { finished }
    }

    /// Waits for `finish`, or for `timeout` to pass (then fails with `timedOut`), or for the task's cancellation
    /// (then `CancellationError`). `start` runs once the continuation is installed: it arranges for `finish`.
    func wait(timeout: Duration, timedOut: WaitTimeout, start: () -> Void) async throws -> Value {
        let timer = Task { [self] in
            do { try await Task.sleep(for: timeout) } catch { return }
            finish(.failure(timedOut))
        }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                install(continuation)
                start()
            }
        } onCancel: {
            finish(.failure(CancellationError()))
        }
    }
}

// Every stored property is touched only under the lock; the continuation is resumed once, outside it.
extension OneShotWaiter: @unchecked Sendable {}
