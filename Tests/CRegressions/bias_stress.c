/*
 * bias_stress.c: a graph's bias (Sources/CRipple/sections.c) under load, with
 * the fences the build really has. A graph is biased to the thread that
 * creates it, which then takes it with plain accesses while membarrier(2) pays
 * for the other side; another thread's first call revokes the bias. The
 * ThreadSanitizer build swaps both sides for seq_cst operations, so only a
 * build without it runs the protocol that ships: scripts/test runs this
 * program under ASan and UBSan with the other regressions, and again at -O2
 * without sanitizers.
 *
 *   revoke   each round creates a graph on its thread A (biased to A, checked
 *            when membarrier is available), with two sources, a computed of
 *            their sum and an effect that reads it. A makes a mix of calls
 *            (batches that write the sources, reads, copies, read sections,
 *            a node created, read and disposed; every 40th call a long
 *            batch); thread B starts the same mix, revoking the bias, when A
 *            reaches a pseudo-random call, or (every other round) while A is
 *            inside its next long batch, so that the revocation must wait
 *            for it. A waits at that point until B is about to call: on a
 *            loaded machine the two may share a processor, and A would
 *            otherwise often finish first. Both threads' batches increment a
 *            plain counter, and every batch writes the two sources to x and
 *            -x. (A revocation that did not wait for A fails every round:
 *            checked by hand against an engine built that way.)
 *   exit     each round, the creator makes 100 batches and ends
 *            (pthread_exit); two new threads then make batches and reads at
 *            once. One of them usually reuses the creator's thread control
 *            block, so its identity: it takes the bias's fast path, while the
 *            other revokes it.
 *
 * Checks, every round: the counter is exact (no batch overlapped another:
 * mutual exclusion), every value read of the sum is 0 (no batch was seen half
 * done), _rp_graph_check holds, and every call returns RP_OK; a round that
 * takes over 60 seconds (a deadlock) stops the program. Over the run: B
 * entered while A worked in some rounds (the revocation was exercised), and a
 * graph left biased was revoked once B called.
 *
 * Environment (CI runs the small defaults): RIPPLE_BIAS_ROUNDS (revoke
 * rounds, default 200), RIPPLE_BIAS_CALLS (calls per thread per round, default
 * 2000), RIPPLE_BIAS_EXIT_ROUNDS (exit rounds, default 40), RIPPLE_BIAS_SEED
 * (the seed of B's entry points, default 1). The audit that found the bias sound ran
 * revoke at 30000 rounds of 20000 calls and exit at 1000 rounds.
 */
#define _GNU_SOURCE

#include "harness.h"

/* White box: whether a graph is biased, and to which thread. */
#include "../../Sources/CRipple/graph.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

static void on_alarm(int signal)
{
    (void)signal;
    static const char message[] = "bias_stress: a round took over 60 s (a deadlock?)\n";
    (void)!write(STDERR_FILENO, message, sizeof message - 1);
    _exit(2);
}

static long setting(const char *name, long fallback)
{
    const char *text = getenv(name);
    if (text == NULL || *text == '\0') return fallback;
    long value = strtol(text, NULL, 10);
    return value > 0 ? value : fallback;
}

/* ----------------------------------------------------------------- host */

/* What a node's `data` points to: its value, and for the sum the two sources. */
typedef struct value {
    long value;
    int first, second;
} value_t;

/* The graph of a round: sources 0 and 1, their sum 2, an effect 3. */
typedef struct world {
    rp_graph_t *graph;
    value_t values[4];
    rp_node_t nodes[4];
    long counter;           /* plain: written only inside batches */
    atomic_long failures;   /* calls that did not return RP_OK, sums other than 0 */
    atomic_long effect_runs;
} world_t;

static world_t world;

static void fail(const char *what, long got)
{
    atomic_fetch_add(&world.failures, 1);
    fprintf(stderr, "    %s: %ld\n", what, got);
}

static rp_status_t compute_sum(void *host, rp_graph_t *graph, rp_node_t node, void *data, bool *changed)
{
    (void)host, (void)node;
    value_t *sum = data;
    long first, second;
    rp_status_t status = rp_node_read_copy(graph, world.nodes[sum->first], &first,
                                           &world.values[sum->first].value, sizeof first);
    if (status == RP_OK) {
        status = rp_node_read_copy(graph, world.nodes[sum->second], &second, &world.values[sum->second].value,
                                   sizeof second);
    }
    if (status != RP_OK) return status;
    *changed = first + second != sum->value;
    sum->value = first + second;
    return RP_OK;
}

static void run_reader(void *host, rp_graph_t *graph, rp_node_t node, void *data)
{
    (void)host, (void)node, (void)data;
    long sum = 1;
    rp_status_t status = rp_node_read_copy(graph, world.nodes[2], &sum, &world.values[2].value, sizeof sum);
    if (status != RP_OK) fail("the effect's read", status);
    if (sum != 0) fail("the effect saw a sum", sum);
    atomic_fetch_add(&world.effect_runs, 1);
}

static void create_world(void)
{
    rp_graph_config_t config = {0};
    config.callbacks.compute = compute_sum;
    config.callbacks.run = run_reader;
    world.counter = 0;
    atomic_store(&world.failures, 0);
    atomic_store(&world.effect_runs, 0);
    for (int i = 0; i < 4; i++) world.values[i] = (value_t){0};
    world.values[2].first = 0;
    world.values[2].second = 1;
    if (rp_graph_create(&config, &world.graph) != RP_OK) {
        fprintf(stderr, "bias_stress: rp_graph_create failed\n");
        exit(2);
    }
    static const rp_kind_t kinds[4] = {RP_KIND_SOURCE, RP_KIND_SOURCE, RP_KIND_COMPUTED, RP_KIND_EFFECT};
    for (int i = 0; i < 4; i++) {
        rp_status_t status = rp_node_create(world.graph, kinds[i], &world.values[i], &world.nodes[i]);
        if (status != RP_OK) fail("rp_node_create", status);
    }
}

/* Checks the graph, destroys it, and reports the round's failures. */
static void finish_world(const char *scenario, long round)
{
    char message[256] = "";
    CHECK_ST(_rp_graph_check(world.graph, message, sizeof message), RP_OK);
    if (message[0] != '\0') fprintf(stderr, "    %s round %ld: %s\n", scenario, round, message);
    CHECK_ST(rp_graph_destroy(world.graph), RP_OK);
    long failures = atomic_load(&world.failures);
    if (!CHECK(failures == 0)) fprintf(stderr, "    %s round %ld: %ld failures\n", scenario, round, failures);
}

/* A batch that increments the counter and writes the sources to x and -x,
 * then reads their sum back inside it. The counter's load and store are far
 * apart, so that a thread let in during the batch would likely lose an
 * increment; a long batch keeps them apart for some microseconds, longer
 * than a revocation's membarrier takes, so that the revoker finds the bias
 * thread inside (a short call ends first, and the next one backs off). */
/* The revoke scenario's meeting point: thread A lets B in (b_go) and waits
 * until B is about to make its first call (b_calling), at a call of A's or
 * inside one of its long batches. On a loaded machine the two threads may
 * share a processor: A would otherwise often finish before B runs at all. */
static atomic_bool b_go, b_calling;
static atomic_long inside_rounds;

static void let_b_in(bool inside_a_batch)
{
    if (inside_a_batch) atomic_fetch_add(&inside_rounds, 1);
    atomic_store(&b_go, true);
    while (!atomic_load(&b_calling)) sched_yield();
}

static void batch(long x, bool long_batch, bool meets_b)
{
    rp_status_t status = rp_batch_begin(world.graph);
    if (status != RP_OK) fail("rp_batch_begin", status);
    if (meets_b) let_b_in(true);
    long counter = world.counter;
    world.values[0].value = x;
    world.values[1].value = -x;
    if ((status = rp_source_set(world.graph, world.nodes[0])) != RP_OK) fail("rp_source_set", status);
    if ((status = rp_source_set(world.graph, world.nodes[1])) != RP_OK) fail("rp_source_set", status);
    long sum = 1;
    status = rp_node_read_copy(world.graph, world.nodes[2], &sum, &world.values[2].value, sizeof sum);
    if (status != RP_OK) fail("a read in a batch", status);
    if (sum != 0) fail("a read in a batch saw a sum", sum);
    for (volatile int spin = long_batch ? 20000 : 64; spin > 0; spin--) {}
    world.counter = counter + 1;
    if ((status = rp_batch_end(world.graph)) != RP_OK) fail("rp_batch_end", status);
}

/* The sum, read in each of the three ways a host reads. */
static void read_sum(long call)
{
    long sum = 1;
    rp_status_t status;
    switch (call % 3) {
    case 0:
        status = rp_node_read(world.graph, world.nodes[2]);
        if (status == RP_OK) sum = 0; /* the value is checked by the copies */
        break;
    case 1:
        status = rp_node_read_copy(world.graph, world.nodes[2], &sum, &world.values[2].value, sizeof sum);
        break;
    default: {
        rp_read_section_t section;
        status = rp_node_read_begin(world.graph, world.nodes[2], &section);
        if (status != RP_OK) break;
        sum = world.values[2].value;
        status = rp_node_read_end(world.graph, &section);
        break;
    }
    }
    if (status != RP_OK) fail("a read of the sum", status);
    if (sum != 0) fail("a read saw a sum", sum);
}

/* A node created, read and disposed: the calls that change the node table. */
static void churn(void)
{
    static value_t scratch;
    rp_node_t node;
    rp_status_t status = rp_node_create(world.graph, RP_KIND_SOURCE, &scratch, &node);
    if (status == RP_OK) status = rp_node_read(world.graph, node);
    if (status == RP_OK) status = rp_node_dispose(world.graph, node);
    if (status != RP_OK) fail("create, read, dispose", status);
}

/* Where A meets B in the revoke scenario: before call `meet_call`, or (when
 * `meet_inside`) inside A's first long batch from that call on; -1: never. */
static long meet_call = -1;
static bool meet_inside;

/* `calls` calls of the mix by thread `who` (0: A, which meets B); returns
 * how many were batches. */
static long work(int who, long calls)
{
    long batches = 0;
    bool met = who != 0 || meet_call < 0;
    for (long call = 0; call < calls; call++) {
        int kind = (int)((call * 7 + who) % 5);
        bool long_batch = kind < 2 && call % 16 == 0;
        bool meets_inside = !met && call >= meet_call && meet_inside && long_batch;
        if (!met && call >= meet_call && !meet_inside) {
            let_b_in(false);
            met = true;
        }
        met = met || meets_inside;
        switch (kind) {
        case 0:
        case 1:
            batch(call + 1000003L * who, long_batch, meets_inside);
            batches++;
            break;
        case 2:
        case 3:
            read_sum(call);
            break;
        default:
            churn();
            break;
        }
    }
    if (!met) let_b_in(false); /* no long batch after the meeting call: B comes in at the end */
    return batches;
}

/* --------------------------------------------------------------- revoke */

static pthread_barrier_t round_start, round_end;
static long revoke_calls;
static atomic_long b_batches;
static atomic_bool a_working, stop_b;
static atomic_long overlapping_rounds;

static void *thread_b(void *argument)
{
    (void)argument;
    for (;;) {
        pthread_barrier_wait(&round_start);
        if (atomic_load(&stop_b)) return NULL;
        while (!atomic_load(&b_go)) sched_yield();
        if (atomic_load(&a_working)) atomic_fetch_add(&overlapping_rounds, 1);
        atomic_store(&b_calling, true);
        atomic_store(&b_batches, work(1, revoke_calls));
        pthread_barrier_wait(&round_end);
    }
}

/* xorshift64: the delays, reproducible from the seed. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

static void revocation_keeps_batches_exclusive(long rounds, uint64_t seed)
{
    harness_begin("revoke: thread B enters a graph biased to A, at a random moment");
    pthread_barrier_init(&round_start, NULL, 2);
    pthread_barrier_init(&round_end, NULL, 2);
    pthread_t b;
    pthread_create(&b, NULL, thread_b, NULL);
    uint64_t random_state = seed ? seed : 1;
    long biased_rounds = 0, revoked_rounds = 0;
    for (long round = 0; round < rounds; round++) {
        alarm(60);
        create_world();
        rp_sections_t *sections = &world.graph->sections;
        bool biased = sections->bias == rp_thread_self();
        biased_rounds += biased;
        /* B comes in as A reaches a random call: before it in even rounds,
         * inside A's next long batch (which the revocation must wait for)
         * in odd ones. */
        meet_call = (long)(next_random(&random_state) % (uint64_t)revoke_calls);
        meet_inside = round % 2 == 1;
        atomic_store(&b_go, false);
        atomic_store(&b_calling, false);
        atomic_store(&a_working, true);
        pthread_barrier_wait(&round_start);
        long batches = work(0, revoke_calls);
        atomic_store(&a_working, false);
        meet_call = -1;
        pthread_barrier_wait(&round_end);
        long want = batches + atomic_load(&b_batches);
        if (!CHECK(world.counter == want)) {
            fprintf(stderr, "    round %ld: counter %ld, want %ld (batches overlapped)\n", round, world.counter, want);
        }
        if (biased) revoked_rounds += __atomic_load_n(&sections->biased, __ATOMIC_SEQ_CST) == RP_BIAS_OFF;
        CHECK(atomic_load(&world.effect_runs) > 0);
        finish_world("revoke", round);
    }
    atomic_store(&stop_b, true);
    pthread_barrier_wait(&round_start);
    pthread_join(b, NULL);
    pthread_barrier_destroy(&round_start);
    pthread_barrier_destroy(&round_end);
    alarm(0);
    long overlapping = atomic_load(&overlapping_rounds), inside = atomic_load(&inside_rounds);
    printf("revoke: %ld rounds of %ld calls per thread, B entered while A worked in %ld (inside a long batch in "
           "%ld), biased %ld, revoked %ld\n",
           rounds, revoke_calls, overlapping, inside, biased_rounds, revoked_rounds);
    if (biased_rounds == 0) printf("revoke: no membarrier here: graphs are not biased, the turns alone were checked\n");
    /* The scenario was exercised: B came in while A worked, and inside a long
     * batch of A's (B waits for A's progress, so only a round where A ends
     * first misses), and each graph left biased had its bias revoked by B's
     * calls. */
    if (rounds >= 20) {
        CHECK(overlapping > rounds / 2);
        CHECK(inside > 0);
    }
    CHECK_EQ(revoked_rounds, biased_rounds);
}

/* ----------------------------------------------------------------- exit */

static long exit_calls;
static void *creator_identity;
static atomic_long reusing_threads;

static void *creator(void *argument)
{
    (void)argument;
    create_world();
    for (int i = 0; i < 100; i++) batch(i, false, false);
    creator_identity = rp_thread_self();
    pthread_exit(NULL);
}

static void *user(void *argument)
{
    (void)argument;
    if (rp_thread_self() == creator_identity) atomic_fetch_add(&reusing_threads, 1);
    for (long call = 0; call < exit_calls; call++) {
        batch(call, call % 16 == 0, false);
        read_sum(call);
    }
    return NULL;
}

static void a_dead_creators_identity_takes_the_bias_safely(long rounds)
{
    harness_begin("exit: the creator ends, two new threads share its graph");
    for (long round = 0; round < rounds; round++) {
        alarm(60);
        pthread_t threads[3];
        pthread_create(&threads[0], NULL, creator, NULL);
        pthread_join(threads[0], NULL);
        pthread_create(&threads[1], NULL, user, NULL);
        pthread_create(&threads[2], NULL, user, NULL);
        pthread_join(threads[1], NULL);
        pthread_join(threads[2], NULL);
        if (!CHECK(world.counter == 100 + 2 * exit_calls)) {
            fprintf(stderr, "    round %ld: counter %ld, want %ld\n", round, world.counter, 100 + 2 * exit_calls);
        }
        finish_world("exit", round);
    }
    alarm(0);
    printf("exit: %ld rounds of %ld batches per thread, a new thread had the creator's identity in %ld\n", rounds,
           exit_calls, atomic_load(&reusing_threads));
}

/* Usage: bias_stress [revoke|exit]: one scenario, or (default) both. */
int main(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : NULL;
    signal(SIGALRM, on_alarm);
    revoke_calls = setting("RIPPLE_BIAS_CALLS", 2000);
    exit_calls = revoke_calls;
    if (only == NULL || strcmp(only, "revoke") == 0) {
        revocation_keeps_batches_exclusive(setting("RIPPLE_BIAS_ROUNDS", 200),
                                           (uint64_t)setting("RIPPLE_BIAS_SEED", 1));
    }
    if (only == NULL || strcmp(only, "exit") == 0) {
        a_dead_creators_identity_takes_the_bias_safely(setting("RIPPLE_BIAS_EXIT_ROUNDS", 40));
    }
    return harness_finish();
}
