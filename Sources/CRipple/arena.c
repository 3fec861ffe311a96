#include "arena.h"

#include <stdlib.h>

struct rp_chunk {
    rp_chunk_t *next;
    size_t size;
};

/* Blocks at least this large get a chunk of their own instead of bump space. */
#define RP_ARENA_LARGE_BLOCK (RP_ARENA_CHUNK_BYTES / 4)

static void *default_alloc(void *context, size_t size) {
    (void)context;
    return malloc(size);
}

static void default_free(void *context, void *block, size_t size) {
    (void)context;
    (void)size;
    free(block);
}

void rp_arena_init(rp_arena_t *arena, const rp_allocator_t *allocator) {
    *arena = (rp_arena_t){0};
    if (allocator != NULL) {
        arena->allocator = *allocator;
    } else {
        arena->allocator = (rp_allocator_t){default_alloc, default_free, NULL};
    }
}

void *rp_arena_raw_alloc(rp_arena_t *arena, size_t size) {
    void *block = arena->allocator.alloc(arena->allocator.context, size);
    arena->allocations++;
    if (block != NULL) arena->bytes_reserved += size;
    return block;
}

void rp_arena_raw_free(rp_arena_t *arena, void *block, size_t size) {
    if (block == NULL) return;
    arena->bytes_reserved -= size;
    arena->allocator.free(arena->allocator.context, block, size);
}

static rp_chunk_t *new_chunk(rp_arena_t *arena, size_t payload) {
    size_t size = sizeof(rp_chunk_t) + payload;
    rp_chunk_t *chunk = rp_arena_raw_alloc(arena, size);
    if (chunk == NULL) return NULL;
    chunk->size = size;
    chunk->next = arena->chunks;
    arena->chunks = chunk;
    return chunk;
}

unsigned rp_arena_class_for(uint32_t count) {
    unsigned size_class = 0;
    while (((uint64_t)1 << size_class) < count) size_class++;
    return size_class;
}

void *rp_arena_block_alloc(rp_arena_t *arena, unsigned size_class) {
    if (size_class >= RP_ARENA_CLASSES) return NULL;
    size_t bytes = (size_t)8 << size_class;
    void *block = arena->free_lists[size_class];
    if (block != NULL) {
        arena->free_lists[size_class] = *(void **)block;
    } else if (bytes >= RP_ARENA_LARGE_BLOCK) {
        rp_chunk_t *chunk = new_chunk(arena, bytes);
        if (chunk == NULL) return NULL;
        block = chunk + 1;
    } else {
        if ((size_t)(arena->bump_end - arena->bump) < bytes) {
            rp_chunk_t *chunk = new_chunk(arena, RP_ARENA_CHUNK_BYTES);
            if (chunk == NULL) return NULL;
            /* The tail of the previous chunk is abandoned: at most a quarter chunk. */
            arena->bump = (char *)(chunk + 1);
            arena->bump_end = arena->bump + RP_ARENA_CHUNK_BYTES;
        }
        block = arena->bump;
        arena->bump += bytes;
    }
    arena->bytes_in_use += bytes;
    return block;
}

void rp_arena_block_free(rp_arena_t *arena, void *block, unsigned size_class) {
    if (block == NULL) return;
    *(void **)block = arena->free_lists[size_class];
    arena->free_lists[size_class] = block;
    arena->bytes_in_use -= (size_t)8 << size_class;
}

void rp_arena_release_all(rp_arena_t *arena) {
    rp_chunk_t *chunk = arena->chunks;
    while (chunk != NULL) {
        rp_chunk_t *next = chunk->next;
        rp_arena_raw_free(arena, chunk, chunk->size);
        chunk = next;
    }
    arena->chunks = NULL;
    arena->bump = arena->bump_end = NULL;
    for (unsigned i = 0; i < RP_ARENA_CLASSES; i++) arena->free_lists[i] = NULL;
    arena->bytes_in_use = 0;
}
