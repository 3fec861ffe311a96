/*
 * run.h: a tracked run, the bookkeeping around a compute or effect callback.
 * Not part of the API.
 *
 * Inline in every file that runs nodes in its loops (the re-validation walk,
 * the flush), so that a run costs those loops no call of its own: the walk
 * and the flush keep what the run needs in registers they have saved already.
 */
#ifndef RP_RUN_H
#define RP_RUN_H

#include "graph.h"

/* Nothing else marks a running node busy: a walk that reaches it stops at
 * RP_F_COMPUTING (a cycle). So a run that ends frees its node if its disposal
 * waited for it (`flags`: the node's, the run's mark cleared). */
static inline void rp_finish_run_if_disposing(rp_graph_t *graph, uint32_t slot, uint16_t flags) {
    if (flags & RP_F_DISPOSING) rp_node_free(graph, slot);
}

/* The end of a run that failed (`status`, returned): the node stays DIRTY and
 * keeps every old edge too, so that a retry re-reads them; `between_runs` is
 * what the word its cursor took becomes again. noinline keeps it out of the hot path;
 * `unused` spares a file that includes this header without running nodes the
 * unused-function warning. */
static __attribute__((noinline, unused)) rp_status_t rp_run_failed(rp_graph_t *graph, uint32_t slot,
                                                                   rp_node_rec_t *rec, uint64_t between_runs,
                                                                   rp_status_t status) {
    rec->between_runs = between_runs;
    uint16_t flags = (uint16_t)((rec->flags & ~RP_F_COMPUTING) | RP_F_DIRTY);
    rec->flags = flags;
    rp_finish_run_if_disposing(graph, slot, flags);
    return status;
}

/* graph->active_and_untracked with `active` the active node and no untracked
 * section open (built as the union lays them out, whatever the byte order). */
static inline uint64_t rp_active_word(uint32_t active) {
    union {
        struct {
            uint32_t active, untracked_depth;
        } parts;
        uint64_t word;
    } both = {.parts = {active, 0}};
    return both.word;
}

/* The same with no node active. No node is active exactly when active_rec is
 * NULL: they are set together. */
static inline uint64_t rp_active_none_word(void) {
    return rp_active_word(RP_NO_SLOT);
}

/* Makes no node the active one, with no untracked section open. */
static inline void rp_active_none(rp_graph_t *graph) {
    graph->active_and_untracked = rp_active_none_word();
    graph->active_rec = NULL;
}

/* Runs a compute or effect callback with `slot` as the tracked reader, inside
 * an implicit batch, unlinks what the run did not read again, and frees the
 * node if its disposal waited for the run. A node that a check walk found
 * dirty on its way up leaves the walk here (RP_F_CHECKING cleared with the
 * stale marks). `effect`: the node is an effect (the callers know which).
 * `leave_active`: for a caller with no run in progress and no untracked
 * section open (a walk outside runs, recomputing a chain of readers one after
 * the other) that makes no call between two runs that asks for the active
 * reader: the node stays the active one when the run returns, and the caller
 * makes none active (rp_active_none) when it leaves its loop of runs, not
 * after each run. A failed run or a node freed makes none active first (they
 * call the host). */
static inline __attribute__((always_inline)) rp_status_t rp_run_tracked_known(rp_graph_t *graph, uint32_t slot,
                                                                              rp_node_rec_t *rec, bool *changed,
                                                                              bool tracing, bool effect,
                                                                              bool leave_active,
                                                                              bool generation_known,
                                                                              uint32_t generation) {
    rec->flags = (uint16_t)((rec->flags & ~(RP_F_STALE | RP_F_CHECKING)) | RP_F_COMPUTING);
    /* The cursor takes the place of what the node keeps between runs, which
     * nothing uses during its own run (graph.h): an effect's flush counts are
     * kept here and given back at the end; a readable node's read stamp
     * becomes RP_READ_STAMP_UNKNOWN instead (no load, no register kept
     * across the callback). */
    uint64_t between_runs = effect ? rec->between_runs : RP_READ_STAMP_UNKNOWN;
    rec->cursor = 0;
    rec->run_stamp = ++graph->stamp;
    /* Taken now: a change during the run marks it again, with its own cause. */
    uint32_t cause = RP_NO_SLOT;
    if (tracing) {
        cause = graph->causes[slot];
        graph->causes[slot] = RP_NO_SLOT;
        /* Told before the node becomes the active one: the event happens
         * within the run that caused it (rp_graph_evaluating). */
        if (effect) rp_trace(graph, RP_TRACE_RUN, slot, cause, true);
    }
    uint64_t parent = leave_active ? 0 : graph->active_and_untracked;
    rp_node_rec_t *parent_rec = leave_active ? NULL : graph->active_rec;
    /* The node becomes the active one with no untracked section open: both
     * in one store. */
    graph->active_and_untracked = rp_active_word(slot);
    graph->active_rec = rec;

    rp_status_t status = RP_OK;
    rp_node_t handle = {slot, generation_known ? generation : rec->generation, graph->tag};
    if (effect) {
        graph->callbacks.run(graph->callbacks.host, graph, handle, rec->data);
    } else {
        /* An async node's compute starts the run this stamp names: it is
         * current from now on (the host notes its id with rp_async_run
         * inside the compute, before the task it starts can use it), and the
         * run before is superseded whatever the compute returns. */
        if (rec->kind == RP_KIND_ASYNC) graph->async_runs[slot] = rec->run_stamp;
        *changed = true;
        status = graph->callbacks.compute(graph->callbacks.host, graph, handle, rec->data, changed);
    }

    if (!leave_active) {
        graph->active_and_untracked = parent;
        graph->active_rec = parent_rec;
    }
    /* Out of line, and apart: a caller that tests the status again after an
     * inlined run knows it is RP_OK on this path. */
    if (__builtin_expect(status != RP_OK, 0)) {
        if (leave_active) rp_active_none(graph);
        return rp_run_failed(graph, slot, rec, between_runs, status);
    }
    if (tracing && !effect) rp_trace(graph, RP_TRACE_COMPUTE, slot, cause, *changed);
    if (rec->cursor < rec->ndeps) rp_unlink_deps_from(graph, slot, rec->cursor);
    rec->between_runs = between_runs;
    uint16_t flags = rec->flags & (uint16_t)~RP_F_COMPUTING;
    rec->flags = flags;
    /* Both rare, so one test for the two in the common case. */
    if (__builtin_expect(flags & (RP_F_STALE | RP_F_DISPOSING), 0)) {
        /* Marked again while it ran (a write or a disposal reached something
         * it had read): like a write during a walk, this keeps every node of
         * the walk in progress PENDING, so its readers re-validate it. */
        if (flags & RP_F_STALE) graph->write_epoch++;
        if (leave_active && (flags & RP_F_DISPOSING)) rp_active_none(graph);
        rp_finish_run_if_disposing(graph, slot, flags);
    }
    return RP_OK;
}

/* rp_run_tracked_known loading the node's generation for its handle. */
static inline __attribute__((always_inline)) rp_status_t rp_run_tracked_as(rp_graph_t *graph, uint32_t slot,
                                                                           rp_node_rec_t *rec, bool *changed,
                                                                           bool tracing, bool effect,
                                                                           bool leave_active) {
    return rp_run_tracked_known(graph, slot, rec, changed, tracing, effect, leave_active, false, 0);
}

/* rp_run_tracked_as restoring the active reader after the run. */
static inline __attribute__((always_inline)) rp_status_t rp_run_tracked(rp_graph_t *graph, uint32_t slot,
                                                                        rp_node_rec_t *rec, bool *changed,
                                                                        bool tracing, bool effect) {
    return rp_run_tracked_as(graph, slot, rec, changed, tracing, effect, false);
}

/* rp_run_effect inline, for the flush: without a tracer, the run itself.
 * `generation`: the effect's, which the flush has at hand in its queue
 * entry, for the handle. */
static inline __attribute__((always_inline)) void rp_run_effect_inline(rp_graph_t *graph, uint32_t slot,
                                                                      rp_node_rec_t *rec, uint32_t generation) {
    if (__builtin_expect(graph->tracer != NULL, 0)) {
        rp_run_effect(graph, slot, rec);
        return;
    }
    bool unused;
    (void)rp_run_tracked_known(graph, slot, rec, &unused, false, true, false, true, generation);
}

#endif
