/*
 * deep_graphs.c: a 10,000-deep chain and the 5,000-layer cellx graph, built
 * incrementally (each node read right after its creation, so no first
 * evaluation nests), then updated on a thread with a 512 KiB stack: push and
 * pull must not recurse on the machine stack. Sizes are macros so that a
 * quick run can shrink them: -DCHAIN_LENGTH=100 -DCELLX_LAYERS=50.
 */
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>

#include "testhost.h"

#ifndef CHAIN_LENGTH
#define CHAIN_LENGTH 10000
#endif
#ifndef CELLX_LAYERS
#define CELLX_LAYERS 5000
#endif
#ifndef STACK_KIB
#define STACK_KIB 512
#endif

static void a_deep_chain_updates_without_recursion(void)
{
    harness_begin("a_deep_chain_updates_without_recursion");
    th_world_t w;
    th_init(&w, CHAIN_LENGTH + 8, 0);
    th_node_t *s = th_source(&w, "s", 2);
    th_node_t *head = th_computed(&w, "head", th_div, 2, s, NULL);
    CHECK_EQ(th_read(&w, head), 1);
    th_node_t *prev = head;
    for (long i = 1; i < CHAIN_LENGTH; i++) {
        th_node_t *c = th_computed(&w, "link", th_sum, 1, prev, NULL);
        if (th_read(&w, c) != i + 1)
            CHECK_EQ(c->value, i + 1);
        prev = c;
    }
    th_node_t *tail = prev;
    CHECK_EQ(tail->value, CHAIN_LENGTH);
    rp_graph_stats_t stats = th_stats(&w);
    CHECK_EQ(stats.live_nodes, CHAIN_LENGTH + 1);
    CHECK_EQ(stats.live_edges, CHAIN_LENGTH);

    /* Pull: a write, then one read at the far end. */
    CHECK_ST(th_write(&w, s, 4), RP_OK);
    CHECK_EQ(th_read(&w, tail), CHAIN_LENGTH + 1);
    unsigned wrong = 0;
    for (size_t i = 1; i < w.count; i++)
        wrong += w.nodes[i].computes != 2;
    CHECK_EQ(wrong, 0);

    /* Push: an effect at the end runs on each change. */
    th_node_t *e = th_effect(&w, "e", th_sum, 0, tail, NULL);
    CHECK_EQ(e->value, CHAIN_LENGTH + 1);
    CHECK_ST(th_write(&w, s, 6), RP_OK);
    CHECK_EQ(e->runs, 2);
    CHECK_EQ(e->value, CHAIN_LENGTH + 2);
    /* Cut off at the head: 7 / 2 == 6 / 2; nothing below recomputes. */
    CHECK_ST(th_write(&w, s, 7), RP_OK);
    CHECK_EQ(e->runs, 2);
    CHECK_EQ(head->computes, 4);
    CHECK_EQ(tail->computes, 3);
    /* Batched writes: one run. */
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    for (long v = 8; v < 20; v++)
        CHECK_ST(th_write(&w, s, v), RP_OK);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_EQ(e->runs, 3);
    CHECK_EQ(e->value, 19 / 2 + CHAIN_LENGTH - 1);
    CHECK_ST(th_dispose(&w, e), RP_OK);
    th_done(&w);
}

/* in[0] - in[1]. */
static long difference(th_world_t *w, th_node_t *self)
{
    return th_read(w, self->in[0]) - th_read(w, self->in[1]);
}

static void the_cellx_graph_updates_without_recursion(void)
{
    harness_begin("the_cellx_graph_updates_without_recursion");
    th_world_t w;
    th_init(&w, 4 + (size_t)CELLX_LAYERS * 8 + 8, 0);
    th_node_t *start[4], *layer[4];
    for (int p = 0; p < 4; p++)
        layer[p] = start[p] = th_source(&w, "start", p + 1);
    for (int i = 0; i < CELLX_LAYERS; i++) {
        th_node_t *m[4] = {layer[0], layer[1], layer[2], layer[3]};
        layer[0] = th_computed(&w, "p1", th_sum, 0, m[1], NULL);
        layer[1] = th_computed(&w, "p2", difference, 0, m[0], m[2]);
        layer[2] = th_computed(&w, "p3", th_sum, 0, m[1], m[3]);
        layer[3] = th_computed(&w, "p4", th_sum, 0, m[2], NULL);
        for (int p = 0; p < 4; p++)
            th_read(&w, layer[p]);
        for (int p = 0; p < 4; p++)
            th_effect(&w, "effect", th_sum, 0, layer[p], NULL);
    }
    /* The model: the same recurrence on plain numbers. */
    long before[4], after[4];
    for (int round = 0; round < 2; round++) {
        long *out = round == 0 ? before : after;
        long v[4] = {round == 0 ? 1 : 4, round == 0 ? 2 : 3, round == 0 ? 3 : 2, round == 0 ? 4 : 1};
        for (int i = 0; i < CELLX_LAYERS; i++) {
            long next[4] = {v[1], v[0] - v[2], v[1] + v[3], v[2]};
            memcpy(v, next, sizeof v);
        }
        memcpy(out, v, sizeof v);
    }
    for (int p = 0; p < 4; p++)
        CHECK_EQ(layer[p]->value, before[p]);
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    for (int p = 0; p < 4; p++)
        CHECK_ST(th_write(&w, start[p], 4 - p), RP_OK);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    for (int p = 0; p < 4; p++)
        CHECK_EQ(th_read(&w, layer[p]), after[p]);
    /* Each computed at most once more; each effect at most once more, and
     * holding the final value of what it read. */
    unsigned twice = 0, wrong_runs = 0;
    for (size_t i = 0; i < w.count; i++) {
        th_node_t *n = &w.nodes[i];
        if (n->kind == RP_KIND_COMPUTED && n->computes > 2)
            twice++;
        if (n->kind == RP_KIND_EFFECT && (n->runs > 2 || n->value != n->in[0]->value))
            wrong_runs++;
    }
    CHECK_EQ(twice, 0);
    CHECK_EQ(wrong_runs, 0);
    th_done(&w);
}

static void *run_all(void *unused)
{
    (void)unused;
    a_deep_chain_updates_without_recursion();
    the_cellx_graph_updates_without_recursion();
    return NULL;
}

int main(void)
{
    pthread_attr_t attr;
    pthread_t thread;
    bool ok = pthread_attr_init(&attr) == 0 && pthread_attr_setstacksize(&attr, (size_t)STACK_KIB * 1024) == 0 &&
              pthread_create(&thread, &attr, run_all, NULL) == 0 && pthread_join(thread, NULL) == 0;
    CHECK(ok);
    return harness_finish();
}
