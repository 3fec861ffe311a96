/*
 * async.c: async nodes, whose runs outlive their compute.
 *
 * To every walk an async node is a computed (propagation.c): DIRTY means
 * "start a new run", and bringing it up to date calls `compute`, which starts
 * one and records its stamp in `async_runs`. The run's later reads, made from
 * any thread, enter the graph through track sections, which make the node the
 * active reader again, appending to its deps; its result enters through a
 * resolve section, which marks its readers like a changed compute. A run is
 * current while `async_runs` names it and nothing it read has changed: a write
 * to one of its deps marks the node like any computed, and the next
 * re-validation starts a new run, superseding it.
 */
#include "graph.h"

/* Resolves an async node's handle. */
static rp_status_t resolve_async(const rp_graph_t *graph, rp_node_t node, uint32_t *slot) {
    rp_status_t status = rp_resolve(graph, node, slot);
    if (status) return status;
    return rp_rec(graph, *slot)->kind == RP_KIND_ASYNC ? RP_OK : RP_EKIND;
}

rp_status_t rp_async_run(const rp_graph_t *graph, rp_node_t node, uint64_t *out) {
    if (graph == NULL || out == NULL) return RP_EINVAL;
    uint32_t ticket = rp_shared_enter((rp_graph_t *)graph);
    uint32_t slot;
    rp_status_t status = resolve_async(graph, node, &slot);
    if (status == RP_OK) *out = graph->async_runs[slot];
    rp_shared_exit((rp_graph_t *)graph, ticket);
    return status;
}

/* Resolves an async node's handle and checks that `run` is its current run. */
static rp_status_t resolve_run(const rp_graph_t *graph, rp_node_t node, uint64_t run, uint32_t *slot) {
    rp_status_t status = resolve_async(graph, node, slot);
    if (status) return status;
    uint64_t current = graph->async_runs[*slot];
    return run != 0 && run == current ? RP_OK : RP_ESUPERSEDED;
}

static rp_status_t track_begin(rp_graph_t *graph, rp_node_t node, uint64_t run) {
    uint32_t slot;
    rp_status_t status = resolve_run(graph, node, run, &slot);
    if (status) return status;
    rp_node_rec_t *rec = rp_rec(graph, slot);
    /* Something it read changed (and a resolve or a failed compute found
     * so): its reads would be recorded for a run whose result is refused.
     * Only PENDING, it may still be current; the resolve re-validates. */
    if (rec->flags & RP_F_DIRTY) return RP_ESUPERSEDED;
    /* Inside a compute or run, reads belong to it; inside an untracked section
     * they belong to nobody. Either way the host reads without a section. */
    if (graph->active_rec != NULL || graph->untracked_depth) return RP_ESTATE;
    if (rec->flags & RP_F_BUSY) return RP_EBUSY;
    rec->flags |= RP_F_COMPUTING | RP_F_TRACKING;
    rec->cursor = rec->ndeps; /* a run only adds dependencies */
    rec->run_stamp = ++graph->stamp;
    graph->active = slot;
    graph->active_rec = rec;
    return RP_OK;
}

rp_status_t rp_async_track_begin(rp_graph_t *graph, rp_node_t node, uint64_t run) {
    if (graph == NULL) return RP_EINVAL;
    rp_exclusive_enter(graph);
    rp_status_t status = track_begin(graph, node, run);
    if (status) rp_exclusive_exit(graph);
    return status;
}

rp_status_t rp_async_track_end(rp_graph_t *graph, rp_node_t node) {
    if (graph == NULL) return RP_EINVAL;
    if (!rp_exclusive_held(graph)) return RP_ESTATE;
    /* The handle may be stale already (disposed inside the section): the
     * active slot and its generation identify the section. */
    uint32_t slot = graph->active;
    rp_node_rec_t *rec = graph->active_rec;
    if (rec == NULL || rec->kind != RP_KIND_ASYNC || slot != node.slot || rec->generation != node.generation ||
        node.graph_tag != graph->tag || graph->untracked_depth) {
        return RP_ESTATE;
    }
    rec->flags &= (uint16_t)~(RP_F_COMPUTING | RP_F_TRACKING);
    /* Its cursor took the place of its read stamp (graph.h), which only a
     * run in progress compares with its own: no run was in progress when the
     * section began (it opens outside runs), and those it made have ended, so
     * no run in progress has read the node, as 0 says. */
    rec->read_stamp = 0;
    graph->active = RP_NO_SLOT;
    graph->active_rec = NULL;
    rp_node_finish_if_disposing(graph, slot);
    rp_status_t status = rp_settle(graph);
    rp_exclusive_exit(graph);
    return status;
}

static rp_status_t resolve_begin(rp_graph_t *graph, rp_node_t node, uint64_t run) {
    uint32_t slot;
    rp_status_t status = resolve_run(graph, node, run, &slot);
    if (status) return status;
    rp_node_rec_t *rec = rp_rec(graph, slot);
    if (rec->flags & RP_F_BUSY) return RP_EBUSY;
    if (rec->flags & RP_F_DIRTY) return RP_ESUPERSEDED;
    if (rec->flags & RP_F_PENDING) {
        bool dirty = false;
        status = rp_check_dirty(graph, slot, rec, &dirty);
        if (rec->flags & RP_F_DISPOSING) {
            rp_node_finish_if_disposing(graph, slot);
            return RP_ESTALE;
        }
        if (status) return status;
        if (dirty) {
            /* Stale, and unobserved (an observer's flush would have started a
             * new run already): the next re-validation starts one. Its
             * readers are marked already. */
            rec->flags |= RP_F_DIRTY;
            return RP_ESUPERSEDED;
        }
    }
    return RP_OK;
}

rp_status_t rp_async_resolve_begin(rp_graph_t *graph, rp_node_t node, uint64_t run) {
    if (graph == NULL) return RP_EINVAL;
    rp_exclusive_enter(graph);
    /* One resolve section at a time: its end names it by the node alone. */
    rp_status_t status = graph->resolving.generation != 0 ? RP_ESTATE : resolve_begin(graph, node, run);
    if (status == RP_OK) {
        graph->resolving = node;
    } else {
        /* A re-validation may have queued effects or unwatched notices. */
        (void)rp_settle(graph);
        rp_exclusive_exit(graph);
    }
    return status;
}

rp_status_t rp_async_resolve_end(rp_graph_t *graph, rp_node_t node, bool changed) {
    if (graph == NULL) return RP_EINVAL;
    /* Holding the graph is not enough: a batch, an untracked section or a
     * callback holds it too, and exiting here would end their hold. */
    if (!rp_exclusive_held(graph)) return RP_ESTATE; /* before reading what the holder writes */
    rp_node_t open = graph->resolving;
    if (open.generation == 0 || open.slot != node.slot || open.generation != node.generation ||
        open.graph_tag != node.graph_tag) {
        return RP_ESTATE;
    }
    graph->resolving = RP_NODE_NONE;
    uint32_t slot;
    /* Disposed inside the section: nobody reads it any more. */
    if (resolve_async(graph, node, &slot) == RP_OK) {
        rp_trace(graph, RP_TRACE_RESOLVE, slot, RP_NO_SLOT, changed);
        if (changed) rp_mark_readers_changed(graph, slot);
    }
    rp_status_t status = rp_settle(graph);
    rp_exclusive_exit(graph);
    return status;
}

static rp_status_t restart(rp_graph_t *graph, rp_node_t node) {
    uint32_t slot;
    rp_status_t status = resolve_async(graph, node, &slot);
    if (status) return status;
    if (rp_rec(graph, slot)->flags & RP_F_BUSY) return RP_EBUSY;
    rp_mark_dirty(graph, slot);
    status = rp_refresh(graph, slot);
    rp_status_t settled = rp_settle(graph);
    return status ? status : settled;
}

rp_status_t rp_async_restart(rp_graph_t *graph, rp_node_t node) {
    return rp_call_exclusive(graph, node, restart);
}

rp_status_t rp_async_check_cycle(rp_graph_t *graph, uint32_t slot, uint32_t target) {
    /* Depth first through what reads `slot`, on the walk stack (its path
     * holds each node at most once, and only nodes with readers: room for
     * that many first, before anything is marked), marking what it visited
     * SEEN so that a node reached twice is walked once. */
    if (graph->stack_top + rp_readable_nodes(graph) > graph->stack_capacity) {
        rp_status_t status = rp_stack_reserve(graph, rp_readable_nodes(graph));
        if (status) return status;
    }
    size_t base = graph->stack_top;
    uint32_t node = slot;
    uint32_t position = 0;
    bool found = false;
    for (;;) {
        rp_node_rec_t *rec = rp_rec(graph, node);
        if (position < rec->nsubs) {
            uint32_t sub = rec->subs[position++].node;
            rp_node_rec_t *sub_rec = rp_rec(graph, sub);
            if (sub == target) {
                found = true;
                break;
            }
            if (sub_rec->nsubs == 0 || (sub_rec->flags & RP_F_SEEN)) continue;
            sub_rec->flags |= RP_F_SEEN;
            graph->stack[graph->stack_top++] = (rp_frame_t){node, position, {0}, {NULL}};
            node = sub;
            position = 0;
            continue;
        }
        if (graph->stack_top == base) break;
        rp_frame_t frame = graph->stack[--graph->stack_top];
        node = frame.node;
        position = frame.position;
    }
    if (found) {
        /* The path is slot, the frames' nodes after it, then `node`, each
         * reading the one before, and `target` reads `node`: the cycle, in
         * the order the run's read reaches them, is slot, target, `node`,
         * then the path back towards slot. */
        size_t between = graph->stack_top - base; /* the frames after slot, and `node` */
        rp_node_t *nodes = rp_diagnostic_reserve(graph, 2 + between);
        if (nodes != NULL) {
            nodes[0] = rp_handle(graph, slot);
            nodes[1] = rp_handle(graph, target);
            if (between) {
                nodes[2] = rp_handle(graph, node);
                for (size_t i = 1; i < between; i++) nodes[2 + i] = rp_handle(graph, graph->stack[graph->stack_top - i].node);
            }
        }
    }
    /* Clears the marks: every marked node was reached through marked nodes. */
    graph->stack_top = base;
    node = slot;
    position = 0;
    for (;;) {
        rp_node_rec_t *rec = rp_rec(graph, node);
        if (position < rec->nsubs) {
            uint32_t sub = rec->subs[position++].node;
            rp_node_rec_t *sub_rec = rp_rec(graph, sub);
            if (!(sub_rec->flags & RP_F_SEEN)) continue;
            sub_rec->flags &= (uint16_t)~RP_F_SEEN;
            graph->stack[graph->stack_top++] = (rp_frame_t){node, position, {0}, {NULL}};
            node = sub;
            position = 0;
            continue;
        }
        if (graph->stack_top == base) break;
        rp_frame_t frame = graph->stack[--graph->stack_top];
        node = frame.node;
        position = frame.position;
    }
    return found ? RP_ECYCLE : RP_OK;
}
