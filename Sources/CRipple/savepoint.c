/*
 * savepoint.c: savepoints inside a batch, and their rollback (ripple.h,
 * "savepoints").
 *
 * A savepoint does not copy the graph: each write (or invalidation) inside
 * it first walks everything downstream of the node written, and journals
 * each node it reaches for the first time (RP_F_JOURNALED): its flags, and
 * for a computed whose value is up to date, a copy the host keeps
 * (callbacks.save) with the slots it read. Those are the only nodes whose
 * state a savepoint can change, apart from nodes that were stale before it
 * began (a read brings them up to date, which was due anyway: a rollback
 * leaves them as they are).
 *
 * The rollback, once the host has stored back the sources' values:
 *   0. walks again from every source written and every node invalidated
 *      (reads since may have linked
 *      new readers, created since or not), journaling what is new;
 *      then gives a node stale at the begin and brought up to date since
 *      (a source committed, a computed re-validated) its marks back: the
 *      write from before the begin stands;
 *   1. gives the host its copies back, newest first: applied to a node
 *      recomputed since the begin that still reads the same slots, dropped
 *      otherwise;
 *   2. recomputes, without a tracer, every other node recomputed since the
 *      begin (no copy, other dependencies, created since, or recomputed
 *      before a write reached it: "late"), from the values restored;
 *   3. gives every node that was up to date at the begin its marks back
 *      (newest entry first, so the oldest wins), and unqueues the effects;
 *      a node stale at the begin keeps its marks (they may only be more);
 *      then drops the queue's entries of effects no longer queued (before
 *      anything below queues one again: an effect has one entry at most);
 *   4. marks dirty, as a write would, what step 2 failed to recompute, and
 *      queues, dirty, the effects that ran since the begin (created since,
 *      or run by rp_effect_run): they saw values the rollback takes back;
 *      then marks what a disposal since the begin changed for good (below);
 *   5. commits the sources written that are up to date again, so that the
 *      host's committed value is the one restored.
 * A node's state is only ever restored to the state its readers saw, so the
 * graph's invariants (graph.h) hold again after the rollback.
 *
 * A node disposed since the begin (here or in a nested savepoint) stays
 * freed, so the begin's values of what read it, directly or not, are gone
 * for good, and a recompute from the values restored need not give them
 * back. Such a rollback ("lossy": the frame's `disposed`) applies no copy
 * (one could hold a value computed from the node disposed, and a recompute
 * in step 2 would read it), recomputes instead, and a read of a freed node
 * by those recomputes marks its reader RP_F_LOST_DEP, as the disposal marked
 * the nodes that read it then. In step 4 every node downstream of one marked
 * so is "lost": one that ran since the begin holds a value its readers may
 * not have seen, so each reader that step 2 did not recompute is marked
 * DIRTY (a reader only PENDING would compare the next value with this one,
 * and miss the change); a stale one marks its readers, as a write would.
 * The readers of a lost node thus run once, at worst once more than needed.
 *
 * A computed that a read re-validates while a savepoint is open gets a new
 * run stamp, as a run would give it (propagation.c): it was stale, and is up
 * to date from the savepoint's values. A write that reaches it later, or the
 * rollback's walk (step 0), then journals it as "late", and the rollback
 * recomputes it; its flags then were not its state at the begin.
 *
 * Scratch marks: the walks use RP_F_SEEN and clear it before returning; the
 * rollback uses it for "restored from the host's copy" and clears it too,
 * and a lossy one, which restores no copy, for the lost nodes of step 4.
 */
#include "graph.h"

#include <string.h>

/* Makes room for `needed` items of `item` bytes in *array (capacity
 * *capacity), doubling; false, nothing changed, when the allocator fails. */
static bool grow(rp_graph_t *graph, void **array, size_t *capacity, size_t needed, size_t item) {
    if (needed <= *capacity) return true;
    size_t larger = *capacity ? *capacity : 16;
    while (larger < needed) larger *= 2;
    void *grown = rp_arena_raw_alloc(&graph->arena, larger * item);
    if (grown == NULL) return false;
    if (*array != NULL) {
        memcpy(grown, *array, *capacity * item);
        rp_arena_raw_free(&graph->arena, *array, *capacity * item);
    }
    *array = grown;
    *capacity = larger;
    return true;
}
#define GROW(graph, field, capacity, needed) \
    grow((graph), (void **)&(graph)->field, &(graph)->capacity, (needed), sizeof(*(graph)->field))

void rp_savepoint_free(rp_graph_t *graph) {
    rp_arena_t *arena = &graph->arena;
    rp_arena_raw_free(arena, graph->savepoints, sizeof(*graph->savepoints) * graph->savepoints_capacity);
    rp_arena_raw_free(arena, graph->journal, sizeof(*graph->journal) * graph->journal_capacity);
    rp_arena_raw_free(arena, graph->written, sizeof(*graph->written) * graph->written_capacity);
    rp_arena_raw_free(arena, graph->journal_deps, sizeof(*graph->journal_deps) * graph->journal_deps_capacity);
    rp_arena_raw_free(arena, graph->journal_walk, sizeof(*graph->journal_walk) * graph->journal_walk_capacity);
}

/* The record of a journaled node when it is still the node journaled, NULL
 * when it was freed since. */
static rp_node_rec_t *journaled_record(const rp_graph_t *graph, uint32_t slot, uint32_t generation) {
    rp_node_rec_t *rec = rp_rec(graph, slot);
    if (rec->generation != generation || (rec->flags & (RP_F_LIVE | RP_F_DISPOSING)) != RP_F_LIVE) return NULL;
    return rec;
}

static inline bool computes(const rp_node_rec_t *rec) {
    return rec->kind == RP_KIND_COMPUTED || rec->kind == RP_KIND_ASYNC;
}

/* Journals node `slot` (record `rec`) unless the innermost savepoint has it:
 * its flags now, and, when `may_save`, the host's copy of an up-to-date
 * computed's value with the slots it read. Created and late are judged
 * against the innermost savepoint (`frame`); its release judges them again
 * against the enclosing one (hand_over). */
static rp_status_t journal_node(rp_graph_t *graph, const rp_savepoint_frame_t *frame, uint32_t slot,
                                rp_node_rec_t *rec, bool may_save) {
    if (rec->flags & RP_F_JOURNALED) return RP_OK;
    if (!GROW(graph, journal, journal_capacity, graph->journal_count + 1)) return RP_ENOMEM;
    rp_journal_entry_t entry = {slot, rec->generation, (uint16_t)(rec->flags & ~RP_F_SEEN), 0, 0, 0, rec->run_stamp};
    if (*rp_order(graph, slot) > frame->order) {
        entry.what = RP_JOURNAL_CREATED;
    } else if (computes(rec) && rec->run_stamp > frame->stamp && !(rec->flags & RP_F_BUSY)) {
        entry.what = RP_JOURNAL_LATE;
    } else if (may_save && rec->kind == RP_KIND_COMPUTED && !(rec->flags & (RP_F_STALE | RP_F_BUSY)) &&
               graph->callbacks.save != NULL) {
        size_t at = graph->journal_deps_count;
        if (!GROW(graph, journal_deps, journal_deps_capacity, at + rec->ndeps)) return RP_ENOMEM;
        if (graph->callbacks.save(graph->callbacks.host, graph, rp_handle(graph, slot), rec->data)) {
            for (uint32_t i = 0; i < rec->ndeps; i++) graph->journal_deps[at + i] = rec->deps[i].node;
            graph->journal_deps_count = at + rec->ndeps;
            entry.what = RP_JOURNAL_SAVED;
            entry.ndeps = rec->ndeps;
            entry.deps_at = at;
        }
    }
    graph->journal[graph->journal_count++] = entry;
    rec->flags |= RP_F_JOURNALED;
    return RP_OK;
}

/* Journals `root` and everything downstream of it. */
static rp_status_t journal_downstream(rp_graph_t *graph, uint32_t root, bool may_save) {
    const rp_savepoint_frame_t *frame = &graph->savepoints[graph->savepoint_count - 1];
    /* Each node enters the walk's queue once (RP_F_SEEN): nslots entries at most. */
    if (!GROW(graph, journal_walk, journal_walk_capacity, graph->nslots)) return RP_ENOMEM;
    uint32_t *queue = graph->journal_walk;
    size_t count = 0;
    queue[count++] = root;
    rp_rec(graph, root)->flags |= RP_F_SEEN;
    rp_status_t status = RP_OK;
    for (size_t i = 0; i < count && status == RP_OK; i++) {
        rp_node_rec_t *rec = rp_rec(graph, queue[i]);
        status = journal_node(graph, frame, queue[i], rec, may_save);
        if (rec->kind == RP_KIND_EFFECT) continue; /* no readers (its `subs` word holds its effect order) */
        for (uint32_t j = 0; j < rec->nsubs; j++) {
            rp_node_rec_t *sub = rec->subs[j].rec;
            if (sub->flags & RP_F_SEEN) continue;
            sub->flags |= RP_F_SEEN;
            queue[count++] = rec->subs[j].node;
        }
    }
    for (size_t i = 0; i < count; i++) rp_rec(graph, queue[i])->flags &= (uint16_t)~RP_F_SEEN;
    return status;
}

rp_status_t rp_savepoint_note_change(rp_graph_t *graph, uint32_t slot, bool written) {
    /* Invalidated computeds are listed with the sources written: the
     * rollback walks again from both (step 0), a node created since may read
     * either; only sources are committed (step 5). */
    (void)written;
    if (!GROW(graph, written, written_capacity, graph->written_count + 1)) return RP_ENOMEM;
    graph->written[graph->written_count++] = (rp_unwatch_t){slot, rp_rec(graph, slot)->generation};
    rp_status_t status = journal_downstream(graph, slot, true);
    /* Refused: the change marks nothing, so it is no change to roll back. */
    if (status) graph->written_count--;
    return status;
}

/* Clears RP_F_JOURNALED (and the rollback's RP_F_SEEN) of the nodes of the
 * journal's entries from `start` on. */
static void clear_journaled(rp_graph_t *graph, size_t start) {
    for (size_t i = start; i < graph->journal_count; i++) {
        rp_node_rec_t *rec = journaled_record(graph, graph->journal[i].slot, graph->journal[i].generation);
        if (rec != NULL) rec->flags &= (uint16_t)~(RP_F_JOURNALED | RP_F_SEEN);
    }
}

rp_status_t rp_savepoint_begin(rp_graph_t *graph, rp_savepoint_t *out) {
    if (graph == NULL || out == NULL) return RP_EINVAL;
    if (!rp_exclusive_held(graph) || graph->batch_depth == 0) return RP_ESTATE;
    if (graph->savepoint_count == UINT32_MAX) return RP_ENOMEM;
    if (!GROW(graph, savepoints, savepoints_capacity, (size_t)graph->savepoint_count + 1)) return RP_ENOMEM;
    /* The enclosing savepoint's entries stay, but this one journals its own
     * state of each node again. */
    clear_journaled(graph, 0);
    graph->savepoints[graph->savepoint_count++] = (rp_savepoint_frame_t){
        .journal_start = graph->journal_count,
        .written_start = graph->written_count,
        .deps_start = graph->journal_deps_count,
        .stamp = graph->stamp,
        .order = graph->next_order,
        .batch_depth = graph->batch_depth,
        .active = graph->active_rec != NULL ? graph->active : RP_NO_SLOT,
    };
    graph->batch_floor = graph->batch_depth;
    out->depth = graph->savepoint_count;
    return RP_OK;
}

/* Whether `savepoint` is the innermost one, closed where it was opened. */
static bool innermost(const rp_graph_t *graph, const rp_savepoint_t *savepoint) {
    if (!rp_exclusive_held(graph) || graph->savepoint_count == 0) return false;
    if (savepoint->depth != graph->savepoint_count) return false;
    const rp_savepoint_frame_t *frame = &graph->savepoints[graph->savepoint_count - 1];
    uint32_t active = graph->active_rec != NULL ? graph->active : RP_NO_SLOT;
    return frame->active == active && frame->batch_depth <= graph->batch_depth;
}

/* Marks RP_JOURNAL_FIRST the oldest entry of each node from entry `start`
 * on: the node's state at the savepoint's begin. A newer one (journaled again
 * after a nested savepoint began) holds a state from inside the savepoint. */
static void mark_first_entries(rp_graph_t *graph, size_t start) {
    for (size_t i = start; i < graph->journal_count; i++) {
        rp_journal_entry_t *entry = &graph->journal[i];
        rp_node_rec_t *rec = journaled_record(graph, entry->slot, entry->generation);
        if (rec == NULL || (rec->flags & RP_F_SEEN)) continue;
        rec->flags |= RP_F_SEEN;
        entry->what |= RP_JOURNAL_FIRST;
    }
    for (size_t i = start; i < graph->journal_count; i++) {
        rp_node_rec_t *rec = journaled_record(graph, graph->journal[i].slot, graph->journal[i].generation);
        if (rec != NULL) rec->flags &= (uint16_t)~RP_F_SEEN;
    }
}

/* Gives the host its copies from journal entry `start` on back, newest first;
 * applies those of the first entries (may_apply) of nodes recomputed since
 * `frame` began that read the same slots still, and marks them (RP_F_SEEN,
 * their flags back as at the begin). */
static void give_copies_back(rp_graph_t *graph, const rp_savepoint_frame_t *frame, size_t start, bool may_apply) {
    for (size_t i = graph->journal_count; i-- > start;) {
        rp_journal_entry_t *entry = &graph->journal[i];
        if (!(entry->what & RP_JOURNAL_SAVED)) continue;
        rp_node_rec_t *rec = journaled_record(graph, entry->slot, entry->generation);
        bool apply = false;
        if (may_apply && (entry->what & RP_JOURNAL_FIRST) && !(entry->what & (RP_JOURNAL_LATE | RP_JOURNAL_CREATED)) &&
            rec != NULL && rec->run_stamp > frame->stamp &&
            rec->ndeps == entry->ndeps &&
            !(rec->flags & RP_F_BUSY)) {
            apply = true;
            for (uint32_t k = 0; k < rec->ndeps && apply; k++) {
                apply = rec->deps[k].node == graph->journal_deps[entry->deps_at + k];
            }
        }
        rp_node_t handle = {entry->slot, entry->generation, graph->tag};
        graph->callbacks.restore(graph->callbacks.host, graph, handle, rec != NULL ? rec->data : NULL, apply);
        if (!apply) continue;
        entry->what |= RP_JOURNAL_RESTORED;
        rec->flags = (uint16_t)((rec->flags & ~(RP_F_STALE | RP_F_QUEUED)) | (entry->flags & RP_F_STALE) |
                                RP_F_SEEN);
    }
}

/* Takes the innermost savepoint off the stack. */
static void pop_frame(rp_graph_t *graph) {
    graph->savepoint_count--;
    graph->batch_floor = graph->savepoint_count ? graph->savepoints[graph->savepoint_count - 1].batch_depth : 0;
}

/* Clears RP_F_LOST_DEP everywhere, once the outermost savepoint closed. A
 * walk over every slot, taken only after a disposal inside a savepoint (rare),
 * so that the disposal itself needs no journal entry it might fail to
 * allocate. */
static void forget_lost_deps(rp_graph_t *graph) {
    if (!graph->savepoint_lost_deps) return;
    for (uint32_t slot = 0; slot < graph->nslots; slot++) rp_rec(graph, slot)->flags &= (uint16_t)~RP_F_LOST_DEP;
    graph->savepoint_lost_deps = false;
}

/* RP_F_SEEN on `root` and everything downstream of it, by the edges as they
 * are now, without going below a node marked already (its walk went there).
 * The stack is the propagation's: a frame is pushed only when leaving a node
 * that has more readers to visit, and each node is left so at most once, so
 * the room kept for a propagation (one frame per node read by two or more)
 * is enough, and nothing is allocated. */
static void mark_seen_downstream(rp_graph_t *graph, rp_node_rec_t *root) {
    root->flags |= RP_F_SEEN;
    if (root->kind == RP_KIND_EFFECT || root->nsubs == 0) return; /* an effect's `subs` holds its effect order */
    rp_frame_t *stack = graph->stack;
    size_t top = graph->stack_top, base = top;
    const rp_edge_t *edge = root->subs, *end = root->subs + root->nsubs;
    for (;;) {
        while (edge != end) {
            rp_node_rec_t *sub = (edge++)->rec;
            if (sub->flags & RP_F_SEEN) continue;
            sub->flags |= RP_F_SEEN;
            if (sub->kind == RP_KIND_EFFECT || sub->nsubs == 0) continue;
            if (edge != end) {
                stack[top].next = edge;
                stack[top].end = end;
                top++;
            }
            edge = sub->subs;
            end = sub->subs + sub->nsubs;
        }
        if (top == base) return;
        top--;
        edge = stack[top].next;
        end = stack[top].end;
    }
}

/* Step 4 of a lossy rollback (see the top of this file): the nodes
 * downstream of one with RP_F_LOST_DEP are lost; one that ran since the
 * savepoint began (`frame`) marks DIRTY each reader not recomputed by step 2
 * (those ran after `recomputed_from`, from the values as they are now), a
 * stale one marks its readers, and a stale effect is queued. */
static void mark_lost_region(rp_graph_t *graph, const rp_savepoint_frame_t *frame, uint64_t recomputed_from) {
    if (!graph->savepoint_lost_deps) return;
    for (uint32_t slot = 0; slot < graph->nslots; slot++) {
        rp_node_rec_t *rec = rp_rec(graph, slot);
        if ((rec->flags & (RP_F_LIVE | RP_F_LOST_DEP | RP_F_SEEN)) == (RP_F_LIVE | RP_F_LOST_DEP)) {
            mark_seen_downstream(graph, rec);
        }
    }
    for (uint32_t slot = 0; slot < graph->nslots; slot++) {
        rp_node_rec_t *rec = rp_rec(graph, slot);
        if (!(rec->flags & RP_F_SEEN)) continue;
        rec->flags &= (uint16_t)~RP_F_SEEN;
        if (rec->flags & RP_F_BUSY) continue;
        if (rec->kind == RP_KIND_EFFECT) {
            if ((rec->flags & RP_F_STALE) && !(rec->flags & (RP_F_QUEUED | RP_F_SCHEDULED))) {
                rp_enqueue_marked(graph, slot, rec, (uint16_t)(rec->flags | RP_F_DIRTY));
            }
        } else if (rec->run_stamp > frame->stamp) {
            for (uint32_t i = 0; i < rec->nsubs; i++) {
                const rp_node_rec_t *sub = rec->subs[i].rec;
                if (computes(sub) && sub->run_stamp > recomputed_from) continue; /* read the value as it is */
                rp_mark_dirty(graph, rec->subs[i].node);
            }
        } else if (rec->flags & RP_F_STALE) {
            rp_propagate(graph, slot);
        }
    }
}

/* Closes the innermost savepoint, its part of the journals dropped. */
static void close_frame(rp_graph_t *graph, const rp_savepoint_frame_t *frame) {
    clear_journaled(graph, frame->journal_start);
    graph->journal_count = frame->journal_start;
    graph->written_count = frame->written_start;
    graph->journal_deps_count = frame->deps_start;
    pop_frame(graph);
    if (graph->savepoint_count == 0) forget_lost_deps(graph);
}

static rp_status_t rollback(rp_graph_t *graph) {
    const rp_savepoint_frame_t frame = graph->savepoints[graph->savepoint_count - 1];
    size_t start = frame.journal_start;
    bool lossy = frame.disposed; /* see the top of this file */
    rp_status_t result = RP_OK;
    /* 0. What reads made downstream of the sources written, since their writes. */
    for (size_t i = frame.written_start; i < graph->written_count; i++) {
        if (journaled_record(graph, graph->written[i].slot, graph->written[i].generation) == NULL) continue;
        rp_status_t status = journal_downstream(graph, graph->written[i].slot, false);
        if (status && !result) result = status;
    }
    mark_first_entries(graph, start);
    /* 0b. A node stale at the begin that a read brought up to date since did
     * so from the savepoint's values: a source written before the begin and
     * committed since holds the savepoint's value, a computed may have been
     * found unchanged though what it reads is restored below. Each gets its
     * marks from the begin back, before anything below reads it, so that
     * the values restored (the write from before) reach their readers. */
    for (size_t i = start; i < graph->journal_count; i++) {
        const rp_journal_entry_t *entry = &graph->journal[i];
        if (!(entry->what & RP_JOURNAL_FIRST) || !(entry->flags & RP_F_STALE)) continue;
        rp_node_rec_t *rec = journaled_record(graph, entry->slot, entry->generation);
        if (rec == NULL || rec->kind == RP_KIND_EFFECT || (rec->flags & RP_F_BUSY)) continue;
        rec->flags |= (uint16_t)(entry->flags & RP_F_STALE);
    }
    /* 1. The host's copies (dropped by a lossy rollback). */
    if (graph->callbacks.restore != NULL) give_copies_back(graph, &frame, start, !lossy);
    /* 2. Recomputed from the values restored: what recomputed since the begin
     * and has no copy. Nobody is told: no tracer, and effects wait for the batch. */
    rp_tracer_t tracer = graph->tracer;
    graph->tracer = NULL;
    uint64_t recomputed_from = graph->stamp;
    bool recomputing = graph->savepoint_recomputing; /* a recompute's own savepoint may roll back */
    graph->savepoint_recomputing = lossy;
    size_t count = graph->journal_count;
    for (size_t i = start; i < count; i++) {
        rp_journal_entry_t *entry = &graph->journal[i];
        rp_node_rec_t *rec = journaled_record(graph, entry->slot, entry->generation);
        if (rec == NULL || !computes(rec) || (rec->flags & (RP_F_SEEN | RP_F_BUSY))) continue;
        if (rec->run_stamp <= frame.stamp) continue;
        entry->what |= RP_JOURNAL_RECOMPUTE;
        rec->flags |= RP_F_DIRTY;
    }
    for (size_t i = start; i < count; i++) {
        rp_journal_entry_t *entry = &graph->journal[i];
        if (!(entry->what & RP_JOURNAL_RECOMPUTE)) continue;
        rp_node_rec_t *rec = journaled_record(graph, entry->slot, entry->generation);
        if (rec == NULL || !(rec->flags & RP_F_STALE)) continue;
        rp_status_t status = rp_refresh(graph, entry->slot);
        if (status == RP_OK) continue;
        entry->what |= RP_JOURNAL_FAILED;
        if (!result) result = status;
    }
    graph->savepoint_recomputing = recomputing;
    graph->tracer = tracer;
    /* 3. Marks: each node's first entry, from before the savepoint's first
     * change to it. */
    for (size_t i = start; i < count; i++) {
        const rp_journal_entry_t *entry = &graph->journal[i];
        if (!(entry->what & RP_JOURNAL_FIRST)) continue;
        if (entry->what & (RP_JOURNAL_CREATED | RP_JOURNAL_LATE | RP_JOURNAL_FAILED)) continue;
        if (entry->flags & RP_F_STALE) continue; /* stale at the begin: its marks may only be more */
        rp_node_rec_t *rec = journaled_record(graph, entry->slot, entry->generation);
        if (rec == NULL || (rec->flags & RP_F_BUSY)) continue;
        if (lossy && (rec->flags & RP_F_LOST_DEP)) continue; /* what it read is gone for good (4c) */
        rec->flags = (uint16_t)((rec->flags & ~(RP_F_STALE | RP_F_QUEUED)) | (entry->flags & RP_F_QUEUED));
    }
    /* The entries of the effects unqueued go now: what follows may queue
     * them again, which would add a second entry (the queue has room for one
     * per effect; the fuzzer overflowed it). */
    rp_queue_drop_unqueued(graph);
    /* 4. What could not be recomputed stays dirty, its readers marked. */
    for (size_t i = start; i < count; i++) {
        const rp_journal_entry_t *entry = &graph->journal[i];
        if (!(entry->what & RP_JOURNAL_FAILED)) continue;
        rp_node_rec_t *rec = journaled_record(graph, entry->slot, entry->generation);
        if (rec == NULL) continue;
        rec->flags |= RP_F_DIRTY;
        rp_propagate(graph, entry->slot);
    }
    /* 4a. A node step 0b marked again and nothing read since: its readers
     * are marked, as the write from before marked them (those created or
     * brought up to date since were not). */
    for (size_t i = start; i < count; i++) {
        const rp_journal_entry_t *entry = &graph->journal[i];
        if (!(entry->what & RP_JOURNAL_FIRST) || !(entry->flags & RP_F_STALE)) continue;
        rp_node_rec_t *rec = journaled_record(graph, entry->slot, entry->generation);
        if (rec == NULL || rec->kind == RP_KIND_EFFECT || !(rec->flags & RP_F_STALE)) continue;
        rp_propagate(graph, entry->slot);
    }
    /* 4b. An effect that ran since the begin (one created since, or run by
     * rp_effect_run) saw values the rollback takes back: it runs again at
     * the flush, from the values restored, as a node created since is
     * recomputed from them (step 2; effects wait for the batch). */
    for (size_t i = start; i < count; i++) {
        const rp_journal_entry_t *entry = &graph->journal[i];
        rp_node_rec_t *rec = journaled_record(graph, entry->slot, entry->generation);
        if (rec == NULL || rec->kind != RP_KIND_EFFECT || rec->run_stamp <= frame.stamp) continue;
        if (rec->flags & (RP_F_BUSY | RP_F_SCHEDULED)) continue;
        if (rec->flags & RP_F_QUEUED) {
            rec->flags |= RP_F_DIRTY;
        } else {
            rp_enqueue_marked(graph, entry->slot, rec, (uint16_t)(rec->flags | RP_F_DIRTY));
        }
    }
    /* 4c. A reader of a node disposed since the begin (in this savepoint or
     * one nested in it) lost it for good: it stays marked, and so does all
     * that is downstream of it, whatever step 3 gave back (see the top of
     * this file). A node disposed before the begin (in an enclosing
     * savepoint) was gone at the begin already: the state this rollback
     * restores is one without it, as any other. */
    if (lossy) mark_lost_region(graph, &frame, recomputed_from);
    /* 5. The sources written, up to date again: committed, so that the host's
     * committed value is the one restored (the readers saw it). */
    for (size_t i = frame.written_start; i < graph->written_count; i++) {
        rp_node_rec_t *rec = journaled_record(graph, graph->written[i].slot, graph->written[i].generation);
        if (rec == NULL || rec->kind != RP_KIND_SOURCE || (rec->flags & RP_F_DIRTY) || graph->callbacks.commit == NULL)
            continue;
        (void)graph->callbacks.commit(graph->callbacks.host, graph, rp_handle(graph, graph->written[i].slot),
                                      rec->data);
    }
    close_frame(graph, &frame);
    /* The disposal stands: the enclosing savepoint's rollback is lossy too. */
    if (lossy && graph->savepoint_count) graph->savepoints[graph->savepoint_count - 1].disposed = true;
    return result;
}

rp_status_t rp_savepoint_rollback(rp_graph_t *graph, const rp_savepoint_t *savepoint) {
    if (graph == NULL || savepoint == NULL) return RP_EINVAL;
    if (!innermost(graph, savepoint)) return RP_ESTATE;
    rp_status_t status = rollback(graph);
    /* Its recomputes may have left nodes unwatched (other reads): told now,
     * as after any call (ripple.h's `unwatched`), not at some later one. */
    if (graph->unwatch_head != graph->unwatch_count) rp_deliver_unwatched(graph);
    return status;
}

rp_status_t rp_savepoint_release(rp_graph_t *graph, const rp_savepoint_t *savepoint) {
    if (graph == NULL || savepoint == NULL) return RP_EINVAL;
    if (!innermost(graph, savepoint)) return RP_ESTATE;
    if (graph->savepoint_count > 1) {
        /* Its journal becomes the enclosing one's: that one's rollback restores
         * the state from before both. Its entries describe nodes as they were
         * at its own begin: one recomputed or created since the enclosing one
         * began is late or created there. */
        const rp_savepoint_frame_t *inner = &graph->savepoints[graph->savepoint_count - 1];
        const rp_savepoint_frame_t *outer = inner - 1;
        for (size_t i = inner->journal_start; i < graph->journal_count; i++) {
            rp_journal_entry_t *entry = &graph->journal[i];
            rp_node_rec_t *rec = journaled_record(graph, entry->slot, entry->generation);
            if (rec == NULL || (entry->what & RP_JOURNAL_CREATED)) continue;
            if (*rp_order(graph, entry->slot) > outer->order) {
                entry->what |= RP_JOURNAL_CREATED;
            } else if (computes(rec) && entry->run_stamp > outer->stamp) {
                entry->what |= RP_JOURNAL_LATE;
            }
        }
        if (inner->disposed) graph->savepoints[graph->savepoint_count - 2].disposed = true;
        pop_frame(graph);
        return RP_OK;
    }
    const rp_savepoint_frame_t frame = graph->savepoints[0];
    if (graph->callbacks.restore != NULL) give_copies_back(graph, &frame, 0, false);
    close_frame(graph, &frame);
    return RP_OK;
}
