/*
 * sections.c: how threads share one graph.
 *
 * A thread holds the graph exclusively for every call that may change it
 * (writes, computes, effect runs, creation, disposal, batches), so the engine's
 * algorithms run on one thread at a time and effects never overlap. Reads of
 * nodes that are already up to date change nothing: those share the graph.
 *
 * The protocol is a reader-writer lock that prefers writers and keeps readers
 * off each other's cache lines:
 *   - A reader increments its stripe's counter, then looks at `owner`. No
 *     owner: it is in. An owner: it decrements and waits for the release.
 *   - A writer installs itself as `owner` (compare-and-swap from NULL), then waits
 *     until every stripe counts zero. New readers back off as soon as they see
 *     it, so it waits only for readers already inside, whose sections are short.
 *   - Both orders are full barriers (store, then load of the other side's word),
 *     so a reader and a writer cannot both miss each other.
 * The owner re-enters freely (callbacks call back into the graph; a batch
 * spans calls). Threads that cannot get in spin briefly, then sleep on a
 * condition variable that the releasing owner signals only when someone sleeps.
 */
#include "graph.h"

#include <sched.h>

/* Rounds of pause before sleeping (waiting for an owner) or yielding (a writer
 * waiting for readers): a short section ends well within this. */
#define RP_SPIN_ROUNDS 128u

rp_status_t rp_sections_init(rp_sections_t *sections) {
    if (pthread_mutex_init(&sections->sleep, NULL) != 0) return RP_ENOMEM;
    if (pthread_cond_init(&sections->released, NULL) != 0) {
        pthread_mutex_destroy(&sections->sleep);
        return RP_ENOMEM;
    }
    return RP_OK;
}

void rp_sections_destroy(rp_sections_t *sections) {
    pthread_cond_destroy(&sections->released);
    pthread_mutex_destroy(&sections->sleep);
}

/* Returns once no thread holds the graph exclusively (it may be taken again
 * before the caller acts: callers retry). */
static void wait_for_release(rp_sections_t *sections) {
    for (unsigned round = 0; round < RP_SPIN_ROUNDS; round++) {
        if (rp_sync_load_ptr(&sections->owner) == NULL) return;
        rp_sync_pause();
    }
    pthread_mutex_lock(&sections->sleep);
    rp_sync_inc_u32(&sections->waiters);
    while (rp_sync_load_ptr(&sections->owner) != NULL) pthread_cond_wait(&sections->released, &sections->sleep);
    rp_sync_dec_u32(&sections->waiters);
    pthread_mutex_unlock(&sections->sleep);
}

void rp_exclusive_acquire(rp_graph_t *graph, void *self) {
    rp_sections_t *sections = &graph->sections;
    while (!rp_sync_cas_ptr(&sections->owner, NULL, self)) wait_for_release(sections);
    sections->depth = 1;
    for (uint32_t stripe = 0; stripe < RP_READER_STRIPES; stripe++) {
        unsigned round = 0;
        while (rp_sync_load_u32(&sections->stripes[stripe].readers) != 0) {
            if (++round < RP_SPIN_ROUNDS) {
                rp_sync_pause();
            } else {
                sched_yield(); /* a reader inside was preempted */
            }
        }
    }
}

void rp_exclusive_release(rp_graph_t *graph) {
    rp_sections_t *sections = &graph->sections;
    (void)rp_sync_cas_ptr(&sections->owner, rp_thread_self(), NULL);
    if (rp_sync_load_u32(&sections->waiters) != 0) {
        pthread_mutex_lock(&sections->sleep);
        pthread_cond_broadcast(&sections->released);
        pthread_mutex_unlock(&sections->sleep);
    }
}

/* Tries to join the readers without waiting: the ticket of the stripe
 * entered, or 0 when an owner holds the graph (`*owner` says which). */
static uint32_t try_share(rp_sections_t *sections, void *self, void **owner) {
    uint32_t stripe = rp_stripe_for(self);
    rp_sync_inc_u32(&sections->stripes[stripe].readers);
    *owner = rp_sync_load_ptr(&sections->owner);
    if (*owner == NULL) return stripe + 1;
    rp_sync_dec_u32(&sections->stripes[stripe].readers);
    return 0;
}

uint32_t rp_shared_enter(rp_graph_t *graph) {
    rp_sections_t *sections = &graph->sections;
    void *self = rp_thread_self();
    for (;;) {
        void *owner;
        uint32_t ticket = try_share(sections, self, &owner);
        if (ticket != 0) return ticket;
        if (owner == self) {
            sections->depth++;
            return RP_TICKET_EXCLUSIVE;
        }
        wait_for_release(sections);
    }
}

void rp_shared_exit(rp_graph_t *graph, uint32_t ticket) {
    if (ticket == RP_TICKET_EXCLUSIVE) {
        rp_exclusive_exit(graph);
    } else {
        rp_sync_dec_u32(&graph->sections.stripes[ticket - 1].readers);
    }
}

bool rp_sections_busy(rp_graph_t *graph) {
    const rp_sections_t *sections = &graph->sections;
    if (rp_sync_load_ptr(&sections->owner) != NULL) return true;
    for (uint32_t stripe = 0; stripe < RP_READER_STRIPES; stripe++) {
        if (rp_sync_load_u32(&sections->stripes[stripe].readers) != 0) return true;
    }
    return false;
}

/* The fast path of rp_node_read_begin: a thread that does not hold the graph
 * reads an up-to-date node, which changes nothing, so it only shares it. */
bool rp_try_shared_read(rp_graph_t *graph, rp_node_t node, void *self, uint32_t *ticket) {
    rp_sections_t *sections = &graph->sections;
    void *owner;
    uint32_t shared = try_share(sections, self, &owner);
    if (shared == 0) return false;
    /* Effects left queued (a flush stopped by an error) or unwatched
     * notifications waiting: the read's end must deliver them, holding the
     * graph. Both are written only by the holder, so reading them here is safe. */
    bool settled = rp_queue_empty(graph) && graph->unwatch_head == graph->unwatch_count;
    if (settled && node.graph_tag == graph->tag && node.slot < graph->nslots && node.generation != 0) {
        const rp_node_rec_t *rec = rp_rec(graph, node.slot);
        if (rec->generation == node.generation &&
            (rec->flags & (RP_F_LIVE | RP_F_DISPOSING | RP_F_BUSY | RP_F_STALE)) == RP_F_LIVE &&
            rec->kind != RP_KIND_EFFECT) {
            *ticket = shared;
            return true;
        }
    }
    rp_sync_dec_u32(&sections->stripes[shared - 1].readers);
    return false;
}
