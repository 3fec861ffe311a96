#include "ripple_thread_state.h"

#include <stddef.h>

_Thread_local void *ripple_thread_evaluating_runtime = NULL;

_Thread_local bool ripple_thread_observation_probed = false;

_Thread_local void *ripple_thread_batching_runtime = NULL;

long ripple_pending_observed_writes = 0;

_Thread_local long ripple_thread_batch_depth = 0;
