import Foundation

/// Shared helpers for the Ripple test suite: a weak box, logs and counters that
/// nonisolated (`Sendable`) bodies record into, a shared slot, a seeded random
/// generator, and a way to run code on a thread whose stack size we choose.

/// Holds an object weakly, so a closure can refer to the object that owns it
/// (an effect cancelling itself) without a reference cycle.
final class WeakBox<Object: AnyObject> {
    weak var object: Object?

    init(_ object: Object? = nil) {
        self.object = object
    }
}

/// Values recorded in order by an effect, kept in an object so that code on
/// another thread or in another scope can read them afterwards.
///
/// Deliberately unsynchronized, unlike ``Recorder``: use it only from the
/// bodies of one runtime's effects and derivations (which the engine never runs
/// at once) and, after them, from the thread that waited for them. Under
/// ThreadSanitizer a run that is not ordered after the previous one is then
/// reported as a race, which is what the threaded tests check.
final class RunLog<Value> {
    var values: [Value] = []
}

// Sendable by the contract above: the engine serializes the bodies that touch
// the log (include/ripple.h, "threads"), and tests read it only after them.
extension RunLog: @unchecked Sendable {}

/// Values recorded in order by effect and derivation bodies that may run on any
/// thread: what a nonisolated (`Sendable`) body appends to instead of a captured
/// `var`.
///
/// Guarded by an NSLock rather than `Synchronization.Mutex`, because
/// ThreadSanitizer on Linux does not see `Mutex` and would report its accesses.
final class Recorder<Value: Sendable> {
    private let lock = NSLock()
    private var storage: [Value] = []

    init() {}

    /// What was recorded, in order.
    var values: [Value] {
        lock.withLock { storage }
    }

    var isEmpty: Bool {
        lock.withLock { storage.isEmpty }
    }

    func append(_ value: Value) {
        lock.withLock { storage.append(value) }
    }

    /// Forgets what was recorded, so that the next expectation covers only what
    /// happens after this call.
    func removeAll() {
        lock.withLock { storage.removeAll() }
    }
}

// Every access to `storage` holds `lock`, and the values are Sendable.
extension Recorder: @unchecked Sendable {}

/// How many times a nonisolated body ran: a counter any thread may bump, for
/// what a captured `var runs = 0` counted before bodies had to be `Sendable`.
final class RunCount: Sendable {
    private let count = Locked(0)

    init() {}

    /// The number of increments so far.
    var value: Int {
        count.withLock { $0 }
    }

    func increment(by amount: Int = 1) {
        count.withLock { $0 += amount }
    }
}

/// A value that threads share and any of them may replace or clear: a
/// reference that one thread drops while others use it, or one that a body
/// needs before it can exist (a derivation that reads itself, filled right
/// after the node is made).
final class Slot<Value: Sendable> {
    private let lock = NSLock()
    private var stored: Value?

    init(_ value: Value? = nil) {
        stored = value
    }

    var value: Value? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

// Every access to `stored` holds `lock`, and the value is Sendable.
extension Slot: @unchecked Sendable {}

/// SplitMix64: a tiny deterministic generator, so a failing randomized test can
/// be re-run with the seed it reports.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Runs `body` on a new Foundation `Thread` with a stack of `stackSize` bytes and
/// returns its result once the thread has finished it.
func runOnThread<Result: Sendable>(
    stackSize: Int,
    _ body: @escaping @Sendable () -> Result
) async -> Result {
    await withCheckedContinuation { continuation in
        let thread = Thread {
            continuation.resume(returning: body())
        }
        thread.stackSize = stackSize
        thread.start()
    }
}

/// Sizes used by the deep-chain and threading tests.
enum StackSize {
    /// The stack on which updating a 10,000-deep chain must work.
    static let small = 512 * 1024
    /// Enough stack for Swift's own recursive release of long closure chains.
    static let large = 64 * 1024 * 1024
}

/// Drops a strong reference now. Tests use it where the dropped reference is
/// the point of the test and nothing reads the variable afterwards.
func release<Object: AnyObject>(_ object: inout Object?) {
    object = nil
}
