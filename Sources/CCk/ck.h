/* The Concurrency Kit header the engine uses (sync.h): its atomics, ck_pr. */
#include <ck_pr.h>
