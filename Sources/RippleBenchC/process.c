/*
 * process.c: what the process itself uses, for the Swift side's memory rows.
 */
#if defined(__APPLE__)
/* Mach's headers use the BSD types that host.h's _POSIX_C_SOURCE hides. */
#define _DARWIN_C_SOURCE 1
#endif
#include "host.h"

#include <stdio.h>
#include <unistd.h>

/* Each system's own malloc and process accounting: glibc's on Linux,
 * Darwin's malloc zones and Mach task info on Apple's systems (never compiled
 * on the Linux machines CI runs on), nothing elsewhere (0: not measured). */
#if defined(__linux__) && defined(__GLIBC__)
#include <malloc.h>

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
#elif defined(__APPLE__)
#include <mach/mach.h>
#include <malloc/malloc.h>

size_t rb_heap_in_use(void) {
    malloc_statistics_t statistics;
    malloc_zone_statistics(NULL, &statistics);
    return statistics.size_in_use;
}

size_t rb_heap_block_bytes(const void *pointer) {
    /* The block's size as the zone rounds it (no size word before it). */
    return malloc_size(pointer);
}

size_t rb_resident_bytes(void) {
    mach_task_basic_info_data_t info;
    mach_msg_type_number_t count = MACH_TASK_BASIC_INFO_COUNT;
    if (task_info(mach_task_self(), MACH_TASK_BASIC_INFO, (task_info_t)&info, &count) != KERN_SUCCESS) return 0;
    return (size_t)info.resident_size;
}
#else
size_t rb_heap_in_use(void) {
    return 0;
}

size_t rb_heap_block_bytes(const void *pointer) {
    (void)pointer;
    return 0;
}

size_t rb_resident_bytes(void) {
    return 0;
}
#endif
