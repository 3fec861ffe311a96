#include "ripple_slot_table.h"

#include <limits.h>
#include <stdlib.h>

/* The first array's capacity: enough for a small program's declarations. */
#define RIPPLE_SLOT_INITIAL_CAPACITY 64UL

static ripple_slot_array *array_create(unsigned long capacity, ripple_slot_array *replaced) {
    ripple_slot_array *array = calloc(1, sizeof(ripple_slot_array) + capacity * sizeof(ripple_slot_stored));
    if (array == NULL) return NULL;
    array->capacity = capacity;
    array->replaced = replaced;
    return array;
}

ripple_slot_table *ripple_slot_table_create(void) {
    ripple_slot_table *table = calloc(1, sizeof(ripple_slot_table));
    if (table == NULL) return NULL;
    table->array = array_create(RIPPLE_SLOT_INITIAL_CAPACITY, NULL);
    if (table->array == NULL) {
        free(table);
        return NULL;
    }
    return table;
}

void ripple_slot_table_destroy(ripple_slot_table *table) {
    if (table == NULL) return;
    ripple_slot_array *array = table->array;
    while (array != NULL) {
        ripple_slot_array *replaced = array->replaced;
        free(array);
        array = replaced;
    }
    free(table);
}

/* Replaces the array with one that holds `index`, a copy of the current one
 * (under the owner's lock: no entry changes meanwhile). The current one stays
 * for the readers that loaded it, until the table goes. */
static bool grow(ripple_slot_table *table, unsigned long index) {
    ripple_slot_array *old = table->array;
    unsigned long capacity = old->capacity;
    while (capacity <= index) {
        if (capacity > (unsigned long)LONG_MAX / 2 / sizeof(ripple_slot_stored)) return false;
        capacity *= 2;
    }
    ripple_slot_array *array = array_create(capacity, old);
    if (array == NULL) return false;
    for (unsigned long i = 0; i < old->capacity; i++) {
        array->entries[i].object = __atomic_load_n(&old->entries[i].object, __ATOMIC_RELAXED);
        array->entries[i].handle = __atomic_load_n(&old->entries[i].handle, __ATOMIC_RELAXED);
    }
    /* Pairs with the reader's acquire load of the array. */
    __atomic_store_n(&table->array, array, __ATOMIC_RELEASE);
    return true;
}

bool ripple_slot_table_store(ripple_slot_table *table, long index, ripple_slot_entry value) {
    if (index < 0) return false;
    if ((unsigned long)index >= table->array->capacity && !grow(table, (unsigned long)index)) return false;
    ripple_slot_stored *stored = &table->array->entries[index];
    __atomic_store_n(&stored->handle, 0, __ATOMIC_RELAXED);
    /* The cleared handle is visible before the object changes (pairs with the
     * reader's acquire fence). */
    __atomic_thread_fence(__ATOMIC_RELEASE);
    __atomic_store_n(&stored->object, value.object, __ATOMIC_RELAXED);
    if (value.object == NULL) return true;
    /* The same for every entry; stored before the handle that publishes it. */
    __atomic_store_n(&table->graph_tag, value.graph_tag, __ATOMIC_RELAXED);
    uint64_t handle = (uint64_t)value.slot | (uint64_t)value.generation << 32;
    /* Pairs with the reader's acquire load of the handle. */
    __atomic_store_n(&stored->handle, handle, __ATOMIC_RELEASE);
    return true;
}
