/*
 * sync.h: every Concurrency Kit call the engine makes, in one place.
 *
 * A graph is used by one thread at a time today. The counters below are the
 * ones a concurrent reader validates against (a node's generation says whether
 * a handle is still live; the write epoch says whether anything was written
 * since a re-validation began), so they are read and written through ck_pr
 * already: making a graph shared across threads then changes these helpers and
 * the locking around the public calls, not the propagation algorithm.
 */
#ifndef RP_SYNC_H
#define RP_SYNC_H

#include <ck_pr.h>
#include <stdint.h>

/* Pairs with rp_sync_store_u32 in the writer that frees or reuses a slot. */
static inline uint32_t rp_sync_load_u32(const uint32_t *target) {
    return ck_pr_load_32(target);
}

/* Pairs with rp_sync_load_u32 in readers validating a handle. */
static inline void rp_sync_store_u32(uint32_t *target, uint32_t value) {
    ck_pr_store_32(target, value);
}

static inline uint64_t rp_sync_load_u64(const uint64_t *target) {
    return ck_pr_load_64(target);
}

/* Advances a version counter and returns the new value. Pairs with
 * rp_sync_load_u64 in re-validation, which compares versions it saw before and
 * after running host code. */
static inline uint64_t rp_sync_bump_u64(uint64_t *target) {
    uint64_t next = ck_pr_load_64(target) + 1;
    ck_pr_store_64(target, next);
    return next;
}

#endif
