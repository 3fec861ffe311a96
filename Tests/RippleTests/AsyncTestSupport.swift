import Foundation
import Ripple

/// A latch an async body waits on until the test opens it: it makes each run of an async derivation finish exactly
/// when the test says, so phase sequences are deterministic. Opening it again does nothing.
final class Gate<Value: Sendable>: @unchecked Sendable {
    // `opened` and `waiters` are guarded by `lock`; continuations are resumed outside it.
    private let lock = NSLock()
    private var opened: Value?
    private var waiters: [CheckedContinuation<Value, Never>] = []

    init() {}

    /// Suspends until the gate is open, then returns the value it was opened with.
    func wait() async -> Value {
        await withCheckedContinuation { continuation in
            let value: Value? = lock.withLock {
                if let opened { return opened }
                waiters.append(continuation)
                return nil
            }
            if let value { continuation.resume(returning: value) }
        }
    }

    func open(_ value: Value) {
        let waiting: [CheckedContinuation<Value, Never>] = lock.withLock {
            if opened != nil { return [] }
            opened = value
            defer { waiters = [] }
            return waiters
        }
        for waiter in waiting { waiter.resume(returning: value) }
    }
}

extension Gate where Value == Void {
    func open() { open(()) }
}

/// In the current runtime: three gates, an atom `input` starting at 1, and an async derivation of it whose run for
/// a value waits until `gates[value]` opens, then returns `result(value)`; so each run finishes exactly when the
/// test opens its gate.
func gatedAsyncDerivation(returning result: @escaping @Sendable (Int) -> Int = { $0 })
    -> (gates: [Gate<Void>], input: AtomObject<Int>, number: AsyncDerivation<Int>)
{
    let gates = [Gate<Void>(), Gate<Void>(), Gate<Void>()]
    let input = atom(1)
    let number = derive { () async -> Int in
        let value = input.value
        await gates[value].wait()
        return result(value)
    }
    return (gates, input, number)
}

/// Values recorded by bodies on any thread, with a way to wait until there are `count` of them: how a test waits
/// for an effect that runs on the thread resolving an async run.
final class AwaitableLog<Value: Sendable>: @unchecked Sendable {
    // Every stored property is guarded by `lock`.
    private let lock = NSLock()
    private var storage: [Value] = []
    private var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []

    init() {}

    var values: [Value] {
        lock.withLock { storage }
    }

    func append(_ value: Value) {
        let ready: [CheckedContinuation<Void, Never>] = lock.withLock {
            storage.append(value)
            let count = storage.count
            defer { waiters.removeAll { $0.count <= count } }
            return waiters.filter { $0.count <= count }.map(\.continuation)
        }
        for waiter in ready { waiter.resume() }
    }

    /// Suspends until at least `count` values were recorded.
    func waitUntil(count: Int) async {
        await withCheckedContinuation { continuation in
            let ready: Bool = lock.withLock {
                if storage.count >= count { return true }
                waiters.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }
}
