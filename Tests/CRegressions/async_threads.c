/*
 * async_threads.c: an async node whose runs happen on other threads, while
 * writers change what the runs read and an effect observes the node.
 *
 * The host does what ripple.h asks: every host value is loaded and stored
 * while the graph is held (inside a callback, a batch, a track or resolve
 * section, or a read section). The graph:
 *
 *   s0, s1, s2   sources, written by writer threads (each write in a batch);
 *   d = s2 / 2   a derivation (so some writes to s2 change nothing for a run);
 *   a            an async node; its compute queues the run's id (which it
 *                gets from rp_async_run inside the compute) and shows "in
 *                flight"; runner threads take run ids from the queue and run
 *                them: a track section reading s0 and s1, a pause, a second
 *                section reading d, then a resolve section storing a result
 *                that records the run id and the values it read (sometimes
 *                twice, a stream: the second one is no change);
 *   e            an effect reading a.
 *
 * Checks, on every thread:
 *   - inside a resolve section that the engine let in, the values the run
 *     read are the current ones (nothing it read changed since) and the run
 *     is the node's current run;
 *   - every result e sees is the current run's, computed from the current
 *     values: no superseded run's result is ever applied;
 *   - at the end, once the writers have stopped and the runners have
 *     delivered, a's result is the last run's, for the final values, and e
 *     saw it; _rp_graph_check holds, every node is released once, every
 *     byte freed.
 *
 * Built with ThreadSanitizer by scripts/tsan-c (any unordered access is a
 * report) and with ASan and UBSan by scripts/test. RIPPLE_STRESS_ITERATIONS=N
 * runs N writes per writer (default small, for CI). An alarm stops a run that
 * deadlocks.
 */
#define _POSIX_C_SOURCE 200809L

#include "harness.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------------ host */

typedef struct result {
    bool in_flight;
    uint64_t run;
    long s0, s1, d;
} result_t;

enum { S0, S1, S2, D, A, E, NODES };

typedef struct world {
    rp_graph_t *g;
    rp_node_t h[NODES];
    long value[NODES]; /* sources and d; guarded by the graph */
    result_t a;        /* a's value; guarded by the graph */
    result_t e_seen;   /* the last result e saw */
    unsigned computes; /* of a; guarded by the graph */
    bool d_computed;
    unsigned released[NODES];
    /* the run queue */
    pthread_mutex_t lock;
    pthread_cond_t more;
    uint64_t queue[1024];
    size_t head, count;
    atomic_bool stop;
    /* what happened */
    atomic_uint failures;
    atomic_ulong effect_runs, results_seen, applied, superseded, tracked, restarts;
} world_t;

static world_t world;
static unsigned writes_per_writer = 1500;

static void fail_at(int line, const char *what)
{
    if (atomic_fetch_add(&world.failures, 1) < 10)
        fprintf(stderr, "async_threads.c:%d: [%s] worker check failed: %s\n", line, harness_scenario, what);
}

#define WCHECK(cond)                       \
    do {                                   \
        if (!(cond))                       \
            fail_at(__LINE__, #cond);      \
    } while (0)

static int node_index(void *data)
{
    return (int)((long *)data - world.value);
}

static void queue_push(uint64_t run)
{
    pthread_mutex_lock(&world.lock);
    if (world.count == sizeof world.queue / sizeof world.queue[0]) {
        /* Full of stale runs: the oldest can go, the newest is the current. */
        world.head = (world.head + 1) % (sizeof world.queue / sizeof world.queue[0]);
        world.count--;
    }
    world.queue[(world.head + world.count) % (sizeof world.queue / sizeof world.queue[0])] = run;
    world.count++;
    pthread_cond_signal(&world.more);
    pthread_mutex_unlock(&world.lock);
}

/* The next run to run, or 0 once the world stops. */
static uint64_t queue_pop(void)
{
    pthread_mutex_lock(&world.lock);
    while (world.count == 0 && !atomic_load(&world.stop)) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 5 * 1000 * 1000;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        int rc = pthread_cond_timedwait(&world.more, &world.lock, &until);
        if (rc != 0 && rc != ETIMEDOUT)
            break;
    }
    uint64_t run = 0;
    if (world.count) {
        run = world.queue[world.head];
        world.head = (world.head + 1) % (sizeof world.queue / sizeof world.queue[0]);
        world.count--;
    }
    pthread_mutex_unlock(&world.lock);
    return run;
}

static rp_status_t compute_cb(void *host, rp_graph_t *graph, rp_node_t node, void *data, bool *changed)
{
    (void)host;
    int i = node_index(data);
    if (i == D) {
        WCHECK(rp_node_read(graph, world.h[S2]) == RP_OK);
        long v = world.value[S2] / 2;
        *changed = !world.d_computed || v != world.value[D];
        world.value[D] = v;
        world.d_computed = true;
        return RP_OK;
    }
    WCHECK(i == A);
    world.computes++;
    uint64_t run = 0;
    WCHECK(rp_async_run(graph, node, &run) == RP_OK);
    WCHECK(run != 0 && run != world.a.run);
    *changed = !world.a.in_flight;
    world.a = (result_t){.in_flight = true, .run = run};
    queue_push(run);
    return RP_OK;
}

static void run_cb(void *host, rp_graph_t *graph, rp_node_t node, void *data)
{
    (void)host;
    (void)node;
    WCHECK(node_index(data) == E);
    atomic_fetch_add(&world.effect_runs, 1);
    WCHECK(rp_node_read(graph, world.h[A]) == RP_OK);
    result_t r = world.a;
    world.e_seen = r;
    if (r.in_flight)
        return;
    atomic_fetch_add(&world.results_seen, 1);
    uint64_t current = 0;
    WCHECK(rp_async_run(graph, world.h[A], &current) == RP_OK);
    WCHECK(r.run == current);
    WCHECK(r.s0 == world.value[S0]);
    WCHECK(r.s1 == world.value[S1]);
    WCHECK(r.d == world.value[S2] / 2);
}

static void release_cb(void *host, rp_graph_t *graph, rp_node_t node, void *data)
{
    (void)host;
    (void)graph;
    (void)node;
    world.released[node_index(data)]++;
}

/* ---------------------------------------------------------------- threads */

static unsigned rng(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return *state >> 16;
}

typedef struct worker {
    pthread_t thread;
    unsigned index;
} worker_t;

static void *writer(void *arg)
{
    worker_t *self = arg;
    unsigned state = 17 + self->index;
    for (unsigned i = 0; i < writes_per_writer; i++) {
        unsigned pick = rng(&state);
        if (pick % 64 == 0) {
            WCHECK(rp_async_restart(world.g, world.h[A]) == RP_OK);
            atomic_fetch_add(&world.restarts, 1);
            continue;
        }
        int s = (int)(pick % 3);
        WCHECK(rp_batch_begin(world.g) == RP_OK);
        world.value[s] = (long)(rng(&state) % 8);
        WCHECK(rp_source_set(world.g, world.h[s]) == RP_OK);
        WCHECK(rp_batch_end(world.g) == RP_OK);
        /* Room for the runners: a run reads nothing until one takes it, and
         * until then writes have nothing to supersede. */
        if (pick % 4 == 0) {
            struct timespec pause = {0, 20 * 1000};
            nanosleep(&pause, NULL);
        } else {
            sched_yield();
        }
    }
    return NULL;
}

/* One run: two track sections, then one or two results. */
static void run_one(uint64_t run, unsigned *state)
{
    rp_status_t st = rp_async_track_begin(world.g, world.h[A], run);
    if (st == RP_ESUPERSEDED) {
        atomic_fetch_add(&world.superseded, 1);
        return;
    }
    WCHECK(st == RP_OK);
    if (st != RP_OK)
        return;
    WCHECK(rp_node_read(world.g, world.h[S0]) == RP_OK);
    long s0 = world.value[S0];
    WCHECK(rp_node_read(world.g, world.h[S1]) == RP_OK);
    long s1 = world.value[S1];
    WCHECK(rp_async_track_end(world.g, world.h[A]) == RP_OK);
    atomic_fetch_add(&world.tracked, 1);
    if (rng(state) % 2)
        sched_yield(); /* the writers may get in between */

    st = rp_async_track_begin(world.g, world.h[A], run);
    if (st == RP_ESUPERSEDED) {
        atomic_fetch_add(&world.superseded, 1);
        return;
    }
    WCHECK(st == RP_OK);
    if (st != RP_OK)
        return;
    /* d may be stale here: reading it brings it up to date. */
    WCHECK(rp_node_read(world.g, world.h[D]) == RP_OK);
    long d = world.value[D];
    WCHECK(rp_async_track_end(world.g, world.h[A]) == RP_OK);
    if (rng(state) % 2)
        sched_yield();

    unsigned results = 1 + rng(state) % 2;
    for (unsigned i = 0; i < results; i++) {
        st = rp_async_resolve_begin(world.g, world.h[A], run);
        if (st == RP_ESUPERSEDED) {
            atomic_fetch_add(&world.superseded, 1);
            return;
        }
        WCHECK(st == RP_OK);
        if (st != RP_OK)
            return;
        /* Let in: nothing the run read changed, and it is current. */
        uint64_t current = 0;
        WCHECK(rp_async_run(world.g, world.h[A], &current) == RP_OK);
        WCHECK(current == run);
        WCHECK(s0 == world.value[S0]);
        WCHECK(s1 == world.value[S1]);
        WCHECK(d == world.value[S2] / 2);
        result_t r = {.in_flight = false, .run = run, .s0 = s0, .s1 = s1, .d = d};
        bool changed = world.a.in_flight || world.a.run != run || world.a.s0 != s0 || world.a.s1 != s1 ||
                       world.a.d != d;
        WCHECK(i == 0 || !changed);
        world.a = r;
        WCHECK(rp_async_resolve_end(world.g, world.h[A], changed) == RP_OK);
        atomic_fetch_add(&world.applied, 1);
    }
}

static void *runner(void *arg)
{
    worker_t *self = arg;
    unsigned state = 1000 + self->index;
    for (;;) {
        uint64_t run = queue_pop();
        if (run == 0)
            break;
        run_one(run, &state);
    }
    return NULL;
}

/* ----------------------------------------------------------------- driver */

static void on_alarm(int signal)
{
    (void)signal;
    static const char message[] = "async_threads: timed out (a deadlock?)\n";
    if (write(2, message, sizeof message - 1) < 0) {
        /* nothing more to do */
    }
    _exit(3);
}

/* a's value once it holds a result (loaded in a read section), or false
 * after `seconds`. */
static bool wait_for_result(result_t *out, unsigned seconds)
{
    for (unsigned i = 0; i < seconds * 1000; i++) {
        rp_read_section_t section;
        if (rp_node_read_begin(world.g, world.h[A], &section) != RP_OK)
            return false;
        result_t r = world.a;
        rp_node_read_end(world.g, &section);
        if (!r.in_flight) {
            *out = r;
            return true;
        }
        struct timespec pause = {0, 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    return false;
}

static void scenario(const char *name, unsigned writers, unsigned runners)
{
    harness_begin(name);
    alarm(300);
    memset(&world, 0, sizeof world);
    pthread_mutex_init(&world.lock, NULL);
    pthread_cond_init(&world.more, NULL);
    rp_graph_config_t config = {
        .callbacks = {.compute = compute_cb, .run = run_cb, .release = release_cb},
    };
    CHECK_ST(rp_graph_create(&config, &world.g), RP_OK);
    static const rp_kind_t kinds[NODES] = {RP_KIND_SOURCE, RP_KIND_SOURCE,   RP_KIND_SOURCE,
                                           RP_KIND_COMPUTED, RP_KIND_ASYNC, RP_KIND_EFFECT};
    for (int i = 0; i < NODES; i++)
        CHECK_ST(rp_node_create(world.g, kinds[i], &world.value[i], &world.h[i]), RP_OK);
    CHECK_EQ(world.computes, 1); /* e's first run read a */

    worker_t workers[16];
    unsigned total = writers + runners;
    for (unsigned i = 0; i < total; i++) {
        workers[i].index = i;
        CHECK(pthread_create(&workers[i].thread, NULL, i < writers ? writer : runner, &workers[i]) == 0);
    }
    for (unsigned i = 0; i < writers; i++)
        pthread_join(workers[i].thread, NULL);

    /* The writers are done: the runners deliver the last run. */
    result_t last = {0};
    CHECK(wait_for_result(&last, 60));
    atomic_store(&world.stop, true);
    for (unsigned i = writers; i < total; i++)
        pthread_join(workers[i].thread, NULL);

    CHECK_EQ(atomic_load(&world.failures), 0);
    uint64_t current = 0;
    CHECK_ST(rp_async_run(world.g, world.h[A], &current), RP_OK);
    CHECK_EQ(last.run, current);
    CHECK_EQ(last.s0, world.value[S0]);
    CHECK_EQ(last.s1, world.value[S1]);
    CHECK_EQ(last.d, world.value[S2] / 2);
    CHECK(!world.e_seen.in_flight && world.e_seen.run == last.run);
    CHECK(atomic_load(&world.applied) > 0);
    CHECK(atomic_load(&world.results_seen) > 0);
    char message[256] = "";
    CHECK_ST(_rp_graph_check(world.g, message, sizeof message), RP_OK);
    if (message[0])
        fprintf(stderr, "    _rp_graph_check: %s\n", message);
    printf("%s: %u computes, %lu tracked, %lu applied, %lu superseded, %lu restarts, %lu effect runs "
           "(%lu with a result)\n",
           name, world.computes, atomic_load(&world.tracked), atomic_load(&world.applied),
           atomic_load(&world.superseded), atomic_load(&world.restarts), atomic_load(&world.effect_runs),
           atomic_load(&world.results_seen));
    CHECK_ST(rp_graph_destroy(world.g), RP_OK);
    for (int i = 0; i < NODES; i++)
        CHECK_EQ(world.released[i], 1);
    pthread_cond_destroy(&world.more);
    pthread_mutex_destroy(&world.lock);
    alarm(0);
}

int main(void)
{
    signal(SIGALRM, on_alarm);
    const char *iterations = getenv("RIPPLE_STRESS_ITERATIONS");
    if (iterations != NULL && *iterations) {
        long n = strtol(iterations, NULL, 10);
        writes_per_writer = n > 0 ? (unsigned)n : 20000;
    }
    scenario("1 writer, 1 runner", 1, 1);
    scenario("2 writers, 3 runners", 2, 3);
    scenario("4 writers, 4 runners", 4, 4);
    return harness_finish();
}
