/* ripple_lock's initialization and, on Linux, its contended path: see
 * ripple_lock.h. */
#if defined(__linux__)
#define _GNU_SOURCE /* syscall(2) */
#endif

#include "ripple_lock.h"

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <unistd.h>

/* How many times a thread that found the lock taken looks again before it
 * sleeps: sections last a few dozen instructions, so a holder that is running
 * usually lets go within them. */
enum { RIPPLE_LOCK_SPINS = 64 };

static inline void ripple_lock_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

void ripple_lock_init(ripple_lock *lock) {
    lock->word = 0;
}

void ripple_lock_destroy(ripple_lock *lock) {
    (void)lock;
}

void ripple_lock_acquire_contended(ripple_lock *lock) {
    for (int spin = 0; spin < RIPPLE_LOCK_SPINS; spin++) {
        ripple_lock_relax();
        uint32_t expected = 0;
        if (__atomic_load_n(&lock->word, __ATOMIC_RELAXED) == 0 &&
            __atomic_compare_exchange_n(&lock->word, &expected, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
            return;
        }
    }
    /* Mark the lock as having sleepers, then sleep while it stays taken. The
     * exchange that finds 0 takes the lock (as 2: a sleeper may remain, and the
     * release then wakes it, which costs at most one needless wake-up).
     * Acquire: pairs with the release exchange in ripple_lock_release. */
    while (__atomic_exchange_n(&lock->word, 2, __ATOMIC_ACQUIRE) != 0) {
        /* Returns at once if the word is no longer 2 (the holder let go
         * meanwhile), or on a wake-up or a signal: the loop looks again. */
        (void)syscall(SYS_futex, &lock->word, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
    }
}

void ripple_lock_wake(ripple_lock *lock) {
    (void)syscall(SYS_futex, &lock->word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}
#else
void ripple_lock_init(ripple_lock *lock) {
    (void)pthread_mutex_init(&lock->mutex, NULL);
}

void ripple_lock_destroy(ripple_lock *lock) {
    (void)pthread_mutex_destroy(&lock->mutex);
}
#endif
