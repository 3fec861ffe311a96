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

/* A pointer published by one thread for others to read without a lock: the
 * release store orders the writes to what it points to before the pointer;
 * the acquire load pairs with it, so a reader that sees the pointer sees
 * those writes. (CreationSites: the last place a node was created at.) */
static inline void *ripple_pointer_load_acquire(void *const *slot) {
    return __atomic_load_n(slot, __ATOMIC_ACQUIRE);
}

static inline void ripple_pointer_store_release(void **slot, void *value) {
    __atomic_store_n(slot, value, __ATOMIC_RELEASE);
}

#endif
