#include "ripple_thread_state.h"

#include <stddef.h>

_Thread_local void *ripple_thread_evaluating_runtime = NULL;
_Thread_local long ripple_thread_batch_depth = 0;
