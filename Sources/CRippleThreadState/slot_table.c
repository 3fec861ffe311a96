#include "ripple_slot_table.h"

#include <stdlib.h>

ripple_slot_table *ripple_slot_table_create(void) {
    return calloc(1, sizeof(ripple_slot_table));
}

void ripple_slot_table_destroy(ripple_slot_table *table) {
    if (table == NULL) return;
    for (int chunk = 0; chunk < RIPPLE_SLOT_CHUNKS; chunk++) free(table->chunks[chunk]);
    free(table);
}

bool ripple_slot_table_store(ripple_slot_table *table, long index, ripple_slot_entry value) {
    if (index < 0 || index >= (long)RIPPLE_SLOT_CHUNK * RIPPLE_SLOT_CHUNKS) return false;
    ripple_slot_entry *chunk = table->chunks[index / RIPPLE_SLOT_CHUNK];
    if (chunk == NULL) {
        chunk = calloc(RIPPLE_SLOT_CHUNK, sizeof(ripple_slot_entry));
        if (chunk == NULL) return false;
        /* Pairs with the reader's acquire load of the chunk. */
        __atomic_store_n(&table->chunks[index / RIPPLE_SLOT_CHUNK], chunk, __ATOMIC_RELEASE);
    }
    ripple_slot_entry *entry = &chunk[index % RIPPLE_SLOT_CHUNK];
    unsigned long sequence = table->sequence;
    __atomic_store_n(&table->sequence, sequence + 1, __ATOMIC_RELAXED);
    /* The odd sequence is visible before any entry store (pairs with the
     * reader's acquire fence). */
    __atomic_thread_fence(__ATOMIC_RELEASE);
    __atomic_store_n(&entry->object, value.object, __ATOMIC_RELAXED);
    __atomic_store_n(&entry->slot, value.slot, __ATOMIC_RELAXED);
    __atomic_store_n(&entry->generation, value.generation, __ATOMIC_RELAXED);
    __atomic_store_n(&entry->graph_tag, value.graph_tag, __ATOMIC_RELAXED);
    /* Pairs with the reader's first acquire load of the sequence. */
    __atomic_store_n(&table->sequence, sequence + 2, __ATOMIC_RELEASE);
    return true;
}
