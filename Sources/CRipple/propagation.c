/*
 * propagation.c: push-pull invalidation.
 *
 * Push: a write marks the source DIRTY and everything downstream PENDING,
 * queueing the effects it reaches. Nothing is computed.
 * Pull: reading a PENDING node re-validates its dependencies in read order
 * (check_dirty). A DIRTY dependency is brought up to date (a source is
 * committed, a computed recomputed); if its value changed, the walk stops and
 * the reader recomputes; if not, the walk goes on to the next dependency. A
 * PENDING computed dependency is descended into first. So each node computes
 * at most once per change, after everything it reads, and an unchanged value
 * stops propagation.
 *
 * Neither direction recurses on the machine stack: both walk an explicit
 * stack of (node, position) frames. Recomputes happen bottom-up from the walk,
 * so the bodies they run find their own dependencies already up to date; only
 * the first evaluation of a never-read node nests through the bodies it reads.
 * Propagation never allocates: the stack keeps room for one frame per node
 * read by two nodes or more (graph.h). A re-validation walk grows the stack when
 * it first goes deeper than any before (warm-up), and reports RP_ENOMEM,
 * having cleared its marks, when it cannot.
 */
#include "graph.h"
#include "run.h"

#include <string.h>

/* A re-validation walk keeps room for its next frame at `top` (its local copy
 * of the stack top), and `*stack` is its copy of the stack: false when the
 * stack had to grow (the walk went deeper than any before) and could not. The
 * copy is reloaded only when the stack grew (moved). */
static inline bool walk_room(rp_graph_t *graph, size_t top, rp_frame_t **stack) {
    if (__builtin_expect(top < graph->stack_limit, 1)) return true;
    graph->stack_top = top;
    if (rp_stack_reserve(graph, 1) != RP_OK) return false;
    *stack = graph->stack;
    return true;
}

/* Queues `rec` (at `slot`) if it is an effect not queued yet, its flags
 * becoming `flags` (a caller that has just marked it stores them once). A
 * scheduled deferred effect is taken up by the update its host will make. */
static inline void queue_marked_if_effect(rp_graph_t *graph, uint32_t slot, rp_node_rec_t *rec, uint16_t flags) {
    if (rec->kind == RP_KIND_EFFECT && !(flags & (RP_F_QUEUED | RP_F_SCHEDULED))) rp_enqueue_marked(graph, slot, rec, flags);
}

static inline void queue_if_effect(rp_graph_t *graph, uint32_t slot, rp_node_rec_t *rec) {
    queue_marked_if_effect(graph, slot, rec, rec->flags);
}

/* Whether a walk marking from a node passes over `sub`, its reader through
 * `edge`: already marked, and so is everything below it. Or its run is in
 * progress: only a dependency it has already read in this run makes it
 * stale: it re-validates on its next read (PENDING: a change cut off
 * upstream does not re-run it). */
static inline bool marked_already(const rp_edge_t *edge, const rp_node_rec_t *sub, uint16_t flags) {
    return (flags & (RP_F_STALE | RP_F_COMPUTING)) && ((flags & RP_F_STALE) || edge->mirror >= sub->cursor);
}

/* rp_propagate from the node whose record is `rec`. */
static void propagate_from(rp_graph_t *graph, rp_node_rec_t *rec) {
    /* Frames hold only the next edge and the end of its array: nothing here
     * needs a walked node's slot or record, and nothing it calls uses the
     * stack. */
    rp_frame_t *stack = graph->stack;
    size_t top = graph->stack_top;
    size_t base = top;
    /* Marking changes no edge array: the walked node's are kept at hand, as
     * the next edge to visit and the end of its subs. A node nothing has
     * read may have no array at all: no pointer to add 0 to. */
    const rp_edge_t *edge = rec->subs;
    const rp_edge_t *end = edge;
    if (rec->nsubs != 0) end += rec->nsubs;
    for (;;) {
    visit:
        for (; edge != end; edge++) {
            rp_node_rec_t *sub = edge->rec;
            uint16_t flags = sub->flags;
            if (marked_already(edge, sub, flags)) continue;
            uint32_t nsubs = sub->nsubs;
            flags |= RP_F_PENDING;
            sub->flags = flags;
            /* Down a chain of nodes read by one other each (a derivation
             * read by one derivation or effect, the common case), one edge
             * at a time, `edge` and `end` kept: a chain that ends in an
             * effect, a node nobody reads or one marked already leaves
             * nothing on the stack (as under a source read by many
             * chains). */
            const rp_edge_t *link = edge;
            while (nsubs == 1) {
                link = sub->subs;
                sub = link->rec;
                flags = sub->flags;
                if (marked_already(link, sub, flags)) goto next_edge;
                flags |= RP_F_PENDING;
                sub->flags = flags;
                nsubs = sub->nsubs;
            }
            if (nsubs == 0) {
                queue_marked_if_effect(graph, link->node, sub, flags); /* effects have no readers */
                continue;
            }
            /* Descending from a node's last subscriber leaves nothing to
             * come back for. Only what the pop reads is stored. */
            if (edge + 1 != end) {
                stack[top].next = edge + 1;
                stack[top].end = end;
                top++;
            }
            edge = sub->subs;
            end = edge + nsubs;
            goto visit;
        next_edge:;
        }
        if (top == base) return;
        top--;
        edge = stack[top].next;
        end = stack[top].end;
    }
}

void rp_propagate(rp_graph_t *graph, uint32_t root) {
    propagate_from(graph, rp_rec(graph, root));
}

void rp_mark_dirty(rp_graph_t *graph, uint32_t slot) {
    rp_node_rec_t *rec = rp_rec(graph, slot);
    if ((rec->flags & RP_F_DIRTY) && !(rec->flags & RP_F_COMPUTING)) return;
    rec->flags |= RP_F_DIRTY;
    /* A disposal or a restart, not a change of a dependency. */
    if (graph->tracer != NULL) graph->causes[slot] = RP_NO_SLOT;
    queue_if_effect(graph, slot, rec);
    propagate_from(graph, rec);
}

/* A dependency changed: a reader that was only PENDING must now recompute.
 * It is already queued (effects) or marked downstream. `edge` is the reader's
 * edge in the subs of `slot`. */
static inline __attribute__((always_inline)) void mark_reader_changed(rp_graph_t *graph, uint32_t slot, rp_edge_t edge,
                                                                       bool tracing) {
    rp_node_rec_t *sub = edge.rec;
    uint16_t flags = sub->flags;
    if (flags & RP_F_COMPUTING) {
        /* A run in progress that already read the old value saw two values
         * of one node: it runs again. */
        if (edge.mirror < sub->cursor && !(flags & RP_F_DIRTY)) {
            sub->flags = flags | RP_F_DIRTY;
            if (tracing) graph->causes[edge.node] = slot;
            queue_if_effect(graph, edge.node, sub);
        }
    } else if ((flags & RP_F_STALE) == RP_F_PENDING) {
        sub->flags = flags | RP_F_DIRTY;
        if (tracing) graph->causes[edge.node] = slot;
    }
}

/* The readers of `slot` in its subs from `edge` to `end` learn it changed.
 * Marking readers changes neither the count nor the array: the end is taken
 * once, not again after each store to a reader's flags. */
static inline __attribute__((always_inline)) void mark_readers_changed_in(rp_graph_t *graph, uint32_t slot,
                                                                          const rp_edge_t *edge,
                                                                          const rp_edge_t *end, bool tracing) {
    for (; edge != end; edge++) mark_reader_changed(graph, slot, *edge, tracing);
}

/* With a tracer the readers also learn their cause: a separate copy, so that
 * the untraced one stays small. */
static __attribute__((noinline)) void mark_pending_readers_dirty_traced(rp_graph_t *graph, uint32_t slot,
                                                                        const rp_node_rec_t *rec) {
    mark_readers_changed_in(graph, slot, rec->subs, rec->subs + rec->nsubs, true);
}

/* The untraced general loop, from `edge` on (mark_readers_changed_untraced
 * hands it the rest). */
static __attribute__((noinline)) void mark_readers_changed_from(rp_graph_t *graph, uint32_t slot,
                                                                const rp_edge_t *edge, const rp_edge_t *end) {
    mark_readers_changed_in(graph, slot, edge, end, false);
}

/* shallow_propagate_calling without a tracer, inline: a loop that makes no
 * call saves no registers around one. Most readers are PENDING, already
 * DIRTY, or the run in progress that is reading the node (which has not read
 * it yet); one that did read the old value (rare: it must run again, and
 * may be an effect to queue) hands itself and the rest to the general loop. */
static inline __attribute__((always_inline)) void mark_readers_changed_untraced(rp_graph_t *graph, uint32_t slot,
                                                                               const rp_node_rec_t *rec) {
    const rp_edge_t *subs = rec->subs;
    const rp_edge_t *end = subs + rec->nsubs;
    for (const rp_edge_t *edge = subs; edge != end; edge++) {
        rp_node_rec_t *sub = edge->rec;
        uint16_t flags = sub->flags;
        if ((flags & (RP_F_STALE | RP_F_COMPUTING)) == RP_F_PENDING) {
            sub->flags = flags | RP_F_DIRTY;
        } else if ((flags & RP_F_COMPUTING) &&
                   __builtin_expect(edge->mirror < sub->cursor && !(flags & RP_F_DIRTY), 0)) {
            mark_readers_changed_from(graph, slot, edge, end);
            return;
        }
    }
}

/* `slot`, whose record is `rec`, changed: its readers learn it. Both of its
 * calls are tail calls, so that the untraced loop saves no registers. */
static __attribute__((noinline)) void shallow_propagate_calling(rp_graph_t *graph, uint32_t slot,
                                                                const rp_node_rec_t *rec) {
    if (__builtin_expect(graph->tracer != NULL, 0)) {
        mark_pending_readers_dirty_traced(graph, slot, rec);
    } else {
        mark_readers_changed_untraced(graph, slot, rec);
    }
}

/* The same, telling inline without a tracer: a node read by one other (as
 * when the reader that brought it up to date is its only one) without a loop.
 * `untraced`: the caller knows that no tracer is installed. */
static inline __attribute__((always_inline)) void shallow_propagate_as(rp_graph_t *graph, uint32_t slot,
                                                                      const rp_node_rec_t *rec, bool untraced) {
    if (rec->nsubs == 1 && (untraced || __builtin_expect(graph->tracer == NULL, 1))) {
        mark_reader_changed(graph, slot, rec->subs[0], false);
    } else if (rec->nsubs != 0) {
        if (!untraced && __builtin_expect(graph->tracer != NULL, 0)) {
            mark_pending_readers_dirty_traced(graph, slot, rec);
        } else {
            mark_readers_changed_untraced(graph, slot, rec);
        }
    }
}

static inline __attribute__((always_inline)) void shallow_propagate(rp_graph_t *graph, uint32_t slot,
                                                                   const rp_node_rec_t *rec) {
    shallow_propagate_as(graph, slot, rec, false);
}

void rp_mark_readers_changed(rp_graph_t *graph, uint32_t slot) {
    rp_node_rec_t *rec = rp_rec(graph, slot);
    graph->write_epoch++;
    propagate_from(graph, rec);
    shallow_propagate(graph, slot, rec);
}

/* Traced and untraced copies of the same code: without a tracer, a run pays
 * one test of graph->tracer and nothing else. */
static __attribute__((noinline)) rp_status_t run_tracked_traced(rp_graph_t *graph, uint32_t slot,
                                                                 rp_node_rec_t *rec, bool *changed) {
    return rp_run_tracked(graph, slot, rec, changed, true, rec->kind == RP_KIND_EFFECT);
}

/* rp_node_finish_if_disposing for a caller that has the record. */
static inline void finish_if_disposing(rp_graph_t *graph, uint32_t slot, const rp_node_rec_t *rec) {
    if ((rec->flags & RP_F_DISPOSING) && !(rec->flags & RP_F_BUSY)) rp_node_free(graph, slot);
}

/* `rec` is the record of `slot`: callers have it at hand (records never move). */
void rp_run_effect(rp_graph_t *graph, uint32_t slot, rp_node_rec_t *rec) {
    bool unused;
    if (__builtin_expect(graph->tracer != NULL, 0)) {
        (void)run_tracked_traced(graph, slot, rec, &unused);
    } else {
        (void)rp_run_tracked(graph, slot, rec, &unused, false, true);
    }
}

/* commit_source for a caller that knows no tracer is installed; returns
 * whether the value changed. */
static inline __attribute__((always_inline)) bool commit_source_untraced(rp_graph_t *graph, uint32_t slot,
                                                                        rp_node_rec_t *rec) {
    rec->flags &= (uint16_t)~RP_F_DIRTY;
    return graph->callbacks.commit == NULL ||
           graph->callbacks.commit(graph->callbacks.host, graph, (rp_node_t){slot, rec->generation, graph->tag},
                                   rec->data);
}

/* Commits DIRTY source `slot`, whose record is `rec`: *changed says whether
 * its readers must recompute. */
static inline __attribute__((always_inline)) void commit_source(rp_graph_t *graph, uint32_t slot, rp_node_rec_t *rec,
                                                                bool *changed) {
    *changed = commit_source_untraced(graph, slot, rec);
    rp_trace(graph, RP_TRACE_COMMIT, slot, RP_NO_SLOT, *changed);
}

/* Recomputes DIRTY `slot`, a computed or an async node whose record is
 * `rec`, for a read: *changed says whether its readers must recompute. A
 * DIRTY source is committed instead (commit_source): the callers know which
 * they have, so neither tests the kind again. */
static inline __attribute__((always_inline)) rp_status_t recompute_inline(rp_graph_t *graph, uint32_t slot,
                                                                          rp_node_rec_t *rec, bool *changed) {
    if (__builtin_expect(graph->tracer != NULL, 0)) return run_tracked_traced(graph, slot, rec, changed);
    return rp_run_tracked(graph, slot, rec, changed, false, false);
}

/* Clears the walk's marks from the frames above `base` after a failure. */
static void unwind(rp_graph_t *graph, size_t base, uint32_t current) {
    rp_rec(graph, current)->flags &= (uint16_t)~RP_F_CHECKING;
    rp_node_finish_if_disposing(graph, current);
    while (graph->stack_top > base) {
        rp_frame_t frame = graph->stack[--graph->stack_top];
        frame.rec->flags &= (uint16_t)~RP_F_CHECKING;
        finish_if_disposing(graph, frame.node, frame.rec);
    }
}

static rp_status_t report_cycle(rp_graph_t *graph, uint32_t slot);

/* The record of the effect at the head of the flush's queue when the flush
 * would walk it next (not deferred, PENDING and no more, its entry current),
 * popped into *moved, its QUEUED mark cleared; otherwise NULL, taking
 * nothing. */
static inline rp_node_rec_t *take_next_effect(rp_graph_t *graph, rp_queued_t *moved) {
    /* A tracer that a compute installed is told from the next walk on, as
     * the flush's own walks test for one each. */
    size_t head = graph->ordered_head;
    if (head >= graph->ordered_count || graph->heap_count != 0 || graph->tracer != NULL) return NULL;
    const rp_queued_t *next = rp_ordered(graph, head);
    rp_node_rec_t *rec = rp_rec(graph, next->slot);
    uint16_t flags = rec->flags;
    if (rec->generation != next->generation ||
        (flags & (RP_F_DEFERRED | RP_F_DIRTY | RP_F_PENDING)) != RP_F_PENDING) {
        return NULL;
    }
    graph->ordered_head = head + 1;
    *moved = *next;
    rec->flags = flags & (uint16_t)~RP_F_QUEUED;
    return rec;
}

/* The flags a node that a walk found unchanged keeps: all but RP_F_CHECKING
 * and, unless a write was made since `epoch`, RP_F_PENDING. */
static inline uint16_t rp_keep_after_walk(const rp_graph_t *graph, uint64_t epoch) {
    return graph->write_epoch == epoch ? (uint16_t)~(RP_F_CHECKING | RP_F_PENDING) : (uint16_t)~RP_F_CHECKING;
}

/* Re-validates the dependencies of PENDING `root`, in read order, depth first.
 * Says whether root itself must recompute, and a status. Root keeps
 * RP_F_CHECKING cleared and any deferred disposal for the caller to finish.
 *
 * The walk keeps the stack, its top and the stamp in locals: only the calls it
 * makes (an update, a disposal finished, a cycle report) use or change them,
 * so it writes graph->stack_top before each call and reads the others again
 * after. The write epoch it compares where it needs to know, not after each
 * call: most calls are recomputes, and most recomputes are followed by another
 * rather than by that test. A level the walk passes costs a frame down and a
 * frame up; a dependency that changed sends the walk straight up, recomputing
 * each reader in turn, until one comes out unchanged. `outside`: the caller
 * has no run in progress and no untracked section open, so those runs leave
 * each node active for the next and the walk makes none active once, when it
 * leaves that loop (rp_run_tracked_as). */
static inline __attribute__((always_inline)) rp_check_t check_dirty_as(rp_graph_t *graph, uint32_t root,
                                                                       rp_node_rec_t *rec, bool tracing,
                                                                       bool outside, rp_queued_t *moved) {
    rp_frame_t *stack = graph->stack;
    size_t top = graph->stack_top;
    const size_t base = top;
    /* A write made by a compute during the walk may mark nodes the walk has
     * already passed: then none of them loses its PENDING mark. */
    uint64_t epoch = graph->write_epoch;
    /* What a node found unchanged keeps of its flags: PENDING goes unless a
     * write was made since the walk began. Only a call can make one, so it is
     * set again after the calls a node passed back up can follow (a run or a
     * commit that left its node unchanged, a disposal finished), not tested
     * at each level. */
    uint16_t keep = (uint16_t)~(RP_F_CHECKING | RP_F_PENDING);
    uint64_t stamp = graph->stamp;
    uint32_t current = root;
    uint32_t position = 0;
    bool changed;
    rp_status_t status;
    /* `rec` is current's record, kept along with it. Room for the next frame
     * is kept on every descent: the frame pushed for a DIRTY dependency or a
     * cycle report takes it without a test. */
    if (!walk_room(graph, top, &stack)) return (rp_check_t){false, RP_ENOMEM};
    rec->flags |= RP_F_CHECKING;
    for (;;) {
        /* Re-validate the dependencies of `current` from `position` on. */
        while (position < rec->ndeps) {
            rp_edge_t edge = rec->deps[position++];
            rp_node_rec_t *dep_rec = edge.rec;
            uint16_t flags = dep_rec->flags;
            if (!(flags & (RP_F_STALE | RP_F_COMPUTING))) continue; /* up to date */
            if (!(flags & (RP_F_DIRTY | RP_F_COMPUTING))) {
                /* PENDING: re-validate it first. Only readers are marked
                 * PENDING, so this is never a source (_rp_graph_check); one
                 * would only lose its mark, having no dependencies. */
                stack[top++] = (rp_frame_t){current, position, {stamp}, {rec}};
                current = edge.node;
                rec = dep_rec;
                position = 0;
                dep_rec->flags = flags | RP_F_CHECKING;
                if (!walk_room(graph, top, &stack)) goto no_room;
                continue;
            }
            if (flags & RP_F_COMPUTING) {
                /* Its compute (or its async run's track section) is in
                 * progress on this thread, and is what reads, through the
                 * walk, the node `current` that reads it: a cycle. Passing
                 * over it would take `current` as up to date with the value
                 * computed before (and miss the change to come); descending
                 * into it, when it was written meanwhile, would compute it
                 * inside its own compute. */
                stack[top] = (rp_frame_t){current, position, {stamp}, {rec}};
                graph->stack_top = top + 1;
                status = report_cycle(graph, edge.node);
                graph->stack_top = top;
                unwind(graph, base, current);
                return (rp_check_t){false, status};
            }
            /* DIRTY: bring it up to date below, with `current` on the stack
             * while it computes (so that a cycle back to it is reported whole).
             * The room it takes is back once the dependency is up to date (its
             * frame is popped below). */
            stack[top++] = (rp_frame_t){current, position, {stamp}, {rec}};
            current = edge.node;
            rec = dep_rec;
            /* Only here can the node to bring up to date be a source: the
             * others are `current` or a frame's node, which have dependencies. */
            if (dep_rec->kind == RP_KIND_SOURCE) {
                graph->stack_top = top;
                commit_source(graph, current, rec, &changed);
                status = RP_OK;
                goto updated;
            }
            goto recompute_below_root; /* a frame was just pushed */
        }
        {
            /* Every dependency of `current` is unchanged. A write made by a
             * nested compute may have marked it. */
            uint16_t flags = rec->flags;
            /* Its run clears RP_F_CHECKING (root_dirty for the root). */
            if (flags & RP_F_DIRTY) goto recompute;
            flags &= keep;
            rec->flags = flags;
            /* Inside a savepoint, a computed found up to date changed state as
             * a run would (stale at the begin, up to date from its values):
             * its journal entry must say so, "late" (savepoint.c). */
            if (__builtin_expect(graph->savepoint_count != 0, 0) && rec->kind == RP_KIND_COMPUTED) {
                stamp = ++graph->stamp;
                rec->run_stamp = stamp;
            }
            if (top == base) {
                graph->stack_top = base;
                /* The flush's walk: an effect found clean and done with
                 * (neither PENDING again nor disposing) is what the flush
                 * would pass over. When the next queued effect is one it
                 * would walk next, that walk starts here, saving the call
                 * and the flush's turn (most effects under a node read by
                 * many come out clean). *moved is the root it ends on. */
                if (moved != NULL && !(flags & (RP_F_PENDING | RP_F_DISPOSING))) {
                    rp_node_rec_t *next_rec = take_next_effect(graph, moved);
                    if (next_rec != NULL) {
                        current = moved->slot;
                        rec = next_rec;
                        position = 0;
                        epoch = graph->write_epoch;
                        keep = (uint16_t)~(RP_F_CHECKING | RP_F_PENDING);
                        /* The room for a frame is the root's, still kept. */
                        rec->flags |= RP_F_CHECKING;
                        continue;
                    }
                }
                return (rp_check_t){false, RP_OK};
            }
            if ((flags & (RP_F_DISPOSING | RP_F_BUSY)) == RP_F_DISPOSING) {
                graph->stack_top = top;
                rp_node_free(graph, current);
                stack = graph->stack;
                stamp = graph->stamp;
                keep = rp_keep_after_walk(graph, epoch);
            }
            rp_frame_t frame = stack[--top];
            current = frame.node;
            rec = frame.rec;
            position = frame.position;
            continue;
        }
    recompute:
        /* `current` must be brought up to date; each reader it changes for
         * must be too, up to the root (left to the caller). The test for the
         * root ends each turn, so that going up a level jumps back to none. */
        if (top == base) goto root_dirty;
        for (;;) {
        recompute_below_root:
            graph->stack_top = top;
            /* Sets `changed`, as commit_source does. The copy of the walk
             * says whether to trace: rp_check_dirty tested for a tracer once,
             * as a refresh in a run does (read_refreshing_in_run), so a
             * tracer that a compute installs is told from the next walk on. */
            status = tracing ? run_tracked_traced(graph, current, rec, &changed)
                             : rp_run_tracked_as(graph, current, rec, &changed, false, false, outside);
        updated:
            stack = graph->stack;
            stamp = graph->stamp;
            if (status) {
                graph->stack_top = --top;
                unwind(graph, base, stack[top].node);
                return (rp_check_t){false, status};
            }
            /* A reader alone is the frame below, about to recompute. */
            if (changed && rec->nsubs > 1) shallow_propagate_calling(graph, current, rec);
            rp_frame_t frame = stack[--top];
            if (!changed) {
                if (outside) rp_active_none(graph);
                keep = rp_keep_after_walk(graph, epoch);
                current = frame.node;
                rec = frame.rec;
                position = frame.position;
                break;
            }
            if (tracing) graph->causes[frame.node] = current;
            current = frame.node;
            rec = frame.rec;
            if (__builtin_expect(top == base, 0)) goto root_dirty;
        }
    }
root_dirty:
    if (outside) rp_active_none(graph);
    rec->flags &= (uint16_t)~RP_F_CHECKING;
    graph->stack_top = base;
    return (rp_check_t){true, RP_OK};
no_room:
    graph->stack_top = top;
    unwind(graph, base, current);
    return (rp_check_t){false, RP_ENOMEM};
}

/* As for runs: a traced copy keeps causes and tells what it runs, the
 * untraced one pays one test for the whole walk. */
static __attribute__((noinline)) rp_check_t check_dirty_traced(rp_graph_t *graph, uint32_t root, rp_node_rec_t *rec) {
    return check_dirty_as(graph, root, rec, true, false, NULL);
}

/* A walk for a read in a run (or in an untracked section): each of its runs
 * makes the reader active again. */
static __attribute__((noinline)) rp_check_t check_dirty_in_run(rp_graph_t *graph, uint32_t root, rp_node_rec_t *rec) {
    return check_dirty_as(graph, root, rec, false, false, NULL);
}

/* Walks outside runs (the flush's, a read's from the host) make none active
 * once per loop of runs up a chain, not after each run. */
rp_check_t rp_check_dirty_pair(rp_graph_t *graph, uint32_t root, rp_node_rec_t *rec) {
    if (__builtin_expect(graph->tracer != NULL, 0)) return check_dirty_traced(graph, root, rec);
    if (graph->active_and_untracked != rp_active_none_word()) return check_dirty_in_run(graph, root, rec);
    return check_dirty_as(graph, root, rec, false, true, NULL);
}

rp_chained_t rp_check_queued(rp_graph_t *graph) {
    rp_queued_t moved;
    rp_node_rec_t *rec;
    if (graph->active_and_untracked != rp_active_none_word() || (rec = take_next_effect(graph, &moved)) == NULL) {
        return (rp_chained_t){0, RP_OK};
    }
    rp_check_t check = check_dirty_as(graph, moved.slot, rec, false, true, &moved);
    rec = rp_rec(graph, moved.slot);
    if (check.status) {
        /* It stays queued and marked, as the flush leaves an effect whose
         * walk failed: the next flush retries it. */
        if (rec->generation == moved.generation) rp_enqueue(graph, moved.slot);
        return (rp_chained_t){0, check.status};
    }
    return (rp_chained_t){(uintptr_t)rec | (check.dirty != 0), moved.slot | (uint64_t)moved.generation << 32};
}

/* Whether `rec` is a run in progress that began after stamp `since`. */
static inline bool run_after(const rp_node_rec_t *rec, uint64_t since) {
    return (rec->flags & (RP_F_LIVE | RP_F_COMPUTING)) == (RP_F_LIVE | RP_F_COMPUTING) && rec->run_stamp > since;
}

/* `slot` was read while being computed or checked: it depends on the node
 * reading it. The cycle is `slot`, then every node that joined the current
 * path after it (walk frames and runs in progress), in the order they joined. */
static rp_status_t report_cycle(rp_graph_t *graph, uint32_t slot) {
    const rp_node_rec_t *target = rp_rec(graph, slot);
    size_t first_frame = graph->stack_top;
    uint64_t since;
    if (target->flags & RP_F_COMPUTING) {
        since = target->run_stamp;
        first_frame = 0;
        while (first_frame < graph->stack_top && graph->stack[first_frame].stamp < since) first_frame++;
    } else {
        while (first_frame > 0 && graph->stack[first_frame - 1].node != slot) first_frame--;
        since = first_frame ? graph->stack[first_frame - 1].stamp : 0;
    }
    /* The runs in progress are the COMPUTING nodes (they all nest on the
     * thread holding the graph): those after `since`, in the order they began. */
    size_t runs = 0;
    for (uint32_t node = 0; node < graph->nslots; node++) runs += run_after(rp_rec(graph, node), since);
    size_t count = 1 + (graph->stack_top - first_frame) + runs;
    rp_node_t *nodes = rp_diagnostic_reserve(graph, count);
    if (nodes == NULL) return RP_ECYCLE;
    /* Runs fill the tail, sorted by stamp (Shell's method: no recursion, no
     * memory); frames are then merged in by stamp. */
    size_t run_index = count - runs;
    for (uint32_t node = 0, index = (uint32_t)run_index; index < count; node++) {
        if (run_after(rp_rec(graph, node), since)) nodes[index++] = rp_handle(graph, node);
    }
    rp_node_t *tail = nodes + run_index;
    size_t gap = 1;
    while (gap < runs / 3) gap = 3 * gap + 1;
    for (; gap > 0; gap /= 3) {
        for (size_t i = gap; i < runs; i++) {
            rp_node_t moving = tail[i];
            uint64_t stamp = rp_rec(graph, moving.slot)->run_stamp;
            size_t j = i;
            for (; j >= gap && rp_rec(graph, tail[j - gap].slot)->run_stamp > stamp; j -= gap) tail[j] = tail[j - gap];
            tail[j] = moving;
        }
    }
    size_t out = 0, frame = first_frame;
    nodes[out++] = rp_handle(graph, slot);
    while (frame < graph->stack_top || run_index < count) {
        bool take_frame = frame < graph->stack_top &&
                          (run_index == count || graph->stack[frame].stamp < rp_rec(graph, nodes[run_index].slot)->run_stamp);
        nodes[out++] = take_frame ? rp_handle(graph, graph->stack[frame++].node) : nodes[run_index++];
    }
    return RP_ECYCLE;
}

static rp_status_t read_slow(rp_graph_t *graph, rp_node_t node);
static inline bool read_confirmed(rp_node_rec_t *reader, rp_node_rec_t *rec, uint32_t slot);
static rp_status_t read_refreshing(rp_graph_t *graph, rp_node_t node, rp_node_rec_t *rec);
static rp_status_t read_refreshing_in_run(rp_graph_t *graph, rp_node_t node, rp_node_rec_t *rec);
static rp_status_t read_recomputing_in_run(rp_graph_t *graph, rp_node_t node, rp_node_rec_t *rec);

/* rp_refresh for a caller that has the record. `untraced`: the caller knows
 * that no tracer is installed, and so tests for none again. */
static inline __attribute__((always_inline)) rp_status_t refresh_record_as(rp_graph_t *graph, uint32_t slot,
                                                                           rp_node_rec_t *rec, bool untraced) {
    uint16_t flags = rec->flags;
    if (!(flags & RP_F_STALE)) return RP_OK;
    if (rec->kind == RP_KIND_SOURCE) {
        bool changed;
        if (untraced) {
            changed = commit_source_untraced(graph, slot, rec);
        } else {
            commit_source(graph, slot, rec, &changed);
        }
        if (changed) shallow_propagate_as(graph, slot, rec, untraced);
        return RP_OK;
    }
    if (!(flags & RP_F_DIRTY)) {
        /* Only a PENDING node's walk says through memory whether it must
         * recompute: a DIRTY one goes straight on. */
        bool dirty;
        rp_status_t status = rp_check_dirty(graph, slot, rec, &dirty);
        if (status) return status;
        if (rec->flags & RP_F_DISPOSING) {
            rp_node_finish_if_disposing(graph, slot);
            return RP_ESTALE;
        }
        if (!dirty) return RP_OK;
    }
    bool changed; /* set by the recompute */
    rp_status_t status = untraced ? rp_run_tracked(graph, slot, rec, &changed, false, false)
                                  : recompute_inline(graph, slot, rec, &changed);
    if (status) return status;
    if (changed) shallow_propagate_as(graph, slot, rec, untraced);
    return RP_OK;
}

static inline __attribute__((always_inline)) rp_status_t refresh_record(rp_graph_t *graph, uint32_t slot,
                                                                        rp_node_rec_t *rec) {
    return refresh_record_as(graph, slot, rec, false);
}

/* Brings `slot` up to date for a read. */
rp_status_t rp_refresh(rp_graph_t *graph, uint32_t slot) {
    return refresh_record(graph, slot, rp_rec(graph, slot));
}

/* The record of `node` when it is a live, idle, up-to-date node that can be
 * read (not an effect); NULL otherwise (the general path names the error).
 * A live record's generation is never 0 (node.c), so matching it rules out
 * the none handle. */
static inline rp_node_rec_t *fresh_record(const rp_graph_t *graph, rp_node_t node) {
    if (node.graph_tag != graph->tag || node.slot >= graph->nslots) return NULL;
    rp_node_rec_t *rec = rp_rec(graph, node.slot);
    uint16_t flags = rec->flags;
    if (rec->generation != node.generation ||
        (flags & (RP_F_LIVE | RP_F_DISPOSING | RP_F_BUSY | RP_F_STALE)) != RP_F_LIVE || rec->kind == RP_KIND_EFFECT) {
        return NULL;
    }
    return rec;
}

/* Whether the active `reader` has already recorded its read of `rec` in this
 * run, confirming it on the way when it is the next read of the previous run
 * (the common case: the same reads in the same order). Otherwise the read
 * links through rp_link_slow. A read repeated in the same run is answered by
 * the stamp: only this run links or confirms a node with its stamp. */
static inline bool read_confirmed(rp_node_rec_t *reader, rp_node_rec_t *rec, uint32_t slot) {
    uint32_t cursor = reader->cursor;
    if (cursor < reader->ndeps && reader->deps[cursor].node == slot) {
        reader->cursor = cursor + 1;
        rec->read_stamp = reader->run_stamp;
        return true;
    }
    return rec->read_stamp == reader->run_stamp;
}

/* A read by the thread holding the graph. Effects it makes due are left for
 * the caller's rp_settle. */
static inline rp_status_t read_held(rp_graph_t *graph, rp_node_t node) {
    rp_node_rec_t *rec = fresh_record(graph, node);
    if (rec == NULL) return read_slow(graph, node);
    rp_node_rec_t *reader = graph->active_rec;
    if (reader == NULL || graph->untracked_depth || read_confirmed(reader, rec, node.slot)) return RP_OK;
    return rp_link_slow(graph, node.slot, graph->active);
}

/* read_held inside a run, for the reads read_in_run does not answer inline
 * (out of line, so that its callers' fast paths stay small). read_in_run has
 * tested the edge at the reader's cursor: a fresh node read here is not the
 * one there (the edge would have confirmed it, untracked sections apart), so
 * only the stamp can confirm it. */
static __attribute__((noinline)) rp_status_t read_in_run_other(rp_graph_t *graph, rp_node_t node) {
    rp_node_rec_t *rec = fresh_record(graph, node);
    /* Not readable as it is: read_held names why. Through it, not read_slow
     * directly: clang inlined read_slow here, which made the stamp's path
     * longer by an instruction. */
    if (rec == NULL) return read_held(graph, node);
    /* A read repeated in this run, the common case here, first. */
    if (rec->read_stamp == graph->active_rec->run_stamp || graph->untracked_depth) return RP_OK;
    return rp_link_slow(graph, node.slot, graph->active);
}

/* Whether `rec`, which an edge of the reader names at `node.slot`, is the
 * node of this handle and can be read as it is, in a tracked read. The edge
 * proves most of what fresh_record checks: the slot is in range and live (only
 * live nodes are read), and it is no effect (effects have no readers); the
 * handle is this graph's and current, and the node idle and up to date,
 * remain to check. */
static inline bool edge_read_as_is(const rp_graph_t *graph, const rp_node_rec_t *rec, rp_node_t node) {
    return node.graph_tag == graph->tag && rec->generation == node.generation &&
           !(rec->flags & (RP_F_DISPOSING | RP_F_BUSY | RP_F_STALE)) && graph->untracked_depth == 0;
}

/* A read in a run. The most common read of all, the next read of the previous
 * run again, is confirmed from the edge at the reader's cursor; the next most
 * common, the read just made repeated, is answered by the edge before it. */
static inline __attribute__((always_inline)) rp_status_t read_in_run(rp_graph_t *graph, rp_node_t node) {
    rp_node_rec_t *reader = graph->active_rec;
    uint32_t cursor = reader->cursor;
    /* The edge at the cursor, its address computed once for both tests (the
     * one before it is edge[-1]). In integers: a node that has read nothing
     * has no array (NULL), which C allows no offset, not even 0. */
    const rp_edge_t *edge = (const rp_edge_t *)((uintptr_t)reader->deps + (uintptr_t)cursor * sizeof(rp_edge_t));
    if (cursor < reader->ndeps && edge->node == node.slot) {
        rp_node_rec_t *rec = edge->rec;
        if (edge_read_as_is(graph, rec, node)) {
            reader->cursor = cursor + 1;
            rec->read_stamp = reader->run_stamp;
            return RP_OK;
        }
        /* Stale: brought up to date first (the first evaluation of a node
         * whose readers were not re-validated, as when reading it starts its
         * walk). The edge proves the handle valid and the node readable.
         * The common case, a DIRTY derivation read without a tracer, has a
         * function of its own, and the flags are at hand here to tell it. */
        if ((rec->flags & (RP_F_DISPOSING | RP_F_BUSY)) == 0 && node.graph_tag == graph->tag &&
            rec->generation == node.generation && graph->untracked_depth == 0) {
            if ((rec->flags & RP_F_DIRTY) && rec->kind != RP_KIND_SOURCE && graph->tracer == NULL) {
                return read_recomputing_in_run(graph, node, rec);
            }
            return read_refreshing_in_run(graph, node, rec);
        }
    } else if (cursor != 0 && edge[-1].node == node.slot) {
        /* Read already in this run: untracked or not, the read records
         * nothing more, so untracked sections need no test here. */
        const rp_node_rec_t *rec = edge[-1].rec;
        if (node.graph_tag == graph->tag && rec->generation == node.generation &&
            !(rec->flags & (RP_F_DISPOSING | RP_F_BUSY | RP_F_STALE))) {
            return RP_OK;
        }
    }
    return read_in_run_other(graph, node);
}

/* Effects that an earlier flush left queued when it stopped with an error were
 * due before this read began: a read outside batches and runs takes them up
 * first, so that the value it brings up to date includes what they write
 * (issue 15, defect 6: run after the refresh, they could make the value just
 * read stale before the call returned). Only for a node the read would
 * accept, so that a refused read changes nothing. */
static rp_status_t run_effects_left_queued(rp_graph_t *graph, rp_node_t node) {
    if (rp_queue_empty(graph) || graph->batch_depth != 0 || graph->active_rec != NULL) return RP_OK;
    uint32_t slot;
    rp_status_t status = rp_resolve(graph, node, &slot);
    if (status) return status;
    if (rp_rec(graph, slot)->kind == RP_KIND_EFFECT) return RP_EKIND;
    return rp_flush(graph);
}

/* Whether the calling thread holds the graph for the compute or run in
 * progress. Its reads (most reads) need no section of their own: the run
 * holds the graph until it ends, and inside a run nothing is flushed or
 * delivered, so there is no nesting to count and nothing to settle. */
static inline bool reading_in_run(const rp_graph_t *graph, void *self) {
    return rp_sync_load_ptr(&graph->sections.owner) == self && graph->active_rec != NULL;
}

/* A read outside runs by the thread holding the graph, past the common case
 * (an up-to-date node, nothing to settle). Leaves the graph on failure. */
static rp_status_t read_held_outside_run(rp_graph_t *graph, rp_node_t node) {
    rp_status_t status = run_effects_left_queued(graph, node);
    if (status) {
        /* They failed again: nothing was read, and they stay queued for the
         * next flush (flushing again here would only repeat the failure). */
        rp_deliver_unwatched(graph);
        rp_exclusive_exit(graph);
        return status;
    }
    status = read_held(graph, node);
    if (status) {
        (void)rp_settle(graph); /* what the refresh queued still runs */
        rp_exclusive_exit(graph);
        return status;
    }
    return RP_OK;
}

/* Takes the graph for a read outside runs: exclusively (true), or shared
 * when another thread is inside and `node` is up to date (false, *ticket set). */
static inline bool enter_for_read(rp_graph_t *graph, rp_node_t node, void *self, uint32_t *ticket) {
    if (rp_exclusive_enter_owned(graph, self)) return true;
    if (rp_try_shared_read(graph, node, self, ticket)) return false;
    rp_exclusive_acquire(graph, self);
    return true;
}

/* rp_node_read_begin apart from reads in a run, out of line so that those
 * stay short. Outside a run nobody is recording reads (graph->active_rec is
 * NULL): an up-to-date node needs nothing more than the graph held. */
static __attribute__((noinline)) rp_status_t read_begin(rp_graph_t *graph, rp_node_t node, rp_read_section_t *section,
                                                        void *self) {
    if (!enter_for_read(graph, node, self, &section->ticket)) return RP_OK;
    if (!rp_queue_empty(graph) || fresh_record(graph, node) == NULL) {
        rp_status_t status = read_held_outside_run(graph, node);
        if (status) return status;
    }
    section->ticket = RP_TICKET_EXCLUSIVE;
    return RP_OK;
}

rp_status_t rp_node_read_begin(rp_graph_t *graph, rp_node_t node, rp_read_section_t *section) {
    if (graph == NULL || section == NULL) return RP_EINVAL;
    void *self = rp_thread_self();
    if (!reading_in_run(graph, self)) return read_begin(graph, node, section, self);
    rp_status_t status = read_in_run(graph, node);
    if (status == RP_OK) section->ticket = RP_TICKET_IN_RUN;
    return status;
}

/* An end marks its section ended (0 is never a ticket), so that ending it
 * again is refused whatever the graph's state: an exclusive section ended
 * twice inside a batch would otherwise release the batch's hold (the thread
 * still holds the graph, so the ticket alone looks valid), and a shared one
 * would take another reader's count from a stripe it shares. */
rp_status_t rp_node_read_end(rp_graph_t *graph, rp_read_section_t *section) {
    if (graph == NULL || section == NULL) return RP_EINVAL;
    uint32_t ticket = section->ticket;
    void *self = rp_thread_self();
    bool held = rp_sync_load_ptr(&graph->sections.owner) == self;
    if (ticket == RP_TICKET_EXCLUSIVE) {
        /* Not this thread's, or ended by a copy of it (a thread that has the
         * graph through its bias reads holding it, so its sections are all of
         * this kind). */
        if (!held) return RP_EINVAL;
        section->ticket = RP_TICKET_ENDED;
        rp_status_t status = rp_settle(graph);
        rp_exclusive_exit(graph);
        return status;
    }
    if (ticket == RP_TICKET_IN_RUN) {
        if (!held || graph->active_rec == NULL) return RP_EINVAL;
        section->ticket = RP_TICKET_ENDED;
        return RP_OK;
    }
    /* Not a ticket this thread's begin gave, or its stripe counts nobody:
     * ending it would let writers in while a reader is inside. */
    if (ticket == RP_TICKET_ENDED || ticket - 1 != rp_stripe_for(self) ||
        rp_sync_load_u32(&graph->sections.stripes[ticket - 1].readers) == 0) {
        return RP_EINVAL;
    }
    section->ticket = RP_TICKET_ENDED;
    rp_shared_exit(graph, ticket);
    return RP_OK;
}

/* The copy of rp_node_read_copy. A value of 8 bytes (an integer, a double, a
 * pointer: what a host reads most) is one load and one store, where a call of
 * memcpy with a variable size cost about 15 instructions more; any other size
 * goes to memcpy, which must not be given NULL even for 0 bytes. */
static inline void copy_value(void *dst, const void *src, size_t size) {
    if (__builtin_expect(size == sizeof(uint64_t), 1)) {
        memcpy(dst, src, sizeof(uint64_t));
    } else if (size != 0) {
        memcpy(dst, src, size);
    }
}

/* rp_node_read_copy outside runs, holding the graph: refresh, copy, then run
 * what the read made due (as rp_node_read_end does). Leaves the graph on
 * failure (read_held_outside_run does). */
static __attribute__((noinline)) rp_status_t read_copy_held(rp_graph_t *graph, rp_node_t node, void *dst,
                                                            const void *src, size_t size) {
    rp_status_t status = read_held_outside_run(graph, node);
    if (status) return status;
    copy_value(dst, src, size);
    status = rp_settle(graph);
    rp_exclusive_exit(graph);
    return status;
}

/* rp_node_read_copy outside runs, not holding the graph: shared if it can,
 * else waiting for it. Takes no `self` (it loads it again): with the node in
 * two registers, a seventh argument would go on the stack in every call. */
static __attribute__((noinline)) rp_status_t read_copy_waiting(rp_graph_t *graph, rp_node_t node, void *dst,
                                                               const void *src, size_t size) {
    void *self = rp_thread_self();
    uint32_t ticket;
    if (rp_try_shared_read(graph, node, self, &ticket)) {
        copy_value(dst, src, size);
        rp_shared_exit(graph, ticket);
        return RP_OK;
    }
    rp_exclusive_acquire(graph, self);
    return read_copy_held(graph, node, dst, src, size);
}

/* The same, when the bias was revoked as this thread took the graph through
 * it: it takes the graph on its turn. */
static __attribute__((noinline)) rp_status_t read_copy_backing_off(rp_graph_t *graph, rp_node_t node, void *dst,
                                                                   const void *src, size_t size) {
    rp_bias_back_off(graph, rp_thread_self());
    return read_copy_held(graph, node, dst, src, size);
}

/* The end of rp_node_read_copy outside runs for a node up to date with
 * nothing to settle, when the size is not a word's: the memcpy call is made
 * here, so that the common case saves no register for it. */
static __attribute__((noinline)) rp_status_t read_copy_fresh_sized(rp_graph_t *graph, void *dst, const void *src,
                                                                   size_t size) {
    if (size != 0) memcpy(dst, src, size);
    rp_exclusive_exit(graph);
    return RP_OK;
}

/* rp_node_read_copy in a run: read_in_run, then the copy. Out of line, so
 * that the read outside runs saves no registers. */
static __attribute__((noinline)) rp_status_t read_copy_in_run(rp_graph_t *graph, rp_node_t node, void *dst,
                                                              const void *src, size_t size) {
    rp_status_t status = read_in_run(graph, node);
    if (status == RP_OK) copy_value(dst, src, size);
    return status;
}

/* rp_node_read_copy outside runs, as read_outside_run: the common case (the
 * graph is this thread's, the node up to date, nothing to settle, a word to
 * copy) makes no call, and the others are tail calls, so that it saves no
 * registers. */
static inline rp_status_t read_copy_outside_run(rp_graph_t *graph, rp_node_t node, void *dst, const void *src,
                                                size_t size, void *self) {
    rp_entry_t entry = rp_exclusive_try_enter(graph, self);
    if (entry == RP_ENTRY_NONE) return read_copy_waiting(graph, node, dst, src, size);
    if (entry == RP_ENTRY_BACK_OFF) return read_copy_backing_off(graph, node, dst, src, size);
    if (!rp_settled(graph) || fresh_record(graph, node) == NULL) return read_copy_held(graph, node, dst, src, size);
    if (__builtin_expect(size != sizeof(uint64_t), 0)) return read_copy_fresh_sized(graph, dst, src, size);
    memcpy(dst, src, sizeof(uint64_t));
    rp_exclusive_exit(graph);
    return RP_OK;
}

rp_status_t rp_node_read_copy(rp_graph_t *graph, rp_node_t node, void *dst, const void *src, size_t size) {
    /* The size is tested only for a NULL pointer: two tests in the common case. */
    if (graph == NULL || (__builtin_expect(dst == NULL || src == NULL, 0) && size != 0)) return RP_EINVAL;
    void *self = rp_thread_self();
    if (reading_in_run(graph, self)) return read_copy_in_run(graph, node, dst, src, size);
    return read_copy_outside_run(graph, node, dst, src, size, self);
}

/* A whole read outside runs (begin and end in one) past the common case,
 * holding the graph. */
static __attribute__((noinline)) rp_status_t read_outside_run_held(rp_graph_t *graph, rp_node_t node) {
    rp_status_t status = read_held_outside_run(graph, node);
    if (status) return status;
    status = rp_settle(graph);
    rp_exclusive_exit(graph);
    return status;
}

/* The same, not holding the graph: shared if it can, else waiting for it. */
static __attribute__((noinline)) rp_status_t read_outside_run_waiting(rp_graph_t *graph, rp_node_t node, void *self) {
    uint32_t ticket;
    if (rp_try_shared_read(graph, node, self, &ticket)) {
        rp_shared_exit(graph, ticket);
        return RP_OK;
    }
    rp_exclusive_acquire(graph, self);
    return read_outside_run_held(graph, node);
}

/* The same, when the bias was revoked as this thread took the graph through
 * it: it takes the graph on its turn. */
static __attribute__((noinline)) rp_status_t read_outside_run_backing_off(rp_graph_t *graph, rp_node_t node,
                                                                          void *self) {
    rp_bias_back_off(graph, self);
    return read_outside_run_held(graph, node);
}

/* A whole read outside runs: the common case (the graph is this thread's, the
 * node up to date, nothing to settle) makes no call, and the others are tail
 * calls, so that it saves no registers. Out of line, so that reads in a run
 * stay short. */
static __attribute__((noinline)) rp_status_t read_outside_run(rp_graph_t *graph, rp_node_t node, void *self) {
    rp_entry_t entry = rp_exclusive_try_enter(graph, self);
    if (entry == RP_ENTRY_NONE) return read_outside_run_waiting(graph, node, self);
    if (entry == RP_ENTRY_BACK_OFF) return read_outside_run_backing_off(graph, node, self);
    if (!rp_settled(graph) || fresh_record(graph, node) == NULL) return read_outside_run_held(graph, node);
    rp_exclusive_exit(graph);
    return RP_OK;
}

rp_status_t rp_node_read(rp_graph_t *graph, rp_node_t node) {
    if (graph == NULL) return RP_EINVAL;
    void *self = rp_thread_self();
    if (reading_in_run(graph, self)) return read_in_run(graph, node);
    return read_outside_run(graph, node, self);
}

static rp_status_t read_slow(rp_graph_t *graph, rp_node_t node) {
    uint32_t slot;
    rp_status_t status = rp_resolve(graph, node, &slot);
    if (status) {
        if (status == RP_ESTALE) rp_savepoint_note_stale_read(graph);
        return status;
    }
    rp_node_rec_t *rec = rp_rec(graph, slot);
    if (rec->kind == RP_KIND_EFFECT) return RP_EKIND;
    if (rec->flags & RP_F_BUSY) return report_cycle(graph, slot);
    return read_refreshing(graph, node, rec);
}

/* A node read in a run is still stale after its compute (it wrote what it
 * read, or a node it read was disposed): the reader, the active node whose
 * record is `reader_rec` and not stale yet, got an out-of-date value and must
 * re-validate, and being marked keeps "stale implies readers marked". Rare,
 * so out of line. */
static __attribute__((noinline)) void reader_read_stale(rp_graph_t *graph, rp_node_rec_t *reader_rec) {
    uint32_t reader = graph->active;
    reader_rec->flags |= RP_F_PENDING;
    queue_if_effect(graph, reader, reader_rec);
    /* An async run's track section is not pulled by a reader that will
     * re-validate it: mark what reads the node, as a write would (the fuzzer
     * found an effect left unmarked below a stale run). */
    if (reader_rec->flags & RP_F_TRACKING) rp_propagate(graph, reader);
}

/* read_slow for a valid, idle, readable node: refresh it, then record the read.
 * `in_run`: the caller is a tracked read in a run (read_in_run), whose reader
 * is the active one again once the refresh is done (runs restore it), with no
 * untracked section open. */
static inline __attribute__((always_inline)) rp_status_t read_refreshing_as(rp_graph_t *graph, rp_node_t node,
                                                                            rp_node_rec_t *rec, bool in_run,
                                                                            bool untraced) {
    uint32_t slot = node.slot;
    rp_status_t status;
    /* In a run, the reader: the active node again once the refresh is done. */
    rp_node_rec_t *run_reader_rec = in_run ? graph->active_rec : NULL;
    status = refresh_record_as(graph, slot, rec, untraced);
    if (status) return status;
    /* Its own compute may have disposed it (the handle was valid before). */
    if (rec->generation != node.generation || (rec->flags & (RP_F_LIVE | RP_F_DISPOSING)) != RP_F_LIVE) {
        return RP_ESTALE;
    }
    rp_node_rec_t *reader_rec = in_run ? run_reader_rec : graph->active_rec;
    if (in_run || (reader_rec != NULL && !graph->untracked_depth)) {
        if (!read_confirmed(reader_rec, rec, slot) && (status = rp_link_slow(graph, slot, graph->active))) {
            return status;
        }
        if ((rec->flags & RP_F_STALE) && !(reader_rec->flags & RP_F_STALE)) reader_read_stale(graph, reader_rec);
    }
    return RP_OK;
}

/* Out of line, so that read_in_run stays small. */
static __attribute__((noinline)) rp_status_t read_refreshing(rp_graph_t *graph, rp_node_t node, rp_node_rec_t *rec) {
    return read_refreshing_as(graph, node, rec, false, false);
}

/* The same for read_in_run: a body reading a dependency that is not up to
 * date yet skips the tests of the reader that the in-run read has made
 * already. A DIRTY derivation read without a tracer, the common case, is
 * read_recomputing_in_run's. */
static __attribute__((noinline)) rp_status_t read_refreshing_in_run(rp_graph_t *graph, rp_node_t node,
                                                                    rp_node_rec_t *rec) {
    /* Without a tracer (the common case), a copy that tests for one once. */
    if (__builtin_expect(graph->tracer != NULL, 0)) return read_refreshing_as(graph, node, rec, true, false);
    return read_refreshing_as(graph, node, rec, true, true);
}

/* The readers of `slot`, whose record is `rec`, learn that it changed, all
 * but `reader`: the run in progress that reads it at its cursor `cursor`,
 * which mark_reader_changed would pass over (it has not read the node yet).
 * So a node read by that run alone (a branch of a diamond, read by the join)
 * tells nobody, and one read by one other node too (a node of a triangle,
 * read by the next one and by the join) tells that other one, whose edge is
 * the one beside the reader's, without a loop. Untraced. */
static inline __attribute__((always_inline)) void tell_readers_but(rp_graph_t *graph, uint32_t slot,
                                                                  const rp_node_rec_t *rec,
                                                                  const rp_node_rec_t *reader, uint32_t cursor) {
    uint32_t nsubs = rec->nsubs;
    if (nsubs == 2) {
        mark_reader_changed(graph, slot, rec->subs[reader->deps[cursor].mirror ^ 1], false);
    } else if (nsubs > 2) {
        mark_readers_changed_untraced(graph, slot, rec);
    }
}

/* A read in a run, without a tracer, of the DIRTY computed (or async) node
 * at the reader's cursor, whose record is `rec`: a dependency after the first
 * one that changed (the walk that recomputes a node stops there, and leaves
 * the others to its body). Recomputed here, then the read is confirmed at the
 * cursor, without the tests of a general refresh and read. Its own function,
 * so that it saves only the registers it needs. */
static __attribute__((noinline)) rp_status_t read_recomputing_in_run(rp_graph_t *graph, rp_node_t node,
                                                                     rp_node_rec_t *rec) {
    bool changed; /* set by the recompute */
    rp_status_t status = rp_run_tracked(graph, node.slot, rec, &changed, false, false);
    if (status) return status;
    /* A run that disposed its node has freed it (run.h), which moved its
     * generation on and took its edge out of the reader. Otherwise that edge
     * is still at the reader's cursor: the run restored the reader as the
     * active node, only the reader's own reads move its cursor, and a node it
     * read before that was freed meanwhile moved the edge down along with the
     * cursor (node.c). */
    if (__builtin_expect(rec->generation != node.generation, 0)) return RP_ESTALE;
    rp_node_rec_t *reader = graph->active_rec;
    uint32_t cursor = reader->cursor;
    if (changed) tell_readers_but(graph, node.slot, rec, reader, cursor);
    reader->cursor = cursor + 1;
    rec->read_stamp = reader->run_stamp;
    if (__builtin_expect(rec->flags & RP_F_STALE, 0) && !(reader->flags & RP_F_STALE)) reader_read_stale(graph, reader);
    return RP_OK;
}

static rp_status_t source_set(rp_graph_t *graph, rp_node_t node) {
    uint32_t slot;
    rp_status_t status = rp_resolve(graph, node, &slot);
    if (status) return status;
    rp_node_rec_t *rec = rp_rec(graph, slot);
    if (rec->kind != RP_KIND_SOURCE) return RP_EKIND;
    /* Inside a savepoint, what the write reaches is journaled before it is marked. */
    if (__builtin_expect(graph->savepoint_count != 0, 0) && (status = rp_savepoint_note_change(graph, slot, true))) {
        return status;
    }
    graph->write_epoch++;
    rec->flags |= RP_F_DIRTY;
    rp_trace(graph, RP_TRACE_WRITE, slot, RP_NO_SLOT, true);
    /* Even when the source is still DIRTY from an earlier write: propagation
     * stops at readers already marked, and re-marks any that lost their mark. */
    propagate_from(graph, rec);
    return rp_settle(graph);
}

rp_status_t rp_source_set(rp_graph_t *graph, rp_node_t node) {
    return rp_call_exclusive(graph, node, source_set);
}

/* Like a write, but of a computed whose inputs did not change: it is marked
 * DIRTY and its readers PENDING, so the next re-validation recomputes it and
 * its readers re-run only when the new value differs (equality cut-off). */
static rp_status_t node_invalidate(rp_graph_t *graph, rp_node_t node) {
    uint32_t slot;
    rp_status_t status = rp_resolve(graph, node, &slot);
    if (status) return status;
    rp_node_rec_t *rec = rp_rec(graph, slot);
    if (rec->kind != RP_KIND_COMPUTED) return RP_EKIND;
    /* Inside its own compute or a walk through it: marking it there would
     * take the value being computed as already out of date. */
    if (rec->flags & RP_F_BUSY) return RP_EBUSY;
    if (__builtin_expect(graph->savepoint_count != 0, 0) && (status = rp_savepoint_note_change(graph, slot, false))) {
        return status;
    }
    /* A walk in progress below (the call came from a compute) keeps the nodes
     * it passed PENDING, as after a write. */
    graph->write_epoch++;
    rec->flags |= RP_F_DIRTY;
    if (graph->tracer != NULL) graph->causes[slot] = RP_NO_SLOT;
    rp_trace(graph, RP_TRACE_INVALIDATE, slot, RP_NO_SLOT, true);
    /* Even when it is DIRTY already, as for a write: propagation stops at
     * readers already marked. */
    propagate_from(graph, rec);
    return rp_settle(graph);
}

rp_status_t rp_node_invalidate(rp_graph_t *graph, rp_node_t node) {
    return rp_call_exclusive(graph, node, node_invalidate);
}
