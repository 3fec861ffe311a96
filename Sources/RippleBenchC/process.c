/*
 * process.c: what the process itself uses, for the Swift side's memory rows.
 */
#include "host.h"

#include <malloc.h>
#include <stdio.h>
#include <unistd.h>

size_t rb_heap_in_use(void) {
    return mallinfo2().uordblks;
}

size_t rb_heap_block_bytes(const void *pointer) {
    /* An in-use block's size is its usable bytes and the one size word before them. */
    return malloc_usable_size((void *)pointer) + sizeof(size_t);
}

size_t rb_resident_bytes(void) {
    FILE *file = fopen("/proc/self/statm", "r");
    if (file == NULL) return 0;
    unsigned long size = 0, resident = 0;
    int fields = fscanf(file, "%lu %lu", &size, &resident);
    fclose(file);
    return fields == 2 ? (size_t)resident * (size_t)sysconf(_SC_PAGESIZE) : 0;
}
