/*
 * ripple_thread_state.h: the Swift module's per-thread record of which runtime
 * is evaluating (running a derivation's body or an effect's) on this thread,
 * and the Observation bridge's per-thread flags (the probe, the innermost
 * explicit batch) and its count of main-actor writes waiting for their job's
 * end.
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
#include "ripple_read_section.h"
#include "ripple_slot_table.h"

#include <stdbool.h>

/* The module's thread-locals use the initial-exec TLS model: an access is a
 * load at a fixed offset from the thread pointer. The default model for
 * position-independent code reaches them through a call (__tls_get_addr),
 * which the linker rewrites into a load when it links an executable but whose
 * clobbered registers the compiler has already kept free: a function that
 * reads the evaluating runtime would save a register to keep its arguments.
 * Initial-exec wants the module loaded with the program (linked in, or a
 * library the program links against); a library opened later with dlopen
 * takes these few bytes from the static TLS space the loader reserves for
 * such libraries. ELF only: other formats have a single model. */
#if defined(__ELF__)
#define RIPPLE_THREAD_LOCAL _Thread_local __attribute__((tls_model("initial-exec")))
#else
#define RIPPLE_THREAD_LOCAL _Thread_local
#endif

extern RIPPLE_THREAD_LOCAL void *ripple_thread_evaluating_runtime;

/* The runtime evaluating on this thread (an unretained pointer), or NULL. */
static inline void *ripple_thread_state_evaluating(void) {
    return ripple_thread_evaluating_runtime;
}

static inline void ripple_thread_state_set_evaluating(void *runtime) {
    ripple_thread_evaluating_runtime = runtime;
}

/* Set by the hash of the Observation probe's key path: Observation hashes the
 * key paths a registrar's `access` records, and records them only inside
 * `withObservationTracking`. Cleared before each probe, read after it. */
extern RIPPLE_THREAD_LOCAL bool ripple_thread_observation_probed;

static inline bool ripple_thread_state_observation_probed(void) {
    return ripple_thread_observation_probed;
}

static inline void ripple_thread_state_set_observation_probed(bool probed) {
    ripple_thread_observation_probed = probed;
}

/* How many writes of @Observable properties made on the main actor wait for
 * the end of their job (PendingObservedWrites in the Swift module): read on
 * every thread, changed on the main actor. A C global, so that the check on
 * Ripple's read and write paths is one load. Relaxed: a thread other than the
 * main one ignores the count, and the main one sees its own changes. */
extern long ripple_pending_observed_writes;

static inline long ripple_pending_observed_writes_load(void) {
    return __atomic_load_n(&ripple_pending_observed_writes, __ATOMIC_RELAXED);
}

static inline void ripple_pending_observed_writes_add(long delta) {
    (void)__atomic_fetch_add(&ripple_pending_observed_writes, delta, __ATOMIC_RELAXED);
}

/* How many async derivations' runs are in flight, in every runtime (AsyncRun
 * in the Swift module counts them). While any is, a read outside evaluations
 * may be an async body's, of its own runtime's node (tracked for the run) or
 * of another runtime's (a trap): such reads look the run up, a task-local.
 * Counted over every runtime, not per runtime, because the node read may
 * belong to a runtime with no run of its own. A C global, so that the check
 * on the read paths is one load. Relaxed: a body's reads happen in the run's
 * task, after the increment that task creation orders. */
extern long ripple_async_runs_in_flight;

static inline long ripple_async_runs_in_flight_load(void) {
    return __atomic_load_n(&ripple_async_runs_in_flight, __ATOMIC_RELAXED);
}

static inline void ripple_async_runs_in_flight_add(long delta) {
    (void)__atomic_fetch_add(&ripple_async_runs_in_flight, delta, __ATOMIC_RELAXED);
}

/* The runtime whose explicit batch (`Runtime.batch`) is innermost on this
 * thread (an unretained pointer), or NULL: a write Observation announces there
 * is complete when the batch ends. */
extern RIPPLE_THREAD_LOCAL void *ripple_thread_batching_runtime;

static inline void *ripple_thread_state_batching(void) {
    return ripple_thread_batching_runtime;
}

static inline void ripple_thread_state_set_batching(void *runtime) {
    ripple_thread_batching_runtime = runtime;
}

/* Whether this thread holds `runtime`'s graph by Ripple's own marks: it is
 * evaluating in it or inside its explicit batch, and no write of an observed
 * property waits (RippleNode.threadHoldsGraph in the Swift module). In C so
 * that the test is two loads and compares, without Swift's optional checks. */
static inline bool ripple_thread_state_holds(const void *runtime) {
    return (ripple_thread_evaluating_runtime == runtime || ripple_thread_batching_runtime == runtime) &&
           ripple_pending_observed_writes_load() == 0;
}

/* How many batches this thread has open, in any runtime. Declared state runs
 * its lifecycle hooks when the outermost one ends (or at once when none is
 * open and nothing evaluates on this thread). */
extern RIPPLE_THREAD_LOCAL long ripple_thread_batch_depth;

static inline long ripple_thread_state_batch_depth(void) {
    return ripple_thread_batch_depth;
}

static inline void ripple_thread_state_add_batch_depth(long delta) {
    ripple_thread_batch_depth += delta;
}

#endif
