internal import CRippleThreadState
#if canImport(os)
internal import os
#endif

/// A lock for critical sections of a few stores that must never wait for a runtime's graph (a task cancellation
/// handler may take it). A thread that finds it taken sleeps until the holder lets go, rather than spinning: a
/// spinning waiter of high priority could starve a preempted holder of low priority (why Apple withdrew
/// `OSSpinLock`), and on Linux a preempted holder cost every spinner its time slice. `os_unfair_lock` where the os
/// module exists (it also lends the waiter's priority to the holder), `ripple_lock` elsewhere (ripple_lock.h: a
/// futex on Linux). Taking a free lock is one compare-and-swap, as the spin lock's test-and-set was.
///
/// Its owner creates it in `init` and calls ``deallocate()`` in `deinit`; it is a value so that taking it costs no
/// reference counting. Not reentrant.
///
/// `withLock` is inlinable (a keyed collection's reads take the lock from code specialized in the caller); taking
/// and releasing stay behind two functions of this module, so that no platform's lock type is part of the module's
/// inlinable interface.
@usableFromInline
struct ParkingLock {
    #if canImport(os)
    private let word: UnsafeMutablePointer<os_unfair_lock>
    #else
    private let word: UnsafeMutablePointer<ripple_lock>
    #endif

    init() {
        word = .allocate(capacity: 1)
        #if canImport(os)
        word.initialize(to: os_unfair_lock())
        #else
        ripple_lock_init(word)
        #endif
    }

    /// Runs `body` holding the lock.
    @inlinable @inline(__always)
    func withLock<T>(_ body: () throws -> T) rethrows -> T {
        acquire()
        defer { release() }
        return try body()
    }

    /// Takes the lock, sleeping while another thread holds it.
    @usableFromInline @inline(__always)
    func acquire() {
        #if canImport(os)
        os_unfair_lock_lock(word)
        #else
        ripple_lock_acquire(word)
        #endif
    }

    /// Lets the lock go, waking a sleeping waiter if there is one.
    @usableFromInline @inline(__always)
    func release() {
        #if canImport(os)
        os_unfair_lock_unlock(word)
        #else
        ripple_lock_release(word)
        #endif
    }

    /// Frees the lock's memory; called once, by the owner's deinit, when no thread holds or waits for it.
    func deallocate() {
        #if !canImport(os)
        ripple_lock_destroy(word)
        #endif
        word.deallocate()
    }
}
