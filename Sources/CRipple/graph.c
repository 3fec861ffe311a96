#include "graph.h"

#include <string.h>
#include <time.h>

unsigned rp_version_number(void) {
    return RP_VERSION_NUMBER;
}

const char *rp_status_string(rp_status_t status) {
    switch (status) {
    case RP_OK: return "RP_OK: success";
    case RP_ENOMEM: return "RP_ENOMEM: out of memory";
    case RP_EINVAL: return "RP_EINVAL: invalid argument";
    case RP_ESTALE: return "RP_ESTALE: the node was disposed";
    case RP_EFOREIGN: return "RP_EFOREIGN: the node belongs to another graph";
    case RP_EKIND: return "RP_EKIND: the node's kind does not support this call";
    case RP_ECYCLE: return "RP_ECYCLE: a computed node reads itself";
    case RP_ELOOP: return "RP_ELOOP: effects did not settle within the settle bound";
    case RP_ESTATE: return "RP_ESTATE: no matching begin for this end";
    case RP_EBUSY: return "RP_EBUSY: the graph is busy with an operation in progress";
    case RP_ECORRUPT: return "RP_ECORRUPT: a graph invariant is broken";
    case RP_ESUPERSEDED: return "RP_ESUPERSEDED: the async run is no longer the node's current one";
    }
    return "RP_?: unknown status";
}

/* A tag that differs between graphs alive at the same time (their addresses
 * differ) and, very likely, between a graph and one created later at the same
 * address (the clock moved), without any global state. */
static uint32_t graph_tag(const rp_graph_t *graph) {
    struct timespec now;
    timespec_get(&now, TIME_UTC);
    uint64_t x = (uint64_t)(uintptr_t)graph ^ ((uint64_t)now.tv_nsec << 32) ^ (uint64_t)now.tv_sec;
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    uint32_t tag = (uint32_t)x;
    return tag == 0 ? 1 : tag;
}

rp_status_t rp_graph_create(const rp_graph_config_t *config, rp_graph_t **out) {
    if (config == NULL || out == NULL) return RP_EINVAL;
    const rp_allocator_t *allocator = config->allocator;
    if (allocator != NULL && (allocator->alloc == NULL || allocator->free == NULL)) return RP_EINVAL;
    rp_arena_t arena;
    rp_arena_init(&arena, allocator);
    rp_graph_t *graph = rp_arena_raw_alloc(&arena, sizeof *graph);
    if (graph == NULL) return RP_ENOMEM;
    memset(graph, 0, sizeof *graph);
    graph->arena = arena;
    graph->callbacks = config->callbacks;
    graph->settle_bound = config->settle_bound ? config->settle_bound : RP_DEFAULT_SETTLE_BOUND;
    graph->tag = graph_tag(graph);
    graph->free_head = RP_NO_SLOT;
    graph->active = RP_NO_SLOT;
    graph->active_rec = NULL;
    if (rp_sections_init(&graph->sections) != RP_OK) {
        rp_arena_raw_free(&arena, graph, sizeof *graph);
        return RP_ENOMEM;
    }
    *out = graph;
    return RP_OK;
}

rp_status_t rp_graph_destroy(rp_graph_t *graph) {
    if (graph == NULL) return RP_OK;
    if (!rp_sections_try_close(graph)) return RP_EBUSY;
    for (uint32_t slot = 0; slot < graph->nslots; slot++) {
        rp_node_rec_t *rec = rp_rec(graph, slot);
        if (!(rec->flags & RP_F_LIVE)) continue;
        rp_node_t handle = rp_handle(graph, slot);
        rec->flags = 0;
        if (graph->callbacks.release) graph->callbacks.release(graph->callbacks.host, graph, handle, rec->data);
    }
    rp_arena_t arena = graph->arena;
    for (uint32_t page = 0; page < graph->npages; page++) {
        void *block;
        memcpy(&block, (char *)graph->pages[page] + RP_PAGE_BYTES, sizeof block);
        rp_arena_raw_free(&arena, block, RP_PAGE_BLOCK_BYTES);
    }
    rp_arena_raw_free(&arena, graph->pages, sizeof(*graph->pages) * graph->pages_capacity);
    rp_arena_raw_free(&arena, graph->stack, sizeof(*graph->stack) * graph->stack_capacity);
    rp_arena_raw_free(&arena, graph->heap, sizeof(*graph->heap) * graph->queue_capacity);
    rp_arena_raw_free(&arena, graph->unwatch, sizeof(*graph->unwatch) * graph->unwatch_capacity);
    rp_arena_raw_free(&arena, graph->causes, sizeof(*graph->causes) * graph->causes_capacity);
    rp_arena_raw_free(&arena, graph->async_runs, sizeof(*graph->async_runs) * graph->async_runs_capacity);
    rp_arena_raw_free(&arena, graph->diagnostic, sizeof(*graph->diagnostic) * graph->diagnostic_capacity);
    graph->arena = arena;
    rp_savepoint_free(graph);
    arena = graph->arena;
    rp_arena_release_all(&arena);
    rp_sections_destroy(&graph->sections);
    rp_arena_raw_free(&arena, graph, sizeof *graph);
    return RP_OK;
}

rp_status_t rp_graph_tag(const rp_graph_t *graph, uint32_t *out) {
    if (graph == NULL || out == NULL) return RP_EINVAL;
    *out = graph->tag; /* written once, in rp_graph_create */
    return RP_OK;
}

rp_status_t rp_graph_stats(const rp_graph_t *graph, rp_graph_stats_t *out) {
    if (graph == NULL || out == NULL) return RP_EINVAL;
    uint32_t ticket = rp_shared_enter((rp_graph_t *)graph);
    *out = (rp_graph_stats_t){
        .live_nodes = graph->live_nodes,
        .live_edges = graph->live_edges,
        .arena_bytes_in_use = graph->arena.bytes_in_use + graph->live_nodes * (RP_PAGE_BYTES / RP_PAGE_NODES),
        .arena_bytes_reserved = graph->arena.bytes_reserved,
        .allocations = graph->arena.allocations,
    };
    rp_shared_exit((rp_graph_t *)graph, ticket);
    return RP_OK;
}

rp_node_t *rp_diagnostic_reserve(rp_graph_t *graph, size_t count) {
    graph->diagnostic_count = 0;
    if (count > graph->diagnostic_capacity) {
        rp_node_t *grown = rp_arena_raw_alloc(&graph->arena, sizeof(rp_node_t) * count);
        /* Reporting is best effort: without memory the diagnostic stays empty. */
        if (grown == NULL) return NULL;
        rp_arena_raw_free(&graph->arena, graph->diagnostic, sizeof(rp_node_t) * graph->diagnostic_capacity);
        graph->diagnostic = grown;
        graph->diagnostic_capacity = count;
    }
    graph->diagnostic_count = count;
    return graph->diagnostic;
}

rp_status_t rp_graph_diagnostic(const rp_graph_t *graph, rp_node_t *nodes, size_t capacity, size_t *count) {
    if (graph == NULL || count == NULL || (nodes == NULL && capacity > 0)) return RP_EINVAL;
    uint32_t ticket = rp_shared_enter((rp_graph_t *)graph);
    size_t n = graph->diagnostic_count < capacity ? graph->diagnostic_count : capacity;
    for (size_t i = 0; i < n; i++) nodes[i] = graph->diagnostic[i];
    *count = graph->diagnostic_count;
    rp_shared_exit((rp_graph_t *)graph, ticket);
    return RP_OK;
}

rp_status_t rp_graph_tracking(const rp_graph_t *graph, rp_node_t *out) {
    if (graph == NULL || out == NULL) return RP_EINVAL;
    /* Only the thread holding the graph can be computing or running in it. */
    bool tracking = rp_exclusive_held(graph) && graph->active != RP_NO_SLOT && !graph->untracked_depth;
    *out = tracking ? rp_handle(graph, graph->active) : RP_NODE_NONE;
    return RP_OK;
}

rp_status_t rp_graph_evaluating(const rp_graph_t *graph, rp_node_t *node, void **data) {
    if (graph == NULL || data == NULL) return RP_EINVAL;
    /* Only the thread holding the graph can be computing or running in it. */
    bool evaluating = rp_exclusive_held(graph) && graph->active_rec != NULL;
    *data = evaluating ? graph->active_rec->data : NULL;
    if (node != NULL) *node = evaluating ? rp_handle(graph, graph->active) : RP_NODE_NONE;
    return RP_OK;
}

void rp_trace_slow(rp_graph_t *graph, rp_trace_kind_t kind, uint32_t slot, uint32_t cause, bool changed) {
    rp_trace_event_t event = {kind, changed, rp_handle(graph, slot), RP_NODE_NONE, rp_rec(graph, slot)->data, NULL};
    if (cause != RP_NO_SLOT && (rp_rec(graph, cause)->flags & RP_F_LIVE)) {
        event.cause = rp_handle(graph, cause);
        event.cause_data = rp_rec(graph, cause)->data;
    }
    graph->tracer(graph->tracer_context, graph, &event);
}

rp_status_t rp_graph_set_tracer(rp_graph_t *graph, rp_tracer_t tracer, void *context) {
    if (graph == NULL) return RP_EINVAL;
    rp_exclusive_enter(graph);
    /* Causes are kept only while a tracer is installed: those of nodes marked
     * before may be out of date, so a new tracer starts with none. Their
     * array, once made, stays (a traced walk in progress may still write it)
     * and grows with the slots (rp_reserve_for_node). */
    if (tracer != NULL && graph->tracer == NULL) {
        /* At least one slot's worth, so that the array exists. */
        rp_status_t status = rp_causes_reserve(graph, graph->nslots ? graph->nslots : 1);
        if (status) {
            rp_exclusive_exit(graph);
            return status;
        }
        for (uint32_t slot = 0; slot < graph->nslots; slot++) graph->causes[slot] = RP_NO_SLOT;
    }
    graph->tracer = tracer;
    graph->tracer_context = context;
    rp_exclusive_exit(graph);
    return RP_OK;
}
