/* scripts/lint-portability --self-test: each line marked "found" must be
 * reported, no other. Never compiled. */
#include <linux/membarrier.h> /* found */
#include <stdlib.h>
#if defined(__linux__)
#include <sys/syscall.h>
#define FIXTURE_HAS_SYSCALL 1
#endif

/* syscall(SYS_gettid) in a comment is not code */
static const char *text = "membarrier in a string is not code";

#if defined(FIXTURE_HAS_SYSCALL)
static long guarded_by_a_derived_macro(void) { return syscall(__NR_gettid); }
#elif defined(__APPLE__)
static long guarded_by_elif(void) { return (long)malloc_size(text); }
#else
static long guarded_by_else(void) { return 0; }
#endif

static long unguarded(void) {
    long tid = syscall(__NR_gettid); /* found */
    size_t usable = malloc_usable_size(NULL); /* found */
    pthread_barrier_t barrier; /* found */
    ck_pr_stall(); /* found */
    __asm__ __volatile__("pause"); /* found */
    __asm__ __volatile__("" ::: "memory");
    return tid + (long)usable;
}
