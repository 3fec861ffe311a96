/*
 * ripple_slot_table.h: where a runtime keeps the instance of each declaration
 * (declared state), by the declaration's dense index: the Swift object and its
 * engine handle. Internal to the Swift module; not part of Ripple's C API.
 *
 * Readers take no lock: a sequence lock (the table's `sequence`, odd while a
 * writer is changing an entry) gives them a consistent entry, and chunks are
 * never freed before the table, so a load never touches freed memory. Writers
 * hold the store's lock (one writer at a time). The entry may name an object
 * whose deinit has begun: the reader opens a read section on the handle, which
 * fails with RP_ESTALE once the node left the graph, and a node cannot leave it
 * while a section is open, so the object is alive for the section's length.
 */
#ifndef RIPPLE_SLOT_TABLE_H
#define RIPPLE_SLOT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RIPPLE_SLOT_CHUNK 1024
#define RIPPLE_SLOT_CHUNKS 256

typedef struct ripple_slot_entry {
    void *object;
    uint32_t slot;
    uint32_t generation;
    uint32_t graph_tag;
} ripple_slot_entry;

typedef struct ripple_slot_table {
    unsigned long sequence;
    ripple_slot_entry *chunks[RIPPLE_SLOT_CHUNKS];
} ripple_slot_table;

/* A new, empty table, or NULL when out of memory. */
ripple_slot_table *ripple_slot_table_create(void);
void ripple_slot_table_destroy(ripple_slot_table *table);

/* Stores `entry` at `index` (an entry with a NULL object clears it). Only
 * under the owner's lock. False when `index` is out of range or a chunk could
 * not be allocated. */
bool ripple_slot_table_store(ripple_slot_table *table, long index, ripple_slot_entry entry);

/* The entry at `index`, with a NULL object when there is none. Returned by
 * value, so that a caller inlining it keeps the entry in registers. */
static inline ripple_slot_entry ripple_slot_table_get(const ripple_slot_table *table, long index) {
    ripple_slot_entry out = {0};
    /* One unsigned comparison rejects negative indexes too. */
    if ((unsigned long)index >= (unsigned long)RIPPLE_SLOT_CHUNK * RIPPLE_SLOT_CHUNKS) return out;
    /* Pairs with the release store that published the chunk. */
    ripple_slot_entry *chunk = __atomic_load_n(&table->chunks[index / RIPPLE_SLOT_CHUNK], __ATOMIC_ACQUIRE);
    if (chunk == NULL) return out;
    ripple_slot_entry *entry = &chunk[index % RIPPLE_SLOT_CHUNK];
    for (;;) {
        /* Pairs with the writer's final release store of the sequence. */
        unsigned long before = __atomic_load_n(&table->sequence, __ATOMIC_ACQUIRE);
        if (before & 1UL) continue;
        out.object = __atomic_load_n(&entry->object, __ATOMIC_RELAXED);
        out.slot = __atomic_load_n(&entry->slot, __ATOMIC_RELAXED);
        out.generation = __atomic_load_n(&entry->generation, __ATOMIC_RELAXED);
        out.graph_tag = __atomic_load_n(&entry->graph_tag, __ATOMIC_RELAXED);
        /* Orders the entry's loads before the second sequence load (pairs with
         * the writer's release fence after it made the sequence odd). */
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&table->sequence, __ATOMIC_RELAXED) == before) return out;
    }
}

/* Loads the entry at `index` into `out`; false when there is none. */
static inline bool ripple_slot_table_load(const ripple_slot_table *table, long index, ripple_slot_entry *out) {
    *out = ripple_slot_table_get(table, index);
    return out->object != NULL;
}

/* Adds 1 to `counter` and returns the value before (relaxed). */
static inline long ripple_counter_increment(long *counter) {
    return __atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

#endif
