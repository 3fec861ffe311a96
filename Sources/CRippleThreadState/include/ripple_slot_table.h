/*
 * ripple_slot_table.h: where a runtime keeps the instance of each declaration
 * (declared state), by the declaration's dense index: the Swift object and its
 * engine handle. Internal to the Swift module; not part of Ripple's C API.
 *
 * Readers take no lock. The entries are one array, found through one pointer
 * with its capacity, so that a look-up is one bounds check and one indexed
 * load. The array grows by copy: the new one is published with a release
 * store, and the old ones stay until the table is destroyed, so a reader never
 * touches freed memory. An entry a reader finds in an old array after it was
 * taken out or replaced in the new one is what the reader could have found
 * there a moment earlier: an instance whose deinit has begun (below).
 *
 * An entry is two words, the object and the handle's slot and generation
 * packed in one (the graph tag, the same for every entry, is kept once in the
 * table), and the handle word doubles as the entry's version: a writer clears
 * it before it changes the object and stores the new handle last, and a reader
 * loads the handle, the object, then the handle again. Two equal, non-zero
 * loads give a consistent entry: a handle names one node for its whole life,
 * and generations are never 0, so no handle comes back. A reader that sees a
 * change in progress treats the entry as empty, or as naming no node (see
 * ripple_slot_table_get); either way the caller's general path takes the
 * owner's lock. Writers hold the owner's lock (one writer at a time).
 *
 * The entry may name an object whose deinit has begun: the reader opens a read
 * section on the handle (or reads it inside an evaluation, holding the graph),
 * which fails with RP_ESTALE once the node left the graph, and a node cannot
 * leave it meanwhile, so the object is alive for the read.
 */
#ifndef RIPPLE_SLOT_TABLE_H
#define RIPPLE_SLOT_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An entry as stored: `handle` is the node's slot | generation << 32, 0 when
 * the entry is empty or being changed. */
typedef struct ripple_slot_stored {
    void *object;
    uint64_t handle;
} ripple_slot_stored;

/* The entries, `capacity` of them, and the array this one replaced (freed
 * with the table). */
typedef struct ripple_slot_array {
    unsigned long capacity;
    struct ripple_slot_array *replaced;
    ripple_slot_stored entries[];
} ripple_slot_array;

/* An entry as read or written: the object (NULL: none) and its node's handle,
 * in the fields of rp_node_t. */
typedef struct ripple_slot_entry {
    void *object;
    uint32_t slot;
    uint32_t generation;
    uint32_t graph_tag;
} ripple_slot_entry;

typedef struct ripple_slot_table {
    /* The current array, never NULL. Pairs: the writer's release store when
     * it grows, the reader's acquire load. */
    ripple_slot_array *array;
    /* The graph tag of every handle in the table: written with the first
     * entry, read after an entry's handle (whose release store publishes it). */
    uint32_t graph_tag;
} ripple_slot_table;

/* A new, empty table, or NULL when out of memory. */
ripple_slot_table *ripple_slot_table_create(void);
void ripple_slot_table_destroy(ripple_slot_table *table);

/* Stores `entry` at `index` (an entry with a NULL object clears it), growing
 * the array if needed. Only under the owner's lock. False when `index` is
 * negative or the array could not grow (out of memory). */
bool ripple_slot_table_store(ripple_slot_table *table, long index, ripple_slot_entry entry);

/* The entry at `index` as a read finds it: the object (NULL: none, or a
 * writer is changing it) and its node's handle as stored (slot | generation
 * << 32), with the table's graph tag. Between a writer's clearing of the
 * handle and its store of the new object and handle, the object comes with
 * the handle 0, which names no node (generations are never 0: the engine
 * reports it, and the caller takes it as a miss). That case costs no test
 * here: the caller tests the object anyway. Returned by value, so that a
 * caller inlining it keeps the entry in registers. */
typedef struct ripple_slot_found {
    void *object;
    uint64_t handle;
    uint32_t graph_tag;
} ripple_slot_found;

static inline ripple_slot_found ripple_slot_table_find(const ripple_slot_table *table, long index) {
    ripple_slot_found out = {0};
    /* Pairs with the release store that published the array: its capacity and
     * the entries copied into it are seen. */
    const ripple_slot_array *array = __atomic_load_n(&table->array, __ATOMIC_ACQUIRE);
    /* One unsigned comparison rejects negative indexes too. */
    if ((unsigned long)index >= array->capacity) return out;
    const ripple_slot_stored *stored = &array->entries[index];
    /* Pairs with the writer's release store of the handle: the object and the
     * table's graph tag stored before it are seen. */
    uint64_t handle = __atomic_load_n(&stored->handle, __ATOMIC_ACQUIRE);
    void *object = __atomic_load_n(&stored->object, __ATOMIC_RELAXED);
    /* Pairs with the writer's release fence after it cleared the handle: an
     * object stored by a later change makes the second load see 0 or a later
     * handle, never this one again. */
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (__atomic_load_n(&stored->handle, __ATOMIC_RELAXED) != handle) return out;
    out.object = object;
    out.handle = handle;
    out.graph_tag = __atomic_load_n(&table->graph_tag, __ATOMIC_RELAXED);
    return out;
}

/* The entry at `index` (ripple_slot_table_find), with the handle in the fields
 * of rp_node_t. */
static inline ripple_slot_entry ripple_slot_table_get(const ripple_slot_table *table, long index) {
    ripple_slot_found found = ripple_slot_table_find(table, index);
    ripple_slot_entry out = {found.object, (uint32_t)found.handle, (uint32_t)(found.handle >> 32), found.graph_tag};
    return out;
}

/* How many entries the current array holds (tests check that it grew). */
static inline unsigned long ripple_slot_table_capacity(const ripple_slot_table *table) {
    /* Pairs with the release store that published the array. */
    return __atomic_load_n(&table->array, __ATOMIC_ACQUIRE)->capacity;
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
