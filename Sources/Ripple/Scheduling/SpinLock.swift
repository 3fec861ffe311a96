// Imported publicly, as in Batch.swift: `withLock` is inlinable (a keyed collection's reads take the lock from code
// specialized in the caller). No public declaration mentions its types.
public import CRippleThreadState

/// A lock for critical sections of a few stores that must never wait for a runtime's graph (a task cancellation
/// handler may take it): `ripple_spin_lock` on a word of its own. Its owner creates it in `init` and calls
/// ``deallocate()`` in `deinit`; it is a value so that taking it costs no reference counting.
@usableFromInline
struct SpinLock {
    @usableFromInline let word: UnsafeMutablePointer<Bool>

    init() {
        word = .allocate(capacity: 1)
        word.initialize(to: false)
    }

    /// Runs `body` holding the lock.
    @inlinable
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        ripple_spin_lock(word)
        defer { ripple_spin_unlock(word) }
        return try body()
    }

    /// Frees the lock's word; called once, by the owner's deinit.
    func deallocate() {
        word.deallocate()
    }
}
