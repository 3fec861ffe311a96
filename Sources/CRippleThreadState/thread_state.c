#include "ripple_thread_state.h"

#include <stddef.h>

RIPPLE_THREAD_LOCAL void *ripple_thread_evaluating_runtime = NULL;

RIPPLE_THREAD_LOCAL bool ripple_thread_observation_probed = false;

RIPPLE_THREAD_LOCAL void *ripple_thread_batching_runtime = NULL;

long ripple_pending_observed_writes = 0;

long ripple_async_runs_in_flight = 0;

RIPPLE_THREAD_LOCAL long ripple_thread_batch_depth = 0;
