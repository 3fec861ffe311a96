#include "host.h"

#include <stdlib.h>
#include <string.h>

struct rb_pool_block {
    rb_pool_block_t *next;
    size_t size;
};

#define RB_POOL_BLOCK ((size_t)256 * 1024)

uint64_t rb_clock_ns(void) {
    return rb_now_ns();
}

int64_t rb_busy_loop(void) {
    return rb_busy();
}

/* ------------------------------------------------------ counting allocator */

static void *count_alloc(void *context, size_t size) {
    rb_counting_allocator_t *a = context;
    a->calls++;
    a->live_bytes += size;
    return malloc(size);
}

static void count_free(void *context, void *block, size_t size) {
    rb_counting_allocator_t *a = context;
    a->frees++;
    a->live_bytes -= size;
    free(block);
}

/* ------------------------------------------------------ Ripple callbacks */

static rp_status_t on_compute(void *host_pointer, rp_graph_t *graph, rp_node_t handle, void *data, bool *changed) {
    (void)graph;
    (void)handle;
    rb_host_t *host = host_pointer;
    rb_node_t *node = data;
    rb_value_t value = node->fn(host, node);
    host->computes++;
    bool same = host->doubles ? value.d == node->value.d : value.i == node->value.i;
    *changed = node->fresh || !same;
    node->fresh = false;
    node->value = value;
    return RP_OK;
}

static bool on_commit(void *host_pointer, rp_graph_t *graph, rp_node_t handle, void *data) {
    (void)host_pointer;
    (void)graph;
    (void)handle;
    rb_node_t *node = data;
    bool changed = node->value.i != node->committed.i;
    node->committed = node->value;
    return changed;
}

static void on_run(void *host_pointer, rp_graph_t *graph, rp_node_t handle, void *data) {
    (void)graph;
    (void)handle;
    rb_host_t *host = host_pointer;
    rb_node_t *node = data;
    node->fn(host, node);
    host->runs++;
}

/* ------------------------------------------------------------ host life */

bool rb_host_init(rb_host_t *host, rb_backend_t backend, int floor_kind, bool doubles) {
    memset(host, 0, sizeof *host);
    host->floor_kind = floor_kind;
    host->doubles = doubles;
    host->epoch = 1;
    if (backend == RB_BACKEND_FLOOR) return true;
    rp_allocator_t allocator = {count_alloc, count_free, &host->allocator};
    rp_graph_config_t config = {
        .callbacks = {.host = host, .compute = on_compute, .commit = on_commit, .run = on_run},
        .allocator = &allocator,
    };
    rp_status_t status = rp_graph_create(&config, &host->graph);
    if (status != RP_OK) {
        rb_fail(host, "rp_graph_create: %s", rp_status_string(status));
        return false;
    }
    return true;
}

void rb_host_destroy(rb_host_t *host) {
    if (host->graph != NULL) {
        rp_status_t status = rp_graph_destroy(host->graph);
        if (status != RP_OK) rb_fail(host, "rp_graph_destroy: %s", rp_status_string(status));
        if (host->allocator.live_bytes != 0) {
            rb_fail(host, "the engine leaked %zu bytes", host->allocator.live_bytes);
        }
        host->graph = NULL;
    }
    free(host->order);
    free(host->queue);
    rb_pool_block_t *block = host->pool;
    while (block != NULL) {
        rb_pool_block_t *next = block->next;
        free(block);
        block = next;
    }
    host->pool = NULL;
}

uint64_t rb_host_allocations(const rb_host_t *host) {
    return host->allocator.calls;
}

void rb_fail(rb_host_t *host, const char *format, ...) {
    if (host->failed++ == 0) {
        va_list args;
        va_start(args, format);
        vsnprintf(host->message, sizeof host->message, format, args);
        va_end(args);
    }
}

void rb_result_fail(rb_result_t *result, const char *format, ...) {
    if (result->failed++ == 0) {
        va_list args;
        va_start(args, format);
        vsnprintf(result->message, sizeof result->message, format, args);
        va_end(args);
    }
}

void rb_result_take_failures(rb_result_t *result, const rb_host_t *host) {
    if (host->failed == 0) return;
    if (result->failed == 0) memcpy(result->message, host->message, sizeof result->message);
    result->failed += host->failed;
}

void *rb_host_alloc(rb_host_t *host, size_t size) {
    size = (size + 15) & ~(size_t)15;
    if ((size_t)(host->bump_end - host->bump) < size) {
        size_t payload = size > RB_POOL_BLOCK / 4 ? size : RB_POOL_BLOCK;
        rb_pool_block_t *block = malloc(sizeof(rb_pool_block_t) + 16 + payload);
        if (block == NULL) abort(); /* the benchmark cannot go on without memory */
        block->next = host->pool;
        block->size = payload;
        host->pool = block;
        char *start = (char *)(block + 1);
        start += (16 - ((uintptr_t)start & 15)) & 15;
        if (payload != RB_POOL_BLOCK) {
            memset(start, 0, size);
            return start;
        }
        host->bump = start;
        host->bump_end = start + payload;
    }
    void *result = host->bump;
    host->bump += size;
    memset(result, 0, size);
    return result;
}

static void append(rb_node_t ***array, size_t *count, size_t *capacity, rb_node_t *node) {
    if (*count == *capacity) {
        *capacity = *capacity ? *capacity * 2 : 64;
        *array = realloc(*array, *capacity * sizeof **array);
        if (*array == NULL) abort();
    }
    (*array)[(*count)++] = node;
}

/* ------------------------------------------------------------- reference */

static inline bool same_value(const rb_host_t *host, rb_value_t a, rb_value_t b) {
    return host->doubles ? a.d == b.d : a.i == b.i;
}


static inline bool reads(const rb_node_t *reader, uint32_t index) {
    return !reader->dynamic || ((reader->mask >> index) & 1u);
}

static void reference_queue(rb_host_t *host, rb_node_t *node) {
    if (node->kind == RP_KIND_EFFECT && !node->queued) {
        node->queued = true;
        append(&host->queue, &host->nqueue, &host->queue_capacity, node);
    }
}

static void reference_mark_check(rb_host_t *host, rb_node_t *node) {
    for (uint32_t i = 0; i < node->nreaders; i++) {
        rb_reader_t reader = node->readers[i];
        if (reader.node->state != RB_CLEAN || !reads(reader.node, reader.index)) continue;
        reader.node->state = RB_CHECK;
        reference_queue(host, reader.node);
        reference_mark_check(host, reader.node);
    }
}

static void reference_mark_dirty(rb_host_t *host, rb_node_t *node) {
    uint8_t was = node->state;
    if (was == RB_DIRTY) return;
    node->state = RB_DIRTY;
    reference_queue(host, node);
    if (was == RB_CLEAN) reference_mark_check(host, node);
}

void rb_reference_update(rb_host_t *host, rb_node_t *node) {
    if (node->state == RB_CHECK) {
        for (uint32_t k = 0; k < node->nin && node->state == RB_CHECK; k++) {
            if (!reads(node, k)) continue;
            rb_node_t *input = node->in[k];
            if (input->state != RB_CLEAN) rb_reference_update(host, input);
        }
        if (node->state == RB_CHECK) {
            node->state = RB_CLEAN;
            return;
        }
    }
    node->next_mask = 0;
    rb_value_t value = node->fn(host, node);
    node->state = RB_CLEAN;
    node->mask = node->next_mask;
    if (node->kind == RP_KIND_EFFECT) {
        host->runs++;
        return;
    }
    host->computes++;
    bool changed = node->fresh || !same_value(host, value, node->value);
    node->fresh = false;
    node->value = value;
    if (!changed) return;
    for (uint32_t i = 0; i < node->nreaders; i++) {
        rb_reader_t reader = node->readers[i];
        if (reader.node->state == RB_CHECK && reads(reader.node, reader.index)) reader.node->state = RB_DIRTY;
    }
}

static void reference_add_reader(rb_host_t *host, rb_node_t *input, rb_node_t *reader, uint32_t index) {
    if (input->nreaders == input->readers_capacity) {
        uint32_t capacity = input->readers_capacity ? input->readers_capacity * 2 : 4;
        rb_reader_t *grown = rb_host_alloc(host, capacity * sizeof *grown);
        if (input->nreaders) memcpy(grown, input->readers, input->nreaders * sizeof *grown);
        input->readers = grown;
        input->readers_capacity = capacity;
    }
    input->readers[input->nreaders++] = (rb_reader_t){reader, index};
}

static void reference_flush(rb_host_t *host) {
    for (size_t i = 0; i < host->nqueue; i++) {
        rb_node_t *effect = host->queue[i];
        effect->queued = false;
        if (effect->state != RB_CLEAN) rb_reference_update(host, effect);
    }
    host->nqueue = 0;
}

/* ----------------------------------------------------------------- floor */

/* One pass: every node one of whose inputs changed in this pass runs. */
static void floor_pass(rb_host_t *host) {
    uint64_t epoch = host->epoch++;
    host->written = false;
    rb_node_t **order = host->order;
    for (size_t n = 0, count = host->norder; n < count; n++) {
        rb_node_t *node = order[n];
        uint32_t k = 0;
        while (k < node->nin && node->in[k]->stamp != epoch) k++;
        if (k == node->nin) continue;
        rb_value_t value = node->fn(host, node);
        if (node->kind == RP_KIND_EFFECT) {
            host->runs++;
            continue;
        }
        host->computes++;
        if (!same_value(host, value, node->value)) {
            node->value = value;
            node->stamp = epoch;
        }
    }
}

/* -------------------------------------------------------------- building */

static rb_node_t *new_node(rb_host_t *host, rp_kind_t kind, rb_fn_t fn, rb_node_t *const *in, uint32_t nin,
                           int64_t param) {
    rb_node_t *node = rb_host_alloc(host, sizeof *node);
    node->kind = (uint8_t)kind;
    node->fn = fn;
    node->param = param;
    node->fresh = true;
    if (nin) {
        node->in = rb_host_alloc(host, nin * sizeof *node->in);
        memcpy(node->in, in, nin * sizeof *node->in);
        node->nin = nin;
    }
    return node;
}

static rb_node_t *create(rb_host_t *host, rb_node_t *node) {
    if (host->graph != NULL) {
        rp_status_t status = rp_node_create(host->graph, (rp_kind_t)node->kind, node, &node->handle);
        if (status != RP_OK) rb_fail(host, "rp_node_create: %s", rp_status_string(status));
        return node;
    }
    if (node->kind == RP_KIND_SOURCE) return node;
    if (host->floor_kind == RB_FLOOR_REFERENCE) {
        for (uint32_t k = 0; k < node->nin; k++) reference_add_reader(host, node->in[k], node, k);
        node->state = RB_DIRTY;
        if (node->kind == RP_KIND_EFFECT) rb_reference_update(host, node);
        return node;
    }
    append(&host->order, &host->norder, &host->order_capacity, node);
    node->value = node->fn(host, node);
    node->fresh = false;
    if (node->kind == RP_KIND_EFFECT) {
        host->runs++;
    } else {
        host->computes++;
    }
    return node;
}

rb_node_t *rb_source(rb_host_t *host, rb_value_t value) {
    rb_node_t *node = new_node(host, RP_KIND_SOURCE, NULL, NULL, 0, 0);
    node->value = node->committed = value;
    node->fresh = false;
    return create(host, node);
}

rb_node_t *rb_computed(rb_host_t *host, rb_fn_t fn, rb_node_t *const *in, uint32_t nin, int64_t param) {
    return create(host, new_node(host, RP_KIND_COMPUTED, fn, in, nin, param));
}

rb_node_t *rb_computed_extra(rb_host_t *host, rb_fn_t fn, rb_node_t *const *in, uint32_t nin, int64_t param,
                             void *extra) {
    rb_node_t *node = new_node(host, RP_KIND_COMPUTED, fn, in, nin, param);
    node->extra = extra;
    return create(host, node);
}

rb_node_t *rb_effect(rb_host_t *host, rb_fn_t fn, rb_node_t *const *in, uint32_t nin, int64_t param) {
    return create(host, new_node(host, RP_KIND_EFFECT, fn, in, nin, param));
}

void rb_dispose(rb_host_t *host, rb_node_t *node) {
    if (host->graph == NULL) return;
    rp_status_t status = rp_node_dispose(host->graph, node->handle);
    if (status != RP_OK) rb_fail(host, "rp_node_dispose: %s", rp_status_string(status));
}

/* ------------------------------------------------------------------ writes */

void rb_write(rb_host_t *host, rb_node_t *source, rb_value_t value) {
    if (same_value(host, value, source->value)) return;
    source->value = value;
    if (host->graph != NULL) {
        rp_status_t status = rp_source_set(host->graph, source->handle);
        if (status != RP_OK) rb_fail(host, "rp_source_set: %s", rp_status_string(status));
        return;
    }
    if (host->floor_kind == RB_FLOOR_REFERENCE) {
        for (uint32_t i = 0; i < source->nreaders; i++) {
            rb_reader_t reader = source->readers[i];
            if (reads(reader.node, reader.index)) reference_mark_dirty(host, reader.node);
        }
        if (host->batch_depth == 0) reference_flush(host);
        return;
    }
    source->stamp = host->epoch;
    host->written = true;
    if (host->batch_depth == 0) floor_pass(host);
}

void rb_batch_begin(rb_host_t *host) {
    if (host->graph != NULL) {
        (void)rp_batch_begin(host->graph);
        return;
    }
    host->batch_depth++;
}

void rb_batch_end(rb_host_t *host) {
    if (host->graph != NULL) {
        rp_status_t status = rp_batch_end(host->graph);
        if (status != RP_OK) rb_fail(host, "rp_batch_end: %s", rp_status_string(status));
        return;
    }
    if (--host->batch_depth > 0) return;
    if (host->floor_kind == RB_FLOOR_REFERENCE) {
        reference_flush(host);
    } else if (host->written) {
        floor_pass(host);
    }
}
