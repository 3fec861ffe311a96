/*
 * threads.c: one graph shared by several threads (pthreads), each scenario run
 * with 1, 2, 4 and 8 threads per role (more threads than cores on purpose).
 *
 * The host does what ripple.h's "threads" section asks: values live in plain
 * host memory next to each node's `data`; a thread loads a value only between
 * rp_node_read_begin and rp_node_read_end (or inside a callback), and writes a
 * source by storing the value and calling rp_source_set inside
 * rp_batch_begin / rp_batch_end. Built with -fsanitize=thread (scripts/tsan-c),
 * any access the engine leaves unordered is a report; built with ASan and
 * UBSan (scripts/test), the same invariants are checked.
 *
 *   counters     every thread increments a counter N times (read and write in
 *                one batch); readers meanwhile see it, `twice = 2 * counter`
 *                and `delta = twice - 2 * counter` consistent and never going
 *                back; at the end counter = threads * N, twice = 2 * that.
 *   consistency  a and b are always written together, a + b = 0; readers
 *                outside any batch never see a derivation of both, or a pair
 *                read in an untracked section, that breaks it.
 *   effects      a synchronous effect on the counter (and one on `twice`)
 *                sees every value once, in increasing order, ending with the
 *                final one; effects never run on two threads at once.
 *   churn        threads create and dispose derivations and effects reading
 *                shared sources while others write; an effect creates and
 *                disposes a node in each run; at the end live_nodes is what
 *                is expected and every node was released exactly once.
 *   deferred     deferred effects, updated by a scheduler thread draining the
 *                queue their `schedule` fills, see values that never go back
 *                and, once writers stop and the queue drains, the final one;
 *                `schedule` is never called twice before an update starts.
 *   sections     readers of an up-to-date node are inside their sections at
 *                once; a writer waits for them to end, and readers wait for a
 *                batch to end, then see its write.
 *   foreign      rp_batch_end and rp_untracked_end on a thread that did not
 *                open the batch or section: RP_ESTATE; rp_graph_tracking on
 *                another thread while one computes: RP_NODE_NONE;
 *                rp_graph_destroy meanwhile: RP_EBUSY (also while readers
 *                are inside their sections).
 *
 * _rp_graph_check runs at the end of each scenario; destroying the graph must
 * release every node once and free every block. Checks made on worker threads
 * are counted atomically and reported by the main thread. Iterations are small
 * by default (CI); RIPPLE_STRESS_ITERATIONS=N runs N iterations per thread in
 * every scenario (any other non-empty value: 20000). A run that takes too long
 * (a deadlock) is stopped by an alarm that names the scenario.
 */
#define _POSIX_C_SOURCE 200809L

#include "testhost.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------ settings */

static unsigned stress_iterations; /* 0: each scenario's small default */
static unsigned run_timeout = 120; /* seconds per scenario run */

static unsigned iterations(unsigned small)
{
    return stress_iterations ? stress_iterations : small;
}

static char scenario_name[96];

static void begin(const char *scenario, unsigned threads)
{
    snprintf(scenario_name, sizeof scenario_name, "%s, %u thread%s", scenario, threads, threads == 1 ? "" : "s");
    harness_begin(scenario_name);
    alarm(run_timeout);
}

static void on_alarm(int signal)
{
    (void)signal;
    static const char prefix[] = "threads: timed out (deadlock?) in scenario ";
    ssize_t ignored = write(2, prefix, sizeof prefix - 1);
    ignored = write(2, scenario_name, strlen(scenario_name));
    ignored = write(2, "\n", 1);
    (void)ignored;
    _exit(3);
}

/* ---------------------------------------------------- worker-side checks */

/* Checks on worker threads: counted atomically, the first few printed. The
 * main thread turns the count into a CHECK when the threads have joined. */
static atomic_uint worker_failures;
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;

static void worker_fail(const char *format, ...)
{
    unsigned previous = atomic_fetch_add_explicit(&worker_failures, 1, memory_order_relaxed);
    if (previous >= 10)
        return;
    pthread_mutex_lock(&report_lock);
    fprintf(stderr, "  [%s] worker check failed: ", scenario_name);
    va_list args;
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
    fprintf(stderr, "\n");
    pthread_mutex_unlock(&report_lock);
}

#define WCHECK(cond, ...)             \
    do {                              \
        if (!(cond))                  \
            worker_fail(__VA_ARGS__); \
    } while (0)

#define WCHECK_ST(got, want, what)                                                                        \
    do {                                                                                                  \
        rp_status_t wcheck_got_ = (got), wcheck_want_ = (want);                                           \
        WCHECK(wcheck_got_ == wcheck_want_, "%s: got %s, want %s", (what), rp_status_string(wcheck_got_), \
               rp_status_string(wcheck_want_));                                                           \
    } while (0)

static void collect_worker_failures(void)
{
    CHECK_EQ(atomic_exchange(&worker_failures, 0), 0);
}

/* Waits (yielding) until *flag >= want, for at most 10 seconds. */
static bool wait_for(atomic_int *flag, int want)
{
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (unsigned round = 0;; round++) {
        if (atomic_load_explicit(flag, memory_order_acquire) >= want)
            return true;
        sched_yield();
        if ((round & 255) == 0) {
            clock_gettime(CLOCK_MONOTONIC, &now);
            if (now.tv_sec - start.tv_sec > 10)
                return false;
        }
    }
}

/* ------------------------------------------------------------ the host */

typedef struct world world_t;
typedef struct tnode tnode_t;
/* A node's body: its value (and `second`, for pairs); the first failed read's
 * status in *status. */
typedef long (*tbody_t)(world_t *w, tnode_t *self, long *second, rp_status_t *status);

enum { EXPECT_ANY, EXPECT_INCREASING, EXPECT_NONDECREASING };

struct tnode {
    const char *name;
    rp_kind_t kind; /* as created */
    rp_node_t h;
    tbody_t body;
    tnode_t *in[2];
    long arg;
    /* Written only by a thread that holds the graph (callbacks, batches). */
    long value;   /* source: committed; computed: last result; effect: last value seen */
    long second;  /* pairs: the second value */
    long pending; /* source: latest written */
    bool has_value;
    unsigned computes, runs, commits;
    int expect;          /* effects: how the values they see must move */
    long *seen;          /* effects: every value seen, when not NULL */
    size_t nseen, seen_capacity;
    unsigned bad_order;  /* effects: values against `expect` */
    unsigned bad_values; /* values a body found wrong */
    unsigned stale_reads;
    bool created;      /* churn: rp_node_create gave it a handle */
    bool expect_alive; /* churn: should be alive at the end */
    /* Any thread. */
    atomic_uint released;
    atomic_uint schedules;
    atomic_bool scheduled; /* deferred: `schedule` called, update not started */
};

/* A deferred effect waiting for its update. */
typedef struct scheduled {
    rp_node_t node;
    tnode_t *n;
} scheduled_t;

struct world {
    rp_graph_t *g;
    th_alloc_t alloc;
    rp_allocator_t allocator;
    rp_graph_config_t config;
    /* Deferred effects waiting for an update, filled by `schedule`. */
    pthread_mutex_t queue_lock;
    pthread_cond_t queue_ready;
    scheduled_t *queue; /* a ring */
    size_t queue_head, queue_count, queue_capacity;
    bool queue_closed;
    unsigned queue_overflows;
    /* Nodes created by callbacks (the churn's spawner), and their storage. */
    tnode_t *spawned;
    size_t nspawned, spawn_capacity;
    unsigned spawn_failures;
};

/* Callbacks on two threads at once, and effect runs on two threads at once:
 * detected with relaxed atomics, so that the test itself adds no
 * synchronization that could hide the engine's missing one. */
static _Thread_local unsigned callback_depth;
static _Thread_local bool callback_owner;
static atomic_uintptr_t callback_thread;
static atomic_uint callback_overlaps;
static atomic_int in_effect;
static atomic_uint effect_overlaps;
/* How concurrent a run was, for its report line: callbacks that ran on
 * another thread than the one before, and rounds made by reader threads. */
static atomic_uintptr_t last_callback_thread;
static atomic_uint handoffs;
static atomic_uint reader_rounds;

static void callback_enter(void)
{
    if (callback_depth++ != 0)
        return;
    uintptr_t self = (uintptr_t)&callback_depth;
    uintptr_t previous = atomic_exchange_explicit(&last_callback_thread, self, memory_order_relaxed);
    if (previous != 0 && previous != self)
        atomic_fetch_add_explicit(&handoffs, 1, memory_order_relaxed);
    uintptr_t expected = 0;
    callback_owner = atomic_compare_exchange_strong_explicit(&callback_thread, &expected, (uintptr_t)&callback_depth,
                                                             memory_order_relaxed, memory_order_relaxed);
    if (!callback_owner)
        atomic_fetch_add_explicit(&callback_overlaps, 1, memory_order_relaxed);
}

static void callback_exit(void)
{
    if (--callback_depth != 0 || !callback_owner)
        return;
    callback_owner = false;
    atomic_store_explicit(&callback_thread, 0, memory_order_relaxed);
}

static rp_status_t compute_cb(void *host, rp_graph_t *graph, rp_node_t node, void *data, bool *changed)
{
    world_t *w = host;
    tnode_t *n = data;
    (void)node;
    callback_enter();
    if (graph != w->g)
        n->bad_values++;
    n->computes++;
    rp_status_t status = RP_OK;
    long second = 0;
    long v = n->body(w, n, &second, &status);
    if (status == RP_OK) {
        *changed = !n->has_value || v != n->value || second != n->second;
        n->value = v;
        n->second = second;
        n->has_value = true;
    }
    callback_exit();
    return status;
}

static bool commit_cb(void *host, rp_graph_t *graph, rp_node_t node, void *data)
{
    (void)host;
    (void)graph;
    (void)node;
    tnode_t *n = data;
    callback_enter();
    n->commits++;
    bool changed = n->pending != n->value;
    n->value = n->pending;
    callback_exit();
    return changed;
}

static void record(tnode_t *n, long v)
{
    if (n->has_value) {
        long last = n->value;
        bool ok = true;
        switch (n->expect) {
        case EXPECT_INCREASING: ok = v > last; break;
        case EXPECT_NONDECREASING: ok = v >= last; break;
        default: break;
        }
        if (!ok)
            n->bad_order++;
    }
    n->value = v;
    n->has_value = true;
    if (n->seen != NULL) {
        if (n->nseen < n->seen_capacity)
            n->seen[n->nseen] = v;
        n->nseen++;
    }
}

static void run_cb(void *host, rp_graph_t *graph, rp_node_t node, void *data)
{
    world_t *w = host;
    tnode_t *n = data;
    (void)node;
    callback_enter();
    if (atomic_exchange_explicit(&in_effect, 1, memory_order_relaxed) != 0)
        atomic_fetch_add_explicit(&effect_overlaps, 1, memory_order_relaxed);
    if (graph != w->g)
        n->bad_values++;
    n->runs++;
    rp_status_t status = RP_OK;
    long second = 0;
    long v = n->body(w, n, &second, &status);
    if (status == RP_OK)
        record(n, v);
    else if (status == RP_ESTALE)
        n->stale_reads++;
    else
        n->bad_values++;
    atomic_store_explicit(&in_effect, 0, memory_order_relaxed);
    callback_exit();
}

static void schedule_cb(void *host, rp_graph_t *graph, rp_node_t node, void *data)
{
    world_t *w = host;
    tnode_t *n = data;
    (void)graph;
    callback_enter();
    atomic_fetch_add_explicit(&n->schedules, 1, memory_order_relaxed);
    if (atomic_exchange_explicit(&n->scheduled, true, memory_order_relaxed))
        worker_fail("%s scheduled again before its update started", n->name);
    pthread_mutex_lock(&w->queue_lock);
    if (w->queue_count < w->queue_capacity) {
        w->queue[(w->queue_head + w->queue_count) % w->queue_capacity] = (scheduled_t){node, n};
        w->queue_count++;
        pthread_cond_signal(&w->queue_ready);
    } else {
        w->queue_overflows++;
    }
    pthread_mutex_unlock(&w->queue_lock);
    callback_exit();
}

static void release_cb(void *host, rp_graph_t *graph, rp_node_t node, void *data)
{
    (void)host;
    (void)graph;
    (void)node;
    tnode_t *n = data;
    callback_enter();
    atomic_fetch_add_explicit(&n->released, 1, memory_order_relaxed);
    callback_exit();
}

/* Opens a graph whose `schedule` queue holds `queue_capacity` effects. */
static void world_open(world_t *w, size_t queue_capacity)
{
    memset(w, 0, sizeof *w);
    w->queue_capacity = queue_capacity;
    w->queue = calloc(queue_capacity, sizeof *w->queue);
    w->alloc.fail_at = -1;
    w->allocator = (rp_allocator_t){.alloc = th_alloc_fn, .free = th_free_fn, .context = &w->alloc};
    w->config = (rp_graph_config_t){
        .callbacks = {.host = w,
                      .compute = compute_cb,
                      .commit = commit_cb,
                      .run = run_cb,
                      .schedule = schedule_cb,
                      .release = release_cb},
        .allocator = &w->allocator,
    };
    pthread_mutex_init(&w->queue_lock, NULL);
    pthread_cond_init(&w->queue_ready, NULL);
    atomic_store(&callback_overlaps, 0);
    atomic_store(&effect_overlaps, 0);
    atomic_store(&last_callback_thread, 0);
    atomic_store(&handoffs, 0);
    atomic_store(&reader_rounds, 0);
    CHECK_ST(rp_graph_create(&w->config, &w->g), RP_OK);
}

static void world_check(world_t *w)
{
    char message[512] = "";
    rp_status_t status = _rp_graph_check(w->g, message, sizeof message);
    CHECK_ST(status, RP_OK);
    if (status != RP_OK)
        fprintf(stderr, "    _rp_graph_check: %s\n", message);
}

/* Checks, destroys the graph, then checks that each of the `count` nodes in
 * `nodes` was released exactly once and every block was freed. */
static void world_close(world_t *w, tnode_t *const *nodes, size_t count)
{
    world_check(w);
    collect_worker_failures();
    CHECK_EQ(atomic_load(&callback_overlaps), 0);
    CHECK_EQ(atomic_load(&effect_overlaps), 0);
    CHECK_ST(rp_graph_destroy(w->g), RP_OK);
    w->g = NULL;
    unsigned wrong = 0;
    for (size_t i = 0; i < count; i++) {
        unsigned released = atomic_load(&nodes[i]->released);
        if (released != 1 && wrong++ < 5)
            fprintf(stderr, "    node %s released %u times\n", nodes[i]->name, released);
    }
    CHECK_EQ(wrong, 0);
    unsigned spawned_wrong = 0;
    for (size_t i = 0; i < w->nspawned; i++)
        if (w->spawned[i].created && atomic_load(&w->spawned[i].released) != 1)
            spawned_wrong++;
    CHECK_EQ(spawned_wrong, 0);
    CHECK_EQ(w->alloc.live_blocks, 0);
    CHECK_EQ(w->alloc.live_bytes, 0);
    CHECK_EQ(w->alloc.size_mismatches, 0);
    free(w->spawned);
    free(w->queue);
    pthread_cond_destroy(&w->queue_ready);
    pthread_mutex_destroy(&w->queue_lock);
}

static void tn_init(tnode_t *n, const char *name, rp_kind_t kind, tbody_t body, long arg, tnode_t *in0,
                    tnode_t *in1)
{
    memset(n, 0, sizeof *n);
    n->name = name;
    n->kind = kind;
    n->body = body;
    n->arg = arg;
    n->in[0] = in0;
    n->in[1] = in1;
    atomic_init(&n->released, 0);
    atomic_init(&n->schedules, 0);
    atomic_init(&n->scheduled, false);
}

static rp_status_t tn_create(world_t *w, tnode_t *n)
{
    return rp_node_create(w->g, n->kind, n, &n->h);
}

/* Loads a node's value inside a read section. */
static rp_status_t tn_read(world_t *w, tnode_t *n, long *value, long *second)
{
    rp_read_section_t section;
    rp_status_t status = rp_node_read_begin(w->g, n->h, &section);
    if (status != RP_OK)
        return status;
    *value = n->value;
    if (second != NULL)
        *second = n->second;
    return rp_node_read_end(w->g, &section);
}

/* For bodies: a read whose failure is kept in *status. */
static long body_read(world_t *w, tnode_t *n, rp_status_t *status)
{
    long v = 0;
    rp_status_t got = tn_read(w, n, &v, NULL);
    if (got != RP_OK && *status == RP_OK)
        *status = got;
    return v;
}

/* in[0] * arg */
static long body_scale(world_t *w, tnode_t *self, long *second, rp_status_t *status)
{
    (void)second;
    return body_read(w, self->in[0], status) * self->arg;
}

/* in[0] - arg * in[1] */
static long body_delta(world_t *w, tnode_t *self, long *second, rp_status_t *status)
{
    (void)second;
    long first = body_read(w, self->in[0], status);
    return first - self->arg * body_read(w, self->in[1], status);
}

/* in[0] + in[1] */
static long body_sum(world_t *w, tnode_t *self, long *second, rp_status_t *status)
{
    (void)second;
    long first = body_read(w, self->in[0], status);
    return first + body_read(w, self->in[1], status);
}

/* (in[0], in[1]) */
static long body_pair(world_t *w, tnode_t *self, long *second, rp_status_t *status)
{
    long first = body_read(w, self->in[0], status);
    *second = body_read(w, self->in[1], status);
    return first;
}

/* in[0] */
static long body_copy(world_t *w, tnode_t *self, long *second, rp_status_t *status)
{
    (void)second;
    return body_read(w, self->in[0], status);
}

/* Reads in[0], which must be 0 (counted in bad_values otherwise), then
 * returns in[1]. */
static long body_zero_then(world_t *w, tnode_t *self, long *second, rp_status_t *status)
{
    (void)second;
    long zero = body_read(w, self->in[0], status);
    if (*status == RP_OK && zero != 0)
        self->bad_values++;
    return body_read(w, self->in[1], status);
}

/* Reads in[0] and in[1] (x and y), each inside a read section of its own,
 * in one batch: atomic. */
static rp_status_t read_two_in_batch(world_t *w, tnode_t *a, tnode_t *b, long *va, long *vb)
{
    rp_status_t status = rp_batch_begin(w->g);
    if (status != RP_OK)
        return status;
    rp_status_t first = tn_read(w, a, va, NULL);
    rp_status_t second = tn_read(w, b, vb, NULL);
    rp_status_t end = rp_batch_end(w->g);
    return first ? first : second ? second : end;
}

/* Sets source `n` to v (inside the caller's batch). */
static rp_status_t tn_set(world_t *w, tnode_t *n, long v)
{
    n->pending = v;
    return rp_source_set(w->g, n->h);
}

/* One atomic step of the writers: reads `a`, then writes a + 1 to it and
 * `factor` * (a + 1) to `b` (if any), in one batch; the order of the two
 * writes alternates. The new value of `a` in *out. */
static rp_status_t step(world_t *w, tnode_t *a, tnode_t *b, long factor, bool b_first, long *out)
{
    rp_status_t status = rp_batch_begin(w->g);
    if (status != RP_OK)
        return status;
    long v = 0;
    status = tn_read(w, a, &v, NULL);
    if (status == RP_OK && b != NULL && b_first)
        status = tn_set(w, b, factor * (v + 1));
    if (status == RP_OK)
        status = tn_set(w, a, v + 1);
    if (status == RP_OK && b != NULL && !b_first)
        status = tn_set(w, b, factor * (v + 1));
    rp_status_t end = rp_batch_end(w->g);
    *out = v + 1;
    return status ? status : end;
}

/* Writers yield now and then, so that the graph changes hands between them
 * more often than an unfair lock would let it. */
static void pace(unsigned i)
{
    if ((i & 3) == 3)
        sched_yield();
}

/* Readers too, less often: they count their rounds. */
static void reader_pace(void)
{
    unsigned round = atomic_fetch_add_explicit(&reader_rounds, 1, memory_order_relaxed);
    if ((round & 7) == 7)
        sched_yield();
}

/* Creates a node, checking the status. */
static void create_ok(world_t *w, tnode_t *n)
{
    CHECK_ST(tn_create(w, n), RP_OK);
}

static size_t live_nodes(world_t *w)
{
    rp_graph_stats_t stats;
    memset(&stats, 0, sizeof stats);
    CHECK_ST(rp_graph_stats(w->g, &stats), RP_OK);
    return stats.live_nodes;
}

static long main_read(world_t *w, tnode_t *n)
{
    long v = -999999;
    CHECK_ST(tn_read(w, n, &v, NULL), RP_OK);
    return v;
}

/* Starts `count` threads running fn(arg index), all released at once. */
typedef struct crew {
    pthread_t threads[32];
    unsigned count;
} crew_t;

static pthread_barrier_t start_line;

typedef struct job {
    void *(*fn)(unsigned index);
    unsigned index;
} job_t;

static job_t jobs[32];

static void *job_main(void *arg)
{
    job_t *job = arg;
    pthread_barrier_wait(&start_line);
    return job->fn(job->index);
}

/* Starts the threads of all roles at once: `roles` pairs of (fn, count). */
static void crew_start(crew_t *crew, unsigned roles, void *(*const *fns)(unsigned), const unsigned *counts)
{
    unsigned total = 0;
    for (unsigned r = 0; r < roles; r++)
        total += counts[r];
    if (total > 32) {
        fprintf(stderr, "too many threads\n");
        exit(2);
    }
    pthread_barrier_init(&start_line, NULL, total);
    crew->count = 0;
    for (unsigned r = 0; r < roles; r++) {
        for (unsigned i = 0; i < counts[r]; i++) {
            job_t *job = &jobs[crew->count];
            job->fn = fns[r];
            job->index = i;
            if (pthread_create(&crew->threads[crew->count], NULL, job_main, job) != 0) {
                fprintf(stderr, "pthread_create failed\n");
                exit(2);
            }
            crew->count++;
        }
    }
}

static void crew_join(crew_t *crew, unsigned first, unsigned count)
{
    for (unsigned i = first; i < first + count; i++)
        pthread_join(crew->threads[i], NULL);
}

static void crew_finish(void)
{
    pthread_barrier_destroy(&start_line);
}

/* The scheduler thread: drains the queue `schedule` fills, updating each
 * effect, until the queue is closed and empty. RP_ESTALE is expected only
 * where effects are disposed while scheduled (`stale_allowed`). */
static struct {
    world_t *w;
    bool stale_allowed;
    unsigned updates, stale_updates; /* the scheduler's */
} sched;

static void *scheduler(unsigned index)
{
    (void)index;
    world_t *w = sched.w;
    for (;;) {
        pthread_mutex_lock(&w->queue_lock);
        while (w->queue_count == 0 && !w->queue_closed)
            pthread_cond_wait(&w->queue_ready, &w->queue_lock);
        if (w->queue_count == 0) {
            pthread_mutex_unlock(&w->queue_lock);
            return NULL;
        }
        scheduled_t next = w->queue[w->queue_head];
        w->queue_head = (w->queue_head + 1) % w->queue_capacity;
        w->queue_count--;
        pthread_mutex_unlock(&w->queue_lock);
        tnode_t *n = next.n;
        WCHECK(harness_same(next.node, n->h), "%s scheduled with another handle", n->name);
        /* Cleared before the update: `schedule` may come again once it started. */
        atomic_store_explicit(&n->scheduled, false, memory_order_relaxed);
        rp_status_t status = rp_effect_update(w->g, next.node);
        if (status == RP_ESTALE && sched.stale_allowed)
            sched.stale_updates++;
        else
            WCHECK_ST(status, RP_OK, "rp_effect_update");
        sched.updates++;
    }
}

static void scheduler_prepare(world_t *w, bool stale_allowed)
{
    sched.w = w;
    sched.stale_allowed = stale_allowed;
    sched.updates = sched.stale_updates = 0;
}

/* After the writers: no more `schedule`; the scheduler drains what is left. */
static void queue_close(world_t *w)
{
    pthread_mutex_lock(&w->queue_lock);
    w->queue_closed = true;
    pthread_cond_broadcast(&w->queue_ready);
    pthread_mutex_unlock(&w->queue_lock);
}

/* ------------------------------------------------------------ counters */

static struct {
    world_t w;
    tnode_t counter, twice, delta;
    unsigned n;
    atomic_bool writers_done;
} cnt;

static void *counter_writer(unsigned index)
{
    (void)index;
    long last = 0;
    for (unsigned i = 0; i < cnt.n; i++) {
        long now = 0;
        WCHECK_ST(step(&cnt.w, &cnt.counter, NULL, 0, false, &now), RP_OK, "increment");
        pace(i);
        WCHECK(now > last, "increment gave %ld after %ld", now, last);
        last = now;
    }
    return NULL;
}

static void *counter_reader(unsigned index)
{
    (void)index;
    long last_counter = 0, last_twice = 0;
    bool done;
    do {
        done = atomic_load_explicit(&cnt.writers_done, memory_order_relaxed);
        long counter = -1, twice = -1, delta = -1;
        WCHECK_ST(tn_read(&cnt.w, &cnt.counter, &counter, NULL), RP_OK, "read counter");
        WCHECK_ST(tn_read(&cnt.w, &cnt.twice, &twice, NULL), RP_OK, "read twice");
        WCHECK_ST(tn_read(&cnt.w, &cnt.delta, &delta, NULL), RP_OK, "read delta");
        WCHECK(counter >= last_counter, "counter went back from %ld to %ld", last_counter, counter);
        WCHECK(twice >= last_twice && twice % 2 == 0, "twice went from %ld to %ld", last_twice, twice);
        WCHECK(delta == 0, "delta = twice - 2 * counter is %ld", delta);
        last_counter = counter;
        last_twice = twice;
        reader_pace();
    } while (!done);
    return NULL;
}

static void counters(unsigned threads)
{
    begin("counters", threads);
    world_t *w = &cnt.w;
    world_open(w, 16);
    cnt.n = iterations(2000);
    atomic_store(&cnt.writers_done, false);
    tn_init(&cnt.counter, "counter", RP_KIND_SOURCE, NULL, 0, NULL, NULL);
    tn_init(&cnt.twice, "twice", RP_KIND_COMPUTED, body_scale, 2, &cnt.counter, NULL);
    tn_init(&cnt.delta, "delta", RP_KIND_COMPUTED, body_delta, 2, &cnt.twice, &cnt.counter);
    create_ok(w, &cnt.counter);
    create_ok(w, &cnt.twice);
    create_ok(w, &cnt.delta);
    CHECK_EQ(main_read(w, &cnt.delta), 0);

    crew_t crew;
    void *(*const fns[])(unsigned) = {counter_writer, counter_reader};
    const unsigned counts[] = {threads, threads};
    crew_start(&crew, 2, fns, counts);
    crew_join(&crew, 0, threads);
    atomic_store(&cnt.writers_done, true);
    crew_join(&crew, threads, threads);
    crew_finish();

    long total = (long)threads * cnt.n;
    CHECK_EQ(main_read(w, &cnt.counter), total);
    CHECK_EQ(main_read(w, &cnt.twice), 2 * total);
    CHECK_EQ(main_read(w, &cnt.delta), 0);
    /* Every increment was one change: the counter committed at most once per
     * increment (plus its creation's value), twice computed at most as often. */
    CHECK(cnt.counter.commits <= (unsigned)total);
    CHECK(cnt.twice.computes <= (unsigned)total + 1);
    CHECK_EQ(live_nodes(w), 3);
    tnode_t *nodes[] = {&cnt.counter, &cnt.twice, &cnt.delta};
    world_close(w, nodes, 3);
}

/* --------------------------------------------------------- consistency */

static struct {
    world_t w;
    tnode_t a, b, pair, sum;
    unsigned n;
    atomic_bool writers_done;
} con;

static void *pair_writer(unsigned index)
{
    for (unsigned i = 0; i < con.n; i++) {
        long now = 0;
        WCHECK_ST(step(&con.w, &con.a, &con.b, -1, ((i + index) & 1) != 0, &now), RP_OK, "write a and b");
        pace(i);
    }
    return NULL;
}

static void *pair_reader(unsigned index)
{
    world_t *w = &con.w;
    long last_a = 0;
    unsigned round = index;
    bool done;
    do {
        done = atomic_load_explicit(&con.writers_done, memory_order_relaxed);
        long a = 0, b = 0, sum = -1;
        switch (round++ % 4) {
        case 0: /* the pair, as one derivation read it */
            WCHECK_ST(tn_read(w, &con.pair, &a, &b), RP_OK, "read pair");
            WCHECK(a + b == 0, "the derivation read a = %ld, b = %ld", a, b);
            break;
        case 1: /* a derivation of both */
            WCHECK_ST(tn_read(w, &con.sum, &sum, NULL), RP_OK, "read sum");
            WCHECK(sum == 0, "a + b computed as %ld", sum);
            WCHECK_ST(tn_read(w, &con.a, &a, NULL), RP_OK, "read a");
            break;
        case 2: /* both sources, in an untracked section (outside any batch) */
            WCHECK_ST(rp_untracked_begin(w->g), RP_OK, "untracked begin");
            WCHECK_ST(tn_read(w, &con.a, &a, NULL), RP_OK, "read a");
            WCHECK_ST(tn_read(w, &con.b, &b, NULL), RP_OK, "read b");
            WCHECK_ST(rp_untracked_end(w->g), RP_OK, "untracked end");
            WCHECK(a + b == 0, "an untracked section read a = %ld, b = %ld", a, b);
            break;
        default: /* both sources, in a batch */
            WCHECK_ST(read_two_in_batch(w, &con.b, &con.a, &b, &a), RP_OK, "read in a batch");
            WCHECK(a + b == 0, "a batch read a = %ld, b = %ld", a, b);
            break;
        }
        WCHECK(a >= last_a, "a went back from %ld to %ld", last_a, a);
        last_a = a;
        reader_pace();
    } while (!done);
    return NULL;
}

static void consistency(unsigned threads)
{
    begin("consistency", threads);
    world_t *w = &con.w;
    world_open(w, 16);
    con.n = iterations(2000);
    atomic_store(&con.writers_done, false);
    tn_init(&con.a, "a", RP_KIND_SOURCE, NULL, 0, NULL, NULL);
    tn_init(&con.b, "b", RP_KIND_SOURCE, NULL, 0, NULL, NULL);
    tn_init(&con.pair, "pair", RP_KIND_COMPUTED, body_pair, 0, &con.a, &con.b);
    tn_init(&con.sum, "sum", RP_KIND_COMPUTED, body_sum, 0, &con.a, &con.b);
    create_ok(w, &con.a);
    create_ok(w, &con.b);
    create_ok(w, &con.pair);
    create_ok(w, &con.sum);

    crew_t crew;
    void *(*const fns[])(unsigned) = {pair_writer, pair_reader};
    const unsigned counts[] = {threads, threads};
    crew_start(&crew, 2, fns, counts);
    crew_join(&crew, 0, threads);
    atomic_store(&con.writers_done, true);
    crew_join(&crew, threads, threads);
    crew_finish();

    long total = (long)threads * con.n;
    long a = 0, b = 0;
    CHECK_ST(tn_read(w, &con.pair, &a, &b), RP_OK);
    CHECK_EQ(a, total);
    CHECK_EQ(b, -total);
    CHECK_EQ(main_read(w, &con.sum), 0);
    CHECK_EQ(main_read(w, &con.a), total);
    CHECK_EQ(main_read(w, &con.b), -total);
    CHECK_EQ(live_nodes(w), 4);
    tnode_t *nodes[] = {&con.a, &con.b, &con.pair, &con.sum};
    world_close(w, nodes, 4);
}

/* ------------------------------------------------------------- effects */

static struct {
    world_t w;
    tnode_t counter, twice, on_counter, on_twice;
    unsigned n;
    atomic_bool writers_done;
} eff;

static void *effect_writer(unsigned index)
{
    (void)index;
    for (unsigned i = 0; i < eff.n; i++) {
        long now = 0;
        WCHECK_ST(step(&eff.w, &eff.counter, NULL, 0, false, &now), RP_OK, "increment");
        pace(i);
    }
    return NULL;
}

static void *effect_reader(unsigned index)
{
    (void)index;
    bool done;
    long last = 0;
    do {
        done = atomic_load_explicit(&eff.writers_done, memory_order_relaxed);
        long twice = -1;
        WCHECK_ST(tn_read(&eff.w, &eff.twice, &twice, NULL), RP_OK, "read twice");
        WCHECK(twice >= last, "twice went back from %ld to %ld", last, twice);
        last = twice;
        reader_pace();
    } while (!done);
    return NULL;
}

/* Every value of `n`'s sequence is `factor` times its index: each value
 * once, in order, none missing. */
static void check_sequence(tnode_t *n, long count, long factor)
{
    CHECK_EQ(n->nseen, count);
    CHECK_EQ(n->bad_order, 0);
    unsigned wrong = 0;
    for (size_t i = 0; i < n->nseen && i < n->seen_capacity; i++) {
        if (n->seen[i] != factor * (long)i && wrong++ < 3)
            fprintf(stderr, "    %s saw %ld as value %zu, want %ld\n", n->name, n->seen[i], i, factor * (long)i);
        if (i > 0 && n->seen[i] <= n->seen[i - 1] && wrong++ < 3)
            fprintf(stderr, "    %s saw %ld after %ld\n", n->name, n->seen[i], n->seen[i - 1]);
    }
    CHECK_EQ(wrong, 0);
    if (n->nseen > 0 && n->nseen <= n->seen_capacity)
        CHECK_EQ(n->seen[n->nseen - 1], factor * (count - 1));
}

static void effects(unsigned threads)
{
    begin("effects", threads);
    world_t *w = &eff.w;
    world_open(w, 16);
    eff.n = iterations(2000);
    atomic_store(&eff.writers_done, false);
    long total = (long)threads * eff.n;
    size_t capacity = (size_t)total + 16;
    tn_init(&eff.counter, "counter", RP_KIND_SOURCE, NULL, 0, NULL, NULL);
    tn_init(&eff.twice, "twice", RP_KIND_COMPUTED, body_scale, 2, &eff.counter, NULL);
    tn_init(&eff.on_counter, "on_counter", RP_KIND_EFFECT, body_copy, 0, &eff.counter, NULL);
    tn_init(&eff.on_twice, "on_twice", RP_KIND_EFFECT, body_copy, 0, &eff.twice, NULL);
    tnode_t *watchers[] = {&eff.on_counter, &eff.on_twice};
    for (int i = 0; i < 2; i++) {
        watchers[i]->expect = EXPECT_INCREASING;
        watchers[i]->seen = calloc(capacity, sizeof(long));
        watchers[i]->seen_capacity = capacity;
    }
    create_ok(w, &eff.counter);
    create_ok(w, &eff.twice);
    create_ok(w, &eff.on_counter);
    create_ok(w, &eff.on_twice);
    CHECK_EQ(eff.on_counter.runs, 1);
    CHECK_EQ(eff.on_twice.runs, 1);

    crew_t crew;
    void *(*const fns[])(unsigned) = {effect_writer, effect_reader};
    const unsigned counts[] = {threads, threads};
    crew_start(&crew, 2, fns, counts);
    crew_join(&crew, 0, threads);
    atomic_store(&eff.writers_done, true);
    crew_join(&crew, threads, threads);
    crew_finish();

    CHECK_EQ(main_read(w, &eff.counter), total);
    CHECK_EQ(main_read(w, &eff.twice), 2 * total);
    /* Each increment ran each effect once, with the new value: 0, 1, ..., total. */
    check_sequence(&eff.on_counter, total + 1, 1);
    check_sequence(&eff.on_twice, total + 1, 2);
    CHECK_EQ(eff.on_counter.runs, total + 1);
    CHECK_EQ(eff.on_twice.runs, total + 1);
    CHECK_EQ(eff.on_counter.value, total);
    CHECK_EQ(eff.on_twice.value, 2 * total);
    CHECK_EQ(eff.on_counter.bad_values + eff.on_twice.bad_values, 0);
    CHECK_EQ(live_nodes(w), 4);
    tnode_t *nodes[] = {&eff.counter, &eff.twice, &eff.on_counter, &eff.on_twice};
    world_close(w, nodes, 4);
    for (int i = 0; i < 2; i++)
        free(watchers[i]->seen);
}

/* --------------------------------------------------------------- churn */

static struct {
    world_t w;
    tnode_t x, y, spawner;
    unsigned n;
    tnode_t *nodes[8]; /* per churner: CHURNED * n */
    /* Per churner: the index in nodes[] of its latest computed, read, -1
     * before the first: other threads read it, alive or not. */
    atomic_int published[8];
    atomic_int churners_done;
    atomic_uint foreign_reads, stale_reads;
} ch;

/* The spawner's body: reads x; creates a computed reading y, reads it in an
 * untracked section (y = 2 * x, written in the same batch), disposes it. */
static long body_spawn(world_t *w, tnode_t *self, long *second, rp_status_t *status)
{
    (void)second;
    long x = body_read(w, &ch.x, status);
    if (*status != RP_OK)
        return x;
    if (w->nspawned == w->spawn_capacity) {
        w->spawn_failures++;
        return x;
    }
    tnode_t *inner = &w->spawned[w->nspawned++];
    tn_init(inner, "inner", RP_KIND_COMPUTED, body_copy, 0, &ch.y, NULL);
    if (tn_create(w, inner) != RP_OK) {
        w->spawn_failures++;
        return x;
    }
    inner->created = true;
    long y = -1;
    rp_status_t got = rp_untracked_begin(w->g);
    if (got == RP_OK) {
        got = tn_read(w, inner, &y, NULL);
        rp_status_t end = rp_untracked_end(w->g);
        got = got ? got : end;
    }
    if (got != RP_OK || y != 2 * x)
        self->bad_values++;
    if (rp_node_dispose(w->g, inner->h) != RP_OK)
        w->spawn_failures++;
    return x;
}

static unsigned churn_writers(unsigned threads)
{
    return (threads + 1) / 2;
}

static void *churn_writer(unsigned index)
{
    for (unsigned i = 0; i < ch.n; i++) {
        long now = 0;
        WCHECK_ST(step(&ch.w, &ch.x, &ch.y, 2, ((i + index) & 1) != 0, &now), RP_OK, "write x and y");
        pace(i);
    }
    return NULL;
}

/* Churned nodes per iteration: a computed, an effect and a deferred effect
 * reading it. */
#define CHURNED 3

static void churn_create(world_t *w, tnode_t *n, const char *what)
{
    rp_status_t created = tn_create(w, n);
    WCHECK_ST(created, RP_OK, what);
    n->created = created == RP_OK;
}

static void churn_dispose(world_t *w, tnode_t *n, const char *what)
{
    WCHECK_ST(rp_node_dispose(w->g, n->h), RP_OK, what);
}

static void *churner(unsigned index)
{
    world_t *w = &ch.w;
    tnode_t *mine = ch.nodes[index];
    tnode_t *kept = NULL;
    for (unsigned i = 0; i < ch.n; i++) {
        tnode_t *c = &mine[CHURNED * i], *e = c + 1, *d = c + 2;
        tn_init(c, "churned computed", RP_KIND_COMPUTED, body_delta, 2, &ch.y, &ch.x);
        churn_create(w, c, "create a computed");
        long v = -1;
        WCHECK_ST(tn_read(w, c, &v, NULL), RP_OK, "read the computed");
        WCHECK(v == 0, "y - 2 * x read as %ld", v);
        atomic_store_explicit(&ch.published[index], (int)(CHURNED * i), memory_order_release);
        tn_init(e, "churned effect", RP_KIND_EFFECT, body_zero_then, 0, c, &ch.x);
        e->expect = EXPECT_NONDECREASING;
        churn_create(w, e, "create an effect");
        tn_init(d, "churned deferred effect", RP_KIND_DEFERRED_EFFECT, body_zero_then, 0, c, &ch.x);
        d->expect = EXPECT_NONDECREASING;
        churn_create(w, d, "create a deferred effect");
        switch (i % 4) {
        case 0:
            churn_dispose(w, e, "dispose the effect");
            churn_dispose(w, d, "dispose the deferred effect");
            churn_dispose(w, c, "dispose the computed");
            break;
        case 1: /* the effect runs again, finding what it read gone; the
                 * deferred one is due again, and its update may find it gone */
            churn_dispose(w, c, "dispose the computed first");
            churn_dispose(w, e, "dispose the effect");
            sched_yield();
            churn_dispose(w, d, "dispose the deferred effect");
            break;
        case 2:
            WCHECK_ST(rp_batch_begin(w->g), RP_OK, "batch begin");
            churn_dispose(w, c, "dispose the computed in a batch");
            churn_dispose(w, d, "dispose the deferred effect in a batch");
            churn_dispose(w, e, "dispose the effect in a batch");
            WCHECK_ST(rp_batch_end(w->g), RP_OK, "batch end");
            break;
        default: /* kept alive until the next round of this kind */
            if (kept != NULL) {
                for (int k = 0; k < CHURNED; k++) {
                    churn_dispose(w, &kept[k], "dispose a kept node");
                    kept[k].expect_alive = false;
                }
            }
            kept = c;
            c->expect_alive = e->expect_alive = d->expect_alive = true;
            break;
        }
        pace(i);
    }
    return NULL;
}

/* Reads the computeds the churners publish, alive or disposed (their slots
 * reused): each read either succeeds with a consistent value or finds the
 * node stale, and so do the queries. */
static void *churn_reader(unsigned index)
{
    world_t *w = &ch.w;
    unsigned churners = 0;
    while (churners < 8 && ch.nodes[churners] != NULL)
        churners++;
    unsigned round = index;
    bool done;
    do {
        done = atomic_load_explicit(&ch.churners_done, memory_order_acquire) != 0;
        unsigned t = round++ % churners;
        int published = atomic_load_explicit(&ch.published[t], memory_order_acquire);
        if (published < 0) {
            sched_yield();
            continue;
        }
        tnode_t *c = &ch.nodes[t][published];
        rp_node_t h = c->h;
        long v = -1;
        rp_status_t status = tn_read(w, c, &v, NULL);
        if (status == RP_OK) {
            WCHECK(v == 0, "a published computed read as %ld", v);
            atomic_fetch_add_explicit(&ch.foreign_reads, 1, memory_order_relaxed);
        } else {
            WCHECK_ST(status, RP_ESTALE, "read of a published computed");
            atomic_fetch_add_explicit(&ch.stale_reads, 1, memory_order_relaxed);
        }
        rp_kind_t kind = RP_KIND_EFFECT;
        status = rp_node_kind(w->g, h, &kind);
        WCHECK(status == RP_ESTALE || (status == RP_OK && kind == RP_KIND_COMPUTED), "rp_node_kind: %s, kind %d",
               rp_status_string(status), (int)kind);
        rp_node_t deps[4];
        size_t count = 99;
        status = rp_node_dependencies(w->g, h, deps, 4, &count);
        WCHECK(status == RP_ESTALE || (status == RP_OK && count == 2), "rp_node_dependencies: %s, %zu deps",
               rp_status_string(status), count);
        if (status == RP_OK)
            WCHECK(harness_same(deps[0], ch.y.h) && harness_same(deps[1], ch.x.h), "wrong dependencies");
        void *data = NULL;
        status = rp_node_data(w->g, h, &data);
        WCHECK(status == RP_ESTALE || (status == RP_OK && data == c), "rp_node_data: %s", rp_status_string(status));
        rp_graph_stats_t stats;
        WCHECK_ST(rp_graph_stats(w->g, &stats), RP_OK, "rp_graph_stats");
        WCHECK(stats.live_nodes >= 3, "%zu live nodes", stats.live_nodes);
        reader_pace();
    } while (!done);
    return NULL;
}

static void churn(unsigned threads)
{
    begin("churn", threads);
    world_t *w = &ch.w;
    ch.n = iterations(400);
    size_t per_thread = CHURNED * (size_t)ch.n;
    world_open(w, (size_t)threads * ch.n + 16);
    scheduler_prepare(w, true);
    unsigned writers = churn_writers(threads);
    w->spawn_capacity = (size_t)writers * ch.n + 16;
    w->spawned = calloc(w->spawn_capacity, sizeof(tnode_t));
    tn_init(&ch.x, "x", RP_KIND_SOURCE, NULL, 0, NULL, NULL);
    tn_init(&ch.y, "y", RP_KIND_SOURCE, NULL, 0, NULL, NULL);
    tn_init(&ch.spawner, "spawner", RP_KIND_EFFECT, body_spawn, 0, NULL, NULL);
    ch.spawner.expect = EXPECT_NONDECREASING;
    create_ok(w, &ch.x);
    create_ok(w, &ch.y);
    create_ok(w, &ch.spawner);
    memset(ch.nodes, 0, sizeof ch.nodes);
    for (unsigned t = 0; t < threads; t++)
        ch.nodes[t] = calloc(per_thread, sizeof(tnode_t));
    for (unsigned t = 0; t < 8; t++)
        atomic_store(&ch.published[t], -1);
    atomic_store(&ch.churners_done, 0);
    atomic_store(&ch.foreign_reads, 0);
    atomic_store(&ch.stale_reads, 0);

    crew_t crew;
    unsigned readers = churn_writers(threads);
    void *(*const fns[])(unsigned) = {churner, churn_writer, churn_reader, scheduler};
    const unsigned counts[] = {threads, writers, readers, 1};
    crew_start(&crew, 4, fns, counts);
    crew_join(&crew, 0, threads);
    atomic_store_explicit(&ch.churners_done, 1, memory_order_release);
    crew_join(&crew, threads, writers + readers);
    queue_close(w);
    crew_join(&crew, threads + writers + readers, 1);
    crew_finish();
    printf("churn: %u reads of published computeds, %u of them stale; %u deferred updates, %u stale\n",
           atomic_load(&ch.foreign_reads) + atomic_load(&ch.stale_reads), atomic_load(&ch.stale_reads),
           sched.updates, sched.stale_updates);

    long total = (long)writers * ch.n;
    CHECK_EQ(main_read(w, &ch.x), total);
    CHECK_EQ(main_read(w, &ch.y), 2 * total);
    size_t alive = 3, created = 3, wrong_release = 0, wrong_values = 0, deferred_runs = 0, schedules = 0;
    for (unsigned t = 0; t < threads; t++) {
        for (size_t i = 0; i < per_thread; i++) {
            tnode_t *n = &ch.nodes[t][i];
            if (!n->created)
                continue;
            created++;
            alive += n->expect_alive;
            if (atomic_load(&n->released) != (n->expect_alive ? 0u : 1u) && wrong_release++ < 3)
                fprintf(stderr, "    %s %zu of thread %u released %u times before the end\n", n->name, i, t,
                        atomic_load(&n->released));
            wrong_values += n->bad_values + n->bad_order;
            if (n->kind == RP_KIND_DEFERRED_EFFECT) {
                deferred_runs += n->runs;
                schedules += atomic_load(&n->schedules);
            }
        }
    }
    CHECK_EQ(created, 3 + per_thread * threads);
    CHECK_EQ(alive, 3 + (ch.n >= 4 ? (size_t)CHURNED * threads : 0));
    CHECK_EQ(live_nodes(w), alive);
    CHECK_EQ(wrong_release, 0);
    CHECK_EQ(wrong_values, 0);
    /* Every schedule was answered by one update; updates of effects disposed
     * meanwhile are the RP_ESTALE ones, and no run came without an update. */
    CHECK_EQ(sched.updates, schedules);
    CHECK(deferred_runs <= sched.updates - sched.stale_updates);
    CHECK_EQ(w->queue_overflows, 0);
    /* The spawner ran once per write of x (and at its creation), each run
     * creating and disposing one node. */
    CHECK_EQ(ch.spawner.runs, total + 1);
    CHECK_EQ(ch.spawner.value, total);
    CHECK_EQ(ch.spawner.bad_values + ch.spawner.bad_order, 0);
    CHECK_EQ(w->spawn_failures, 0);
    CHECK_EQ(w->nspawned, total + 1);
    size_t inner_released = 0;
    for (size_t i = 0; i < w->nspawned; i++)
        inner_released += atomic_load(&w->spawned[i].released);
    CHECK_EQ(inner_released, w->nspawned);
    world_check(w);

    tnode_t **nodes = calloc(created, sizeof *nodes);
    size_t count = 0;
    nodes[count++] = &ch.x;
    nodes[count++] = &ch.y;
    nodes[count++] = &ch.spawner;
    for (unsigned t = 0; t < threads; t++)
        for (size_t i = 0; i < per_thread; i++)
            if (ch.nodes[t][i].created && count < created)
                nodes[count++] = &ch.nodes[t][i];
    world_close(w, nodes, count);
    free(nodes);
    for (unsigned t = 0; t < threads; t++)
        free(ch.nodes[t]);
}

/* ------------------------------------------------------------ deferred */

#define DEFERRED_EFFECTS 4

static struct {
    world_t w;
    tnode_t counter, twice, d[DEFERRED_EFFECTS];
    unsigned n;
} def;

static void *deferred_writer(unsigned index)
{
    (void)index;
    for (unsigned i = 0; i < def.n; i++) {
        long now = 0;
        WCHECK_ST(step(&def.w, &def.counter, NULL, 0, false, &now), RP_OK, "increment");
        pace(i);
    }
    return NULL;
}


static void deferred(unsigned threads)
{
    begin("deferred", threads);
    world_t *w = &def.w;
    world_open(w, 16);
    def.n = iterations(2000);
    scheduler_prepare(w, false);
    tn_init(&def.counter, "counter", RP_KIND_SOURCE, NULL, 0, NULL, NULL);
    tn_init(&def.twice, "twice", RP_KIND_COMPUTED, body_scale, 2, &def.counter, NULL);
    create_ok(w, &def.counter);
    create_ok(w, &def.twice);
    static const char *const names[DEFERRED_EFFECTS] = {"d0", "d1", "d2", "d3 (on twice)"};
    for (int i = 0; i < DEFERRED_EFFECTS; i++) {
        tnode_t *d = &def.d[i];
        tn_init(d, names[i], RP_KIND_DEFERRED_EFFECT, body_copy, 0, i == 3 ? &def.twice : &def.counter, NULL);
        d->expect = EXPECT_NONDECREASING;
        create_ok(w, d);
        CHECK_EQ(atomic_load(&d->schedules), 1);
        CHECK_EQ(d->runs, 0);
    }
    CHECK_EQ(w->queue_count, DEFERRED_EFFECTS);

    crew_t crew;
    void *(*const fns[])(unsigned) = {deferred_writer, scheduler};
    const unsigned counts[] = {threads, 1};
    crew_start(&crew, 2, fns, counts);
    crew_join(&crew, 0, threads);
    queue_close(w);
    crew_join(&crew, threads, 1);
    crew_finish();

    long total = (long)threads * def.n;
    CHECK_EQ(main_read(w, &def.counter), total);
    CHECK_EQ(w->queue_count, 0);
    CHECK_EQ(w->queue_overflows, 0);
    unsigned schedules = 0;
    for (int i = 0; i < DEFERRED_EFFECTS; i++) {
        tnode_t *d = &def.d[i];
        unsigned scheduled = atomic_load(&d->schedules);
        schedules += scheduled;
        CHECK(d->has_value);
        CHECK_EQ(d->value, i == 3 ? 2 * total : total);
        CHECK_EQ(d->bad_order, 0);
        CHECK_EQ(d->bad_values + d->stale_reads, 0);
        CHECK(d->runs >= 1 && d->runs <= scheduled);
        CHECK(!atomic_load(&d->scheduled));
        /* Up to date: an update now does nothing. */
        unsigned runs = d->runs;
        CHECK_ST(rp_effect_update(w->g, d->h), RP_OK);
        CHECK_EQ(d->runs, runs);
    }
    CHECK_EQ(sched.updates, schedules);
    CHECK_EQ(sched.stale_updates, 0);
    CHECK_EQ(live_nodes(w), 2 + DEFERRED_EFFECTS);
    tnode_t *nodes[2 + DEFERRED_EFFECTS] = {&def.counter, &def.twice};
    for (int i = 0; i < DEFERRED_EFFECTS; i++)
        nodes[2 + i] = &def.d[i];
    world_close(w, nodes, 2 + DEFERRED_EFFECTS);
}

/* ------------------------------------------------------------ sections */

/* Read sections share the graph with each other and exclude writers; a batch
 * excludes readers. Each "must wait" is checked as "has not finished after a
 * pause", which a correct engine never fails. */
static struct {
    world_t w;
    tnode_t s, copy;
    int readers;
    atomic_int phase;    /* 1: readers together, 2: a writer against readers, 3: readers against a batch */
    atomic_int inside;   /* readers inside their section (phases 1 and 2) */
    atomic_int finished; /* readers done with the phase */
    atomic_int release;  /* phase 2: readers may end their sections */
    atomic_int written;  /* phase 2: the writer's batch ended */
} sec;

static void pause_briefly(void)
{
    struct timespec pause = {0, 30 * 1000 * 1000};
    nanosleep(&pause, NULL);
}

static void *section_reader(unsigned index)
{
    (void)index;
    world_t *w = &sec.w;
    rp_read_section_t section;
    /* 1: every reader inside its section at once. */
    if (!wait_for(&sec.phase, 1))
        return NULL;
    WCHECK_ST(rp_node_read_begin(w->g, sec.copy.h, &section), RP_OK, "read begin");
    atomic_fetch_add_explicit(&sec.inside, 1, memory_order_release);
    WCHECK(wait_for(&sec.inside, sec.readers), "readers of an up-to-date node waited for each other");
    long v = sec.copy.value;
    WCHECK_ST(rp_node_read_end(w->g, &section), RP_OK, "read end");
    WCHECK(v == 0, "copy read as %ld", v);
    atomic_fetch_add_explicit(&sec.finished, 1, memory_order_release);

    /* 2: a writer waits for the sections to end. */
    if (!wait_for(&sec.phase, 2))
        return NULL;
    WCHECK_ST(rp_node_read_begin(w->g, sec.s.h, &section), RP_OK, "read begin");
    long before = sec.s.value;
    atomic_fetch_add_explicit(&sec.inside, 1, memory_order_release);
    WCHECK(wait_for(&sec.release, 1), "not released");
    long after = sec.s.value;
    WCHECK_ST(rp_node_read_end(w->g, &section), RP_OK, "read end");
    WCHECK(before == 0 && after == 0, "a write got into a read section: %ld, then %ld", before, after);
    atomic_fetch_add_explicit(&sec.finished, 1, memory_order_release);

    /* 3: readers wait for the batch to end, then see its write. */
    if (!wait_for(&sec.phase, 3))
        return NULL;
    long s = -1, copy = -1;
    WCHECK_ST(tn_read(w, &sec.s, &s, NULL), RP_OK, "read s");
    WCHECK_ST(tn_read(w, &sec.copy, &copy, NULL), RP_OK, "read copy");
    WCHECK(s == 2 && copy == 2, "after the batch: s = %ld, copy = %ld", s, copy);
    atomic_fetch_add_explicit(&sec.finished, 1, memory_order_release);
    return NULL;
}

static void *section_writer(unsigned index)
{
    (void)index;
    world_t *w = &sec.w;
    if (!wait_for(&sec.phase, 2) || !wait_for(&sec.inside, 2 * sec.readers))
        return NULL;
    WCHECK_ST(rp_batch_begin(w->g), RP_OK, "batch begin");
    WCHECK_ST(tn_set(w, &sec.s, 1), RP_OK, "write s");
    WCHECK_ST(rp_batch_end(w->g), RP_OK, "batch end");
    atomic_store_explicit(&sec.written, 1, memory_order_release);
    return NULL;
}

static void sections(unsigned threads)
{
    begin("sections", threads);
    world_t *w = &sec.w;
    world_open(w, 16);
    sec.readers = (int)threads;
    atomic_store(&sec.phase, 0);
    atomic_store(&sec.inside, 0);
    atomic_store(&sec.finished, 0);
    atomic_store(&sec.release, 0);
    atomic_store(&sec.written, 0);
    tn_init(&sec.s, "s", RP_KIND_SOURCE, NULL, 0, NULL, NULL);
    tn_init(&sec.copy, "copy", RP_KIND_COMPUTED, body_copy, 0, &sec.s, NULL);
    create_ok(w, &sec.s);
    create_ok(w, &sec.copy);
    CHECK_EQ(main_read(w, &sec.copy), 0); /* up to date: the readers share it */

    crew_t crew;
    void *(*const fns[])(unsigned) = {section_reader, section_writer};
    const unsigned counts[] = {threads, 1};
    crew_start(&crew, 2, fns, counts);
    int readers = sec.readers;

    atomic_store_explicit(&sec.phase, 1, memory_order_release);
    CHECK(wait_for(&sec.finished, readers));

    atomic_store_explicit(&sec.phase, 2, memory_order_release);
    CHECK(wait_for(&sec.inside, 2 * readers));
    pause_briefly();
    CHECK_EQ(atomic_load(&sec.written), 0); /* the writer waits for the readers */
    CHECK_ST(rp_graph_destroy(w->g), RP_EBUSY);
    atomic_store_explicit(&sec.release, 1, memory_order_release);
    CHECK(wait_for(&sec.written, 1));
    CHECK(wait_for(&sec.finished, 2 * readers));
    CHECK_EQ(main_read(w, &sec.copy), 1);

    CHECK_ST(rp_batch_begin(w->g), RP_OK);
    CHECK_ST(tn_set(w, &sec.s, 2), RP_OK);
    atomic_store_explicit(&sec.phase, 3, memory_order_release);
    pause_briefly();
    CHECK_EQ(atomic_load(&sec.finished), 2 * readers); /* the readers wait for the batch */
    CHECK_ST(rp_batch_end(w->g), RP_OK);
    CHECK(wait_for(&sec.finished, 3 * readers));
    crew_join(&crew, 0, threads + 1);
    crew_finish();

    CHECK_EQ(main_read(w, &sec.s), 2);
    CHECK_EQ(sec.copy.computes, 3);
    CHECK_EQ(live_nodes(w), 2);
    tnode_t *nodes[] = {&sec.s, &sec.copy};
    world_close(w, nodes, 2);
}

/* ------------------------------------------------------------- foreign */

/* One thread holds the graph (a batch, an untracked section, a compute)
 * while the probes, on other threads, call what must not wait for it. */
static struct {
    world_t w;
    tnode_t s, slow;
    unsigned probes;
    atomic_int phase; /* 1: batch, 2: untracked section, 3: compute */
    atomic_int done;  /* probes done with the current phase */
    rp_node_t tracked_in_compute;
    bool compute_waited;
} fo;

static long body_slow(world_t *w, tnode_t *self, long *second, rp_status_t *status)
{
    (void)second;
    rp_graph_tracking(w->g, &fo.tracked_in_compute);
    atomic_store_explicit(&fo.phase, 3, memory_order_release);
    fo.compute_waited = wait_for(&fo.done, (int)fo.probes * 3);
    (void)self;
    return body_read(w, &fo.s, status);
}

static void *prober(unsigned index)
{
    (void)index;
    rp_graph_t *g = fo.w.g;
    for (int phase = 1; phase <= 3; phase++) {
        if (!wait_for(&fo.phase, phase)) {
            worker_fail("phase %d did not begin", phase);
            return NULL;
        }
        rp_node_t tracked = {7, 7, 7};
        WCHECK_ST(rp_batch_end(g), RP_ESTATE, "rp_batch_end of another thread's batch");
        WCHECK_ST(rp_untracked_end(g), RP_ESTATE, "rp_untracked_end of another thread's section");
        WCHECK_ST(rp_graph_destroy(g), RP_EBUSY, "rp_graph_destroy while another thread holds the graph");
        WCHECK_ST(rp_graph_tracking(g, &tracked), RP_OK, "rp_graph_tracking");
        WCHECK(harness_same(tracked, RP_NODE_NONE), "rp_graph_tracking in phase %d named slot %u", phase,
               tracked.slot);
        atomic_fetch_add_explicit(&fo.done, 1, memory_order_release);
    }
    /* Then a batch of its own works. */
    if (!wait_for(&fo.phase, 4)) {
        worker_fail("the last phase did not begin");
        return NULL;
    }
    WCHECK_ST(rp_batch_begin(g), RP_OK, "batch begin");
    long v = 0;
    WCHECK_ST(tn_read(&fo.w, &fo.s, &v, NULL), RP_OK, "read s");
    WCHECK_ST(tn_set(&fo.w, &fo.s, v + 1), RP_OK, "write s");
    WCHECK_ST(rp_batch_end(g), RP_OK, "batch end");
    return NULL;
}

static void foreign(unsigned threads)
{
    begin("foreign", threads);
    world_t *w = &fo.w;
    world_open(w, 16);
    fo.probes = threads;
    atomic_store(&fo.phase, 0);
    atomic_store(&fo.done, 0);
    fo.tracked_in_compute = RP_NODE_NONE;
    fo.compute_waited = false;
    tn_init(&fo.s, "s", RP_KIND_SOURCE, NULL, 0, NULL, NULL);
    tn_init(&fo.slow, "slow", RP_KIND_COMPUTED, body_slow, 0, &fo.s, NULL);
    create_ok(w, &fo.s);
    create_ok(w, &fo.slow);
    int probes = (int)threads;

    crew_t crew;
    void *(*const fns[])(unsigned) = {prober};
    const unsigned counts[] = {threads};
    crew_start(&crew, 1, fns, counts);

    /* 1: this thread's batch; the probes cannot end it. */
    CHECK_ST(rp_batch_begin(w->g), RP_OK);
    atomic_store_explicit(&fo.phase, 1, memory_order_release);
    CHECK(wait_for(&fo.done, probes));
    CHECK_ST(rp_batch_end(w->g), RP_OK);
    CHECK_ST(rp_batch_end(w->g), RP_ESTATE);
    /* 2: this thread's untracked section. */
    CHECK_ST(rp_untracked_begin(w->g), RP_OK);
    atomic_store_explicit(&fo.phase, 2, memory_order_release);
    CHECK(wait_for(&fo.done, 2 * probes));
    CHECK_ST(rp_untracked_end(w->g), RP_OK);
    CHECK_ST(rp_untracked_end(w->g), RP_ESTATE);
    /* 3: a compute in progress here (its body starts the phase and waits for
     * the probes); elsewhere nothing is tracked. */
    CHECK_EQ(main_read(w, &fo.slow), 0);
    CHECK(fo.compute_waited);
    CHECK_NODE(fo.tracked_in_compute, fo.slow.h);
    rp_node_t tracked = {7, 7, 7};
    CHECK_ST(rp_graph_tracking(w->g, &tracked), RP_OK);
    CHECK_NODE(tracked, RP_NODE_NONE);
    /* 4: the probes write s, one batch each. */
    atomic_store_explicit(&fo.phase, 4, memory_order_release);
    crew_join(&crew, 0, threads);
    crew_finish();

    CHECK_EQ(main_read(w, &fo.s), threads);
    CHECK_EQ(main_read(w, &fo.slow), threads);
    CHECK_EQ(fo.slow.computes, 2);
    CHECK_EQ(live_nodes(w), 2);
    tnode_t *nodes[] = {&fo.s, &fo.slow};
    world_close(w, nodes, 2);
}

/* ---------------------------------------------------------------- main */

int main(void)
{
    const char *stress = getenv("RIPPLE_STRESS_ITERATIONS");
    if (stress != NULL && *stress != '\0') {
        char *end = NULL;
        unsigned long n = strtoul(stress, &end, 10);
        stress_iterations = (end != NULL && *end == '\0' && n > 0 && n < 100000000ul) ? (unsigned)n : 20000;
        run_timeout = 3600;
        printf("threads: %u iterations per thread\n", stress_iterations);
    }
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_handler = on_alarm;
    sigaction(SIGALRM, &action, NULL);

    static const unsigned thread_counts[] = {1, 2, 4, 8};
    static void (*const scenarios[])(unsigned) = {counters, consistency, effects, churn, deferred, sections, foreign};
    for (size_t s = 0; s < sizeof scenarios / sizeof scenarios[0]; s++) {
        for (size_t t = 0; t < sizeof thread_counts / sizeof thread_counts[0]; t++) {
            struct timespec start, end;
            clock_gettime(CLOCK_MONOTONIC, &start);
            scenarios[s](thread_counts[t]);
            clock_gettime(CLOCK_MONOTONIC, &end);
            double seconds = (double)(end.tv_sec - start.tv_sec) + (double)(end.tv_nsec - start.tv_nsec) / 1e9;
            printf("%s: %.2fs, %u callback handoffs between threads, %u reader rounds\n", scenario_name, seconds,
                   atomic_load(&handoffs), atomic_load(&reader_rounds));
            fflush(stdout);
        }
    }
    alarm(0);
    return harness_finish();
}
