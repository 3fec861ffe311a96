/*
 * ripple_once_slot.h: a pointer set at most once, read without a lock.
 *
 * Internal to the Swift module, like ripple_thread_state.h. Swift's own atomics
 * (the Synchronization module) need macOS 15 / iOS 18, which Ripple does not
 * require; these two C11 builtins are all the module needs: the first access of
 * a `@Derived` stored property of a class creates its derivation and publishes
 * it here, and every later access loads it.
 */
#ifndef RIPPLE_ONCE_SLOT_H
#define RIPPLE_ONCE_SLOT_H

#include <stdbool.h>

/* The published pointer, or NULL. Acquire: pairs with the release of
 * ripple_once_slot_publish, so the object it points to is seen initialized. */
static inline void *ripple_once_slot_load(void *const *slot) {
    return __atomic_load_n(slot, __ATOMIC_ACQUIRE);
}

/* Publishes `value` if nothing was published yet; false if another thread won. */
static inline bool ripple_once_slot_publish(void **slot, void *value) {
    void *expected = (void *)0;
    return __atomic_compare_exchange_n(slot, &expected, value, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

#endif
