/*
 * soak.c: millions of mixed operations on one long-lived graph, checked as
 * they go, with memory that must stay constant.
 *
 * The graph has a fixed number of positions: sources, computeds (each reads
 * a selector below it, then one of two sets below it depending on the
 * selector's parity) and effects (likewise). Operations, chosen at random:
 * write a source, write several in a batch, read computeds (each value
 * checked against a naive model that recomputes from scratch), and replace
 * the node at a position (dispose it, create a new one with a new program,
 * sometimes inside a batch), so that slots are freed and reused all along.
 *
 * Every CHECK_EVERY operations: _rp_graph_check, every effect up to date
 * with the model, and the arena's figures (rp_graph_stats). Memory must be
 * flat once the graph has reached its working size: neither the bytes the
 * arenas reserved nor the number of allocator calls may grow in the second
 * half of the run. Usage: soak [operations [seed]]; prints a progress table,
 * the high-water mark, then `N passed, N failed`.
 */
#include "ripple.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SOURCES 64
#define COMPUTEDS 160
#define EFFECTS 32
#define POSITIONS (SOURCES + COMPUTEDS + EFFECTS)
#define CHECK_EVERY 10000

typedef struct position {
    rp_kind_t kind;
    rp_node_t handle;
    int selector, even[3], odd[3], neven, nodd; /* positions below this one */
    long add;
    long value;     /* source: its value; computed: its cached value; effect: what its last run computed */
    bool has_value;
    long seen[1 + 3]; /* effect: the values its last run read, in read order */
    int nseen;
    unsigned long runs;
} position_t;

static position_t positions[POSITIONS];
static rp_graph_t *graph;
static unsigned long long rng;
static unsigned long passed, failed;
static unsigned long long memo_epoch[POSITIONS], epoch = 1;
static long memo[POSITIONS];

#define CHECK(cond, ...)                                        \
    do {                                                        \
        if (cond) {                                             \
            passed++;                                           \
        } else {                                                \
            failed++;                                           \
            if (failed <= 20) {                                 \
                printf("FAIL %s:%d: ", __FILE__, __LINE__);     \
                printf(__VA_ARGS__);                            \
                printf("\n");                                   \
            }                                                   \
        }                                                       \
    } while (0)

static unsigned random_below(unsigned n)
{
    rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)(rng >> 33) % n;
}

/* ------------------------------------------------------------------ model */

static long model(int p)
{
    position_t *n = &positions[p];
    if (n->kind == RP_KIND_SOURCE) return n->value;
    if (memo_epoch[p] == epoch) return memo[p];
    long selector = model(n->selector);
    long sum = selector;
    const int *set = selector % 2 ? n->odd : n->even;
    int count = selector % 2 ? n->nodd : n->neven;
    for (int i = 0; i < count; i++) sum += model(set[i]);
    memo_epoch[p] = epoch;
    return memo[p] = (sum + n->add) % 7;
}

/* ------------------------------------------------------------------- host */

static long host_read(int p)
{
    rp_status_t status = rp_node_read(graph, positions[p].handle);
    CHECK(status == RP_OK, "read of position %d: %s", p, rp_status_string(status));
    return positions[p].value;
}

/* The body of a computed or an effect: read through the current handles. */
static long body(position_t *n, long *seen, int *nseen)
{
    long selector = host_read(n->selector);
    long sum = selector;
    int count = 0;
    if (seen) seen[count++] = selector;
    const int *set = selector % 2 ? n->odd : n->even;
    int nset = selector % 2 ? n->nodd : n->neven;
    for (int i = 0; i < nset; i++) {
        long v = host_read(set[i]);
        sum += v;
        if (seen) seen[count++] = v;
    }
    if (nseen) *nseen = count;
    return (sum + n->add) % 7;
}

static rp_status_t compute(void *host, rp_graph_t *g, rp_node_t node, void *data, bool *changed)
{
    (void)host, (void)g, (void)node;
    position_t *n = data;
    long v = body(n, NULL, NULL);
    *changed = !n->has_value || v != n->value;
    n->value = v;
    n->has_value = true;
    return RP_OK;
}

static void run(void *host, rp_graph_t *g, rp_node_t node, void *data)
{
    (void)host, (void)g, (void)node;
    position_t *n = data;
    n->value = body(n, n->seen, &n->nseen);
    n->runs++;
}

/* -------------------------------------------------------------- operations */

static void program(int p)
{
    position_t *n = &positions[p];
    int below = p < SOURCES + COMPUTEDS ? p : SOURCES + COMPUTEDS; /* effects read any source or computed */
    n->selector = (int)random_below((unsigned)below);
    n->neven = (int)random_below(4);
    n->nodd = (int)random_below(4);
    for (int i = 0; i < 3; i++) {
        n->even[i] = (int)random_below((unsigned)below);
        n->odd[i] = (int)random_below((unsigned)below);
    }
    n->add = random_below(7);
}

static void create(int p)
{
    position_t *n = &positions[p];
    n->kind = p < SOURCES ? RP_KIND_SOURCE : p < SOURCES + COMPUTEDS ? RP_KIND_COMPUTED : RP_KIND_EFFECT;
    n->has_value = false;
    if (n->kind == RP_KIND_SOURCE) {
        n->value = random_below(4);
    } else {
        program(p);
    }
    epoch++;
    rp_status_t status = rp_node_create(graph, n->kind, n, &n->handle);
    CHECK(status == RP_OK, "create at %d: %s", p, rp_status_string(status));
}

/* Replaces the node at a position: readers lose it (and re-run), then find
 * the new one at the same position. */
static void replace(int p)
{
    rp_node_t old = positions[p].handle;
    create(p);
    rp_status_t status = rp_node_dispose(graph, old);
    CHECK(status == RP_OK, "dispose at %d: %s", p, rp_status_string(status));
}

static void write_source(int p, long value)
{
    if (positions[p].value == value) return;
    positions[p].value = value;
    epoch++;
    rp_status_t status = rp_source_set(graph, positions[p].handle);
    CHECK(status == RP_OK, "write at %d: %s", p, rp_status_string(status));
}

static void operation(void)
{
    unsigned op = random_below(100);
    if (op < 35) {
        write_source((int)random_below(SOURCES), random_below(4));
    } else if (op < 45) {
        rp_batch_begin(graph);
        int writes = 2 + (int)random_below(4);
        for (int i = 0; i < writes; i++) write_source((int)random_below(SOURCES), random_below(4));
        if (random_below(4) == 0) replace(SOURCES + (int)random_below(COMPUTEDS + EFFECTS));
        rp_status_t status = rp_batch_end(graph);
        CHECK(status == RP_OK, "batch end: %s", rp_status_string(status));
    } else if (op < 80) {
        int p = SOURCES + (int)random_below(COMPUTEDS);
        long v = host_read(p);
        CHECK(v == model(p), "position %d read %ld, the model says %ld", p, v, model(p));
    } else if (op < 95) {
        replace(SOURCES + (int)random_below(COMPUTEDS + EFFECTS));
    } else {
        replace((int)random_below(SOURCES));
    }
}

/* Every effect has seen what the model says it reads now. */
static void check_effects(void)
{
    for (int p = SOURCES + COMPUTEDS; p < POSITIONS; p++) {
        position_t *n = &positions[p];
        long selector = model(n->selector);
        bool same = n->nseen >= 1 && n->seen[0] == selector;
        const int *set = selector % 2 ? n->odd : n->even;
        int nset = selector % 2 ? n->nodd : n->neven;
        same = same && n->nseen == 1 + nset;
        for (int i = 0; same && i < nset; i++) same = n->seen[1 + i] == model(set[i]);
        CHECK(same, "effect at %d is out of date", p);
    }
}

int main(int argc, char **argv)
{
    unsigned long operations = argc > 1 ? strtoul(argv[1], NULL, 10) : 5000000;
    unsigned long long seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    rng = seed;
    rp_graph_config_t config = {.callbacks = {.compute = compute, .run = run}};
    if (rp_graph_create(&config, &graph) != RP_OK) return 2;
    for (int p = 0; p < POSITIONS; p++) create(p);

    printf("soak: %lu operations, seed %llu, %d nodes (%d sources, %d computeds, %d effects)\n", operations, seed,
           POSITIONS, SOURCES, COMPUTEDS, EFFECTS);
    printf("%12s %8s %8s %12s %12s %12s %12s\n", "operations", "nodes", "edges", "in use", "reserved",
           "high-water", "allocations");
    size_t high_water = 0, high_water_at_half = 0, allocations_at_half = 0;
    unsigned long report_every = operations / 10 ? operations / 10 : 1;
    rp_graph_stats_t stats = {0};
    for (unsigned long i = 1; i <= operations; i++) {
        operation();
        if (i % CHECK_EVERY == 0 || i == operations) {
            char message[256] = "";
            rp_status_t status = _rp_graph_check(graph, message, sizeof message);
            CHECK(status == RP_OK, "after %lu operations: %s", i, message);
            check_effects();
            rp_graph_stats(graph, &stats);
            CHECK(stats.live_nodes == POSITIONS, "%zu live nodes", stats.live_nodes);
            if (stats.arena_bytes_reserved > high_water) high_water = stats.arena_bytes_reserved;
        }
        if (i == operations / 2) {
            rp_graph_stats(graph, &stats);
            if (stats.arena_bytes_reserved > high_water) high_water = stats.arena_bytes_reserved;
            high_water_at_half = high_water;
            allocations_at_half = stats.allocations;
        }
        if (i % report_every == 0 || i == operations) {
            rp_graph_stats(graph, &stats);
            printf("%12lu %8zu %8zu %12zu %12zu %12zu %12zu\n", i, stats.live_nodes, stats.live_edges,
                   stats.arena_bytes_in_use, stats.arena_bytes_reserved, high_water, stats.allocations);
        }
        if (failed > 20) break;
    }
    printf("arena high-water mark: %zu bytes reserved (%zu at half-time); %zu allocator calls (%zu at half-time)\n",
           high_water, high_water_at_half, stats.allocations, allocations_at_half);
    if (operations >= 100000) {
        CHECK(high_water == high_water_at_half, "memory grew in the second half: %zu -> %zu bytes",
              high_water_at_half, high_water);
        CHECK(stats.allocations == allocations_at_half, "the allocator was called in the second half: %zu -> %zu",
              allocations_at_half, stats.allocations);
    }
    rp_graph_destroy(graph);
    printf("%lu passed, %lu failed\n", passed, failed);
    return failed != 0;
}
