/*
 * sections.c: how threads share one graph.
 *
 * A thread holds the graph exclusively for every call that may change it
 * (writes, computes, effect runs, creation, disposal, batches), so the engine's
 * algorithms run on one thread at a time and effects never overlap. Reads of
 * nodes that are already up to date change nothing: those share the graph.
 *
 * The protocol is a ticket lock for whoever must wait, with readers that do
 * not wait counted on striped counters off each other's cache lines
 * (Tests/Model/sections.pml models it and spin checks it):
 *   - Turns. A thread that needs the graph exclusively takes a ticket
 *     (`next`, fetch-and-add) and waits until `turn` names it, so waiting is
 *     first come, first served: a thread that releases and comes straight
 *     back queues behind everyone already waiting (at most one turn each).
 *   - Readers. A reader increments its stripe's counter, then compares `next`
 *     with `turn`: equal means nobody holds or waits for a turn, and it is in.
 *     Otherwise it takes a ticket (still counted, so it is never invisible),
 *     stops counting, and on its turn counts itself again and passes the turn
 *     straight on: waiting readers enter in order but share the graph.
 *   - Writers. On its turn a writer records itself as `owner` (for reentrancy)
 *     and waits until every stripe counts zero. Its ticket made readers back
 *     off from the moment it was taken, so it waits only for readers already
 *     inside, whose sections are short (writer preference).
 *   - The reader's increment then load of `next`/`turn`, and the writer's
 *     ticket then load of the stripes, are each a store then a load of the
 *     other side's word (the Dekker pattern): both need a full barrier between
 *     their two accesses (sync.h's "entering" helpers), or a reader and a
 *     writer can both miss each other. Leaving (the stripe decrement, passing
 *     the turn) is a release: the section's loads and stores come before it.
 *   - Sleep. A thread whose turn does not come within a short spin sets
 *     RP_TURN_SLEEPERS in `turn` (under `sleep`) and waits on `released`.
 *     Passing the turn on is one compare-and-swap that fails when the bit is
 *     set; then the releaser stores the next turn and broadcasts under `sleep`.
 * The owner re-enters freely (callbacks call back into the graph; a batch
 * spans calls).
 *
 * Bias. Most graphs are used by one thread, for which the above costs two
 * read-modify-writes and a scan of the stripes per call. So a graph starts
 * biased to the thread that created it (`bias`, `biased` RP_BIAS_ON): that
 * thread takes the graph exclusively with plain stores and loads, no turn,
 * no stripe (rp_exclusive_enter_owned in graph.h): it announces itself
 * (`inside` = 1), checks that the bias still holds, and withdraws the
 * announcement as the last access of its call. Nobody else is inside while
 * the bias holds: every other thread first takes a turn and revokes the bias
 * (revoke_bias: RP_BIAS_REVOKING, the heavy barrier, wait until `inside` is
 * 0, RP_BIAS_OFF), after which the graph is shared as above, for good.
 *   - The announcement then the check, against the revoker's store of the
 *     state then load of `inside`, is the Dekker pattern again; the bias
 *     thread's side has no fence and the revoker pays for both with
 *     membarrier(2) (sync.h). Either the revoker sees the announcement and
 *     waits, or the bias thread sees the revocation and backs off (queues for
 *     a turn, then withdraws the announcement: never unseen mid-call).
 *   - Readers share the graph only when they load RP_BIAS_OFF before they
 *     find no turn taken: the state is stored holding a turn taken before, so
 *     seeing both means the revocation is over. A reader that finds the bias
 *     on takes a turn to revoke it (rp_try_shared_read, rp_shared_enter).
 *   - The revoker waits for the bias thread's call to end (spinning, then
 *     yielding, then sleeping with backoff: the call may be a long batch);
 *     that happens once per graph.
 *   - Destruction treats the announcement as the bias thread's first access
 *     (bias_thread_inside).
 *   - Without membarrier a graph is never biased: on other kernels, under a
 *     seccomp filter that refuses it, on Apple platforms (their candidate,
 *     .NET's FlushProcessWriteBuffers there, reads every thread's registers
 *     through Mach and rests on XNU's behaviour, not a documented guarantee),
 *     and when RIPPLE_NO_BIAS is set in the environment (scripts/test runs
 *     the suites so, scripts/bench measures what it costs).
 *
 * Destruction: a thread is visible from its first access to its last. Its
 * first is a stripe increment or a ticket, its last a stripe decrement, the
 * compare-and-swap that passes a turn, or (when it woke sleepers) unlocking
 * `sleep`, which no sleeper can outlast. rp_sections_try_close takes a ticket
 * only when none is outstanding, checks the stripes, then checks that nobody
 * took a ticket since (a reader moves from its stripe to a ticket by taking
 * the ticket first, so loading the stripes before `next` sees it in one or the
 * other): when it succeeds, no thread that had started a call is still inside
 * one.
 */
#define _DEFAULT_SOURCE /* syscall(2) */

#include "graph.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__linux__) && !defined(RP_SYNC_TSAN)
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

/* Rounds of pause before sleeping (waiting for a turn) or yielding (a writer
 * waiting for readers): a short section ends well within this. */
#define RP_SPIN_ROUNDS 128u

/* The revoker's side of the bias's Dekker pattern (sync.h). Under
 * ThreadSanitizer every access on both sides is seq_cst, which orders the
 * revoker's store before its load by itself: nothing to add (and the
 * sanitizer checks that protocol). */
#if defined(RP_SYNC_TSAN)
static bool heavy_barrier_init(void) {
    return true;
}
static void heavy_barrier(void) {}
#elif defined(__linux__)
/* Registers the process for expedited membarrier (idempotent: one system
 * call); false when the kernel does not offer it. */
static bool heavy_barrier_init(void) {
    return syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0) == 0;
}
/* A full barrier on every running thread of the process and this one; only
 * called for a graph whose heavy_barrier_init succeeded. It fails then only
 * if the process forbade membarrier since (a seccomp filter installed after
 * the graph was created): without it the bias thread's plain accesses may be
 * reordered past the revocation, and two threads would hold the graph at
 * once. No status can reach the caller from here and no other barrier is
 * sure to do, so the process stops, saying why, rather than go on unsafe
 * (ripple.h, "threads", states the rule). */
static void heavy_barrier(void) {
    if (syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) == 0) return;
    static const char message[] =
        "ripple: membarrier(2) failed after a graph was created biased to its creator thread (a seccomp filter "
        "installed since?); revoking the bias is unsafe without it: aborting\n";
    (void)!write(STDERR_FILENO, message, sizeof message - 1);
    abort();
}
#else
static bool heavy_barrier_init(void) {
    return false;
}
static void heavy_barrier(void) {}
#endif

/* RIPPLE_NO_BIAS set to anything but "" or "0": no graph is biased, as where
 * there is no heavy barrier. Read at each graph's creation: nothing kept. */
static bool bias_disabled(void) {
    const char *value = getenv("RIPPLE_NO_BIAS");
    return value != NULL && value[0] != '\0' && strcmp(value, "0") != 0;
}

rp_status_t rp_sections_init(rp_sections_t *sections) {
    if (pthread_mutex_init(&sections->sleep, NULL) != 0) return RP_ENOMEM;
    if (pthread_cond_init(&sections->released, NULL) != 0) {
        pthread_mutex_destroy(&sections->sleep);
        return RP_ENOMEM;
    }
    /* Biased to its creator, which is usually the thread that uses it. */
    bool biased = !bias_disabled() && heavy_barrier_init();
    sections->bias = biased ? rp_thread_self() : NULL;
    sections->biased = biased ? RP_BIAS_ON : RP_BIAS_OFF;
    return RP_OK;
}

/* Revocation, by a thread holding a turn (so by one thread at a time): moves
 * the state from RP_BIAS_ON to RP_BIAS_REVOKING, after which the bias thread
 * never enters through the bias again, then (the heavy barrier: pairs with
 * the bias thread's announcement then load of the state) sees its
 * announcement if it is inside. Returns whether it is outside, in which case
 * the state is RP_BIAS_OFF: nobody is inside through the bias, ever again. */
static bool try_revoke_bias(rp_sections_t *sections) {
    uint32_t state = rp_sync_load_u32(&sections->biased);
    if (state == RP_BIAS_OFF) return true;
    if (state == RP_BIAS_ON) {
        rp_sync_store_u32_release(&sections->biased, RP_BIAS_REVOKING);
        heavy_barrier();
    }
    /* Acquire: pairs with the releasing store that withdraws the announcement
     * (rp_exclusive_exit, rp_bias_back_off): what it did inside comes first. */
    if (rp_sync_load_u32(&sections->inside) != 0) return false;
    rp_sync_store_u32_release(&sections->biased, RP_BIAS_OFF);
    return true;
}

/* try_revoke_bias, waiting for the bias thread to leave: spin, then yield, then
 * sleep (it may be inside a long batch); once per graph at most. */
static void revoke_bias(rp_sections_t *sections) {
    long nanoseconds = 1000;
    for (unsigned round = 0; !try_revoke_bias(sections); round++) {
        if (round < RP_SPIN_ROUNDS) {
            rp_sync_pause();
        } else if (round < 2 * RP_SPIN_ROUNDS) {
            sched_yield();
        } else {
            struct timespec pause = {0, nanoseconds};
            nanosleep(&pause, NULL);
            if (nanoseconds < 1000000) nanoseconds *= 2;
        }
    }
}

void rp_sections_destroy(rp_sections_t *sections) {
    pthread_cond_destroy(&sections->released);
    pthread_mutex_destroy(&sections->sleep);
}

/* Whether nobody holds or waits for a turn. Called after the caller's stripe
 * increment (entering: full barrier): pairs with the ticket a writer takes
 * before loading the stripes, so one of the two sees the other. */
static inline bool no_turn_taken(const rp_sections_t *sections) {
    uint32_t next = rp_sync_load_u32(&sections->next);
    return next == (rp_sync_load_u32(&sections->turn) & ~RP_TURN_SLEEPERS);
}

/* Entering: the full barrier after the increment pairs with a reader's
 * stripe increment then no_turn_taken, so the writer's later stripe loads
 * (own) and the reader's loads of `next` cannot both miss the other's word. */
static inline uint32_t take_ticket(rp_sections_t *sections) {
    return rp_sync_enter_faa_u32(&sections->next, RP_TICKET_STEP);
}

/* Whether `turn` names `ticket`. The acquiring load pairs with the releasing
 * compare-and-swap (or store) of pass_turn. */
static inline bool is_turn_of(const rp_sections_t *sections, uint32_t ticket) {
    return (rp_sync_load_u32(&sections->turn) & ~RP_TURN_SLEEPERS) == ticket;
}

/* The slow path of wait_for_turn: spin, then sleep. */
static void wait_for_turn_slow(rp_sections_t *sections, uint32_t ticket) {
    for (unsigned round = 0; round < RP_SPIN_ROUNDS; round++) {
        if (is_turn_of(sections, ticket)) return;
        rp_sync_pause();
    }
    pthread_mutex_lock(&sections->sleep);
    for (;;) {
        uint32_t turn = rp_sync_load_u32(&sections->turn);
        if ((turn & ~RP_TURN_SLEEPERS) == ticket) break;
        /* The bit makes the holder's compare-and-swap fail, so it takes the
         * slow path and broadcasts; it can only do so holding `sleep`, which
         * this thread releases atomically as it starts waiting. */
        if (!(turn & RP_TURN_SLEEPERS) &&
            !rp_sync_enter_cas_u32(&sections->turn, turn, turn | RP_TURN_SLEEPERS)) {
            continue;
        }
        pthread_cond_wait(&sections->released, &sections->sleep);
    }
    pthread_mutex_unlock(&sections->sleep);
}

/* Returns once `turn` names `ticket`: at once when nobody was ahead. */
static inline void wait_for_turn(rp_sections_t *sections, uint32_t ticket) {
    if (!is_turn_of(sections, ticket)) wait_for_turn_slow(sections, ticket);
}

/* Gives the turn to the next ticket. Called by the turn's holder, so only
 * RP_TURN_SLEEPERS can change under it. Leaving: the releasing CAS (or store)
 * pairs with is_turn_of's acquiring load in the next holder. */
static void pass_turn(rp_sections_t *sections) {
    uint32_t turn = rp_sync_load_u32(&sections->turn);
    uint32_t following = (turn & ~RP_TURN_SLEEPERS) + RP_TICKET_STEP;
    if (!(turn & RP_TURN_SLEEPERS) && rp_sync_leave_cas_u32(&sections->turn, turn, following)) return;
    pthread_mutex_lock(&sections->sleep);
    /* Clears the bit: sleepers whose turn this is not set it again. */
    rp_sync_store_u32_release(&sections->turn, following);
    pthread_cond_broadcast(&sections->released);
    pthread_mutex_unlock(&sections->sleep);
}

/* On this thread's turn: become the owner and wait for the readers already
 * inside (they saw no ticket before this thread's, so they are few). */
static void own(rp_sections_t *sections, void *self) {
    revoke_bias(sections); /* before `owner`, which the bias thread writes inside */
    rp_sync_store_ptr_relaxed(&sections->owner, self);
    sections->depth = 1;
    sections->fast = false;
    for (uint32_t stripe = 0; stripe < RP_READER_STRIPES; stripe++) {
        unsigned round = 0;
        /* Acquire: pairs with the releasing decrement of each reader inside. */
        while (rp_sync_load_u32(&sections->stripes[stripe].readers) != 0) {
            if (++round < RP_SPIN_ROUNDS) {
                rp_sync_pause();
            } else {
                sched_yield(); /* a reader inside was preempted */
            }
        }
    }
}

void rp_exclusive_acquire(rp_graph_t *graph, void *self) {
    rp_sections_t *sections = &graph->sections;
    if (rp_sync_load_ptr(&sections->owner) == self) return; /* rp_try_shared_read took it */
    wait_for_turn(sections, take_ticket(sections));
    own(sections, self);
}

void rp_bias_back_off(rp_graph_t *graph, void *self) {
    rp_sections_t *sections = &graph->sections;
    /* Queued before the announcement is withdrawn: never unseen mid-call
     * (rp_sections_try_close loads `inside`, then `next`). */
    uint32_t ticket = take_ticket(sections);
    rp_sync_store_u32_release(&sections->inside, 0);
    wait_for_turn(sections, ticket);
    own(sections, self);
}

void rp_exclusive_release(rp_graph_t *graph) {
    rp_sections_t *sections = &graph->sections;
    rp_sync_store_ptr_relaxed(&sections->owner, NULL);
    pass_turn(sections);
}

/* A stripe's counter. Readers enter with an increment followed by a full
 * barrier (pairs with take_ticket, see no_turn_taken) and leave with a
 * releasing decrement (pairs with the acquiring loads of own and
 * rp_sections_try_close: the reader's loads come before the writer's stores). */
static inline uint32_t *stripe_of(rp_sections_t *sections, uint32_t stripe) {
    return &sections->stripes[stripe].readers;
}

/* Whether a reader counted in its stripe may share the graph now: the bias is
 * off and nobody holds or waits for a turn. The state is loaded first: a
 * revoker stores RP_BIAS_OFF holding a turn it took before, so a reader that
 * sees RP_BIAS_OFF and then no turn taken sees a revocation that is over. */
static inline bool may_share(const rp_sections_t *sections) {
    return rp_sync_load_u32(&sections->biased) == RP_BIAS_OFF && no_turn_taken(sections);
}

uint32_t rp_shared_enter(rp_graph_t *graph) {
    rp_sections_t *sections = &graph->sections;
    void *self = rp_thread_self();
    if (rp_exclusive_enter_owned(graph, self)) return RP_TICKET_EXCLUSIVE;
    uint32_t stripe = rp_stripe_for(self);
    rp_sync_enter_faa_u32(stripe_of(sections, stripe), 1);
    if (may_share(sections)) return stripe + 1;
    /* Queue before leaving the stripe: never uncounted mid-call. */
    uint32_t ticket = take_ticket(sections);
    rp_sync_leave_dec_u32(stripe_of(sections, stripe));
    wait_for_turn(sections, ticket);
    revoke_bias(sections); /* readers share only a graph nobody holds through the bias */
    /* Counted before the turn moves on: the next writer, acquiring the turn,
     * sees this increment when it loads the stripes. */
    rp_sync_enter_faa_u32(stripe_of(sections, stripe), 1);
    pass_turn(sections);
    return stripe + 1;
}

void rp_shared_exit(rp_graph_t *graph, uint32_t ticket) {
    if (ticket == RP_TICKET_EXCLUSIVE) {
        rp_exclusive_exit(graph);
    } else {
        rp_sync_leave_dec_u32(stripe_of(&graph->sections, ticket - 1));
    }
}

/* For rp_sections_try_close, holding a turn: whether the bias thread is inside
 * a call (this thread, from a callback, or another); if not and it is
 * another, its bias is revoked for good. Never waits. Whatever the state, the
 * heavy barrier comes first: the bias thread may have announced itself after
 * checking a state that has changed since, and its call is seen from that
 * announcement on (if it then backs off, it queues before it withdraws, and
 * rp_sections_try_close loads `next` after this). */
static bool bias_thread_inside(rp_sections_t *sections) {
    if (sections->bias == NULL) return false;
    if (sections->bias == rp_thread_self()) return sections->inside != 0;
    uint32_t state = rp_sync_load_u32(&sections->biased);
    if (state == RP_BIAS_ON) rp_sync_store_u32_release(&sections->biased, RP_BIAS_REVOKING);
    heavy_barrier();
    if (rp_sync_load_u32(&sections->inside) != 0) return true;
    if (state != RP_BIAS_OFF) rp_sync_store_u32_release(&sections->biased, RP_BIAS_OFF);
    return false;
}

bool rp_sections_try_close(rp_graph_t *graph) {
    rp_sections_t *sections = &graph->sections;
    uint32_t turn = rp_sync_load_u32(&sections->turn) & ~RP_TURN_SLEEPERS;
    /* A ticket only when none is outstanding: a thread holding a turn (this
     * one, from a callback or a batch, or another) or waiting for one (asleep
     * or not) makes this fail. */
    if (!rp_sync_enter_cas_u32(&sections->next, turn, turn + RP_TICKET_STEP)) return false;
    if (bias_thread_inside(sections)) {
        pass_turn(sections);
        return false;
    }
    bool readers = false;
    for (uint32_t stripe = 0; stripe < RP_READER_STRIPES; stripe++) {
        readers |= rp_sync_load_u32(stripe_of(sections, stripe)) != 0;
    }
    /* Then `next` again: a reader counted when the CAS happened may have
     * queued since (a ticket, then its decrement, which the stripe load saw). */
    if (readers || rp_sync_load_u32(&sections->next) != turn + RP_TICKET_STEP) {
        pass_turn(sections);
        return false;
    }
    /* A thread that passed a turn to sleepers may still be returning from
     * pthread_mutex_unlock: taking `sleep` once waits for it to let go. */
    pthread_mutex_lock(&sections->sleep);
    pthread_mutex_unlock(&sections->sleep);
    return true;
}

/* Whether a read of `node` changes nothing, so that the reader may share the
 * graph: the node is live and up to date, and no effects left queued (a flush
 * stopped by an error) or unwatched notifications wait for a read's end to
 * deliver them holding the graph. For a reader no writer can be inside with
 * (counted in its stripe while it may share, or holding a turn): the fields
 * it loads are written only by the holder. */
static bool reads_without_holding(const rp_graph_t *graph, rp_node_t node) {
    if (!rp_settled(graph) || node.graph_tag != graph->tag || node.slot >= graph->nslots || node.generation == 0) return false;
    const rp_node_rec_t *rec = rp_rec(graph, node.slot);
    return rec->generation == node.generation &&
           (rec->flags & (RP_F_LIVE | RP_F_DISPOSING | RP_F_BUSY | RP_F_STALE)) == RP_F_LIVE &&
           rec->kind != RP_KIND_EFFECT;
}

/* The fast path of rp_node_read_begin: a thread that does not hold the graph
 * reads an up-to-date node, which changes nothing, so it only shares it. */
bool rp_try_shared_read(rp_graph_t *graph, rp_node_t node, void *self, uint32_t *ticket) {
    rp_sections_t *sections = &graph->sections;
    uint32_t stripe = rp_stripe_for(self);
    uint32_t turn;
    if (rp_sync_load_u32(&sections->biased) == RP_BIAS_OFF) {
        rp_sync_enter_faa_u32(stripe_of(sections, stripe), 1);
        if (may_share(sections) && reads_without_holding(graph, node)) {
            *ticket = stripe + 1;
            return true;
        }
        /* Queue before leaving the stripe: never uncounted mid-call. */
        turn = take_ticket(sections);
        rp_sync_leave_dec_u32(stripe_of(sections, stripe));
    } else {
        turn = take_ticket(sections); /* biased to another thread: revoked on a turn */
    }
    wait_for_turn(sections, turn);
    revoke_bias(sections); /* readers share only a graph nobody holds through the bias */
    if (reads_without_holding(graph, node)) {
        /* Shares the graph after all, as rp_shared_enter's waiting readers:
         * counted before the turn moves on, so the next writer, acquiring the
         * turn, waits for it. Readers queued behind the bias's revocation or
         * a writer thus share an up-to-date node with the readers inside,
         * instead of holding the graph while those wait for it. */
        rp_sync_enter_faa_u32(stripe_of(sections, stripe), 1);
        pass_turn(sections);
        *ticket = stripe + 1;
        return true;
    }
    own(sections, self);
    return false;
}
