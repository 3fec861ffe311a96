import Foundation
import Synchronization

/// A counter that threads spin on, for the barriers that start threads together (``StartLine``, `RoundBarrier`):
/// there the waiters' start must follow the last arrival within nanoseconds, or their work stops overlapping, so they
/// spin on an atomic, which Synchronization ships only from macOS 15, iOS 18, tvOS 18, watchOS 11 and visionOS 2.
/// Below that (the package's floor is macOS 14, iOS 17) it is a locked integer: the same values, later starts.
/// Every other value the tests share is a ``Locked`` one.
protocol SpinCounter: Sendable {
    /// The current value; acquires what the thread that stored or incremented it did before.
    func load() -> Int
    /// Replaces the value; releases what this thread did before to the threads that load it.
    func store(_ value: Int)
    /// Adds one and returns the new value, acquiring and releasing.
    func increment() -> Int
}

/// A new counter at `value`: atomic where the system has Synchronization's `Atomic`, locked below that.
func makeSpinCounter(_ value: Int = 0) -> any SpinCounter {
    if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
        return AtomicSpinCounter(value)
    }
    return LockedSpinCounter(value)
}

@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
private final class AtomicSpinCounter: SpinCounter {
    private let word: Atomic<Int>

    init(_ value: Int) {
        word = Atomic(value)
    }

    func load() -> Int {
        word.load(ordering: .acquiring)
    }

    func store(_ value: Int) {
        word.store(value, ordering: .releasing)
    }

    func increment() -> Int {
        word.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue
    }
}

private final class LockedSpinCounter: SpinCounter {
    private let word: Locked<Int>

    init(_ value: Int) {
        word = Locked(value)
    }

    func load() -> Int {
        word.withLock { $0 }
    }

    func store(_ value: Int) {
        word.withLock { $0 = value }
    }

    func increment() -> Int {
        word.withLock { value in
            value += 1
            return value
        }
    }
}
