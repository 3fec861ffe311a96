import Foundation

/// Shared helpers for the Ripple test suite: a weak box, a seeded random
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
final class RunLog<Value> {
    var values: [Value] = []
}

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
