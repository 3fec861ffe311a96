/*
 * scheduler.c: when effects run.
 *
 * Effects reached by a change are queued, and one flush runs them in the
 * order they were created whatever order propagation reached them in: those
 * that arrive out of that order are sorted once when the flush starts (a radix
 * sort on their creation order, then a merge with those that arrived in
 * order; a heap when the sort has too little room), and those that arrive
 * while it runs go through a binary min-heap.
 * A queued effect that is only PENDING is re-validated first and runs only if
 * something it read changed.
 * Writes made by a running effect are applied at once; the effects they reach
 * join the same flush. One effect running more than `settle_bound` times in a
 * flush stops it with RP_ELOOP.
 */
#include "graph.h"
#include "run.h"

#include <string.h>

static bool before(const rp_queued_t *a, const rp_queued_t *b) {
    return a->order < b->order;
}

static void heap_push(rp_graph_t *graph, rp_queued_t entry) {
    size_t index = graph->heap_count++;
    while (index > 0) {
        size_t parent = (index - 1) / 2;
        if (!before(&entry, &graph->heap[parent])) break;
        graph->heap[index] = graph->heap[parent];
        index = parent;
    }
    graph->heap[index] = entry;
}

/* Floyd's pop: the hole left by the first entry goes down to a leaf along
 * the smaller children, then the last entry goes up from there. It rarely
 * goes up far (it was a leaf), so this makes about half the comparisons of
 * sifting the last entry down from the top. */
static rp_queued_t heap_pop(rp_graph_t *graph) {
    rp_queued_t *heap = graph->heap;
    rp_queued_t first = heap[0];
    size_t count = --graph->heap_count;
    rp_queued_t last = heap[count];
    size_t index = 0;
    for (size_t child = 1; child < count; child = 2 * index + 1) {
        if (child + 1 < count && before(&heap[child + 1], &heap[child])) child++;
        heap[index] = heap[child];
        index = child;
    }
    while (index > 0) {
        size_t parent = (index - 1) / 2;
        if (!before(&last, &heap[parent])) break;
        heap[index] = heap[parent];
        index = parent;
    }
    if (count) heap[index] = last;
    return first;
}

/* Whether `entry` still names the effect queued (not freed since). */
static inline bool entry_live(const rp_graph_t *graph, rp_queued_t entry) {
    return rp_rec(graph, entry.slot)->generation == entry.generation;
}

/* Moves the entries of `ordered` still to run to its start (index 0). */
static void ordered_to_start(rp_graph_t *graph) {
    size_t pending = graph->ordered_count - graph->ordered_head;
    if (pending && graph->ordered_head) {
        memmove(rp_ordered(graph, pending - 1), rp_ordered(graph, graph->ordered_count - 1),
                pending * sizeof(rp_queued_t));
    }
    graph->ordered_head = 0;
    graph->ordered_count = pending;
}

/* Drops entries of effects freed while queued (their generation moved on),
 * so that both parts again hold at most one entry per live effect. */
static void drop_freed_entries(rp_graph_t *graph) {
    size_t kept = 0;
    for (size_t i = graph->ordered_head; i < graph->ordered_count; i++) {
        rp_queued_t entry = *rp_ordered(graph, i);
        if (entry_live(graph, entry)) *rp_ordered(graph, kept++) = entry;
    }
    graph->ordered_head = 0;
    graph->ordered_count = kept;
    kept = 0;
    for (size_t i = 0; i < graph->heap_count; i++) {
        rp_queued_t entry = graph->heap[i];
        if (entry_live(graph, entry)) graph->heap[kept++] = entry;
    }
    graph->heap_count = kept;
    if (!graph->flushing) return; /* in arrival order until the flush sorts it */
    graph->heap_count = 0;
    for (size_t i = 0; i < kept; i++) heap_push(graph, graph->heap[i]);
}

void rp_enqueue(rp_graph_t *graph, uint32_t slot) {
    rp_node_rec_t *rec = rp_rec(graph, slot);
    /* The array holds an entry for every live effect, and an effect is queued
     * at most once: with those of freed effects dropped and those already
     * run moved out, there is room for this one. */
    if (graph->ordered_count + graph->heap_count == graph->queue_capacity) drop_freed_entries(graph);
    if (graph->ordered_count + graph->heap_count == graph->queue_capacity) ordered_to_start(graph);
    rec->flags |= RP_F_QUEUED;
    rp_queued_t entry = {rec->effect_order, slot, rec->generation};
    if (graph->ordered_head == graph->ordered_count) graph->ordered_head = graph->ordered_count = 0;
    if (graph->ordered_count == 0 || before(rp_ordered(graph, graph->ordered_count - 1), &entry)) {
        *rp_ordered(graph, graph->ordered_count++) = entry;
    } else if (graph->flushing) {
        heap_push(graph, entry);
    } else {
        graph->heap[graph->heap_count++] = entry;
    }
}

/* Sorts `count` entries of `entries` by creation order, using `spare` and,
 * when not NULL, `spare2` (each as large) for room; returns which of them
 * holds the result (never `entries` when `spare2` is given and there are more
 * than 16: passes after the first alternate between the spares). Least
 * significant byte first, one counting pass per byte in which the orders
 * differ: a few instructions per entry and byte, against a logarithmic number
 * of comparisons per entry for a heap. */
static rp_queued_t *sort_by_order(rp_queued_t *entries, rp_queued_t *spare, rp_queued_t *spare2, size_t count) {
    if (count <= 16) {
        for (size_t i = 1; i < count; i++) {
            rp_queued_t moving = entries[i];
            size_t j = i;
            for (; j > 0 && before(&moving, &entries[j - 1]); j--) entries[j] = entries[j - 1];
            entries[j] = moving;
        }
        return entries;
    }
    uint64_t low = entries[0].order, high = low;
    for (size_t i = 1; i < count; i++) {
        uint64_t order = entries[i].order;
        if (order < low) low = order;
        if (order > high) high = order;
    }
    uint64_t range = high - low;
    for (unsigned shift = 0; shift < 64 && (range >> shift) != 0; shift += 8) {
        uint32_t starts[256] = {0};
        for (size_t i = 0; i < count; i++) starts[((entries[i].order - low) >> shift) & 0xff]++;
        uint32_t total = 0;
        for (unsigned digit = 0; digit < 256; digit++) {
            uint32_t here = starts[digit];
            starts[digit] = total;
            total += here;
        }
        for (size_t i = 0; i < count; i++) spare[starts[((entries[i].order - low) >> shift) & 0xff]++] = entries[i];
        rp_queued_t *sorted = spare;
        spare = spare2 != NULL ? spare2 : entries;
        spare2 = spare2 != NULL ? sorted : NULL;
        entries = sorted;
    }
    return entries;
}

/* Makes `heap` a binary min-heap in place (Floyd's method: sift every inner
 * entry down, last first). */
static void heapify(rp_graph_t *graph) {
    rp_queued_t *heap = graph->heap;
    size_t count = graph->heap_count;
    for (size_t start = count / 2; start-- > 0;) {
        rp_queued_t moving = heap[start];
        size_t index = start;
        for (size_t child = 2 * index + 1; child < count; child = 2 * index + 1) {
            if (child + 1 < count && before(&heap[child + 1], &heap[child])) child++;
            if (!before(&heap[child], &moving)) break;
            heap[index] = heap[child];
            index = child;
        }
        heap[index] = moving;
    }
}

/* Whether queue entry `entry` still names an effect that is queued. */
static inline bool still_queued(const rp_graph_t *graph, rp_queued_t entry) {
    const rp_node_rec_t *rec = rp_rec(graph, entry.slot);
    return rec->generation == entry.generation && (rec->flags & RP_F_QUEUED);
}

/* A savepoint's rollback unqueued effects: outside a flush their entries
 * go, the others keeping their order (arrival order in `heap`). In a flush
 * `heap` is a heap: an effect that still has an entry there is marked QUEUED
 * again instead, and the flush passes it over as up to date when it comes
 * (so it is never queued twice). Out of line and apart from the flush's code. */
__attribute__((noinline, cold)) void rp_queue_drop_unqueued(rp_graph_t *graph) {
    size_t kept = 0;
    for (size_t i = 0; i < graph->heap_count; i++) {
        rp_queued_t entry = graph->heap[i];
        if (graph->flushing) {
            rp_node_rec_t *rec = rp_rec(graph, entry.slot);
            if (rec->generation == entry.generation) rec->flags |= RP_F_QUEUED;
        } else if (still_queued(graph, entry)) {
            graph->heap[kept++] = entry;
        }
    }
    if (!graph->flushing) graph->heap_count = kept;
    kept = graph->ordered_head;
    for (size_t i = graph->ordered_head; i < graph->ordered_count; i++) {
        rp_queued_t entry = *rp_ordered(graph, i);
        if (still_queued(graph, entry)) *rp_ordered(graph, kept++) = entry;
    }
    graph->ordered_count = kept;
}

/* A flush starts here: the effects queued out of order since the last one are
 * sorted and merged into `ordered`, which then holds the whole queue, and
 * `heap` is empty. The sort's room is the walk stack above its top (nothing
 * walks while a flush starts; it holds 1.5 entries per frame that the deepest
 * walk and a propagation keep); when it holds fewer entries than are to be
 * sorted, `heap` is made a heap instead, and the flush takes the next effect
 * from either part. */
static void merge_queued_out_of_order(rp_graph_t *graph) {
    if (graph->heap_count == 0) return;
    size_t count = graph->heap_count;
    size_t room = (graph->stack_capacity - graph->stack_top) * sizeof(rp_frame_t) / sizeof(rp_queued_t);
    if (room < count) {
        heapify(graph);
        return;
    }
    /* With room for two runs the sorted run ends in that room, out of the
     * way of the merged queue, which may reach into `heap`; else it moves
     * there when it ended in `heap` and the merged queue reaches it. */
    rp_queued_t *room_start = (rp_queued_t *)(graph->stack + graph->stack_top);
    rp_queued_t *second_half = room >= 2 * count ? room_start + count : NULL;
    const rp_queued_t *sorted = sort_by_order(graph->heap, room_start, second_half, count);
    /* Merged from the end into `ordered`, whose entries move to its start
     * first: the entry written never overtakes the next one read. */
    ordered_to_start(graph);
    size_t pending = graph->ordered_count;
    if (sorted == graph->heap && pending + 2 * count > graph->queue_capacity) {
        sorted = memcpy(room_start, sorted, count * sizeof(rp_queued_t));
    }
    size_t a = pending, b = count, out = pending + count;
    while (b > 0) {
        const rp_queued_t *next = a > 0 && before(&sorted[b - 1], rp_ordered(graph, a - 1)) ? rp_ordered(graph, --a)
                                                                                              : &sorted[--b];
        *rp_ordered(graph, --out) = *next;
    }
    graph->ordered_head = 0;
    graph->ordered_count = pending + count;
    graph->heap_count = 0;
}

/* Takes the next effect into *entry, or says the queue is empty (false). The
 * common case, `ordered` alone, reads the queue's counts once, `ordered`
 * first: its head is taken when `heap` is empty or comes later. */
static inline bool pop_first(rp_graph_t *graph, rp_queued_t *entry) {
    size_t head = graph->ordered_head;
    if (head < graph->ordered_count) {
        const rp_queued_t *first = rp_ordered(graph, head);
        if (__builtin_expect(graph->heap_count == 0, 1) || before(first, &graph->heap[0])) {
            *entry = *first;
            graph->ordered_head = head + 1;
            return true;
        }
    } else if (graph->heap_count == 0) {
        return false;
    }
    *entry = heap_pop(graph);
    return true;
}

/* The end of effect `rec`'s (at `slot`) re-validation, which found `check`:
 * an effect disposed meanwhile is freed, and does not run. */
static inline rp_check_t effect_checked(rp_graph_t *graph, uint32_t slot, rp_node_rec_t *rec, rp_check_t check) {
    if (__builtin_expect(rec->flags & RP_F_DISPOSING, 0)) {
        rp_node_finish_if_disposing(graph, slot);
        check.dirty = 0;
    }
    return check;
}

/* Re-validates PENDING effect `rec` (at `slot`): `dirty` says whether
 * something it read changed. Inline: the flush does this for most effects it
 * takes, and keeps both answers in registers. */
static inline rp_check_t refresh_effect(rp_graph_t *graph, uint32_t slot, rp_node_rec_t *rec) {
    return effect_checked(graph, slot, rec, rp_check_dirty_pair(graph, slot, rec));
}

/* The flush stopped at `looping`: name the effects that reached the bound.
 * Every effect still queued, `looping` included, stays queued and marked, so
 * the next flush (the next write, read or batch end) takes them up again. */
static rp_status_t stop_loop(rp_graph_t *graph, uint32_t looping) {
    rp_enqueue(graph, looping);
    /* Effects only: other nodes keep their read stamp where effects keep
     * `flush_id` (graph.h). No effect is running: the flush is between runs. */
    size_t count = 0;
    for (uint32_t slot = 0; slot < graph->nslots; slot++) {
        rp_node_rec_t *rec = rp_rec(graph, slot);
        if ((rec->flags & RP_F_LIVE) && rec->kind == RP_KIND_EFFECT && rec->flush_id == graph->flush_id &&
            rec->flush_runs >= graph->settle_bound) {
            count++;
        }
    }
    rp_node_t *nodes = rp_diagnostic_reserve(graph, count);
    if (nodes == NULL) return RP_ELOOP;
    for (uint32_t slot = 0, index = 0; slot < graph->nslots; slot++) {
        rp_node_rec_t *rec = rp_rec(graph, slot);
        if ((rec->flags & RP_F_LIVE) && rec->kind == RP_KIND_EFFECT && rec->flush_id == graph->flush_id &&
            rec->flush_runs >= graph->settle_bound) {
            nodes[index++] = rp_handle(graph, slot);
        }
    }
    /* Sorted by creation order (effects' own): slots are reused, so slot
     * order is not it. */
    for (size_t i = 1; i < count; i++) {
        rp_node_t node = nodes[i];
        uint64_t order = rp_rec(graph, node.slot)->effect_order;
        size_t j = i;
        for (; j > 0 && rp_rec(graph, nodes[j - 1].slot)->effect_order > order; j--) nodes[j] = nodes[j - 1];
        nodes[j] = node;
    }
    return RP_ELOOP;
}

/* Counts a run (or a recheck) of effect `rec` in this flush: false, counting
 * nothing, when it has made `settle_bound` already. None yet when it last ran
 * in an earlier flush, the common case, which the bound (at least 1) cannot
 * stop: so one that reaches it has this flush's id already, as stop_loop
 * expects. */
static inline bool count_run(rp_graph_t *graph, rp_node_rec_t *rec) {
    uint32_t flush_id = graph->flush_id;
    if (__builtin_expect(rec->flush_id != flush_id, 1)) {
        rec->flush_id = flush_id;
        rec->flush_runs = 1;
        return true;
    }
    uint32_t runs = rec->flush_runs;
    if (runs >= graph->settle_bound) return false;
    rec->flush_runs = runs + 1;
    return true;
}

void rp_schedule_deferred(rp_graph_t *graph, uint32_t slot) {
    rp_node_rec_t *rec = rp_rec(graph, slot);
    rec->flags |= RP_F_SCHEDULED;
    graph->callbacks.schedule(graph->callbacks.host, graph, rp_handle(graph, slot), rec->data);
}

rp_status_t rp_flush(rp_graph_t *graph) {
    if (graph->flushing) return RP_OK;
    merge_queued_out_of_order(graph);
    graph->flushing = true;
    if (++graph->flush_id == 0) {
        /* Wrapped around (once in 2^32 flushes): no effect may keep the id of
         * a flush that the next ones would repeat. */
        for (uint32_t slot = 0; slot < graph->nslots; slot++) {
            rp_node_rec_t *rec = rp_rec(graph, slot);
            if ((rec->flags & RP_F_LIVE) && rec->kind == RP_KIND_EFFECT) rec->flush_id = 0;
        }
        graph->flush_id = 1;
    }
    rp_status_t result = RP_OK;
    rp_queued_t entry;
    while (pop_first(graph, &entry)) {
        rp_node_rec_t *rec = rp_rec(graph, entry.slot);
        if (rec->generation != entry.generation) continue; /* freed since it was queued */
        uint16_t flags = rec->flags & (uint16_t)~RP_F_QUEUED;
        rec->flags = flags;
        if (flags & RP_F_DEFERRED) {
            /* Its host runs it: it stays marked until the update, so later
             * writes coalesce into that one. */
            if ((flags & RP_F_STALE) && !(flags & RP_F_SCHEDULED)) rp_schedule_deferred(graph, entry.slot);
            continue;
        }
        if (!(flags & RP_F_DIRTY)) {
            if (!(flags & RP_F_PENDING)) continue;
            rp_check_t check = refresh_effect(graph, entry.slot, rec);
        checked:
            if (check.status) {
                /* It stays queued and marked, as after RP_ELOOP: the next flush retries it. */
                if (rec->generation == entry.generation) rp_enqueue(graph, entry.slot);
                result = check.status;
                break;
            }
            if (!check.dirty) {
                /* Not dirty yet still PENDING: a compute wrote while the
                 * walk checked it, so it checks again later in this flush,
                 * counted like a run so that it cannot spin. */
                if (!(rec->flags & RP_F_PENDING) || rec->generation != entry.generation) {
                    /* Done with. The queue's next effects, as long as they
                     * come out clean too (as under a node read by many), are
                     * walked in one call (no call when the queue is empty,
                     * which is the test that ends this loop). */
                    if (rp_queue_empty(graph)) break;
                    rp_chained_t chained = rp_check_queued(graph);
                    if (chained.rec == 0) {
                        if (chained.entry == RP_OK) continue;
                        result = (rp_status_t)chained.entry;
                        break;
                    }
                    rec = (rp_node_rec_t *)(chained.rec & ~(uintptr_t)1);
                    entry.slot = (uint32_t)chained.entry;
                    entry.generation = (uint32_t)(chained.entry >> 32);
                    check = effect_checked(graph, entry.slot, rec, (rp_check_t){chained.rec & 1, RP_OK});
                    goto checked;
                }
                if (!count_run(graph, rec)) {
                    result = stop_loop(graph, entry.slot);
                    break;
                }
                rp_enqueue(graph, entry.slot);
                continue;
            }
        }
        if (!count_run(graph, rec)) {
            result = stop_loop(graph, entry.slot);
            break;
        }
        /* Its entry's generation is its own still: a check that freed it
         * found it clean. */
        rp_run_effect_inline(graph, entry.slot, rec, entry.generation);
    }
    graph->flushing = false;
    return result;
}

rp_status_t rp_settle_slow(rp_graph_t *graph) {
    rp_status_t status = RP_OK;
    if (!rp_queue_empty(graph) && !graph->batch_depth && graph->active_rec == NULL && !graph->flushing) {
        status = rp_flush(graph);
    }
    /* Most flushes leave nobody unwatched: no call then. */
    if (graph->unwatch_head != graph->unwatch_count) rp_deliver_unwatched(graph);
    return status;
}

/* rp_batch_begin when the graph is not this thread's to take at once: out of
 * line, so that the common case saves no registers. */
static __attribute__((noinline)) rp_status_t batch_begin_waiting(rp_graph_t *graph, void *self, rp_entry_t entry) {
    rp_exclusive_enter_rest(graph, self, entry);
    graph->batch_depth++;
    return RP_OK;
}

/* The batch holds the graph from begin to end: its exclusive section is left
 * by the matching end. */
rp_status_t rp_batch_begin(rp_graph_t *graph) {
    if (graph == NULL) return RP_EINVAL;
    void *self = rp_thread_self();
    rp_entry_t entry = rp_exclusive_try_enter(graph, self);
    if (entry != RP_ENTRY_HELD) return batch_begin_waiting(graph, self, entry);
    graph->batch_depth++;
    return RP_OK;
}

/* rp_batch_end with something to settle, out of line for the same reason. */
static __attribute__((noinline)) rp_status_t batch_end_settling(rp_graph_t *graph) {
    rp_status_t status = rp_settle_slow(graph);
    rp_exclusive_exit(graph);
    return status;
}

/* rp_batch_end closing the outermost batch outside runs with effects queued
 * and no `unwatched` waiting (the common case of a batch that wrote): what
 * rp_settle_slow would test again is known. */
static __attribute__((noinline)) rp_status_t batch_end_flushing(rp_graph_t *graph) {
    rp_status_t status = rp_flush(graph);
    /* The flush's effects may have left some unwatched. */
    if (graph->unwatch_head != graph->unwatch_count) rp_deliver_unwatched(graph);
    rp_exclusive_exit(graph);
    return status;
}

rp_status_t rp_batch_end(rp_graph_t *graph) {
    if (graph == NULL) return RP_EINVAL;
    /* No batch open, or a savepoint opened in this one and still open (ripple.h): one comparison for both. */
    if (!rp_exclusive_held(graph) || graph->batch_depth <= graph->batch_floor) return RP_ESTATE;
    uint32_t depth = graph->batch_depth - 1;
    graph->batch_depth = depth;
    /* rp_settle_needed's cases, in its order, the flush apart. */
    if (__builtin_expect(graph->unwatch_head != graph->unwatch_count, 0)) return batch_end_settling(graph);
    if (depth == 0 && graph->active_rec == NULL && !rp_queue_empty(graph)) return batch_end_flushing(graph);
    rp_exclusive_exit(graph);
    return RP_OK;
}

/* Resolves an effect for a run or an update. */
static rp_status_t resolve_idle_effect(rp_graph_t *graph, rp_node_t node, uint32_t *slot) {
    rp_status_t status = rp_resolve(graph, node, slot);
    if (status) return status;
    rp_node_rec_t *rec = rp_rec(graph, *slot);
    if (rec->kind != RP_KIND_EFFECT) return RP_EKIND;
    if (rec->flags & RP_F_BUSY) return RP_EBUSY;
    return RP_OK;
}

static rp_status_t run_now(rp_graph_t *graph, rp_node_t node) {
    uint32_t slot;
    rp_status_t status = resolve_idle_effect(graph, node, &slot);
    if (status) return status;
    rp_run_effect(graph, slot, rp_rec(graph, slot));
    return rp_settle(graph);
}

rp_status_t rp_effect_run(rp_graph_t *graph, rp_node_t node) {
    return rp_call_exclusive(graph, node, run_now);
}

static rp_status_t update_effect(rp_graph_t *graph, uint32_t slot) {
    rp_node_rec_t *rec = rp_rec(graph, slot);
    rec->flags &= (uint16_t)~RP_F_SCHEDULED;
    bool run = (rec->flags & RP_F_DIRTY) != 0;
    if (!run && (rec->flags & RP_F_PENDING)) {
        rp_check_t check = refresh_effect(graph, slot, rec);
        if (check.status) {
            /* Still due: the next flush schedules (or runs) it again. */
            if ((rec->flags & RP_F_LIVE) && !(rec->flags & RP_F_QUEUED)) rp_enqueue(graph, slot);
            return check.status;
        }
        run = check.dirty != 0;
    }
    if (run) rp_run_effect(graph, slot, rec);
    /* Written while it was checked or while it ran: due again. */
    uint16_t flags = rec->flags;
    if ((flags & RP_F_LIVE) && (flags & RP_F_STALE) && !(flags & (RP_F_QUEUED | RP_F_SCHEDULED))) {
        rp_enqueue(graph, slot);
    }
    return RP_OK;
}

static rp_status_t update_now(rp_graph_t *graph, rp_node_t node) {
    uint32_t slot;
    rp_status_t status = resolve_idle_effect(graph, node, &slot);
    if (status == RP_OK) status = update_effect(graph, slot);
    rp_status_t flushed = rp_settle(graph);
    return status ? status : flushed;
}

rp_status_t rp_effect_update(rp_graph_t *graph, rp_node_t node) {
    return rp_call_exclusive(graph, node, update_now);
}
