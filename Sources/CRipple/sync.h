/*
 * sync.h: every atomic operation the engine makes, in one place.
 *
 * The engine's shared state is guarded by the sections of sections.c; the
 * only words touched by several threads at once are the sections' own (the
 * reader stripes, the owner, the waiter count). Their operations are Concurrency
 * Kit's ck_pr, with the ordering each use needs spelled out.
 *
 * Under ThreadSanitizer the same operations go through the compiler's __atomic
 * builtins instead: ck_pr's loads and stores are volatile accesses and its
 * read-modify-writes inline assembly (or __sync builtins), which the sanitizer
 * cannot see as synchronization. The orderings are the same, so what the
 * sanitizer checks is the protocol the engine runs.
 */
#ifndef RP_SYNC_H
#define RP_SYNC_H

#include <ck_pr.h>
#include <stdbool.h>
#include <stdint.h>

#if defined(__SANITIZE_THREAD__)
#define RP_SYNC_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RP_SYNC_TSAN 1
#endif
#endif

#if defined(RP_SYNC_TSAN)

static inline uint32_t rp_sync_load_u32(const uint32_t *target) {
    return __atomic_load_n(target, __ATOMIC_ACQUIRE);
}
static inline void *rp_sync_load_ptr(void *const *target) {
    return __atomic_load_n(target, __ATOMIC_ACQUIRE);
}
static inline bool rp_sync_cas_ptr(void **target, void *expected, void *desired) {
    return __atomic_compare_exchange_n(target, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}
static inline void rp_sync_inc_u32(uint32_t *target) {
    __atomic_fetch_add(target, 1, __ATOMIC_SEQ_CST);
}
static inline void rp_sync_dec_u32(uint32_t *target) {
    __atomic_fetch_sub(target, 1, __ATOMIC_SEQ_CST);
}

#else

/* Acquire: what the thread that last changed the word did before is visible after. */
static inline uint32_t rp_sync_load_u32(const uint32_t *target) {
    uint32_t value = ck_pr_load_32(target);
    ck_pr_fence_acquire();
    return value;
}
static inline void *rp_sync_load_ptr(void *const *target) {
    void *value = ck_pr_load_ptr(target);
    ck_pr_fence_acquire();
    return value;
}
/* Full barrier on both sides, like the increments and decrements below. */
static inline bool rp_sync_cas_ptr(void **target, void *expected, void *desired) {
    ck_pr_fence_atomic();
    bool swapped = ck_pr_cas_ptr(target, expected, desired);
    ck_pr_fence_atomic_load();
    return swapped;
}
static inline void rp_sync_inc_u32(uint32_t *target) {
    ck_pr_fence_atomic();
    ck_pr_inc_32(target);
    ck_pr_fence_atomic_load();
}
static inline void rp_sync_dec_u32(uint32_t *target) {
    ck_pr_fence_release();
    ck_pr_dec_32(target);
    ck_pr_fence_atomic_load();
}

#endif

/* Lets the other hyperthread (or, under oversubscription, thread) progress. */
static inline void rp_sync_pause(void) {
    ck_pr_stall();
}

#endif
