/// Every value a node commits from the moment recording starts, in order, for a test to take one at a time:
/// what ``TrackedValue/recordChanges()`` returns.
///
/// Unlike a `values` stream, a recording drops nothing: a writer faster than the test does not make it miss
/// intermediate values. Each flush (a write outside a batch, the end of a batch, an async result) that changes
/// the node's value adds one value; writes inside one batch add only the value the batch ends with, and a write
/// of an equal value (or a recompute to an equal value) adds nothing, as for any observer.
///
/// ```swift
/// @Test func countsUp() async throws {
///     try await withIsolatedRuntime { () async throws in
///         let count = atom(0)
///         let changes = count.recordChanges()
///         Task.detached { for step in 1...3 { count.value = step } }
///         #expect(try await changes.next() == 1)
///         #expect(try await changes.next() == 2)
///         #expect(try await changes.next() == 3)
///     }
/// }
/// ```
///
/// Threading: writers on any thread feed it; ``next(timeout:)`` may be called from any task, one call at a
/// time. Lifetime: recording observes the node (a derivation stays computed eagerly) and keeps it alive until
/// ``stop()`` or until the recording goes.
public final class ChangeRecording<Value: Sendable>: Sendable {
    private let log: ChangeLog<Value>
    private let observer: Effect
    /// What a timeout names: "the next change of <label>".
    private let awaited: String

    init<Node: TrackedValue & Sendable>(of node: Node) where Node.Value == Value {
        let log = ChangeLog<Value>()
        self.log = log
        awaited = "the next change of \(node.label)"
        var started = false
        // The first run reads the value the node has now, which is not a change: it only starts observing.
        observer = Effect(observingIn: node.runtime, label: "recording changes of \(node.label)") {
            let value = node.trackedValue
            if started { log.append(value) } else { started = true }
        }
    }

    deinit {
        observer.cancel()
    }

    /// The next value recorded: at once when one is waiting, else when the node next changes.
    ///
    /// ```swift
    /// let changes = count.recordChanges()
    /// count.value = 5
    /// #expect(try await changes.next() == 5)
    /// ```
    ///
    /// - Parameter timeout: how long to wait for a change; one second by default.
    /// - Returns: the oldest value not returned yet.
    /// - Throws: ``WaitTimeout`` naming the node and the timeout when no change came in time (a change that
    ///   comes later is kept for the next call); `CancellationError` when the waiting task is cancelled.
    ///
    /// Threading: from any task, but not from two at once (that traps). It never blocks a thread.
    public func next(timeout: Duration = .seconds(1)) async throws -> Value {
        if let value = log.takeFirst() { return value }
        try Task.checkCancellation()
        let waiter = OneShotWaiter<Value>()
        return try await waiter.wait(timeout: timeout, timedOut: WaitTimeout(awaited: awaited, timeout: timeout)) {
            log.deliver(to: waiter)
        }
    }

    /// Stops recording: the node is no longer observed, and no value is added from now on (those recorded are
    /// still returned by ``next(timeout:)``). Idempotent; the recording also stops when it goes.
    ///
    /// ```swift
    /// changes.stop()
    /// ```
    ///
    /// Threading: from any thread, but not from inside an effect or derivation body of the node's runtime.
    public func stop() {
        observer.cancel()
    }
}

extension TrackedValue where Self: Sendable, Value: Sendable {
    /// Starts recording every value this node commits from now on: see ``ChangeRecording``.
    ///
    /// ```swift
    /// let count = atom(0)
    /// let changes = count.recordChanges()
    /// count.value = 1
    /// count.value = 2
    /// #expect(try await changes.next() == 1)
    /// #expect(try await changes.next() == 2)
    /// ```
    ///
    /// Threading: from any thread, outside the node's derivation and effect bodies. Lifetime: the recording keeps
    /// the node alive and observed until it is stopped or goes.
    public func recordChanges() -> ChangeRecording<Value> {
        ChangeRecording(of: self)
    }
}

/// The values a ``ChangeRecording`` holds, and the one task waiting for the next, under a lock: values are
/// appended inside flushes (the graph held), taken by the waiting task, which must never wait for the graph.
final class ChangeLog<Value: Sendable> {
    private let lock = ParkingLock()
    private var values: [Value] = []
    /// Index of the oldest value not taken: the front of the queue, without shifting the array at each take.
    private var head = 0
    private var waiting: OneShotWaiter<Value>?

    deinit {
        lock.deallocate()
    }

    /// A new value: to the waiting task if one waits, else to the queue.
    func append(_ value: Value) {
        lock.withLock {
            if let waiter = waiting {
                waiting = nil
                if waiter.finish(.success(value)) { return }  // else it timed out or was cancelled meanwhile
            }
            values.append(value)
        }
    }

    func takeFirst() -> Value? {
        lock.withLock { takeLocked() }
    }

    /// Hands `waiter` the oldest value, or makes it the waiting task.
    func deliver(to waiter: OneShotWaiter<Value>) {
        lock.withLock {
            if head < values.count {
                // A value came between the caller's check and now; a waiter finished already keeps it queued.
                if waiter.finish(.success(values[head])) { _ = takeLocked() }
                return
            }
            if let other = waiting, !other.isFinished {
                preconditionFailure(
                    """
                    Ripple: ChangeRecording.next(timeout:) was called from two tasks at once. A recording hands each \
                    value to one caller, so two concurrent callers would race for them. Fix: await next() from one \
                    task, or record twice (recordChanges() once per task).
                    """)
            }
            waiting = waiter
        }
    }

    private func takeLocked() -> Value? {
        guard head < values.count else { return nil }
        let value = values[head]
        head += 1
        if head == values.count {
            values.removeAll(keepingCapacity: true)
            head = 0
        }
        return value
    }
}

// Every stored property is touched only under the lock; values are Sendable.
extension ChangeLog: @unchecked Sendable {}
