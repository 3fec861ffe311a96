#ifndef RIPPLE_ATOMICS_H
#define RIPPLE_ATOMICS_H

/* Atomic helpers for the Swift module, where the Synchronization module's
 * types are not available on every platform Ripple supports. */

#include <stdbool.h>

/* A counter read on hot paths (relaxed: its readers only need to see their
 * own thread's or their task's earlier increments, which task creation
 * orders) and changed rarely. */
static inline long ripple_counter_load(const long *counter) {
    return __atomic_load_n(counter, __ATOMIC_RELAXED);
}

static inline void ripple_counter_add(long *counter, long delta) {
    (void)__atomic_fetch_add(counter, delta, __ATOMIC_RELAXED);
}

#endif
