/*
 * ripple_thread_state.h: the Swift module's per-thread record of which runtime
 * is evaluating (running a derivation's body or an effect's) on this thread.
 *
 * Internal to the Swift module: not part of Ripple's C API (include/ripple.h)
 * and never installed. It exists because Swift has no thread-local variables,
 * and pthread_getspecific/setspecific cost a call and a key check on every
 * evaluation, where a C11 _Thread_local costs a register-relative move.
 */
#ifndef RIPPLE_THREAD_STATE_H
#define RIPPLE_THREAD_STATE_H

/* The module's other header, included here too so that builds whose clang
 * module cache predates it (the module map is an umbrella directory, and an
 * added file does not invalidate the cache) still see it. */
#include "ripple_atomics.h"
#include "ripple_object_lifetime.h"
#include "ripple_slot_table.h"

extern _Thread_local void *ripple_thread_evaluating_runtime;

/* The runtime evaluating on this thread (an unretained pointer), or NULL. */
static inline void *ripple_thread_state_evaluating(void) {
    return ripple_thread_evaluating_runtime;
}

static inline void ripple_thread_state_set_evaluating(void *runtime) {
    ripple_thread_evaluating_runtime = runtime;
}

/* How many batches this thread has open, in any runtime. Declared state runs
 * its lifecycle hooks when the outermost one ends (or at once when none is
 * open and nothing evaluates on this thread). */
extern _Thread_local long ripple_thread_batch_depth;

static inline long ripple_thread_state_batch_depth(void) {
    return ripple_thread_batch_depth;
}

static inline void ripple_thread_state_add_batch_depth(long delta) {
    ripple_thread_batch_depth += delta;
}

#endif
