/*
 * alloc_sweep.c: allocation failure at every point, over a suite of scenarios.
 *
 * Each scenario is first run with a working allocator, counting its calls to
 * `alloc` (N). Then it is run N more times; run k refuses the k-th allocation
 * (k = 0 .. N-1) and only that one. Every engine call goes through a wrapper
 * that holds the contract of ripple.h:
 *
 *   - a call that returns RP_ENOMEM did meet a refused allocation, leaves
 *     _rp_graph_check clean, creates no node (out-parameters unwritten), and
 *     succeeds when retried, the allocator working again;
 *   - a call that met a refused allocation and returns something else must
 *     leave a graph that goes on behaving exactly as without the failure:
 *     each scenario checks every value and every effect run after every step;
 *   - at the end, destroying the graph frees every byte (counted by the size
 *     passed to `free`, which must match the size allocated) and releases
 *     every node once.
 *
 * Scenarios: creating the graph, nodes of each kind (past a page of 256, so
 * every reserved array grows), first reads of wide and deep computeds and
 * effects (edge arrays grow into new arena chunks), dynamic re-reads that
 * relink, batches and flushes, disposal and slot reuse, a cycle and a
 * runaway effect (diagnostics allocate), an async node's run (reads in a
 * track section, a cycle there, a resolve, a write and a restart).
 *
 * Built with the engine's sources and Tests/CRegressions/testhost.h under
 * ASan and UBSan by scripts/sanitize. Prints the allocation points swept, then
 * `N passed, N failed`. Usage: alloc_sweep [scenario-name]
 */
#include "testhost.h"

#ifndef SWEEP_WIDE
#define SWEEP_WIDE 2600 /* sources read by one node: its edge arrays get chunks of their own */
#endif

/* ------------------------------------------------------------ the wrapper */

static unsigned long points_swept;  /* runs with one refused allocation */
static unsigned long enomem_calls;  /* calls that returned RP_ENOMEM */
static unsigned long absorbed;      /* refusals met by a call that still succeeded */

typedef struct before {
    size_t failures;
    rp_graph_stats_t stats;
} before_t;

static before_t note(th_world_t *w)
{
    return (before_t){w->alloc.failures, th_stats(w)};
}

static void check_graph(th_world_t *w, const char *call, rp_status_t status, int line)
{
    char message[512] = "";
    if (_rp_graph_check(w->g, message, sizeof message) != RP_OK) {
        harness_report(false, __FILE__, line, "_rp_graph_check after a call");
        fprintf(stderr, "    after %s (%s): %s\n", call, rp_status_string(status), message);
    }
}

/* An effect's run cannot return a status: a read in it that met a refused
 * allocation gets RP_ENOMEM inside the run, and the call that ran the effect
 * succeeds. The header leaves that status to the host, which retries the run
 * with rp_effect_run; that retry must succeed and see the right values, so
 * that the scenario's later checks test what follows. */
static size_t retried_runs;

static void retry_failed_runs(th_world_t *w, const char *call, int line)
{
    for (size_t i = 0; i < w->count; i++) {
        th_node_t *n = &w->nodes[i];
        if (n->kind != RP_KIND_EFFECT || !n->created || n->body_status != RP_ENOMEM) continue;
        retried_runs++;
        w->alloc.fail_at = -1;
        if (!harness_report(rp_effect_run(w->g, n->h) == RP_OK && n->body_status == RP_OK, __FILE__, line,
                            "the host's retry of an effect run whose read got RP_ENOMEM"))
            fprintf(stderr, "    after %s: effect %s\n", call, n->name);
        n->runs--; /* the re-run stands for the failed one */
    }
}

/* After a call: true when it must be retried (it returned RP_ENOMEM). */
static bool failed_for_memory(th_world_t *w, before_t before, rp_status_t status, rp_status_t want,
                              const char *call, int line)
{
    bool refused = w->alloc.failures != before.failures;
    /* The whole-graph check after every call that met a refusal or failed;
     * other calls are checked at each value check and at the end. */
    if (refused || status != RP_OK) check_graph(w, call, status, line);
    if (status == RP_ENOMEM) {
        enomem_calls++;
        if (!harness_report(refused, __FILE__, line, "RP_ENOMEM only when an allocation was refused"))
            fprintf(stderr, "    %s\n", call);
        w->alloc.fail_at = -1; /* the allocator works again: the retry must succeed */
        return true;
    }
    if (refused) {
        absorbed++;
        retry_failed_runs(w, call, line);
    }
    if (status != want) {
        harness_report(false, __FILE__, line, "status of a call");
        fprintf(stderr, "    %s: got %s, want %s%s\n", call, rp_status_string(status), rp_status_string(want),
                refused ? " (an allocation was refused in it)" : "");
    }
    return false;
}

/* Runs `call`, which returns rp_status_t; on RP_ENOMEM, runs it again. */
#define OP(w, want, call)                                                          \
    do {                                                                           \
        before_t op_before_ = note(w);                                             \
        rp_status_t op_status_ = (call);                                           \
        if (failed_for_memory((w), op_before_, op_status_, (want), #call, __LINE__)) { \
            CHECK_EQ(th_stats(w).live_nodes, op_before_.stats.live_nodes);         \
            op_status_ = (call);                                                   \
            CHECK_ST(op_status_, (want));                                          \
        }                                                                          \
    } while (0)

/* Creates a prepared node; a refused creation writes no handle. */
static void create(th_world_t *w, th_node_t *n, rp_status_t want)
{
    OP(w, want, th_create(w, n));
    CHECK(n->created);
}

static th_node_t *source(th_world_t *w, const char *name, long value)
{
    th_node_t *n = th_prepare(w, name, RP_KIND_SOURCE, NULL, 0, NULL, NULL);
    n->value = n->pending = value;
    create(w, n, RP_OK);
    return n;
}

static th_node_t *node(th_world_t *w, const char *name, rp_kind_t kind, th_body_t body, long arg, th_node_t *in0,
                       th_node_t *in1)
{
    th_node_t *n = th_prepare(w, name, kind, body, arg, in0, in1);
    create(w, n, RP_OK);
    return n;
}

/* Reads a node (retrying a refused read) and checks its value. */
static void expect_value(th_world_t *w, th_node_t *n, long want, int line)
{
    OP(w, RP_OK, rp_node_read(w->g, n->h));
    check_graph(w, "rp_node_read", RP_OK, line);
    if (!harness_report(n->value == want, __FILE__, line, "value read"))
        fprintf(stderr, "    %s = %ld, want %ld\n", n->name, n->value, want);
}

#define EXPECT_VALUE(w, n, want) expect_value((w), (n), (want), __LINE__)

static void write_value(th_world_t *w, th_node_t *n, long v)
{
    OP(w, RP_OK, th_write(w, n, v));
}

/* An effect's runs and the value its last run saw. */
#define EXPECT_RUNS(n, want_runs, want_value) \
    do {                                      \
        CHECK_EQ((n)->runs, (want_runs));     \
        CHECK_EQ((n)->value, (want_value));   \
    } while (0)

/* ---------------------------------------------------------------- bodies */

static th_node_t *wide[SWEEP_WIDE * 2]; /* the scenario's wide row of sources */

/* The sum of wide[0 .. arg). */
static long sum_wide(th_world_t *w, th_node_t *self)
{
    long v = 0;
    for (long i = 0; i < self->arg; i++) v += th_read(w, wide[i]);
    return v;
}

/* The sum of wide[0 .. in[0]'s value): how much it reads depends on in[0]. */
static long sum_first(th_world_t *w, th_node_t *self)
{
    long n = th_read(w, self->in[0]);
    long v = 0;
    for (long i = 0; i < n && i < SWEEP_WIDE; i++) v += th_read(w, wide[i]);
    return v;
}

static long read_self(th_world_t *w, th_node_t *self)
{
    return th_read(w, self) + 1;
}

static long increment_input(th_world_t *w, th_node_t *self)
{
    long v = th_read(w, self->in[0]);
    th_write(w, self->in[0], v + 1);
    return v;
}

static long triangle(long n)
{
    return n * (n - 1) / 2; /* 0 + 1 + ... + (n - 1) */
}

/* ------------------------------------------------------------- scenarios */

static void empty_graph(th_world_t *w)
{
    (void)w; /* creating and destroying the graph, which the driver does */
}

/* Sources, computeds and effects past one page of nodes, so that the pages,
 * the walk stack, the unwatched queue and the flush queue all grow. */
static void many_nodes(th_world_t *w)
{
    enum { N = 300, E = 40 };
    static th_node_t *s[N], *c[N], *e[E];
    for (int i = 0; i < N; i++) s[i] = source(w, "s", i);
    for (int i = 0; i < N; i++) c[i] = node(w, "c", RP_KIND_COMPUTED, th_sum, 0, s[i], s[(i + 1) % N]);
    for (int i = 0; i < E; i++) e[i] = node(w, "e", RP_KIND_EFFECT, th_sum, 0, c[i * 7], NULL);
    for (int i = 0; i < E; i++) EXPECT_RUNS(e[i], 1, 2 * i * 7 + 1);
    write_value(w, s[7], 1000);
    EXPECT_RUNS(e[0], 1, 1);
    EXPECT_RUNS(e[1], 2, 1000 + 8);
    EXPECT_VALUE(w, c[6], 6 + 1000);
    EXPECT_VALUE(w, c[N - 1], N - 1 + 0);
}

/* First reads of a wide computed and a wide effect: their deps arrays and
 * the sources' subs arrays grow, taking arena chunks as they go. */
static void wide_reads(th_world_t *w)
{
    for (int i = 0; i < SWEEP_WIDE; i++) wide[i] = source(w, "w", i);
    th_node_t *sum = node(w, "sum", RP_KIND_COMPUTED, sum_wide, SWEEP_WIDE, NULL, NULL);
    EXPECT_VALUE(w, sum, triangle(SWEEP_WIDE));
    th_node_t *watch = node(w, "watch", RP_KIND_EFFECT, th_sum, 0, sum, NULL);
    th_node_t *direct = node(w, "direct", RP_KIND_EFFECT, sum_wide, SWEEP_WIDE, NULL, NULL);
    EXPECT_RUNS(watch, 1, triangle(SWEEP_WIDE));
    EXPECT_RUNS(direct, 1, triangle(SWEEP_WIDE));
    /* Every edge exists: a write to the last source reaches both effects. */
    write_value(w, wide[SWEEP_WIDE - 1], 0);
    EXPECT_RUNS(watch, 2, triangle(SWEEP_WIDE) - (SWEEP_WIDE - 1));
    EXPECT_RUNS(direct, 2, triangle(SWEEP_WIDE) - (SWEEP_WIDE - 1));
    write_value(w, wide[0], 5);
    EXPECT_RUNS(watch, 3, triangle(SWEEP_WIDE) - (SWEEP_WIDE - 1) + 5);
    EXPECT_RUNS(direct, 3, triangle(SWEEP_WIDE) - (SWEEP_WIDE - 1) + 5);
}

/* A computed whose reads depend on a source: re-runs relink, growing and
 * shrinking its deps, and a chain and an effect observe it. */
static void dynamic_relinking(th_world_t *w)
{
    for (int i = 0; i < SWEEP_WIDE; i++) wide[i] = source(w, "w", i);
    th_node_t *count = source(w, "count", 5);
    th_node_t *dyn = node(w, "dyn", RP_KIND_COMPUTED, sum_first, 0, count, NULL);
    th_node_t *twice = node(w, "twice", RP_KIND_COMPUTED, th_scale, 2, dyn, NULL);
    th_node_t *watch = node(w, "watch", RP_KIND_EFFECT, th_sum, 0, twice, NULL);
    EXPECT_RUNS(watch, 1, 2 * triangle(5));
    static const long counts[] = {SWEEP_WIDE, 10, SWEEP_WIDE / 2, SWEEP_WIDE, 0, 3};
    unsigned runs = 1;
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++) {
        write_value(w, count, counts[i]);
        EXPECT_RUNS(watch, ++runs, 2 * triangle(counts[i]));
        CHECK_EQ(th_dep_count(w, dyn), (size_t)counts[i] + 1);
    }
    /* Only what the last run read matters now. */
    write_value(w, wide[SWEEP_WIDE - 1], -1);
    EXPECT_RUNS(watch, runs, 2 * triangle(3));
    write_value(w, wide[2], 100);
    EXPECT_RUNS(watch, ++runs, 2 * (0 + 1 + 100));
}

/* Chains of computeds that each read a group of sources when their control
 * source is odd, and the level below. Re-validating chain A after its control
 * flips links a group per level inside the re-validation walk, and the first
 * read of chain B computes its levels nested in one another, each linking a
 * group: either way, arena chunks run out in the middle of the walk. */
enum { LEVELS = 30, GROUP = 150 };
_Static_assert(LEVELS * GROUP <= SWEEP_WIDE * 2, "the chains' groups fit in `wide`");

static long level_body(th_world_t *w, th_node_t *self)
{
    long control = th_read(w, self->in[0]);
    long v = self->in[1] ? th_read(w, self->in[1]) : 0;
    if (control % 2) {
        for (long i = 0; i < GROUP; i++) v += th_read(w, wide[self->arg * GROUP + i]);
    }
    return v;
}

static void deep_chains(th_world_t *w)
{
    for (int i = 0; i < LEVELS * GROUP; i++) wide[i] = source(w, "w", 1);
    th_node_t *control_a = source(w, "control_a", 0);
    th_node_t *control_b = source(w, "control_b", 1);
    th_node_t *a = NULL, *b = NULL;
    for (int level = 0; level < LEVELS; level++) {
        a = node(w, "a", RP_KIND_COMPUTED, level_body, level, control_a, a);
        b = node(w, "b", RP_KIND_COMPUTED, level_body, level, control_b, b);
    }
    EXPECT_VALUE(w, a, 0);
    write_value(w, control_a, 1);
    EXPECT_VALUE(w, a, LEVELS * GROUP);
    EXPECT_VALUE(w, b, LEVELS * GROUP);
    write_value(w, control_b, 2);
    EXPECT_VALUE(w, b, 0);
    write_value(w, wide[0], 5);
    EXPECT_VALUE(w, a, LEVELS * GROUP + 4);
    EXPECT_VALUE(w, b, 0);
    th_node_t *watch = node(w, "watch", RP_KIND_EFFECT, th_sum, 0, a, b);
    EXPECT_RUNS(watch, 1, LEVELS * GROUP + 4);
    write_value(w, control_b, 3);
    EXPECT_RUNS(watch, 2, 2 * (LEVELS * GROUP + 4));
}

/* Batches, a diamond, disposal (readers re-run), slot reuse, a cycle and a
 * runaway effect (their diagnostics allocate). */
static void batches_and_disposal(th_world_t *w)
{
    th_node_t *a = source(w, "a", 1);
    th_node_t *b = source(w, "b", 2);
    th_node_t *left = node(w, "left", RP_KIND_COMPUTED, th_scale, 10, a, NULL);
    th_node_t *right = node(w, "right", RP_KIND_COMPUTED, th_sum, 0, a, b);
    th_node_t *join = node(w, "join", RP_KIND_COMPUTED, th_sum, 0, left, right);
    th_node_t *e1 = node(w, "e1", RP_KIND_EFFECT, th_sum, 0, join, NULL);
    th_node_t *e2 = node(w, "e2", RP_KIND_EFFECT, th_sum, 0, b, NULL);
    EXPECT_RUNS(e1, 1, 10 + 3);
    OP(w, RP_OK, rp_batch_begin(w->g));
    write_value(w, a, 2);
    write_value(w, b, 3);
    EXPECT_VALUE(w, join, 20 + 5); /* reads inside a batch see the writes */
    EXPECT_RUNS(e1, 1, 13);
    OP(w, RP_OK, rp_batch_end(w->g));
    EXPECT_RUNS(e1, 2, 25);
    EXPECT_RUNS(e2, 2, 3);
    if (w->alloc.failures == 0) CHECK_EQ(join->computes, 2); /* a failed compute counts too */

    /* Disposing `right` marks join changed; e1 re-runs, join reads what is left. */
    join->in[1] = NULL;
    OP(w, RP_OK, th_dispose(w, right));
    EXPECT_RUNS(e1, 3, 20);
    /* Slots are reused; stale handles stay refused. */
    rp_node_t stale = right->h;
    th_node_t *again = node(w, "again", RP_KIND_COMPUTED, th_sum, 5, b, NULL);
    EXPECT_VALUE(w, again, 8);
    CHECK_ST(rp_node_read(w->g, stale), RP_ESTALE);
    join->in[1] = again;
    write_value(w, a, 3); /* join reads `again` from now on */
    EXPECT_RUNS(e1, 4, 30 + 8);
    OP(w, RP_OK, th_dispose(w, e1));
    join->in[0] = NULL;
    OP(w, RP_OK, th_dispose(w, left));
    write_value(w, a, 4);
    EXPECT_VALUE(w, join, 8);

    /* A cycle: RP_ECYCLE, whatever the diagnostic could record. */
    th_node_t *me = node(w, "me", RP_KIND_COMPUTED, read_self, 0, NULL, NULL);
    OP(w, RP_ECYCLE, rp_node_read(w->g, me->h));
    /* A runaway effect: RP_ELOOP, its handle written. */
    th_node_t *spin = source(w, "spin", 0);
    th_node_t *loop = th_prepare(w, "loop", RP_KIND_EFFECT, increment_input, 0, spin, NULL);
    create(w, loop, RP_ELOOP);
    OP(w, RP_OK, th_dispose(w, loop));
    OP(w, RP_OK, th_dispose(w, me));
    write_value(w, b, 9);
    EXPECT_RUNS(e2, 3, 9);
    EXPECT_VALUE(w, join, 14);
}

/* An async node whose run reads a row of sources in a track section (its
 * edge arrays grow there), meets a cycle there (the diagnostic allocates),
 * resolves, is superseded by a write and restarted. */
#define ASYNC_ROW 40

static void async_runs(th_world_t *w)
{
    th_node_t *row[ASYNC_ROW];
    long sum = 0;
    for (int i = 0; i < ASYNC_ROW; i++) {
        row[i] = source(w, "row", i);
        sum += i;
    }
    th_node_t *a = node(w, "a", RP_KIND_ASYNC, NULL, 0, NULL, NULL);
    th_node_t *e = node(w, "e", RP_KIND_EFFECT, th_sum, 0, a, NULL);
    EXPECT_RUNS(e, 1, TH_IN_FLIGHT);
    uint64_t run = th_async_run(w, a);
    CHECK(run != 0);
    OP(w, RP_OK, rp_async_track_begin(w->g, a->h, run));
    for (int i = 0; i < ASYNC_ROW; i++) OP(w, RP_OK, rp_node_read(w->g, row[i]->h));
    OP(w, RP_OK, rp_async_track_end(w->g, a->h));
    CHECK_EQ(th_dep_count(w, a), ASYNC_ROW);

    th_node_t *c = node(w, "c", RP_KIND_COMPUTED, th_scale, 2, a, NULL);
    EXPECT_VALUE(w, c, 2 * TH_IN_FLIGHT);
    OP(w, RP_OK, rp_async_track_begin(w->g, a->h, run));
    OP(w, RP_ECYCLE, rp_node_read(w->g, c->h));
    OP(w, RP_OK, rp_async_track_end(w->g, a->h));
    CHECK_EQ(th_dep_count(w, a), ASYNC_ROW);

    OP(w, RP_OK, rp_async_resolve_begin(w->g, a->h, run));
    a->value = sum;
    OP(w, RP_OK, rp_async_resolve_end(w->g, a->h, true));
    EXPECT_RUNS(e, 2, sum);
    EXPECT_VALUE(w, c, 2 * sum);

    /* Observed: a write to what the run read starts a new run. */
    write_value(w, row[3], 100);
    EXPECT_RUNS(e, 3, TH_IN_FLIGHT);
    uint64_t second = th_async_run(w, a);
    CHECK(second != run);
    CHECK_EQ(th_dep_count(w, a), 0);
    CHECK_ST(rp_async_resolve_begin(w->g, a->h, run), RP_ESUPERSEDED);
    OP(w, RP_OK, rp_async_restart(w->g, a->h));
    CHECK(th_async_run(w, a) != second);
    EXPECT_RUNS(e, 3, TH_IN_FLIGHT); /* still in flight: no change */
    OP(w, RP_OK, th_dispose(w, e));
    OP(w, RP_OK, th_dispose(w, c));
    OP(w, RP_OK, th_dispose(w, a));
}

/* ---------------------------------------------------------------- driver */

static const struct {
    const char *name;
    void (*run)(th_world_t *w);
    size_t capacity;
} scenarios[] = {
    {"empty_graph", empty_graph, 4},
    {"many_nodes", many_nodes, 700},
    {"wide_reads", wide_reads, SWEEP_WIDE + 8},
    {"dynamic_relinking", dynamic_relinking, SWEEP_WIDE + 8},
    {"deep_chains", deep_chains, LEVELS * GROUP + 2 * LEVELS + 8},
    {"batches_and_disposal", batches_and_disposal, 32},
    {"async_runs", async_runs, ASYNC_ROW + 8},
};

/* One run of a scenario, refusing allocation `fail_at` (-1: none). Returns
 * the number of allocations the run made. */
static size_t run_once(size_t scenario, long fail_at)
{
    th_world_t w;
    th_setup(&w, scenarios[scenario].capacity, 3);
    w.alloc.fail_at = fail_at;
    rp_graph_t *out = (rp_graph_t *)&w;
    rp_status_t status = rp_graph_create(&w.config, &out);
    if (status == RP_ENOMEM) {
        enomem_calls++;
        CHECK(out == (rp_graph_t *)&w);
        CHECK_EQ(w.alloc.live_bytes, 0); /* nothing kept from the failed attempt */
        w.alloc.fail_at = -1;
        status = rp_graph_create(&w.config, &out);
    }
    CHECK_ST(status, RP_OK);
    if (status != RP_OK) return 0;
    w.g = out;
    scenarios[scenario].run(&w);
    size_t calls = w.alloc.calls;
    CHECK(fail_at < 0 || w.alloc.failures == 1); /* the refusal happened, once */
    th_done(&w);
    return calls;
}

int main(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : NULL;
    for (size_t i = 0; i < sizeof scenarios / sizeof scenarios[0]; i++) {
        if (only != NULL && strcmp(only, scenarios[i].name) != 0) continue;
        char name[96];
        snprintf(name, sizeof name, "%s, no failure", scenarios[i].name);
        harness_begin(name);
        size_t points = run_once(i, -1);
        unsigned failed_before = harness_failed;
        for (size_t k = 0; k < points; k++) {
            snprintf(name, sizeof name, "%s, allocation %zu of %zu refused", scenarios[i].name, k, points);
            harness_begin(name);
            run_once(i, (long)k);
            points_swept++;
            if (harness_failed > failed_before + 50) {
                fprintf(stderr, "%s: too many failures, skipping the rest of this scenario\n", scenarios[i].name);
                break;
            }
        }
        printf("%s: %zu allocation points swept\n", scenarios[i].name, points);
    }
    printf("%lu allocation points swept; %lu calls returned RP_ENOMEM; %lu refusals absorbed by calls that "
           "succeeded, %zu of them in effect runs the host retried\n",
           points_swept, enomem_calls, absorbed, retried_runs);
    return harness_finish();
}
