/*
 * counter.c: the smallest complete program on Ripple's C engine.
 *
 * One source (`count`), one computed (`doubled`, which is count * 2) and one
 * effect (which prints both). The engine stores no values: this program keeps
 * them in `app` and tells the engine when it reads a node (rp_node_read) and
 * when it wrote a source (rp_source_set); the engine calls back to compute
 * `doubled` and to run the effect, exactly when something they read changed.
 *
 * Build against an installed library (scripts/install-c PREFIX; then
 * PKG_CONFIG_PATH=PREFIX/lib/pkgconfig, and LD_LIBRARY_PATH=PREFIX/lib unless
 * PREFIX/lib is on the loader's path):
 *   cc counter.c $(pkg-config --cflags --libs ripple) -o counter && ./counter
 *
 * The program checks what ran after every step, prints `N passed, N failed`
 * and exits non-zero on a mismatch.
 */
#include <ripple.h>

#include <stdio.h>
#include <stdlib.h>

/* The host side: values, node handles, and a log of what ran. */
typedef struct app {
    rp_node_t count, doubled, printer;
    int count_value;   /* the source's value */
    int doubled_value; /* the computed's cached value */
    bool has_doubled;  /* false until `doubled` is first computed */
    int computes;      /* times `doubled` was computed */
    int runs;          /* times the effect ran */
    int printed_count, printed_doubled; /* what the effect saw last */
} app_t;

static int passed, failed;

static void expect(int ok, const char *what) {
    if (ok) {
        passed++;
    } else {
        failed++;
        printf("FAIL: %s\n", what);
    }
}

/* Every engine call returns a status; this program treats any failure as fatal. */
static void check(rp_status_t status, const char *call) {
    if (status != RP_OK) {
        fprintf(stderr, "%s: %s\n", call, rp_status_string(status));
        exit(1);
    }
}

/* The engine asks for `doubled`: read what it depends on, store the result,
 * and say whether it changed. */
static rp_status_t compute(void *host, rp_graph_t *graph, rp_node_t node, void *data, bool *changed) {
    (void)node, (void)data;
    app_t *app = host;
    rp_status_t status = rp_node_read(graph, app->count); /* records count as a dependency */
    if (status != RP_OK) return status;
    int next = app->count_value * 2;
    *changed = !app->has_doubled || next != app->doubled_value; /* an equal result stops propagation */
    app->doubled_value = next;
    app->has_doubled = true;
    app->computes++;
    printf("  compute doubled = %d\n", next);
    return RP_OK;
}

/* The engine runs the effect: it reads both nodes, so it runs again when
 * either one changes (and only then). */
static void run(void *host, rp_graph_t *graph, rp_node_t node, void *data) {
    (void)node, (void)data;
    app_t *app = host;
    check(rp_node_read(graph, app->count), "read count");
    check(rp_node_read(graph, app->doubled), "read doubled");
    app->runs++;
    app->printed_count = app->count_value;
    app->printed_doubled = app->doubled_value;
    printf("  effect: count = %d, doubled = %d\n", app->count_value, app->doubled_value);
}

/* Writing a source: store the value, then tell the engine (skipping equal values). */
static void set_count(rp_graph_t *graph, app_t *app, int value) {
    if (value == app->count_value) return;
    app->count_value = value;
    check(rp_source_set(graph, app->count), "set count");
}

/* What ran since the last step. */
static void expect_ran(app_t *app, int computes, int runs, const char *step) {
    char what[160];
    snprintf(what, sizeof what, "%s: %d computes (expected %d), %d effect runs (expected %d)", step, app->computes,
             computes, app->runs, runs);
    expect(app->computes == computes && app->runs == runs, what);
    app->computes = app->runs = 0;
}

int main(void) {
    app_t app = {0};
    rp_graph_t *graph = NULL;
    rp_graph_config_t config = {.callbacks = {.host = &app, .compute = compute, .run = run}};
    check(rp_graph_create(&config, &graph), "create graph");

    printf("create count, doubled and the effect\n");
    check(rp_node_create(graph, RP_KIND_SOURCE, NULL, &app.count), "create count");
    check(rp_node_create(graph, RP_KIND_COMPUTED, NULL, &app.doubled), "create doubled");
    /* An effect runs once, before rp_node_create returns; its read of
     * `doubled` computes it for the first time. */
    check(rp_node_create(graph, RP_KIND_EFFECT, NULL, &app.printer), "create effect");
    expect_ran(&app, 1, 1, "create");
    expect(app.printed_count == 0 && app.printed_doubled == 0, "the effect saw 0 and 0");

    printf("count = 1\n");
    set_count(graph, &app, 1); /* the effect runs before rp_source_set returns */
    expect_ran(&app, 1, 1, "count = 1");
    expect(app.printed_count == 1 && app.printed_doubled == 2, "the effect saw 1 and 2");

    printf("count = 2, then 3, in one batch\n");
    check(rp_batch_begin(graph), "batch begin");
    set_count(graph, &app, 2);
    set_count(graph, &app, 3);
    expect_ran(&app, 0, 0, "inside the batch"); /* nothing runs until the batch ends */
    check(rp_batch_end(graph), "batch end");
    expect_ran(&app, 1, 1, "batch end");
    expect(app.printed_count == 3 && app.printed_doubled == 6, "the effect saw 3 and 6");

    printf("count = 3 again (an equal value: nothing to do)\n");
    set_count(graph, &app, 3);
    expect_ran(&app, 0, 0, "equal write");

    printf("read doubled (up to date: cached)\n");
    check(rp_node_read(graph, app.doubled), "read doubled");
    expect(app.doubled_value == 6, "doubled is 6");
    expect_ran(&app, 0, 0, "cached read");

    printf("dispose the effect, then count = 10\n");
    check(rp_node_dispose(graph, app.printer), "dispose effect");
    set_count(graph, &app, 10);
    expect_ran(&app, 0, 0, "write with no effect"); /* doubled is lazy: no reader, no compute */

    printf("read doubled\n");
    check(rp_node_read(graph, app.doubled), "read doubled");
    expect(app.doubled_value == 20, "doubled is 20");
    expect_ran(&app, 1, 0, "read after the write");

    check(rp_graph_destroy(graph), "destroy graph");
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
