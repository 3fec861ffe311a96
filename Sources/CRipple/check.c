/*
 * check.c: _rp_graph_check, the test hook that validates every invariant
 * stated in graph.h. It walks the whole graph: tests only.
 */
#include "graph.h"

#include <stdarg.h>
#include <stdio.h>

static rp_status_t broken(char *message, size_t capacity, const char *format, ...) {
    if (message != NULL && capacity > 0) {
        va_list args;
        va_start(args, format);
        vsnprintf(message, capacity, format, args);
        va_end(args);
    }
    return RP_ECORRUPT;
}

#define BROKEN(...) return broken(message, capacity, __VA_ARGS__)

static bool downstream_marked(const rp_graph_t *graph, const rp_node_rec_t *rec) {
    for (uint32_t i = 0; i < rec->nsubs; i++) {
        const rp_node_rec_t *sub = rp_rec(graph, rec->subs[i].node);
        if (!(sub->flags & (RP_F_STALE | RP_F_COMPUTING))) return false;
    }
    return true;
}

static rp_status_t check_graph(const rp_graph_t *graph, char *message, size_t capacity);

rp_status_t _rp_graph_check(const rp_graph_t *graph, char *message, size_t capacity) {
    if (graph == NULL) return RP_EINVAL;
    if (message != NULL && capacity > 0) message[0] = '\0';
    uint32_t ticket = rp_shared_enter((rp_graph_t *)graph);
    rp_status_t status = check_graph(graph, message, capacity);
    rp_shared_exit((rp_graph_t *)graph, ticket);
    return status;
}

static rp_status_t check_graph(const rp_graph_t *graph, char *message, size_t capacity) {
    size_t live = 0, effects = 0, shared = 0, waiting = 0, edges = 0, edge_bytes = 0, free_slots = 0;
    bool idle = graph->active_rec == NULL && !graph->flushing;
    for (uint32_t slot = 0; slot < graph->nslots; slot++) {
        const rp_node_rec_t *rec = rp_rec(graph, slot);
        if (!(rec->flags & RP_F_LIVE)) {
            if (rec->ndeps || rec->nsubs) BROKEN("free slot %u still has edges", slot);
            continue;
        }
        live++;
        if (rec->kind > RP_KIND_ASYNC || rec->kind == RP_KIND_DEFERRED_EFFECT) {
            BROKEN("node %u has kind %u", slot, rec->kind);
        }
        if (rec->kind == RP_KIND_EFFECT) effects++;
        if (rec->nsubs >= 2) shared++;
        if (rec->kind == RP_KIND_SOURCE && rec->ndeps) BROKEN("source %u has dependencies", slot);
        if (rec->kind == RP_KIND_SOURCE && (rec->flags & RP_F_PENDING)) BROKEN("source %u is PENDING", slot);
        if (rec->kind == RP_KIND_EFFECT && rec->nsubs) BROKEN("effect %u has subscribers", slot);
        if (rec->kind == RP_KIND_EFFECT && rec->subs_class) BROKEN("effect %u has a subscriber array", slot);
        if (rec->kind == RP_KIND_EFFECT && (rec->effect_order == 0 || rec->effect_order > graph->next_effect_order)) {
            BROKEN("effect %u has order %llu among effects", slot, (unsigned long long)rec->effect_order);
        }
        if (rec->ndeps > rp_edge_capacity(rec->deps_class) || rec->nsubs > rp_edge_capacity(rec->subs_class)) {
            BROKEN("node %u has more edges than capacity", slot);
        }
        if (idle && (rec->flags & RP_F_BUSY)) BROKEN("node %u is busy outside any call", slot);
        /* Between its runs a node's word shared with the cursor is its own
         * again (graph.h): a stamp or a flush that has been. */
        if (!(rec->flags & RP_F_COMPUTING) && rec->kind != RP_KIND_EFFECT && rec->read_stamp > graph->stamp &&
            rec->read_stamp != RP_READ_STAMP_UNKNOWN) {
            BROKEN("node %u was read by run %llu, not started yet", slot, (unsigned long long)rec->read_stamp);
        }
        if (!(rec->flags & RP_F_COMPUTING) && rec->kind == RP_KIND_EFFECT && rec->flush_id > graph->flush_id) {
            BROKEN("effect %u counts its runs in flush %u, not started yet", slot, rec->flush_id);
        }
        if ((rec->flags & RP_F_JOURNALED) && graph->savepoint_count == 0) {
            BROKEN("node %u is journaled outside any savepoint", slot);
        }
        if ((rec->flags & RP_F_LOST_DEP) && graph->savepoint_count == 0) {
            BROKEN("node %u keeps a lost dependency's mark outside any savepoint", slot);
        }
        if ((rec->flags & RP_F_QUEUED) && rec->kind != RP_KIND_EFFECT) BROKEN("non-effect %u is queued", slot);
        if ((rec->flags & (RP_F_DEFERRED | RP_F_SCHEDULED)) && rec->kind != RP_KIND_EFFECT) {
            BROKEN("non-effect %u is deferred", slot);
        }
        if ((rec->flags & RP_F_TRACKING) && (rec->kind != RP_KIND_ASYNC || !(rec->flags & RP_F_COMPUTING))) {
            BROKEN("node %u is tracking but not an async node in a section", slot);
        }
        if (rec->kind == RP_KIND_ASYNC) {
            /* A compute names its run before it calls the host. */
            uint64_t run = graph->async_runs[slot];
            if (run == 0 && !(rec->flags & RP_F_DIRTY)) BROKEN("async node %u is up to date without a run", slot);
            if (run > graph->stamp) {
                BROKEN("async node %u names run %llu, not started yet", slot, (unsigned long long)run);
            }
        }
        if (idle && !graph->batch_depth && rec->kind == RP_KIND_EFFECT && (rec->flags & RP_F_STALE) &&
            !(rec->flags & (RP_F_QUEUED | RP_F_SCHEDULED))) {
            BROKEN("effect %u is stale but neither queued nor scheduled", slot);
        }
        if ((rec->flags & RP_F_STALE) && rec->kind != RP_KIND_EFFECT && !downstream_marked(graph, rec)) {
            BROKEN("node %u is stale but a subscriber is not marked", slot);
        }
        edge_bytes +=
            ((size_t)rp_edge_capacity(rec->deps_class) + rp_edge_capacity(rec->subs_class)) * sizeof(rp_edge_t);
        if (*rp_order(graph, slot) == 0 || *rp_order(graph, slot) > graph->next_order) {
            BROKEN("node %u has creation order %u", slot, *rp_order(graph, slot));
        }
        for (uint32_t i = 0; i < rec->ndeps; i++) {
            rp_edge_t edge = rec->deps[i];
            if (edge.node >= graph->nslots) BROKEN("node %u dep %u out of range", slot, i);
            const rp_node_rec_t *dep = rp_rec(graph, edge.node);
            if (edge.rec != dep) BROKEN("node %u dep %u carries another node's record", slot, i);
            if (!(dep->flags & RP_F_LIVE)) BROKEN("node %u depends on free slot %u", slot, edge.node);
            if (edge.mirror >= dep->nsubs || dep->subs[edge.mirror].node != slot || dep->subs[edge.mirror].mirror != i) {
                BROKEN("edge %u -> %u (dep %u) has no matching twin", slot, edge.node, i);
            }
            for (uint32_t j = 0; j < i; j++) {
                if (rec->deps[j].node == edge.node) BROKEN("node %u reads %u twice", slot, edge.node);
            }
            edges++;
        }
        if ((rec->flags & RP_F_WEAK_READS) && rec->kind == RP_KIND_SOURCE) BROKEN("source %u reads weakly", slot);
        if ((rec->flags & RP_F_WATCHED_BY_WEAK) && rec->kind == RP_KIND_EFFECT) {
            BROKEN("effect %u is watched by weak reads", slot);
        }
        uint32_t weak = 0;
        for (uint32_t i = 0; i < rec->nsubs; i++) {
            rp_edge_t edge = rec->subs[i];
            if (edge.node >= graph->nslots) BROKEN("node %u sub %u out of range", slot, i);
            const rp_node_rec_t *sub = rp_rec(graph, edge.node);
            if (edge.rec != sub) BROKEN("node %u sub %u carries another node's record", slot, i);
            if (edge.mirror >= sub->ndeps || sub->deps[edge.mirror].node != slot || sub->deps[edge.mirror].mirror != i) {
                BROKEN("subscriber edge %u -> %u (sub %u) has no matching twin", slot, edge.node, i);
            }
            weak += rp_edge_is_weak(rec, sub);
        }
        if (weak != rec->weak_subs) BROKEN("node %u counts %u weak readers, has %u", slot, rec->weak_subs, weak);
        if (rec->nsubs > weak && (rec->flags & RP_F_UNWATCH)) {
            BROKEN("node %u waits for its unwatched but has a strong reader", slot);
        }
        if ((rec->flags & RP_F_UNWATCH) && graph->callbacks.unwatched == NULL) {
            BROKEN("node %u waits for an unwatched the graph has no callback for", slot);
        }
        if (rec->flags & RP_F_UNWATCH) waiting++;
    }
    for (uint32_t slot = graph->free_head; slot != RP_NO_SLOT; slot = rp_rec(graph, slot)->next_free) {
        if (slot >= graph->nslots) BROKEN("free list leads out of range (%u)", slot);
        if (rp_rec(graph, slot)->flags & RP_F_LIVE) BROKEN("live node %u is on the free list", slot);
        if (*rp_order(graph, slot) != 0) BROKEN("free slot %u keeps a creation order", slot);
        if (++free_slots > graph->nslots) BROKEN("the free list loops");
    }
    if (live != graph->live_nodes) BROKEN("%zu live nodes counted, %zu accounted", live, graph->live_nodes);
    if (effects != graph->live_effects) BROKEN("%zu effects counted, %zu accounted", effects, graph->live_effects);
    if (live + free_slots != graph->nslots) BROKEN("%zu live + %zu free != %u slots", live, free_slots, graph->nslots);
    if (edges != graph->live_edges) BROKEN("%zu edges counted, %zu accounted", edges, graph->live_edges);
    if (edge_bytes != graph->arena.bytes_in_use) {
        BROKEN("edge arrays hold %zu bytes, the arena accounts %zu", edge_bytes, graph->arena.bytes_in_use);
    }
    /* Outside a flush, `heap` is in arrival order (scheduler.c). */
    for (size_t i = 1; graph->flushing && i < graph->heap_count; i++) {
        if (graph->heap[i].order < graph->heap[(i - 1) / 2].order) BROKEN("flush heap out of order at %zu", i);
    }
    for (size_t i = graph->ordered_head + 1; i < graph->ordered_count; i++) {
        if (rp_ordered(graph, i)->order <= rp_ordered(graph, i - 1)->order) {
            BROKEN("ordered flush queue unsorted at %zu", i);
        }
    }
    if (idle && graph->stack_top != 0) BROKEN("walk stack not empty outside any call");
    for (uint32_t i = 0; i < graph->savepoint_count; i++) {
        uint64_t order = graph->savepoints[i].order;
        if (order > graph->next_order || (i > 0 && order < graph->savepoints[i - 1].order)) {
            BROKEN("savepoint %u began at creation order %llu", i, (unsigned long long)order);
        }
    }
    /* Each node waiting for its `unwatched` has an entry after the head, in
     * the queue or counted past its capacity (a delivery in progress tells
     * them as it goes). */
    if (!graph->draining && waiting > graph->unwatch_count - graph->unwatch_head) {
        BROKEN("%zu nodes wait for their unwatched, %zu entries wait", waiting,
               graph->unwatch_count - graph->unwatch_head);
    }
    if (graph->unwatch_head > graph->unwatch_count ||
        (graph->unwatch_head < graph->unwatch_count && graph->unwatch_head > graph->unwatch_capacity)) {
        BROKEN("unwatched queue head %zu, count %zu, capacity %zu", graph->unwatch_head, graph->unwatch_count,
               graph->unwatch_capacity);
    }
    if (shared != graph->shared_nodes) BROKEN("%zu nodes have two readers or more, %zu accounted", shared,
                                              graph->shared_nodes);
    if (graph->stack_capacity < graph->stack_top + rp_stack_room(graph) ||
        graph->stack_limit != graph->stack_capacity - rp_stack_room(graph)) {
        BROKEN("walk stack of %zu frames (limit %zu) for %zu in use and %zu of room", graph->stack_capacity,
               graph->stack_limit, graph->stack_top, rp_stack_room(graph));
    }
    return RP_OK;
}
