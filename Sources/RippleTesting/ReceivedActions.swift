import Foundation

/// The actions a test store's work sent, in the order sent, and the waits for them: a test store's `receive` and
/// `finish` wait here until an action arrives or the store's runs end, or a time limit passes.
final class ReceivedActions<Action: Sendable>: @unchecked Sendable {
    /// A wait in progress: what it waits for (checked with `condition` held) and how to resume it.
    private struct Waiter {
        var isSatisfied: @Sendable (_ received: Int) -> Bool
        var continuation: CheckedContinuation<Bool, Never>
        var timer: Task<Void, Never>?
    }

    /// Guards `actions`, `waiters` and `lastWaiter`; broadcast on every change, for the blocking wait.
    private let condition = NSCondition()
    private var actions: [Action] = []
    private var waiters: [UInt64: Waiter] = [:]
    private var lastWaiter: UInt64 = 0

    /// The actions received and not yet taken, oldest first.
    var pending: [Action] {
        condition.withLock { actions }
    }

    /// Appends an action sent by work and wakes the waits it satisfies.
    func append(_ action: Action) {
        condition.withLock { actions.append(action) }
        changed()
    }

    /// The oldest action received and not yet taken, removed.
    func takeFirst() -> Action? {
        condition.withLock { actions.isEmpty ? nil : actions.removeFirst() }
    }

    /// Wakes the waits whose condition now holds: called on each action and each start or end of a run.
    func changed() {
        let satisfied = condition.withLock {
            condition.broadcast()
            let ready = waiters.filter { $0.value.isSatisfied(actions.count) }
            for key in ready.keys { waiters[key] = nil }
            return ready.values
        }
        for waiter in satisfied {
            waiter.timer?.cancel()
            waiter.continuation.resume(returning: true)
        }
    }

    /// Waits until `isSatisfied` holds (given the number of actions pending), or `timeout` passes; returns whether
    /// it holds. `isSatisfied` runs with the lock held: it may read the store (whose lock never waits for this one),
    /// not this object.
    func wait(timeout: Duration, until isSatisfied: @escaping @Sendable (_ received: Int) -> Bool) async -> Bool {
        await withCheckedContinuation { continuation in
            let number: UInt64? = condition.withLock {
                if isSatisfied(actions.count) { return nil }
                lastWaiter += 1
                waiters[lastWaiter] = Waiter(isSatisfied: isSatisfied, continuation: continuation)
                return lastWaiter
            }
            guard let number else { return continuation.resume(returning: true) }
            let timer = Task {
                try? await Task.sleep(for: timeout)
                self.expire(number)
            }
            let stillWaiting = condition.withLock {
                waiters[number]?.timer = timer
                return waiters[number] != nil
            }
            if !stillWaiting { timer.cancel() }
        }
    }

    /// Ends a wait whose time ran out, if it is still waiting.
    private func expire(_ number: UInt64) {
        let waiter = condition.withLock { waiters.removeValue(forKey: number) }
        waiter?.continuation.resume(returning: false)
    }

    /// The same wait, blocking the calling thread: for a test store's deinit, which cannot suspend.
    func waitBlocking(timeout: Duration, until isSatisfied: () -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18)
        return condition.withLock {
            while !isSatisfied() {
                if !condition.wait(until: deadline) { return isSatisfied() }
            }
            return true
        }
    }
}
