/*
 * sections.c: the protocol by which threads share a graph (Sources/CRipple/
 * sections.c), checked where it meets the host: destruction, the order in
 * which waiting threads get the graph, and the spread of reader stripes.
 *
 *   destroy      a thread blocked in a call (asleep waiting for the graph)
 *                while another holds it: once the holder lets go, the host
 *                retries rp_graph_destroy until it is not RP_EBUSY, as the
 *                header allows. The graph must outlive the blocked call: built
 *                with AddressSanitizer (scripts/test), a use after free fails
 *                the run. Done for a blocked writer and a blocked reader.
 *   first come   a victim blocks (asleep) on a held graph, then a hog that
 *                takes and releases the graph in a loop blocks too; when the
 *                holder lets go, the victim, which waited first, holds the
 *                graph before the hog ever does: the hog's count of its
 *                exclusive sections, read inside the victim's, is exactly 0.
 *                For a writer (a batch) and a reader (a read section).
 *   wrap         the scenarios above start their graphs' ticket words 0 to 2
 *                tickets before they wrap around, so waiting and destroy
 *                cross the wrap; a thread alone then writes, commits and reads
 *                8 times across it (16 tickets and 8 shared reads), and every
 *                ticket is accounted for.
 *   twice        a read section ended a second time is refused (RP_EINVAL)
 *                and changes nothing: inside a batch the batch keeps the
 *                graph (its end is RP_OK and a later write runs the effect),
 *                and a shared section of a thread that shares its reader
 *                stripe with another reader inside leaves that reader
 *                counted (a writer would otherwise enter under it).
 *   stripes      16 threads alive at once spread over at least 6 of the 16
 *                reader stripes, and addresses a fixed stride apart (as
 *                thread control blocks are) over 9.5 on average, and two
 *                threads one glibc stack apart on one stripe at most as often
 *                as a uniform hash puts them there: the stripe hash mixes all
 *                bits of the thread's identity.
 *
 * "Blocked" is observed, not assumed: the thread sets a flag, then calls, and
 * the main thread waits until the kernel reports it asleep (/proc, Linux).
 * The thread spins on its flags, so it sleeps only inside the engine. A run
 * that takes too long (a deadlock) is stopped by an alarm naming the scenario.
 */
#define _GNU_SOURCE

#include "harness.h"

/* White box: the stripe hash is internal. */
#include "../../Sources/CRipple/graph.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define ROUNDS 20
#define STRIPE_THREADS 16

static void on_alarm(int signal)
{
    (void)signal;
    static const char message[] = "sections: timed out (a deadlock?)\n";
    (void)!write(STDERR_FILENO, message, sizeof message - 1);
    _exit(2);
}

static void begin(const char *scenario)
{
    harness_begin(scenario);
    alarm(60);
}

/* ------------------------------------------------------------ blocking */

/* Whether the thread is asleep in the kernel ('S' in /proc/.../stat). */
static bool thread_asleep(pid_t tid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/self/task/%d/stat", (int)tid);
    FILE *file = fopen(path, "r");
    if (file == NULL) return false;
    char line[512];
    bool asleep = false;
    if (fgets(line, sizeof line, file) != NULL) {
        const char *end_of_name = strrchr(line, ')');
        asleep = end_of_name != NULL && end_of_name[1] == ' ' && end_of_name[2] == 'S';
    }
    fclose(file);
    return asleep;
}

/* A thread about to make one call that blocks: `tid` once it runs, `calling`
 * just before the call, `returned` after it. */
typedef struct caller {
    atomic_int tid;
    atomic_bool calling;
    atomic_bool returned;
} caller_t;

static void caller_reset(caller_t *caller)
{
    atomic_store(&caller->tid, 0);
    atomic_store(&caller->calling, false);
    atomic_store(&caller->returned, false);
}

static void caller_announce(caller_t *caller)
{
    atomic_store(&caller->tid, (int)syscall(SYS_gettid));
    atomic_store(&caller->calling, true);
}

/* Returns once the caller is asleep inside its call. */
static void wait_until_blocked(const caller_t *caller)
{
    while (!atomic_load(&caller->calling)) sched_yield();
    while (!thread_asleep((pid_t)atomic_load(&caller->tid))) sched_yield();
}

/* The holder: opens a batch (the graph is then held exclusively), says so, and
 * ends it when told. */
typedef struct holder {
    rp_graph_t *graph;
    atomic_bool holding;
    atomic_bool let_go;
    rp_status_t began, ended;
} holder_t;

static void *hold(void *argument)
{
    holder_t *holder = argument;
    holder->began = rp_batch_begin(holder->graph);
    atomic_store(&holder->holding, true);
    while (!atomic_load(&holder->let_go)) sched_yield();
    holder->ended = rp_batch_end(holder->graph);
    return NULL;
}

/* Joins the holder and checks its calls (checks run on the main thread). */
static void join_holder(holder_t *holder, pthread_t thread)
{
    pthread_join(thread, NULL);
    CHECK_ST(holder->began, RP_OK);
    CHECK_ST(holder->ended, RP_OK);
}

static void start_holder(holder_t *holder, rp_graph_t *graph, pthread_t *thread)
{
    holder->graph = graph;
    atomic_store(&holder->holding, false);
    atomic_store(&holder->let_go, false);
    pthread_create(thread, NULL, hold, holder);
    while (!atomic_load(&holder->holding)) sched_yield();
}

/* White box: start the ticket words `before` tickets short of wrapping (a
 * fresh graph has both at 0). */
static void start_tickets_before_wrap(rp_graph_t *graph, uint32_t before)
{
    uint32_t start = (uint32_t)0 - before * RP_TICKET_STEP;
    graph->sections.next = start;
    graph->sections.turn = start;
}

/* ------------------------------------------------------------- destroy */

typedef struct destroy_round {
    rp_graph_t *graph;
    rp_node_t source;
    bool reads; /* the blocked call: rp_node_read, else rp_source_set */
    caller_t caller;
    rp_status_t status;
} destroy_round_t;

static void *blocked_call(void *argument)
{
    destroy_round_t *round = argument;
    caller_announce(&round->caller);
    round->status = round->reads ? rp_node_read(round->graph, round->source)
                                 : rp_source_set(round->graph, round->source);
    atomic_store(&round->caller.returned, true);
    return NULL;
}

static void destroy_while_a_call_waits(bool reads)
{
    begin(reads ? "destroy while a reader waits" : "destroy while a writer waits");
    for (int r = 0; r < ROUNDS; r++) {
        destroy_round_t round = {.reads = reads};
        caller_reset(&round.caller);
        rp_graph_config_t config = {0};
        CHECK_ST(rp_graph_create(&config, &round.graph), RP_OK);
        CHECK_ST(rp_node_create(round.graph, RP_KIND_SOURCE, NULL, &round.source), RP_OK);
        start_tickets_before_wrap(round.graph, (uint32_t)r % 3);
        holder_t holder;
        pthread_t holder_thread, caller_thread;
        start_holder(&holder, round.graph, &holder_thread);
        pthread_create(&caller_thread, NULL, blocked_call, &round);
        wait_until_blocked(&round.caller);
        /* Held by one thread, waited for by another. */
        CHECK_ST(rp_graph_destroy(round.graph), RP_EBUSY);
        atomic_store(&holder.let_go, true);
        rp_status_t status;
        unsigned busy = 0;
        while ((status = rp_graph_destroy(round.graph)) == RP_EBUSY) busy++;
        CHECK_ST(status, RP_OK);
        join_holder(&holder, holder_thread);
        pthread_join(caller_thread, NULL);
        CHECK(atomic_load(&round.caller.returned));
        CHECK_ST(round.status, RP_OK);
        (void)busy;
    }
}

/* ---------------------------------------------------------- first come */

typedef struct race {
    rp_graph_t *graph;
    rp_node_t source;
    bool victim_reads; /* the victim's section: a read section, else a batch */
    caller_t victim;
    caller_t hog;
    atomic_bool stop;
    atomic_long hog_sections;   /* incremented inside each of the hog's batches */
    long hog_sections_seen;     /* read inside the victim's section */
    rp_status_t victim_began, victim_ended;
    rp_status_t hog_failed;     /* the first status other than RP_OK, or RP_OK */
} race_t;

static void *victim(void *argument)
{
    race_t *race = argument;
    caller_announce(&race->victim);
    if (race->victim_reads) {
        rp_read_section_t section;
        race->victim_began = rp_node_read_begin(race->graph, race->source, &section);
        race->hog_sections_seen = atomic_load(&race->hog_sections);
        race->victim_ended = rp_node_read_end(race->graph, &section);
    } else {
        race->victim_began = rp_batch_begin(race->graph);
        race->hog_sections_seen = atomic_load(&race->hog_sections);
        race->victim_ended = rp_batch_end(race->graph);
    }
    atomic_store(&race->victim.returned, true);
    return NULL;
}

static void *hog(void *argument)
{
    race_t *race = argument;
    caller_announce(&race->hog);
    while (!atomic_load(&race->stop) && race->hog_failed == RP_OK) {
        rp_status_t status = rp_batch_begin(race->graph);
        atomic_fetch_add(&race->hog_sections, 1);
        if (status == RP_OK) status = rp_source_set(race->graph, race->source);
        rp_status_t ended = rp_batch_end(race->graph);
        race->hog_failed = status != RP_OK ? status : ended;
    }
    return NULL;
}

static void waiting_threads_go_first_come_first_served(bool victim_reads)
{
    begin(victim_reads ? "first come: a reader before a hog" : "first come: a writer before a hog");
    for (int r = 0; r < ROUNDS; r++) {
        race_t race = {.victim_reads = victim_reads};
        caller_reset(&race.victim);
        caller_reset(&race.hog);
        rp_graph_config_t config = {0};
        CHECK_ST(rp_graph_create(&config, &race.graph), RP_OK);
        CHECK_ST(rp_node_create(race.graph, RP_KIND_SOURCE, NULL, &race.source), RP_OK);
        start_tickets_before_wrap(race.graph, (uint32_t)r % 3);
        holder_t holder;
        pthread_t holder_thread, victim_thread, hog_thread;
        start_holder(&holder, race.graph, &holder_thread);
        pthread_create(&victim_thread, NULL, victim, &race);
        wait_until_blocked(&race.victim);
        pthread_create(&hog_thread, NULL, hog, &race);
        wait_until_blocked(&race.hog);
        atomic_store(&holder.let_go, true);
        pthread_join(victim_thread, NULL);
        atomic_store(&race.stop, true);
        pthread_join(hog_thread, NULL);
        join_holder(&holder, holder_thread);
        CHECK_ST(race.victim_began, RP_OK);
        CHECK_ST(race.victim_ended, RP_OK);
        CHECK_ST(race.hog_failed, RP_OK);
        /* The victim queued first: the hog never held the graph before it. */
        CHECK_EQ(race.hog_sections_seen, 0);
        CHECK(atomic_load(&race.hog_sections) >= 1);
        CHECK_ST(rp_graph_destroy(race.graph), RP_OK);
    }
}

/* ---------------------------------------------------------------- wrap */

static void tickets_wrap_around(void)
{
    begin("wrap: one thread across the wrap");
    rp_graph_t *graph;
    rp_node_t source;
    rp_graph_config_t config = {0};
    CHECK_ST(rp_graph_create(&config, &graph), RP_OK);
    CHECK_ST(rp_node_create(graph, RP_KIND_SOURCE, NULL, &source), RP_OK);
    start_tickets_before_wrap(graph, 3);
    graph->sections.biased = RP_BIAS_OFF; /* white box: the turns, not the bias */
    for (int i = 0; i < 8; i++) {
        CHECK_ST(rp_source_set(graph, source), RP_OK); /* a ticket and its turn */
        CHECK_ST(rp_node_read(graph, source), RP_OK);  /* commits the write: a ticket */
        CHECK_ST(rp_node_read(graph, source), RP_OK);  /* shared: compares next with turn */
    }
    /* 16 tickets from 3 short of the wrap; the shared reads took none. */
    CHECK_EQ(graph->sections.next, 13 * RP_TICKET_STEP);
    CHECK_EQ(graph->sections.turn, 13 * RP_TICKET_STEP);
    CHECK_ST(rp_graph_destroy(graph), RP_OK);
}

/* ---------------------------------------------------------------- bias */

/* White box: a word of the sections, loaded as the engine's threads store it
 * (atomically), so that reading it while another thread calls is no race. */
static uint32_t word(const uint32_t *target)
{
    return __atomic_load_n(target, __ATOMIC_SEQ_CST);
}

/* A thread making one call (rp_source_set, or with `destroys` rp_graph_destroy)
 * on a graph biased to the main thread. */
typedef struct foreign_call {
    rp_graph_t *graph;
    rp_node_t source;
    bool destroys;
    caller_t caller;
    rp_status_t status;
} foreign_call_t;

static void *call_from_another_thread(void *argument)
{
    foreign_call_t *call = argument;
    caller_announce(&call->caller);
    call->status = call->destroys ? rp_graph_destroy(call->graph) : rp_source_set(call->graph, call->source);
    atomic_store(&call->caller.returned, true);
    return NULL;
}

static rp_status_t call_on_another_thread(foreign_call_t *call)
{
    pthread_t thread;
    caller_reset(&call->caller);
    pthread_create(&thread, NULL, call_from_another_thread, call);
    pthread_join(thread, NULL);
    return call->status;
}

static void the_bias_holds_until_another_thread_calls(void)
{
    begin("bias: its thread takes no turn until another thread calls");
    for (int r = 0; r < ROUNDS; r++) {
        foreign_call_t call = {0};
        rp_graph_config_t config = {0};
        CHECK_ST(rp_graph_create(&config, &call.graph), RP_OK);
        rp_sections_t *sections = &call.graph->sections;
        if (sections->bias == NULL) {
            fprintf(stderr, "    no membarrier: graphs are not biased here\n");
            CHECK_ST(rp_graph_destroy(call.graph), RP_OK);
            return;
        }
        CHECK_ST(rp_node_create(call.graph, RP_KIND_SOURCE, NULL, &call.source), RP_OK);
        for (int i = 0; i < 8; i++) {
            CHECK_ST(rp_source_set(call.graph, call.source), RP_OK);
            CHECK_ST(rp_node_read(call.graph, call.source), RP_OK);
        }
        CHECK_EQ(word(&sections->next), 0);
        CHECK_EQ(word(&sections->biased), RP_BIAS_ON);

        /* Inside a batch of the bias thread, another thread's write waits
         * (revoking: asleep in its backoff) until the batch ends. */
        CHECK_ST(rp_batch_begin(call.graph), RP_OK);
        pthread_t thread;
        caller_reset(&call.caller);
        pthread_create(&thread, NULL, call_from_another_thread, &call);
        while (word(&sections->biased) != RP_BIAS_REVOKING) sched_yield();
        wait_until_blocked(&call.caller);
        CHECK(!atomic_load(&call.caller.returned));
        CHECK_ST(rp_batch_end(call.graph), RP_OK);
        pthread_join(thread, NULL);
        CHECK_ST(call.status, RP_OK);
        CHECK_EQ(word(&sections->biased), RP_BIAS_OFF);
        CHECK_EQ(word(&sections->next), RP_TICKET_STEP); /* the other thread's turn */
        /* Now every call takes a turn, the bias thread's too. */
        CHECK_ST(rp_source_set(call.graph, call.source), RP_OK);
        CHECK_EQ(word(&sections->next), 2 * RP_TICKET_STEP);
        CHECK_EQ(word(&sections->turn), 2 * RP_TICKET_STEP);
        CHECK_ST(rp_graph_destroy(call.graph), RP_OK);
    }
}

static void destroy_waits_for_the_bias_thread(void)
{
    begin("bias: destroyed by another thread while its thread is inside");
    for (int r = 0; r < ROUNDS; r++) {
        foreign_call_t call = {.destroys = true};
        rp_graph_config_t config = {0};
        CHECK_ST(rp_graph_create(&config, &call.graph), RP_OK);
        rp_sections_t *sections = &call.graph->sections;
        CHECK_ST(rp_node_create(call.graph, RP_KIND_SOURCE, NULL, &call.source), RP_OK);
        if (sections->bias == NULL) {
            CHECK_ST(rp_graph_destroy(call.graph), RP_OK);
            return;
        }
        /* Inside a batch: the destroy fails at once (and the bias is being
         * revoked), the graph stays usable; outside, it succeeds. */
        CHECK_ST(rp_batch_begin(call.graph), RP_OK);
        CHECK_ST(call_on_another_thread(&call), RP_EBUSY);
        CHECK_EQ(word(&sections->biased), RP_BIAS_REVOKING);
        CHECK_ST(rp_source_set(call.graph, call.source), RP_OK);
        CHECK_ST(rp_batch_end(call.graph), RP_OK);
        /* The destroy's turn, then this write's, which ends the revocation. */
        CHECK_ST(rp_source_set(call.graph, call.source), RP_OK);
        CHECK_EQ(word(&sections->next), 2 * RP_TICKET_STEP);
        CHECK_EQ(word(&sections->biased), RP_BIAS_OFF);
        if (r % 2 == 0) {
            CHECK_ST(call_on_another_thread(&call), RP_OK);
        } else {
            /* The bias thread itself, not inside: nothing to revoke. */
            CHECK_ST(rp_graph_destroy(call.graph), RP_OK);
        }
    }
    begin("bias: destroyed by another thread, never inside");
    foreign_call_t call = {.destroys = true};
    rp_graph_config_t config = {0};
    CHECK_ST(rp_graph_create(&config, &call.graph), RP_OK);
    CHECK_ST(rp_node_create(call.graph, RP_KIND_SOURCE, NULL, &call.source), RP_OK);
    CHECK_ST(call_on_another_thread(&call), RP_OK);
}

/* --------------------------------------------------------------- twice */

static long twice_runs;
static rp_node_t twice_source;

static void twice_run(void *host, rp_graph_t *graph, rp_node_t node, void *data)
{
    (void)host, (void)node, (void)data;
    rp_node_read(graph, twice_source);
    twice_runs++;
}

static void an_exclusive_section_ended_twice_in_a_batch_keeps_the_batch(void)
{
    begin("twice: an exclusive section in a batch");
    rp_graph_config_t config = {0};
    config.callbacks.run = twice_run;
    rp_graph_t *graph;
    rp_node_t effect;
    twice_runs = 0;
    CHECK_ST(rp_graph_create(&config, &graph), RP_OK);
    CHECK_ST(rp_node_create(graph, RP_KIND_SOURCE, NULL, &twice_source), RP_OK);
    CHECK_ST(rp_node_create(graph, RP_KIND_EFFECT, NULL, &effect), RP_OK);
    CHECK_EQ(twice_runs, 1);
    CHECK_ST(rp_batch_begin(graph), RP_OK);
    rp_read_section_t section;
    CHECK_ST(rp_node_read_begin(graph, twice_source, &section), RP_OK);
    CHECK_ST(rp_node_read_end(graph, &section), RP_OK);
    CHECK_ST(rp_node_read_end(graph, &section), RP_EINVAL);
    /* Still the batch's: a write in it runs nothing until its end. */
    CHECK(rp_exclusive_held(graph));
    CHECK_ST(rp_source_set(graph, twice_source), RP_OK);
    CHECK_EQ(twice_runs, 1);
    CHECK_ST(rp_batch_end(graph), RP_OK);
    CHECK_EQ(twice_runs, 2);
    CHECK(!rp_exclusive_held(graph));
    CHECK_ST(rp_source_set(graph, twice_source), RP_OK);
    CHECK_EQ(twice_runs, 3);
    /* Nested in two batches, ended twice in the inner one. */
    CHECK_ST(rp_batch_begin(graph), RP_OK);
    CHECK_ST(rp_batch_begin(graph), RP_OK);
    CHECK_ST(rp_node_read_begin(graph, twice_source, &section), RP_OK);
    CHECK_ST(rp_node_read_end(graph, &section), RP_OK);
    CHECK_ST(rp_node_read_end(graph, &section), RP_EINVAL);
    CHECK_ST(rp_batch_end(graph), RP_OK);
    CHECK_ST(rp_batch_end(graph), RP_OK);
    CHECK_ST(rp_batch_end(graph), RP_ESTATE);
    CHECK_ST(rp_source_set(graph, twice_source), RP_OK);
    CHECK_EQ(twice_runs, 4);
    CHECK_ST(_rp_graph_check(graph, NULL, 0), RP_OK);
    CHECK_ST(rp_graph_destroy(graph), RP_OK);
}

/* A reader thread of the shared-stripe scenario: reports its stripe, then
 * (when told) opens a shared section, lets the main thread check, and ends
 * it (twice when `twice`). */
typedef struct stripe_reader {
    rp_graph_t *graph;
    rp_node_t node;
    bool twice;
    uint32_t stripe;
    atomic_int step; /* 0 started, 1 stripe known, 2 go, 3 inside, 4 end, 5 ended */
    rp_status_t begun, ended, ended_again;
} stripe_reader_t;

static void wait_for_step(atomic_int *step, int value)
{
    while (atomic_load(step) < value) sched_yield();
}

static void *stripe_reader(void *argument)
{
    stripe_reader_t *reader = argument;
    reader->stripe = rp_stripe_for(rp_thread_self());
    atomic_store(&reader->step, 1);
    wait_for_step(&reader->step, 2);
    if (reader->stripe == UINT32_MAX) return NULL; /* not on the stripe wanted: dismissed */
    rp_read_section_t section;
    reader->begun = rp_node_read_begin(reader->graph, reader->node, &section);
    atomic_store(&reader->step, 3);
    wait_for_step(&reader->step, 4);
    reader->ended = rp_node_read_end(reader->graph, &section);
    if (reader->twice) reader->ended_again = rp_node_read_end(reader->graph, &section);
    atomic_store(&reader->step, 5);
    return NULL;
}

static void *create_and_exit(void *argument)
{
    rp_graph_t **graph = argument;
    rp_graph_config_t config = {0};
    if (rp_graph_create(&config, graph) != RP_OK) *graph = NULL;
    return NULL;
}

static void a_shared_section_ended_twice_leaves_its_stripe_neighbour_counted(void)
{
    begin("twice: a shared section, another reader on its stripe");
    /* Created on a thread that ends: no thread has the bias, so reads share. */
    rp_graph_t *graph = NULL;
    pthread_t creator;
    pthread_create(&creator, NULL, create_and_exit, &graph);
    pthread_join(creator, NULL);
    if (!CHECK(graph != NULL)) return;
    rp_node_t source;
    CHECK_ST(rp_node_create(graph, RP_KIND_SOURCE, NULL, &source), RP_OK);
    CHECK_ST(rp_node_read(graph, source), RP_OK); /* up to date, and the bias revoked */
    /* Two threads alive at once on one stripe: threads stay alive until one
     * shares the first one's stripe (one in sixteen; a thread that ended
     * leaves its address, so its stripe, to the next), then the others are
     * dismissed. */
    enum { CANDIDATES = 128 };
    static stripe_reader_t candidates[CANDIDATES];
    pthread_t candidate_threads[CANDIDATES];
    stripe_reader_t first = {.graph = graph, .node = source, .twice = true};
    pthread_t first_thread;
    pthread_create(&first_thread, NULL, stripe_reader, &first);
    wait_for_step(&first.step, 1);
    int started = 0, chosen = -1;
    while (chosen < 0 && started < CANDIDATES) {
        stripe_reader_t *candidate = &candidates[started];
        *candidate = (stripe_reader_t){.graph = graph, .node = source};
        pthread_create(&candidate_threads[started], NULL, stripe_reader, candidate);
        wait_for_step(&candidate->step, 1);
        if (candidate->stripe == first.stripe) chosen = started;
        started++;
    }
    for (int i = 0; i < started; i++) {
        if (i == chosen) continue;
        candidates[i].stripe = UINT32_MAX;
        atomic_store(&candidates[i].step, 2);
        pthread_join(candidate_threads[i], NULL);
    }
    if (!CHECK(chosen >= 0)) {
        fprintf(stderr, "    no thread on the first one's stripe among %d\n", started);
        first.stripe = UINT32_MAX;
        atomic_store(&first.step, 2);
        pthread_join(first_thread, NULL);
        CHECK_ST(rp_graph_destroy(graph), RP_OK);
        return;
    }
    stripe_reader_t *second = &candidates[chosen];
    pthread_t second_thread = candidate_threads[chosen];
    const uint32_t *readers = &graph->sections.stripes[first.stripe].readers;
    atomic_store(&first.step, 2);
    wait_for_step(&first.step, 3);
    atomic_store(&second->step, 2);
    wait_for_step(&second->step, 3);
    CHECK_ST(first.begun, RP_OK);
    CHECK_ST(second->begun, RP_OK);
    CHECK_EQ(word(readers), 2); /* both shared the graph */
    atomic_store(&first.step, 4);
    wait_for_step(&first.step, 5);
    CHECK_ST(first.ended, RP_OK);
    CHECK_ST(first.ended_again, RP_EINVAL);
    CHECK_EQ(word(readers), 1); /* the second reader, still inside */
    /* A writer cannot enter while it is: destroy is refused. */
    CHECK_ST(rp_graph_destroy(graph), RP_EBUSY);
    atomic_store(&second->step, 4);
    pthread_join(second_thread, NULL);
    pthread_join(first_thread, NULL);
    CHECK_ST(second->ended, RP_OK);
    CHECK_EQ(word(readers), 0);
    CHECK_ST(_rp_graph_check(graph, NULL, 0), RP_OK);
    CHECK_ST(rp_graph_destroy(graph), RP_OK);
}

/* ------------------------------------------------------------- stripes */

static pthread_barrier_t all_alive;
static uint32_t stripe_of_thread[STRIPE_THREADS];

static void *report_stripe(void *argument)
{
    uint32_t *stripe = argument;
    *stripe = rp_stripe_for(rp_thread_self());
    /* Every thread stays alive until all have taken their stripe, so their
     * identities are distinct (an ended thread's is reused). */
    pthread_barrier_wait(&all_alive);
    return NULL;
}

static unsigned distinct_stripes(const uint32_t *stripes, unsigned count)
{
    bool used[RP_READER_STRIPES] = {false};
    unsigned distinct = 0;
    for (unsigned i = 0; i < count; i++) {
        if (!used[stripes[i]]) distinct++;
        used[stripes[i]] = true;
    }
    return distinct;
}

static void threads_spread_over_the_stripes(void)
{
    begin("stripes: 16 threads");
    pthread_t threads[STRIPE_THREADS];
    pthread_barrier_init(&all_alive, NULL, STRIPE_THREADS);
    for (unsigned i = 0; i < STRIPE_THREADS; i++) {
        pthread_create(&threads[i], NULL, report_stripe, &stripe_of_thread[i]);
    }
    for (unsigned i = 0; i < STRIPE_THREADS; i++) pthread_join(threads[i], NULL);
    pthread_barrier_destroy(&all_alive);
    unsigned distinct = distinct_stripes(stripe_of_thread, STRIPE_THREADS);
    /* A uniform hash leaves 5 or fewer of 16 stripes used with probability
     * 3e-5; the unmixed hash used 5. */
    if (!CHECK(distinct >= 6)) fprintf(stderr, "    16 threads on %u stripes\n", distinct);

    begin("stripes: addresses a fixed stride apart");
    /* glibc's default thread stacks (8 MiB and a guard page), pages, 64 KiB
     * and 1 MiB: mean distinct stripes over 64 bases, 10.3 for a uniform hash. */
    static const uint64_t strides[] = {0x801000, 0x1000, 0x10000, 0x100000};
    for (unsigned s = 0; s < sizeof strides / sizeof strides[0]; s++) {
        unsigned total = 0;
        for (uint64_t base = 0; base < 64; base++) {
            uint32_t stripes[STRIPE_THREADS];
            for (unsigned i = 0; i < STRIPE_THREADS; i++) {
                uint64_t address = 0x7f0000000000ULL + base * 0x12345000ULL + i * strides[s];
                stripes[i] = rp_stripe_for((void *)(uintptr_t)address);
            }
            total += distinct_stripes(stripes, STRIPE_THREADS);
        }
        if (!CHECK(total * 10 >= 64 * 95)) {
            fprintf(stderr, "    stride %#llx: mean %.2f stripes\n", (unsigned long long)strides[s], total / 64.0);
        }
    }

    begin("stripes: two threads started one after the other");
    /* Two glibc threads' control blocks: one stride apart, at the same offset
     * in their page, anywhere in the address space. A uniform hash puts them on
     * one stripe one time in sixteen (256 of 4096 bases); the previous mix did
     * one time in eight. Bases from a fixed xorshift sequence. */
    uint64_t state = 0x9e3779b97f4a7c15ULL;
    unsigned shared = 0;
    for (unsigned pair = 0; pair < 4096; pair++) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        uint64_t first = 0x7f0000000000ULL + ((state & 0xffffffffULL) << 12) + 0x6c0;
        shared += rp_stripe_for((void *)(uintptr_t)first) == rp_stripe_for((void *)(uintptr_t)(first + 0x801000));
    }
    if (!CHECK(shared <= 320)) fprintf(stderr, "    %u of 4096 pairs on one stripe\n", shared);
}

/* Usage: sections [destroy|first|wrap|bias|twice|stripes]: one group, or (default) all. */
int main(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : NULL;
    signal(SIGALRM, on_alarm);
    if (only == NULL || strcmp(only, "destroy") == 0) {
        destroy_while_a_call_waits(false);
        destroy_while_a_call_waits(true);
    }
    if (only == NULL || strcmp(only, "first") == 0) {
        waiting_threads_go_first_come_first_served(false);
        waiting_threads_go_first_come_first_served(true);
    }
    if (only == NULL || strcmp(only, "wrap") == 0) tickets_wrap_around();
    if (only == NULL || strcmp(only, "bias") == 0) {
        the_bias_holds_until_another_thread_calls();
        destroy_waits_for_the_bias_thread();
    }
    if (only == NULL || strcmp(only, "twice") == 0) {
        an_exclusive_section_ended_twice_in_a_batch_keeps_the_batch();
        a_shared_section_ended_twice_leaves_its_stripe_neighbour_counted();
    }
    if (only == NULL || strcmp(only, "stripes") == 0) threads_spread_over_the_stripes();
    return harness_finish();
}
