/*
 * memory.c: the allocator contract. Everything is freed at destroy with the
 * size it was allocated with; the engine's accounting matches the allocator's;
 * steady-state updates allocate nothing; and every allocation failure gives
 * RP_ENOMEM with the graph left as it was.
 */
#include "testhost.h"

static void everything_is_freed_at_destroy(void)
{
    harness_begin("everything_is_freed_at_destroy");
    th_world_t w;
    th_init(&w, 256, 0);
    CHECK(w.alloc.calls > 0 || w.alloc.live_blocks == 0);
    /* Churn: nodes and edges made and unmade, arrays grown past their first size. */
    th_node_t *hub = th_source(&w, "hub", 1);
    th_node_t *readers[100];
    for (int i = 0; i < 100; i++)
        readers[i] = th_computed(&w, "reader", th_sum, i, hub, NULL);
    for (int i = 0; i < 100; i++)
        CHECK_EQ(th_read(&w, readers[i]), 1 + i);
    CHECK_EQ(th_sub_count(&w, hub), 100);
    for (int i = 0; i < 100; i += 2)
        CHECK_ST(th_dispose(&w, readers[i]), RP_OK);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, readers[1], readers[99]);
    CHECK_EQ(e->value, 2 + 100);
    CHECK(w.alloc.live_blocks > 0);
    /* th_done checks: no block left, each freed with its own size. */
    th_done(&w);
}

static void counts_go_back_to_zero(void)
{
    harness_begin("counts_go_back_to_zero");
    th_world_t w;
    th_init(&w, 64, 0);
    th_node_t *nodes[30];
    for (int round = 0; round < 3; round++) {
        w.count = 0;
        for (int i = 0; i < 10; i++)
            nodes[i] = th_source(&w, "s", i);
        for (int i = 10; i < 20; i++)
            nodes[i] = th_computed(&w, "c", th_sum, 0, nodes[i - 10], nodes[i - 9 == 10 ? 0 : i - 9]);
        for (int i = 20; i < 30; i++)
            nodes[i] = th_effect(&w, "e", th_sum, 0, nodes[i - 10], NULL);
        rp_graph_stats_t s = th_stats(&w);
        CHECK_EQ(s.live_nodes, 30);
        CHECK_EQ(s.live_edges, 30);
        CHECK(s.arena_bytes_in_use > 0 && s.arena_bytes_in_use <= s.arena_bytes_reserved);
        static rp_graph_stats_t first_round;
        if (round == 0) {
            first_round = s;
        } else {
            /* The same graph again reuses what the first one freed. */
            CHECK_EQ(s.arena_bytes_in_use, first_round.arena_bytes_in_use);
            CHECK_EQ(s.arena_bytes_reserved, first_round.arena_bytes_reserved);
        }
        /* Readers first, so that no body reads a disposed node. */
        for (int i = 29; i >= 0; i--)
            CHECK_ST(th_dispose(&w, nodes[i]), RP_OK);
        s = th_stats(&w);
        CHECK_EQ(s.live_nodes, 0);
        CHECK_EQ(s.live_edges, 0);
        CHECK(th_check(&w));
        for (int i = 0; i < 30; i++) {
            CHECK_EQ(nodes[i]->released, 1);
            nodes[i]->created = false; /* already released: th_done skips them */
        }
    }
    w.count = 0;
    th_done(&w);
}

static void the_allocation_count_matches_the_allocator(void)
{
    harness_begin("the_allocation_count_matches_the_allocator");
    th_world_t w;
    th_init(&w, 600, 0);
    rp_graph_stats_t s0 = th_stats(&w);
    size_t calls0 = w.alloc.calls, frees0 = w.alloc.frees;
    th_node_t *hub = th_source(&w, "hub", 0);
    for (int i = 0; i < 500; i++)
        CHECK_EQ(th_read(&w, th_computed(&w, "c", th_sum, 0, hub, NULL)), 0);
    rp_graph_stats_t s1 = th_stats(&w);
    size_t calls = w.alloc.calls - calls0, frees = w.alloc.frees - frees0;
    CHECK(calls > 0);
    /* "calls the engine made to the allocator": allocations, or all calls. */
    if (!CHECK(s1.allocations - s0.allocations == calls || s1.allocations - s0.allocations == calls + frees))
        fprintf(stderr, "    stats.allocations grew by %zu; alloc calls %zu, free calls %zu\n",
                s1.allocations - s0.allocations, calls, frees);
    th_done(&w);
}

/* A small graph with a branch, read by two effects. */
static long pick_body(th_world_t *w, th_node_t *self)
{
    return th_read(w, self->in[0]) ? th_read(w, self->in[1]) : th_read(w, self->in[2]) * 2;
}

static void steady_state_updates_allocate_nothing(void)
{
    harness_begin("steady_state_updates_allocate_nothing");
    th_world_t w;
    th_init(&w, 32, 0);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *b = th_source(&w, "b", 2);
    th_node_t *flag = th_source(&w, "flag", 1);
    th_node_t *sum = th_computed(&w, "sum", th_sum, 0, a, b);
    th_node_t *half = th_computed(&w, "half", th_div, 2, sum, NULL);
    th_node_t *pick = th_computed(&w, "pick", pick_body, 0, flag, sum);
    pick->in[2] = b;
    th_node_t *e1 = th_effect(&w, "e1", th_sum, 0, pick, half);
    th_node_t *e2 = th_effect(&w, "e2", th_sum, 0, sum, NULL);

    long i = 0;
    /* One round: plain writes, a batch, a written-back value, both branches,
     * reads from the top level, an untracked section. */
#define ROUND()                                                   \
    do {                                                          \
        i++;                                                      \
        CHECK_ST(th_write(&w, a, i), RP_OK);                      \
        CHECK_ST(rp_batch_begin(w.g), RP_OK);                     \
        CHECK_ST(th_write(&w, a, i + 1), RP_OK);                  \
        CHECK_ST(th_write(&w, b, i), RP_OK);                      \
        CHECK_ST(th_write(&w, b, i + 5), RP_OK);                  \
        CHECK_ST(th_write(&w, b, i), RP_OK);                      \
        CHECK_ST(rp_batch_end(w.g), RP_OK);                       \
        CHECK_ST(th_write(&w, flag, i & 1), RP_OK);               \
        CHECK_EQ(th_read(&w, half), (2 * i + 1) / 2);             \
        CHECK_ST(rp_untracked_begin(w.g), RP_OK);                 \
        CHECK_EQ(th_read(&w, pick), (i & 1) ? 2 * i + 1 : 2 * i); \
        CHECK_ST(rp_untracked_end(w.g), RP_OK);                   \
    } while (0)

    for (int k = 0; k < 20; k++)
        ROUND();
    size_t calls = w.alloc.calls, frees = w.alloc.frees;
    size_t stat_allocations = th_stats(&w).allocations;
    unsigned runs = e1->runs + e2->runs;
    for (int k = 0; k < 1000; k++)
        ROUND();
    CHECK_EQ(w.alloc.calls - calls, 0);
    CHECK_EQ(w.alloc.frees - frees, 0);
    CHECK_EQ(th_stats(&w).allocations - stat_allocations, 0);
    CHECK(e1->runs + e2->runs > runs + 1000);
    CHECK_EQ(e1->value, ((i & 1) ? 2 * i + 1 : 2 * i) + (2 * i + 1) / 2);
#undef ROUND
    th_done(&w);
}

/* Nodes that nobody reads take no room for an `unwatched`: filling the first
 * page of records with sources and unread derivations allocates nothing once
 * the first node has made the page. */
static void nodes_nobody_watches_allocate_nothing(void)
{
    harness_begin("nodes_nobody_watches_allocate_nothing");
    th_world_t w;
    th_init(&w, 256, 0);
    th_node_t *first = th_source(&w, "first", 7);
    size_t calls = w.alloc.calls;
    for (int i = 1; i < 200; i++)
        th_source(&w, "source", i);
    th_node_t *unread[50];
    for (int i = 0; i < 50; i++)
        unread[i] = th_computed(&w, "unread", th_sum, i, first, NULL);
    CHECK_EQ(w.alloc.calls - calls, 0);
    CHECK_EQ(th_stats(&w).live_nodes, 250);
    CHECK(th_check(&w));
    /* Read, a derivation watches `first`: the room is taken then. */
    CHECK_EQ(th_read(&w, unread[3]), 7 + 3);
    CHECK_EQ(first->watched, 1);
    CHECK(th_check(&w));
    th_done(&w);
}

/* An effect that reads `arg` sources from the world's `user` array while its
 * first input reads nonzero, nothing else otherwise. */
static long gate_body(th_world_t *w, th_node_t *self)
{
    th_node_t **sources = w->user;
    long total = 0;
    if (th_read(w, self->in[0]))
        for (long i = 0; i < self->arg; i++)
            total += th_read(w, sources[i]);
    return total;
}

/* A run that stops reading many nodes queues an `unwatched` for each inside
 * the flush, where nothing may allocate: more than the queue holds wait by
 * their flag, and the delivery makes room for them all for the next time.
 * With no `unwatched` callback, nothing is queued at all. */
static void unwatching_in_a_flush_allocates_nothing_with_or_without_the_callback(void)
{
    harness_begin("unwatching_in_a_flush_allocates_nothing_with_or_without_the_callback");
    for (int callback = 1; callback >= 0; callback--) {
        th_world_t w;
        th_setup(&w, 128, 0);
        if (!callback)
            w.config.callbacks.unwatched = NULL;
        th_open(&w);
        th_node_t *sources[100];
        for (int i = 0; i < 100; i++)
            sources[i] = th_source(&w, "source", i);
        w.user = sources;
        th_node_t *gate = th_source(&w, "gate", 1);
        th_node_t *e = th_effect(&w, "e", gate_body, 100, gate, NULL);
        CHECK_EQ(e->value, 99 * 100 / 2);
        CHECK(th_check(&w));
        size_t calls = w.alloc.calls;
        for (int round = 1; round <= 3; round++) {
            CHECK_ST(th_write(&w, gate, 0), RP_OK);
            CHECK_EQ(e->value, 0);
            CHECK_EQ(th_sub_count(&w, sources[0]), 0);
            CHECK(th_check(&w));
            CHECK_ST(th_write(&w, gate, 1), RP_OK);
            CHECK_EQ(e->value, 99 * 100 / 2);
            CHECK(th_check(&w));
            if (round == 1)
                calls = w.alloc.calls; /* the first watch of each source again may grow its edges: not after */
        }
        CHECK_EQ(w.alloc.calls - calls, 0);
        CHECK_EQ(e->runs, 7);
        for (int i = 0; i < 100; i += 33) {
            CHECK_EQ(sources[i]->watched, 4);
            CHECK_EQ(sources[i]->unwatched, callback ? 3 : 0);
        }
        th_done(&w);
    }
}

/* More nodes unwatched at once than the queue holds (RP_UNWATCH_FIRST, 16):
 * each is told once, the queue's in the order they lost their reader, the
 * rest after them in creation order (slot order here); the next time, the
 * queue holds them all, in order. */
static void more_unwatched_than_the_queue_holds_are_each_told_once(void)
{
    harness_begin("more_unwatched_than_the_queue_holds_are_each_told_once");
    static char names[40][8];
    th_world_t w;
    th_init(&w, 64, 0);
    w.log_mask = TH_LOG_WATCH;
    th_node_t *sources[40];
    for (int i = 0; i < 40; i++) {
        snprintf(names[i], sizeof names[i], "s%d", i);
        sources[i] = th_source(&w, names[i], i);
    }
    w.user = sources;
    th_node_t *gate = th_source(&w, "gate", 1);
    th_node_t *e = th_effect(&w, "e", gate_body, 40, gate, NULL);
    CHECK_EQ(e->value, 39 * 40 / 2);
    (void)th_take_log(&w);
    char queued[512] = "", overflow[512] = "", in_order[512] = "";
    /* The run's end drops its reads from the last: s39 first. */
    for (int i = 39; i >= 0; i--) {
        char *into = i >= 24 ? queued : overflow;
        if (i >= 24)
            snprintf(into + strlen(into), 512 - strlen(into), "%s-s%d", *into ? " " : "", i);
        snprintf(in_order + strlen(in_order), 512 - strlen(in_order), "%s-s%d", *in_order ? " " : "", i);
    }
    for (int i = 0; i < 24; i++)
        snprintf(overflow + strlen(overflow), 512 - strlen(overflow), "%s-s%d", *overflow ? " " : "", i);
    char expected[1024];
    snprintf(expected, sizeof expected, "%s %s", queued, overflow);
    CHECK_ST(th_write(&w, gate, 0), RP_OK);
    CHECK_STR(th_take_log(&w), expected);
    CHECK(th_check(&w));
    CHECK_ST(th_write(&w, gate, 1), RP_OK);
    (void)th_take_log(&w);
    size_t calls = w.alloc.calls;
    CHECK_ST(th_write(&w, gate, 0), RP_OK);
    CHECK_STR(th_take_log(&w), in_order);
    CHECK_EQ(w.alloc.calls - calls, 0);
    for (int i = 0; i < 40; i++) {
        CHECK_EQ(sources[i]->watched, 2);
        CHECK_EQ(sources[i]->unwatched, 2);
    }
    CHECK(th_check(&w));
    th_done(&w);
}

static void a_graph_whose_allocator_fails_at_once(void)
{
    harness_begin("a_graph_whose_allocator_fails_at_once");
    th_world_t w;
    th_setup(&w, 4, 0);
    w.alloc.fail_all = true;
    rp_graph_t *g = (rp_graph_t *)&w; /* a sentinel: must stay untouched */
    CHECK_ST(rp_graph_create(&w.config, &g), RP_ENOMEM);
    CHECK(g == (rp_graph_t *)&w);
    CHECK_EQ(w.alloc.live_blocks, 0);
    free(w.nodes);
}

/*
 * One scenario, run again and again with the allocator refusing its k-th call
 * for k = 0, 1, 2, ... until a run meets no refusal. Each call that fails
 * must fail with RP_ENOMEM, leave the counts as they were and the graph valid;
 * it is then retried (the allocator refuses only once). At the end the values
 * must be right, and destroy must free everything.
 */
typedef struct fail_run {
    th_world_t w;
    unsigned enomem;  /* calls that reported RP_ENOMEM */
    unsigned altered; /* failing calls that changed the counts */
    unsigned invalid; /* failing calls after which _rp_graph_check failed */
    unsigned other;   /* calls that failed with anything else */
} fail_run_t;

static rp_status_t attempt_status(fail_run_t *run, rp_status_t st, rp_graph_stats_t before, const char *what,
                                  const char *name)
{
    if (st == RP_OK)
        return st;
    if (st != RP_ENOMEM) {
        run->other++;
        return st;
    }
    run->enomem++;
    rp_graph_stats_t after;
    /* Only a failed create must leave the counts exactly as they were: a read
     * or a write that fails may have brought other nodes up to date first
     * (their computes succeeded, and the host's values with them). */
    bool must_be_unchanged = strcmp(what, "creating") == 0;
    if (rp_graph_stats(run->w.g, &after) != RP_OK ||
        (must_be_unchanged && (after.live_nodes != before.live_nodes || after.live_edges != before.live_edges))) {
        run->altered++;
        fprintf(stderr, "    %s %s failed with RP_ENOMEM and changed the graph: %zu nodes, %zu edges before; "
                        "%zu, %zu after\n", what, name, before.live_nodes, before.live_edges, after.live_nodes,
                after.live_edges);
    }
    if (_rp_graph_check(run->w.g, NULL, 0) != RP_OK)
        run->invalid++;
    return st;
}

static rp_graph_stats_t counts_now(fail_run_t *run)
{
    rp_graph_stats_t s;
    memset(&s, 0, sizeof s);
    rp_graph_stats(run->w.g, &s);
    return s;
}

/* Creates a node, retrying after a refusal. */
static th_node_t *make(fail_run_t *run, const char *name, rp_kind_t kind, th_body_t body, long arg,
                       th_node_t *in0, th_node_t *in1)
{
    th_node_t *n = th_prepare(&run->w, name, kind, body, arg, in0, in1);
    for (int tries = 0; tries < 3; tries++) {
        rp_graph_stats_t before = counts_now(run);
        rp_status_t st = th_create(&run->w, n);
        if (n->created)
            return n; /* an effect's flush status is not the creation's */
        if (attempt_status(run, st, before, "creating", name) != RP_ENOMEM)
            break;
    }
    return n;
}

static long get(fail_run_t *run, th_node_t *n)
{
    for (int tries = 0; tries < 3; tries++) {
        rp_graph_stats_t before = counts_now(run);
        rp_status_t st;
        long v = th_get(&run->w, n, &st);
        if (attempt_status(run, st, before, "reading", n->name) != RP_ENOMEM)
            return v;
    }
    return -1;
}

static void put(fail_run_t *run, th_node_t *n, long v)
{
    for (int tries = 0; tries < 3; tries++) {
        rp_graph_stats_t before = counts_now(run);
        if (attempt_status(run, th_write(&run->w, n, v), before, "writing", n->name) != RP_ENOMEM)
            return;
    }
}

static bool fail_scenario(long fail_at)
{
    fail_run_t run;
    memset(&run, 0, sizeof run);
    th_world_t *w = &run.w;
    th_setup(w, 128, 0);
    w->alloc.fail_at = fail_at;
    rp_status_t st = RP_ENOMEM;
    for (int tries = 0; tries < 2 && st == RP_ENOMEM; tries++) {
        w->g = NULL;
        st = rp_graph_create(&w->config, &w->g);
    }
    CHECK_ST(st, RP_OK);
    if (st != RP_OK) {
        free(w->nodes);
        return true;
    }
    th_node_t *a = make(&run, "a", RP_KIND_SOURCE, NULL, 0, NULL, NULL);
    th_node_t *b = make(&run, "b", RP_KIND_SOURCE, NULL, 0, NULL, NULL);
    th_node_t *flag = make(&run, "flag", RP_KIND_SOURCE, NULL, 0, NULL, NULL);
    th_node_t *sum = make(&run, "sum", RP_KIND_COMPUTED, th_sum, 0, a, b);
    th_node_t *pick = make(&run, "pick", RP_KIND_COMPUTED, th_pick, 0, flag, sum);
    pick->in[2] = b;
    th_node_t *readers[40];
    for (int i = 0; i < 40; i++)
        readers[i] = make(&run, "reader", RP_KIND_COMPUTED, th_sum, i, pick, a);
    long total = 0;
    for (int i = 0; i < 40; i++)
        total += get(&run, readers[i]);
    CHECK_EQ(total, 40 * 0 + (39 * 40) / 2);
    put(&run, a, 3);
    put(&run, b, 4);
    CHECK_EQ(get(&run, pick), 4);
    put(&run, flag, 1);
    CHECK_EQ(get(&run, pick), 7);
    for (int i = 0; i < 40; i += 3)
        CHECK_EQ(get(&run, readers[i]), 7 + 3 + i);
    th_node_t *e = make(&run, "e", RP_KIND_EFFECT, th_sum, 0, pick, NULL);
    if (e->created) {
        put(&run, a, 5);
        if (e->body_status == RP_OK)
            CHECK_EQ(e->value, 9);
        CHECK_ST(th_dispose(w, e), RP_OK);
    }
    for (int i = 0; i < 40; i += 2)
        CHECK_ST(th_dispose(w, readers[i]), RP_OK);
    CHECK_EQ(get(&run, readers[1]), 9 + 5 + 1);
    /* A re-validation walk deeper than any before grows the walk stack on
     * the way (its first evaluation nests computes instead of walking): 75
     * frames, where the room kept for propagation leaves less. */
    th_node_t *chain[75];
    chain[0] = make(&run, "chain", RP_KIND_COMPUTED, th_sum, 1, a, NULL);
    for (int i = 1; i < 75; i++)
        chain[i] = make(&run, "chain", RP_KIND_COMPUTED, th_sum, 1, chain[i - 1], NULL);
    CHECK_EQ(get(&run, chain[74]), 5 + 75);
    put(&run, a, 6);
    CHECK_EQ(get(&run, chain[74]), 6 + 75);

    CHECK_EQ(run.altered, 0);
    CHECK_EQ(run.invalid, 0);
    CHECK_EQ(run.other, 0);
    if (run.altered || run.invalid || run.other)
        fprintf(stderr, "    with allocation %ld refused\n", fail_at);
    bool refused = w->alloc.failures > 0;
    th_done(w);
    return !refused;
}

static void every_allocation_failure_is_reported(void)
{
    harness_begin("every_allocation_failure_is_reported");
    long k = 0;
    for (; k < 10000; k++)
        if (fail_scenario(k))
            break;
    CHECK(k > 0 && k < 10000);
}

int main(void)
{
    everything_is_freed_at_destroy();
    counts_go_back_to_zero();
    the_allocation_count_matches_the_allocator();
    steady_state_updates_allocate_nothing();
    nodes_nobody_watches_allocate_nothing();
    unwatching_in_a_flush_allocates_nothing_with_or_without_the_callback();
    more_unwatched_than_the_queue_holds_are_each_told_once();
    a_graph_whose_allocator_fails_at_once();
    every_allocation_failure_is_reported();
    return harness_finish();
}
