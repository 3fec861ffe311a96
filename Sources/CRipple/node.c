#include "graph.h"

#include <string.h>

static rp_status_t grow(rp_arena_t *arena, void **array, size_t *capacity, size_t item, size_t needed) {
    if (needed <= *capacity) return RP_OK;
    size_t next = *capacity ? *capacity : 16;
    while (next < needed) next *= 2;
    void *grown = rp_arena_raw_alloc(arena, next * item);
    if (grown == NULL) return RP_ENOMEM;
    if (*capacity) {
        memcpy(grown, *array, *capacity * item);
        rp_arena_raw_free(arena, *array, *capacity * item);
    }
    *array = grown;
    *capacity = next;
    return RP_OK;
}

rp_status_t rp_stack_reserve(rp_graph_t *graph, size_t frames) {
    rp_status_t status = grow(&graph->arena, (void **)&graph->stack, &graph->stack_capacity, sizeof(rp_frame_t),
                              graph->stack_top + frames + rp_stack_room(graph));
    if (status == RP_OK) rp_stack_limit_update(graph);
    return status;
}

rp_status_t rp_unwatch_reserve(rp_graph_t *graph, size_t entries) {
    return grow(&graph->arena, (void **)&graph->unwatch, &graph->unwatch_capacity, sizeof(rp_unwatch_t), entries);
}

rp_status_t rp_causes_reserve(rp_graph_t *graph, size_t slots) {
    return grow(&graph->arena, (void **)&graph->causes, &graph->causes_capacity, sizeof(uint32_t), slots);
}

/* Makes the flush queue's array hold `needed` entries: `heap` keeps its
 * place at the front, `ordered` moves to the new back. */
static rp_status_t grow_queue(rp_graph_t *graph, size_t needed) {
    size_t capacity = graph->queue_capacity;
    if (needed <= capacity) return RP_OK;
    size_t next = capacity ? capacity : 16;
    while (next < needed) next *= 2;
    rp_queued_t *grown = rp_arena_raw_alloc(&graph->arena, next * sizeof(rp_queued_t));
    if (grown == NULL) return RP_ENOMEM;
    size_t pending = graph->ordered_count - graph->ordered_head;
    if (capacity) {
        memcpy(grown, graph->heap, graph->heap_count * sizeof(rp_queued_t));
        if (pending) {
            memcpy(grown + next - pending, rp_ordered(graph, graph->ordered_count - 1), pending * sizeof(rp_queued_t));
        }
        rp_arena_raw_free(&graph->arena, graph->heap, capacity * sizeof(rp_queued_t));
    }
    graph->heap = grown;
    graph->ordered_first = grown + next - 1;
    graph->queue_capacity = next;
    graph->ordered_head = 0;
    graph->ordered_count = pending;
    return RP_OK;
}

/* Everything a new node could need later is reserved now, so that propagation
 * and flushing never allocate (and so never fail half-way): re-validation
 * walks grow the stack themselves when they first go deeper, a node's second
 * reader, which can fail, grows the room propagation keeps there, and the
 * `unwatched` queue can do without room (see `unwatch` in graph.h). */
rp_status_t rp_reserve_for_node(rp_graph_t *graph, rp_kind_t kind) {
    rp_arena_t *arena = &graph->arena;
    rp_status_t status;
    if (kind == RP_KIND_EFFECT) {
        size_t effects = graph->live_effects + 1;
        if ((status = grow_queue(graph, effects))) return status;
    }
    /* The per-slot arrays that exist cover the slot this node may take (at most nslots). */
    size_t slots = (size_t)graph->nslots + 1;
    if ((kind == RP_KIND_ASYNC || graph->async_runs != NULL) &&
        (status = grow(arena, (void **)&graph->async_runs, &graph->async_runs_capacity, sizeof(uint64_t), slots))) {
        return status;
    }
    if (graph->causes != NULL && (status = rp_causes_reserve(graph, slots))) return status;
    if (graph->free_head == RP_NO_SLOT && graph->nslots == graph->npages * RP_PAGE_NODES) {
        size_t pages_capacity = graph->pages_capacity;
        if ((status = grow(arena, (void **)&graph->pages, &pages_capacity, sizeof(*graph->pages), graph->npages + 1))) {
            return status;
        }
        graph->pages_capacity = (uint32_t)pages_capacity;
        void *block = rp_arena_raw_alloc(arena, RP_PAGE_BLOCK_BYTES);
        if (block == NULL) return RP_ENOMEM;
        /* Not cleared: no slot at or past nslots is ever read (every walk and
         * every handle's resolve stops at nslots), and create writes a new
         * slot's record and order in full before anything reads them. */
        rp_node_rec_t *page = (rp_node_rec_t *)(((uintptr_t)block + RP_PAGE_ALIGN - 1) & ~(RP_PAGE_ALIGN - 1));
        memcpy((char *)page + RP_PAGE_BYTES, &block, sizeof block);
        graph->pages[graph->npages++] = page;
    }
    return RP_OK;
}

/* Moves the largest of keys[root..] down the heap of `count` keys. */
static void sift_down(uint64_t *keys, size_t root, size_t count) {
    uint64_t moving = keys[root];
    for (size_t child; (child = 2 * root + 1) < count; root = child) {
        if (child + 1 < count && keys[child + 1] > keys[child]) child++;
        if (keys[child] <= moving) break;
        keys[root] = keys[child];
    }
    keys[root] = moving;
}

/* The keys at or below `key` in sorted `keys`. */
static size_t count_up_to(const uint64_t *keys, size_t count, uint64_t key) {
    size_t low = 0, high = count;
    while (low < high) {
        size_t middle = low + (high - low) / 2;
        if (keys[middle] <= key) {
            low = middle + 1;
        } else {
            high = middle;
        }
    }
    return low;
}

/* Creation orders take 32 bits of each record (4 bytes a node rather than
 * 8): once in RP_ORDER_MAX creations, the live nodes are numbered again
 * 1, 2, ... in their order, from a sort (a heap sort: no recursion) of their
 * orders and slots, and a savepoint's begin becomes the number of live nodes
 * created before it, so that the nodes created after it stay its own. */
rp_status_t rp_orders_renumber(rp_graph_t *graph) {
    size_t bytes = (graph->live_nodes ? graph->live_nodes : 1) * sizeof(uint64_t);
    uint64_t *keys = rp_arena_raw_alloc(&graph->arena, bytes);
    if (keys == NULL) return RP_ENOMEM;
    size_t count = 0;
    for (uint32_t slot = 0; slot < graph->nslots; slot++) {
        uint32_t order = *rp_order(graph, slot);
        if (order != 0) keys[count++] = (uint64_t)order << 32 | slot;
    }
    for (size_t root = count / 2; root-- > 0;) sift_down(keys, root, count);
    for (size_t end = count; end > 1;) {
        uint64_t largest = keys[0];
        keys[0] = keys[--end];
        keys[end] = largest;
        sift_down(keys, 0, end);
    }
    for (uint32_t i = 0; i < graph->savepoint_count; i++) {
        rp_savepoint_frame_t *frame = &graph->savepoints[i];
        frame->order = count_up_to(keys, count, frame->order << 32 | UINT32_MAX);
    }
    for (size_t i = 0; i < count; i++) *rp_order(graph, (uint32_t)keys[i]) = (uint32_t)(i + 1);
    graph->next_order = (uint32_t)count;
    rp_arena_raw_free(&graph->arena, keys, bytes);
    return RP_OK;
}

static rp_status_t create(rp_graph_t *graph, rp_kind_t kind, uint16_t flags, void *data, rp_node_t *out) {
    bool deferred = kind == RP_KIND_DEFERRED_EFFECT;
    if (deferred) kind = RP_KIND_EFFECT;
    if (graph->nslots == RP_NO_SLOT && graph->free_head == RP_NO_SLOT) return RP_ENOMEM;
    rp_status_t status = rp_reserve_for_node(graph, kind);
    if (status) return status;
    if (graph->next_order == RP_ORDER_MAX && (status = rp_orders_renumber(graph))) return status;

    uint32_t slot;
    rp_node_rec_t *rec;
    uint32_t generation;
    if (graph->free_head != RP_NO_SLOT) {
        slot = graph->free_head;
        rec = rp_rec(graph, slot);
        graph->free_head = rec->next_free;
        generation = rec->generation; /* never 0: rp_node_free skips it */
    } else {
        /* A slot never used: its page is not cleared (rp_reserve_for_node). */
        slot = graph->nslots++;
        rec = rp_rec(graph, slot);
        generation = 1;
    }
    *rec = (rp_node_rec_t){0};
    rec->generation = generation;
    rec->kind = (uint8_t)kind;
    rec->flags = RP_F_LIVE | flags | (kind == RP_KIND_COMPUTED || kind == RP_KIND_ASYNC ? RP_F_DIRTY : 0);
    rec->order = ++graph->next_order;
    if (kind == RP_KIND_EFFECT) rec->effect_order = ++graph->next_effect_order;
    if (kind == RP_KIND_ASYNC) graph->async_runs[slot] = 0;
    if (graph->causes != NULL) graph->causes[slot] = RP_NO_SLOT;
    rec->data = data;
    graph->live_nodes++;
    if (kind == RP_KIND_EFFECT) graph->live_effects++;
    *out = rp_handle(graph, slot);

    if (kind != RP_KIND_EFFECT) return RP_OK;
    if (deferred) {
        rec->flags |= RP_F_DEFERRED | RP_F_DIRTY;
        rp_schedule_deferred(graph, slot);
    } else {
        rp_run_effect(graph, slot, rec);
    }
    return rp_settle(graph);
}

/* The record flags of `options` for a node of `kind`, or 0xFFFF when an
 * option is unknown or does not fit the kind (a source reads nothing; an
 * effect is read by nothing). */
static uint32_t option_flags(rp_kind_t kind, uint32_t options) {
    const uint32_t invalid = 0xFFFF;
    if (options & ~(uint32_t)(RP_NODE_WEAK_READS | RP_NODE_WATCHED_BY_WEAK_READS)) return invalid;
    bool reads = kind != RP_KIND_SOURCE;
    bool is_read = kind != RP_KIND_EFFECT && kind != RP_KIND_DEFERRED_EFFECT;
    if (((options & RP_NODE_WEAK_READS) && !reads) || ((options & RP_NODE_WATCHED_BY_WEAK_READS) && !is_read)) {
        return invalid;
    }
    return (options & RP_NODE_WEAK_READS ? RP_F_WEAK_READS : 0) |
           (options & RP_NODE_WATCHED_BY_WEAK_READS ? RP_F_WATCHED_BY_WEAK : 0);
}

rp_status_t rp_node_create_with(rp_graph_t *graph, rp_kind_t kind, uint32_t options, void *data, rp_node_t *out) {
    if (graph == NULL || out == NULL) return RP_EINVAL;
    if ((unsigned)kind > RP_KIND_ASYNC) return RP_EINVAL;
    if ((kind == RP_KIND_COMPUTED || kind == RP_KIND_ASYNC) && graph->callbacks.compute == NULL) return RP_EINVAL;
    if ((kind == RP_KIND_EFFECT || kind == RP_KIND_DEFERRED_EFFECT) && graph->callbacks.run == NULL) return RP_EINVAL;
    if (kind == RP_KIND_DEFERRED_EFFECT && graph->callbacks.schedule == NULL) return RP_EINVAL;
    uint32_t flags = option_flags(kind, options);
    if (flags == 0xFFFF) return RP_EINVAL;
    rp_exclusive_enter(graph);
    rp_status_t status = create(graph, kind, (uint16_t)flags, data, out);
    rp_exclusive_exit(graph);
    return status;
}

rp_status_t rp_node_create(rp_graph_t *graph, rp_kind_t kind, void *data, rp_node_t *out) {
    return rp_node_create_with(graph, kind, 0, data, out);
}

/* The options change how existing edges would count: only a node without
 * those edges takes them (a reader that has read nothing, a node nothing
 * reads), so that every edge keeps the weakness it was linked with. */
static rp_status_t add_options(rp_graph_t *graph, rp_node_t node, uint32_t options) {
    uint32_t slot;
    rp_status_t status = rp_resolve(graph, node, &slot);
    if (status) return status;
    rp_node_rec_t *rec = rp_rec(graph, slot);
    rp_kind_t kind = (rp_kind_t)rec->kind;
    uint32_t flags = option_flags(kind, options);
    if (flags == 0xFFFF) return RP_EINVAL;
    if (((flags & RP_F_WEAK_READS) && rec->ndeps) || ((flags & RP_F_WATCHED_BY_WEAK) && rec->nsubs)) {
        return RP_ESTATE;
    }
    rec->flags |= (uint16_t)flags;
    return RP_OK;
}

rp_status_t rp_node_add_options(rp_graph_t *graph, rp_node_t node, uint32_t options) {
    if (graph == NULL) return RP_EINVAL;
    rp_exclusive_enter(graph);
    rp_status_t status = add_options(graph, node, options);
    rp_exclusive_exit(graph);
    return status;
}

/* Removes deps[position] of `sub`, keeping the rest in read order. */
static void remove_dep_keeping_order(rp_graph_t *graph, uint32_t sub, uint32_t position) {
    rp_node_rec_t *rec = rp_rec(graph, sub);
    for (uint32_t i = position + 1; i < rec->ndeps; i++) {
        rp_edge_t edge = rec->deps[i];
        rec->deps[i - 1] = edge;
        edge.rec->subs[edge.mirror].mirror = i - 1;
    }
    rec->ndeps--;
    if ((rec->flags & RP_F_COMPUTING) && position < rec->cursor) rec->cursor--;
}

void rp_node_free(rp_graph_t *graph, uint32_t slot) {
    rp_node_rec_t *rec = rp_rec(graph, slot);
    /* Readers lose a dependency: for them it changed, as by a write (so a
     * walk in progress keeps its nodes PENDING, see check_dirty). */
    if (rec->nsubs) graph->write_epoch++;
    /* What read it at a savepoint's begin cannot get its value back (savepoint.c). */
    if (graph->savepoint_count) graph->savepoints[graph->savepoint_count - 1].disposed = true;
    if (rec->nsubs >= 2) rp_shared_nodes_change(graph, false);
    while (rec->nsubs) {
        rp_edge_t edge = rec->subs[--rec->nsubs];
        rp_node_rec_t *sub = edge.rec;
        /* A reader whose run is in progress and has not read it yet in this
         * run will see it gone when it gets there: nothing to re-run. */
        bool seen = !(sub->flags & RP_F_COMPUTING) || edge.mirror < sub->cursor;
        remove_dep_keeping_order(graph, edge.node, edge.mirror);
        graph->live_edges--;
        /* The slot may be reused by the time it is told. */
        if (graph->causes != NULL && graph->causes[edge.node] == slot) graph->causes[edge.node] = RP_NO_SLOT;
        if (!seen) continue;
        rp_mark_dirty(graph, edge.node);
        /* A rollback cannot give the dependency back: the reader keeps
         * the marks its loss gave it (savepoint.c, step 3). */
        if (graph->savepoint_count) {
            sub->flags |= RP_F_LOST_DEP;
            graph->savepoint_lost_deps = true;
        }
    }
    if (rec->ndeps) rp_unlink_deps_from(graph, slot, 0); /* a source, or a derivation never read: none */
    if (rec->deps_class) rp_arena_block_free(&graph->arena, rec->deps, rec->deps_class);
    if (rec->subs_class) rp_arena_block_free(&graph->arena, rec->subs, rec->subs_class);

    rp_node_t handle = rp_handle(graph, slot);
    void *data = rec->data;
    bool effect = rec->kind == RP_KIND_EFFECT;
    uint32_t generation = rec->generation + 1;
    *rec = (rp_node_rec_t){0}; /* its creation order 0 among them */
    rec->generation = generation ? generation : 1;
    rec->next_free = graph->free_head;
    graph->free_head = slot;
    graph->live_nodes--;
    if (effect) graph->live_effects--;
    if (graph->callbacks.release) graph->callbacks.release(graph->callbacks.host, graph, handle, data);
}

static rp_status_t dispose(rp_graph_t *graph, rp_node_t node) {
    uint32_t slot;
    rp_status_t status = rp_resolve(graph, node, &slot);
    if (status) return status;
    rp_node_rec_t *rec = rp_rec(graph, slot);
    if (rec->flags & RP_F_BUSY) {
        rec->flags |= RP_F_DISPOSING;
        return RP_OK;
    }
    rp_node_free(graph, slot);
    return rp_settle(graph);
}

rp_status_t rp_node_dispose(rp_graph_t *graph, rp_node_t node) {
    return rp_call_exclusive(graph, node, dispose);
}

/* Resolves `node` inside a shared section, which the caller leaves. */
static rp_status_t resolve_shared(const rp_graph_t *graph, rp_node_t node, uint32_t *ticket, uint32_t *slot) {
    *ticket = rp_shared_enter((rp_graph_t *)graph);
    rp_status_t status = rp_resolve(graph, node, slot);
    if (status) rp_shared_exit((rp_graph_t *)graph, *ticket);
    return status;
}

rp_status_t rp_node_kind(const rp_graph_t *graph, rp_node_t node, rp_kind_t *out) {
    if (graph == NULL || out == NULL) return RP_EINVAL;
    uint32_t ticket, slot;
    rp_status_t status = resolve_shared(graph, node, &ticket, &slot);
    if (status) return status;
    const rp_node_rec_t *rec = rp_rec(graph, slot);
    *out = (rec->flags & RP_F_DEFERRED) ? RP_KIND_DEFERRED_EFFECT : (rp_kind_t)rec->kind;
    rp_shared_exit((rp_graph_t *)graph, ticket);
    return RP_OK;
}

rp_status_t rp_node_data(const rp_graph_t *graph, rp_node_t node, void **out) {
    if (graph == NULL || out == NULL) return RP_EINVAL;
    uint32_t ticket, slot;
    rp_status_t status = resolve_shared(graph, node, &ticket, &slot);
    if (status) return status;
    *out = rp_rec(graph, slot)->data;
    rp_shared_exit((rp_graph_t *)graph, ticket);
    return RP_OK;
}

static rp_status_t copy_edges(const rp_graph_t *graph, rp_node_t node, bool deps, rp_node_t *nodes, size_t capacity,
                              size_t *count) {
    if (graph == NULL || count == NULL || (nodes == NULL && capacity > 0)) return RP_EINVAL;
    uint32_t ticket, slot;
    rp_status_t status = resolve_shared(graph, node, &ticket, &slot);
    if (status) return status;
    const rp_node_rec_t *rec = rp_rec(graph, slot);
    const rp_edge_t *edges = deps ? rec->deps : rec->subs;
    size_t total = deps ? rec->ndeps : rec->nsubs;
    for (size_t i = 0; i < total && i < capacity; i++) nodes[i] = rp_handle(graph, edges[i].node);
    *count = total;
    rp_shared_exit((rp_graph_t *)graph, ticket);
    return RP_OK;
}

rp_status_t rp_node_dependencies(const rp_graph_t *graph, rp_node_t node, rp_node_t *nodes, size_t capacity,
                                 size_t *count) {
    return copy_edges(graph, node, true, nodes, capacity, count);
}

rp_status_t rp_node_subscribers(const rp_graph_t *graph, rp_node_t node, rp_node_t *nodes, size_t capacity,
                                size_t *count) {
    return copy_edges(graph, node, false, nodes, capacity, count);
}

/* Sorts handles by their nodes' creation order (Shell's method: no
 * recursion, no memory, and the slots of a graph that never freed a node are
 * in creation order already, the best case). */
static void sort_by_creation(const rp_graph_t *graph, rp_node_t *nodes, size_t count) {
    static const size_t gaps[] = {701, 301, 132, 57, 23, 10, 4, 1};
    for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; g++) {
        size_t gap = gaps[g];
        for (size_t i = gap; i < count; i++) {
            rp_node_t moving = nodes[i];
            uint32_t order = *rp_order(graph, moving.slot);
            size_t j = i;
            while (j >= gap && *rp_order(graph, nodes[j - gap].slot) > order) {
                nodes[j] = nodes[j - gap];
                j -= gap;
            }
            nodes[j] = moving;
        }
    }
}

rp_status_t rp_graph_nodes(const rp_graph_t *graph, rp_node_t *nodes, size_t capacity, size_t *count) {
    if (graph == NULL || count == NULL || (nodes == NULL && capacity > 0)) return RP_EINVAL;
    uint32_t ticket = rp_shared_enter((rp_graph_t *)graph);
    size_t total = 0;
    for (uint32_t slot = 0; slot < graph->nslots; slot++) {
        uint16_t flags = rp_rec(graph, slot)->flags;
        if ((flags & (RP_F_LIVE | RP_F_DISPOSING)) != RP_F_LIVE) continue;
        if (total < capacity) nodes[total] = rp_handle(graph, slot);
        total++;
    }
    sort_by_creation(graph, nodes, total < capacity ? total : capacity);
    *count = total;
    rp_shared_exit((rp_graph_t *)graph, ticket);
    return RP_OK;
}
