/*
 * arena.h: where edge arrays and node pages come from.
 *
 * Edge arrays are blocks of 8 << k bytes (size class k) carved from large
 * chunks obtained from the graph's allocator. A freed block goes onto its
 * class's free list and is reused by the next request of that class, so a
 * graph that has reached its working size allocates nothing more. Chunks go
 * back to the allocator only when the graph is destroyed.
 */
#ifndef RP_ARENA_H
#define RP_ARENA_H

#include "ripple.h"

#define RP_ARENA_CLASSES 32
#define RP_ARENA_CHUNK_BYTES ((size_t)64 * 1024)

typedef struct rp_chunk rp_chunk_t;

typedef struct rp_arena {
    rp_allocator_t allocator;
    void *free_lists[RP_ARENA_CLASSES];
    char *bump;
    char *bump_end;
    rp_chunk_t *chunks;
    size_t bytes_in_use;
    size_t bytes_reserved;
    size_t allocations;
} rp_arena_t;

void rp_arena_init(rp_arena_t *arena, const rp_allocator_t *allocator);
void rp_arena_release_all(rp_arena_t *arena);

/* Raw allocator access, counted in the arena's statistics. */
void *rp_arena_raw_alloc(rp_arena_t *arena, size_t size);
void rp_arena_raw_free(rp_arena_t *arena, void *block, size_t size);

/* A block of 8 << size_class bytes, or NULL when the allocator fails. */
void *rp_arena_block_alloc(rp_arena_t *arena, unsigned size_class);
void rp_arena_block_free(rp_arena_t *arena, void *block, unsigned size_class);

/* The smallest size class holding `count` 8-byte items. */
unsigned rp_arena_class_for(uint32_t count);

#endif
