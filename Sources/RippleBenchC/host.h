/*
 * host.h: the benchmark's host, shared by every shape.
 *
 * A shape is written once, as node bodies (C functions of the host and the
 * node) and a builder, and runs against one of three backends:
 *   - Ripple: each node is an engine node whose `data` is its rb_node_t; a
 *     read is rp_node_read then a load, a write a store then rp_source_set.
 *   - the floor: no framework. Nodes are evaluated eagerly, at creation and
 *     at the end of every batch, in creation (topological) order; a node runs
 *     when one of its inputs changed in this pass. A read is a load.
 *   - the reference (dynamic graphs): a minimal incremental mark-and-pull
 *     evaluator. A write marks readers DIRTY and their readers CHECK; a read
 *     of a marked node re-validates what it read last time, in read order,
 *     and recomputes it only if one of those changed.
 * The node bodies see the same rb_read() in all three; the branch it takes is
 * the same on every call of a run, so it costs the floor next to nothing.
 */
#ifndef RB_HOST_H
#define RB_HOST_H

/* clock_gettime under -std=c11; every .c includes this header first. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif

#include "ripple.h"
#include "ripple_bench.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

typedef union rb_value {
    int64_t i;
    double d;
} rb_value_t;

typedef struct rb_node rb_node_t;
typedef struct rb_host rb_host_t;
typedef rb_value_t (*rb_fn_t)(rb_host_t *host, rb_node_t *self);

enum { RB_CLEAN = 0, RB_CHECK = 1, RB_DIRTY = 2 };
enum { RB_FLOOR_TOPO = 0, RB_FLOOR_REFERENCE = 1 };

/* A potential reader of a node: `node` reads it as its input `index`. */
typedef struct rb_reader {
    rb_node_t *node;
    uint32_t index;
} rb_reader_t;

struct rb_node {
    rb_value_t value;     /* sources: the latest write; computeds: the cached value */
    rb_value_t committed; /* Ripple sources: the value readers were last told of */
    rb_fn_t fn;
    rb_node_t **in; /* inputs: what the body may read */
    uint32_t nin;
    uint8_t kind;  /* rp_kind_t */
    uint8_t state; /* reference: RB_CLEAN, RB_CHECK or RB_DIRTY */
    bool fresh;    /* never computed */
    bool dynamic;  /* reference: reads a subset of its inputs, given by `mask` */
    bool queued;   /* reference: effect waiting for the end of the batch */
    uint32_t mask, next_mask; /* reference: inputs read by the last / current run */
    int64_t param;
    void *extra;
    uint64_t stamp; /* floor: pass in which the value last changed */
    rp_node_t handle;
    rb_reader_t *readers; /* reference: potential readers */
    uint32_t nreaders, readers_capacity;
};

/* A counting allocator for the engine. */
typedef struct rb_counting_allocator {
    uint64_t calls, frees;
    size_t live_bytes;
} rb_counting_allocator_t;

typedef struct rb_pool_block rb_pool_block_t;

struct rb_host {
    rp_graph_t *graph; /* NULL for the floor */
    int floor_kind;    /* RB_FLOOR_TOPO or RB_FLOOR_REFERENCE */
    bool doubles;      /* values are doubles (equality as doubles) */
    rb_counting_allocator_t allocator;

    uint64_t computes, runs; /* evaluations so far */
    int64_t counter;         /* the shape's own counter (effect runs, ...) */

    /* floor */
    rb_node_t **order; /* computeds and effects in creation order */
    size_t norder, order_capacity;
    uint64_t epoch; /* the pass a write now will be seen by */
    int batch_depth;
    bool written;
    rb_node_t **queue; /* reference: effects to run at the end of the batch */
    size_t nqueue, queue_capacity;

    rb_pool_block_t *pool; /* nodes and input arrays; freed with the host */
    char *bump, *bump_end;

    int failed;
    char message[256];
};

/* ------------------------------------------------------------ host life */

bool rb_host_init(rb_host_t *host, rb_backend_t backend, int floor_kind, bool doubles);
void rb_host_destroy(rb_host_t *host);
uint64_t rb_host_allocations(const rb_host_t *host);

/* Records a failed check (the first message is kept). */
void rb_fail(rb_host_t *host, const char *format, ...) __attribute__((format(printf, 2, 3)));
#define RB_CHECK(host, condition, ...)                       \
    do {                                                     \
        if (__builtin_expect(!(condition), 0)) rb_fail((host), __VA_ARGS__); \
    } while (0)

/* -------------------------------------------------------------- building */

rb_node_t *rb_source(rb_host_t *host, rb_value_t value);
rb_node_t *rb_computed(rb_host_t *host, rb_fn_t fn, rb_node_t *const *in, uint32_t nin, int64_t param);
/* A computed whose body uses `extra` (set before it can first compute). */
rb_node_t *rb_computed_extra(rb_host_t *host, rb_fn_t fn, rb_node_t *const *in, uint32_t nin, int64_t param,
                             void *extra);
rb_node_t *rb_effect(rb_host_t *host, rb_fn_t fn, rb_node_t *const *in, uint32_t nin, int64_t param);
/* Disposes of a node (Ripple only). */
void rb_dispose(rb_host_t *host, rb_node_t *node);
/* Host-owned scratch memory that lives as long as the host. */
void *rb_host_alloc(rb_host_t *host, size_t size);

static inline rb_value_t rb_int(int64_t i) {
    return (rb_value_t){.i = i};
}
static inline rb_value_t rb_double(double d) {
    return (rb_value_t){.d = d};
}

/* ------------------------------------------------------ reads and writes */

void rb_reference_update(rb_host_t *host, rb_node_t *node);

static inline void rb_read_status(rb_host_t *host, rp_status_t status) {
    if (__builtin_expect(status != RP_OK, 0)) rb_fail(host, "rp_node_read: %s", rp_status_string(status));
}

/* Reads a node from a body or from the outside. */
static inline rb_value_t rb_read(rb_host_t *host, rb_node_t *node) {
    if (host->graph != NULL) {
        rb_read_status(host, rp_node_read(host->graph, node->handle));
    } else if (node->state != RB_CLEAN) {
        rb_reference_update(host, node);
    }
    return node->value;
}

/* Reads input `index` of a dynamic node's body (the reference records it). */
static inline rb_value_t rb_read_input(rb_host_t *host, rb_node_t *self, uint32_t index) {
    self->next_mask |= (uint32_t)1 << index;
    return rb_read(host, self->in[index]);
}

void rb_write(rb_host_t *host, rb_node_t *source, rb_value_t value);
void rb_batch_begin(rb_host_t *host);
void rb_batch_end(rb_host_t *host);

/* A write in a batch of its own. */
static inline void rb_set(rb_host_t *host, rb_node_t *source, rb_value_t value) {
    rb_batch_begin(host);
    rb_write(host, source, value);
    rb_batch_end(host);
}

/* ---------------------------------------------------------------- timing */

static inline uint64_t rb_now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
}

static inline uint64_t rb_evaluations(const rb_host_t *host) {
    return host->computes + host->runs;
}

/* Copies the host's failures into a result. */
void rb_result_take_failures(rb_result_t *result, const rb_host_t *host);
void rb_result_fail(rb_result_t *result, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* A loop the compiler must not delete (K8's busy()). */
static inline int64_t rb_busy(void) {
    int64_t a = 0;
    for (int i = 0; i < 100; i++) {
        a++;
        __asm__ volatile("" : "+r"(a));
    }
    return a;
}

#endif
