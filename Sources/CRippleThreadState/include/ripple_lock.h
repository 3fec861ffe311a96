#ifndef RIPPLE_LOCK_H
#define RIPPLE_LOCK_H

/* A lock for the Swift module's short critical sections (ParkingLock in the
 * Swift module, which uses os_unfair_lock instead where the os module exists).
 * A thread that finds it taken spins a few times, then sleeps in the kernel
 * until the holder lets go: a holder preempted inside its section costs the
 * waiters no time slices, where a spin lock burned them.
 *
 * On Linux, one 32-bit word and the futex system call (the three-state mutex
 * of Drepper's "Futexes Are Tricky"): 0 free, 1 taken, 2 taken with sleepers
 * (or possibly so). Taking a free lock is one compare-and-swap, letting go of
 * one no thread waits for is one exchange; only contention makes system calls.
 * Elsewhere, a pthread mutex. Zero-initialized memory is not a valid lock:
 * call ripple_lock_init first. */

#include <stdbool.h>
#include <stdint.h>

#if !defined(__linux__)
#include <pthread.h>
#endif

typedef struct ripple_lock {
#if defined(__linux__)
    uint32_t word;
#else
    pthread_mutex_t mutex;
#endif
} ripple_lock;

void ripple_lock_init(ripple_lock *lock);
void ripple_lock_destroy(ripple_lock *lock);

#if defined(__linux__)
/* The waits and wake-ups of a contended lock, out of line (lock.c). */
void ripple_lock_acquire_contended(ripple_lock *lock);
void ripple_lock_wake(ripple_lock *lock);

static inline void ripple_lock_acquire(ripple_lock *lock) {
    uint32_t expected = 0;
    /* Acquire: pairs with the release exchange in ripple_lock_release, so the
     * section sees what the last holder's section wrote. */
    if (__atomic_compare_exchange_n(&lock->word, &expected, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        return;
    }
    ripple_lock_acquire_contended(lock);
}

static inline void ripple_lock_release(ripple_lock *lock) {
    /* Release: pairs with the acquiring exchanges of the next holder. A 2 means
     * a thread may sleep on the word: wake one. */
    if (__atomic_exchange_n(&lock->word, 0, __ATOMIC_RELEASE) == 2) {
        ripple_lock_wake(lock);
    }
}
#else
static inline void ripple_lock_acquire(ripple_lock *lock) {
    (void)pthread_mutex_lock(&lock->mutex);
}

static inline void ripple_lock_release(ripple_lock *lock) {
    (void)pthread_mutex_unlock(&lock->mutex);
}
#endif

#endif
