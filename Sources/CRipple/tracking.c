/*
 * tracking.c: recording what a running compute or effect reads.
 *
 * A run confirms its dependencies one read at a time, in read order, against
 * the deps array of its previous run (`cursor` counts the confirmed prefix).
 * The common case, the same reads in the same order, costs a comparison per
 * read and no allocation. A read that differs moves an existing edge into place
 * or links a new one there; whatever the run did not read again is unlinked
 * when it ends.
 */
#include "graph.h"

#include <string.h>

/* Edge arrays start with room for one edge (most nodes read one node, or are
 * read by one) and double. */
static rp_status_t ensure_capacity(rp_graph_t *graph, rp_edge_t **edges, uint8_t *edges_class, uint32_t needed) {
    uint32_t capacity = rp_edge_capacity(*edges_class);
    if (needed <= capacity) return RP_OK;
    unsigned size_class = rp_edge_class_for(needed);
    rp_edge_t *grown = rp_arena_block_alloc(&graph->arena, size_class);
    if (grown == NULL) return RP_ENOMEM;
    if (capacity) {
        memcpy(grown, *edges, sizeof(rp_edge_t) * capacity);
        rp_arena_block_free(&graph->arena, *edges, *edges_class);
    }
    *edges = grown;
    *edges_class = (uint8_t)size_class;
    return RP_OK;
}

static void swap_deps(rp_node_rec_t *sub, uint32_t a, uint32_t b) {
    rp_edge_t edge_a = sub->deps[a];
    rp_edge_t edge_b = sub->deps[b];
    sub->deps[a] = edge_b;
    sub->deps[b] = edge_a;
    edge_b.rec->subs[edge_b.mirror].mirror = a;
    edge_a.rec->subs[edge_a.mirror].mirror = b;
}

/* `slot` lost its last strong reader: it waits for its `unwatched`, in the
 * queue, or by its flag alone when the queue is full of nodes waiting. */
static void queue_unwatched(rp_graph_t *graph, uint32_t slot) {
    rp_node_rec_t *rec = rp_rec(graph, slot);
    if (graph->callbacks.unwatched == NULL || (rec->flags & RP_F_UNWATCH)) return;
    if (graph->unwatch_count == graph->unwatch_capacity) {
        /* Full of entries already delivered or cancelled: keep one per node
         * still waiting. */
        size_t kept = 0;
        for (size_t i = graph->unwatch_head; i < graph->unwatch_count; i++) {
            rp_unwatch_t entry = graph->unwatch[i];
            rp_node_rec_t *other = rp_rec(graph, entry.slot);
            if (other->generation != entry.generation || (other->flags & (RP_F_UNWATCH | RP_F_SEEN)) != RP_F_UNWATCH) {
                continue;
            }
            other->flags |= RP_F_SEEN;
            graph->unwatch[kept++] = entry;
        }
        for (size_t i = 0; i < kept; i++) rp_rec(graph, graph->unwatch[i].slot)->flags &= (uint16_t)~RP_F_SEEN;
        graph->unwatch_head = 0;
        graph->unwatch_count = kept;
    }
    rec->flags |= RP_F_UNWATCH;
    if (graph->unwatch_count < graph->unwatch_capacity) {
        graph->unwatch[graph->unwatch_count] = (rp_unwatch_t){slot, rec->generation};
    }
    graph->unwatch_count++; /* past the capacity: waiting by its flag alone */
}

/* Tells node `slot` (record `rec`), which waits for it, that it is unwatched. */
static void tell_unwatched(rp_graph_t *graph, uint32_t slot, rp_node_rec_t *rec) {
    rec->flags &= (uint16_t)~RP_F_UNWATCH;
    graph->callbacks.unwatched(graph->callbacks.host, graph, rp_handle(graph, slot), rec->data);
}

void rp_deliver_unwatched(rp_graph_t *graph) {
    if (graph->draining || graph->active_rec != NULL || graph->unwatch_head == graph->unwatch_count) return;
    graph->draining = true;
    while (graph->unwatch_head < graph->unwatch_count) {
        if (graph->unwatch_head < graph->unwatch_capacity) {
            rp_unwatch_t entry = graph->unwatch[graph->unwatch_head++];
            rp_node_rec_t *rec = rp_rec(graph, entry.slot);
            if (rec->generation == entry.generation && (rec->flags & RP_F_UNWATCH)) tell_unwatched(graph, entry.slot, rec);
            continue;
        }
        /* The queue overflowed: every entry in it was delivered, the rest
         * wait by their flag. Room for as many next time, then each is told
         * (a node a callback makes wait meanwhile is queued, or found here). */
        size_t waiting = graph->unwatch_count;
        graph->unwatch_head = graph->unwatch_count = 0;
        (void)rp_unwatch_reserve(graph, waiting);
        for (uint32_t slot = 0; slot < graph->nslots; slot++) {
            rp_node_rec_t *rec = rp_rec(graph, slot);
            if ((rec->flags & (RP_F_LIVE | RP_F_UNWATCH)) == (RP_F_LIVE | RP_F_UNWATCH)) tell_unwatched(graph, slot, rec);
        }
    }
    graph->unwatch_head = graph->unwatch_count = 0;
    graph->draining = false;
}

static rp_status_t link_elsewhere(rp_graph_t *graph, uint32_t dep, uint32_t sub);

/* The common case first (reads after a refresh come here: most are the next
 * read of the previous run), then a tail call, so that it saves no registers. */
rp_status_t rp_link_slow(rp_graph_t *graph, uint32_t dep, uint32_t sub) {
    rp_node_rec_t *s = rp_rec(graph, sub);
    uint32_t cursor = s->cursor;
    if (cursor < s->ndeps && s->deps[cursor].node == dep) {
        s->cursor = cursor + 1;
        rp_rec(graph, dep)->read_stamp = s->run_stamp;
        return RP_OK;
    }
    return link_elsewhere(graph, dep, sub);
}

/* A read that is not the next one of the previous run: already read in this
 * run, read later in the previous one (moved into place), or new (linked). */
static __attribute__((noinline)) rp_status_t link_elsewhere(rp_graph_t *graph, uint32_t dep, uint32_t sub) {
    rp_node_rec_t *s = rp_rec(graph, sub);
    rp_node_rec_t *d = rp_rec(graph, dep);
    uint32_t cursor = s->cursor;
    /* Already read in this run? The stamp answers unless a nested run read
     * the node since (its stamp is larger) or the node ran since (its stamp
     * is RP_READ_STAMP_UNKNOWN, larger still); then the confirmed prefix does. */
    if (d->read_stamp == s->run_stamp) return RP_OK;
    /* An async run's track sections each have their own stamp: reads of its
     * earlier sections are in the prefix. */
    if (d->read_stamp > s->run_stamp || s->kind == RP_KIND_ASYNC) {
        for (uint32_t i = 0; i < cursor; i++) {
            if (s->deps[i].node == dep) {
                /* Stamped again, so that the next repeat is answered by the
                 * stamp: the nested runs that stamped it since have ended. */
                d->read_stamp = s->run_stamp;
                return RP_OK;
            }
        }
    }
    if (s->flags & RP_F_DISPOSING) return RP_OK;
    for (uint32_t i = cursor + 1; i < s->ndeps; i++) {
        if (s->deps[i].node == dep) {
            swap_deps(s, cursor, i);
            s->cursor = cursor + 1;
            d->read_stamp = s->run_stamp;
            return RP_OK;
        }
    }
    /* A track section's node has up-to-date readers, which no check walk
     * visits: reading one of them (a node that depends on it) would link a
     * cycle. Only new edges can, and only from a node something reads to a
     * node that reads something. */
    if ((s->flags & RP_F_TRACKING) && s->nsubs && d->ndeps) {
        rp_status_t cycle = rp_async_check_cycle(graph, sub, dep);
        if (cycle) return cycle;
    }
    /* A weak edge more than its count holds: no room, like memory. */
    bool weak = rp_edge_is_weak(d, s);
    if (weak && d->weak_subs == RP_WEAK_SUBS_MAX) return RP_ENOMEM;
    /* A second reader: one more frame of room for propagations. */
    rp_status_t status = RP_OK;
    if (d->nsubs == 1 && graph->stack_top + rp_stack_room(graph) + 1 > graph->stack_capacity) {
        status = rp_stack_reserve(graph, 1);
    }
    /* The graph's first strong reader: the `unwatched` queue's first room. */
    bool watching = !weak && d->nsubs == d->weak_subs;
    if (status == RP_OK && watching && graph->unwatch_capacity == 0 && graph->callbacks.unwatched != NULL) {
        status = rp_unwatch_reserve(graph, RP_UNWATCH_FIRST);
    }
    if (status == RP_OK) status = ensure_capacity(graph, &s->deps, &s->deps_class, s->ndeps + 1);
    if (status == RP_OK) status = ensure_capacity(graph, &d->subs, &d->subs_class, d->nsubs + 1);
    if (status) return status;
    uint32_t position = s->ndeps++;
    s->deps[position] = (rp_edge_t){dep, d->nsubs, d};
    d->subs[d->nsubs++] = (rp_edge_t){sub, position, s};
    if (cursor < position) swap_deps(s, cursor, position);
    s->cursor = cursor + 1;
    d->read_stamp = s->run_stamp;
    graph->live_edges++;
    if (d->nsubs == 2) rp_shared_nodes_change(graph, true);
    if (weak) {
        d->weak_subs++;
    } else if (watching) {
        if (d->flags & RP_F_UNWATCH) {
            d->flags &= (uint16_t)~RP_F_UNWATCH; /* cancels the pending unwatched */
        } else if (graph->callbacks.watched) {
            graph->callbacks.watched(graph->callbacks.host, graph, rp_handle(graph, dep), d->data);
        }
    }
    return RP_OK;
}

void rp_remove_sub_edge(rp_graph_t *graph, uint32_t dep, uint32_t position) {
    rp_node_rec_t *d = rp_rec(graph, dep);
    bool weak = rp_edge_is_weak(d, d->subs[position].rec);
    rp_edge_t last = d->subs[--d->nsubs];
    if (position != d->nsubs) {
        d->subs[position] = last;
        last.rec->deps[last.mirror].mirror = position;
    }
    graph->live_edges--;
    if (d->nsubs == 1) rp_shared_nodes_change(graph, false);
    if (weak) {
        d->weak_subs--;
    } else if (d->nsubs == d->weak_subs) { /* its last strong edge */
        queue_unwatched(graph, dep);
    }
}

void rp_unlink_deps_from(rp_graph_t *graph, uint32_t sub, uint32_t first) {
    rp_node_rec_t *s = rp_rec(graph, sub);
    while (s->ndeps > first) {
        rp_edge_t edge = s->deps[--s->ndeps];
        rp_remove_sub_edge(graph, edge.node, edge.mirror);
    }
}

/* Like a batch, the section holds the graph from begin to end: the depth
 * belongs to the run in progress on the holding thread. */
rp_status_t rp_untracked_begin(rp_graph_t *graph) {
    if (graph == NULL) return RP_EINVAL;
    rp_exclusive_enter(graph);
    graph->untracked_depth++;
    return RP_OK;
}

rp_status_t rp_untracked_end(rp_graph_t *graph) {
    if (graph == NULL) return RP_EINVAL;
    if (!rp_exclusive_held(graph) || graph->untracked_depth == 0) return RP_ESTATE;
    graph->untracked_depth--;
    rp_exclusive_exit(graph);
    return RP_OK;
}
