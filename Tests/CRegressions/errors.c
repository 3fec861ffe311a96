/*
 * errors.c: every error path of the API. NULL pointers, out-of-range kinds,
 * stale, foreign and forged handles, wrong kinds, unbalanced ends, cycles.
 * After each failing call the graph must be as it was: same counts, same
 * values, and _rp_graph_check passes. NULL goes through a volatile pointer so
 * that no compiler warns about the nonnull contract being broken on purpose.
 */
#include "testhost.h"

static void *volatile null_pointer = NULL;

#define NULLP(type) ((type)null_pointer)

/* The graph's counts, to compare before and after a failing call. */
static bool same_counts(rp_graph_stats_t a, rp_graph_stats_t b)
{
    return a.live_nodes == b.live_nodes && a.live_edges == b.live_edges &&
           a.arena_bytes_in_use == b.arena_bytes_in_use;
}

static void null_pointers_are_invalid(void)
{
    harness_begin("null_pointers_are_invalid");
    th_world_t w;
    th_init(&w, 32, 0);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *c = th_computed(&w, "c", th_sum, 0, a, NULL);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, c, NULL);
    rp_graph_stats_t before = th_stats(&w);
    rp_graph_t *ng = NULLP(rp_graph_t *);
    rp_node_t h = a->h, buf[2];
    size_t count;
    rp_kind_t kind;
    void *data;
    rp_graph_stats_t stats;

    /* Graph. */
    rp_graph_t *g2 = NULL;
    CHECK_ST(rp_graph_create(NULLP(const rp_graph_config_t *), &g2), RP_EINVAL);
    CHECK_ST(rp_graph_create(&w.config, NULLP(rp_graph_t **)), RP_EINVAL);
    CHECK(g2 == NULL);
    rp_allocator_t broken = w.allocator;
    rp_graph_config_t config = w.config;
    config.allocator = &broken;
    broken.alloc = NULLP(void *(*)(void *, size_t));
    CHECK_ST(rp_graph_create(&config, &g2), RP_EINVAL);
    broken = w.allocator;
    broken.free = NULLP(void (*)(void *, void *, size_t));
    CHECK_ST(rp_graph_create(&config, &g2), RP_EINVAL);
    CHECK(g2 == NULL);
    CHECK_ST(rp_graph_stats(ng, &stats), RP_EINVAL);
    CHECK_ST(rp_graph_stats(w.g, NULLP(rp_graph_stats_t *)), RP_EINVAL);
    CHECK_ST(rp_graph_diagnostic(ng, buf, 2, &count), RP_EINVAL);
    CHECK_ST(rp_graph_diagnostic(w.g, NULLP(rp_node_t *), 2, &count), RP_EINVAL);
    CHECK_ST(rp_graph_diagnostic(w.g, buf, 2, NULLP(size_t *)), RP_EINVAL);
    CHECK_ST(_rp_graph_check(ng, NULL, 0), RP_EINVAL);
    CHECK_ST(rp_graph_tracking(ng, &h), RP_EINVAL);
    CHECK_ST(rp_graph_tracking(w.g, NULLP(rp_node_t *)), RP_EINVAL);

    /* Nodes. */
    CHECK_ST(rp_node_create(ng, RP_KIND_SOURCE, NULL, &h), RP_EINVAL);
    CHECK_ST(rp_node_create(w.g, RP_KIND_SOURCE, NULL, NULLP(rp_node_t *)), RP_EINVAL);
    CHECK_ST(rp_node_create(w.g, RP_KIND_EFFECT, NULL, NULLP(rp_node_t *)), RP_EINVAL);
    CHECK_ST(rp_node_dispose(ng, a->h), RP_EINVAL);
    CHECK_ST(rp_node_kind(ng, a->h, &kind), RP_EINVAL);
    CHECK_ST(rp_node_kind(w.g, a->h, NULLP(rp_kind_t *)), RP_EINVAL);
    CHECK_ST(rp_node_data(ng, a->h, &data), RP_EINVAL);
    CHECK_ST(rp_node_data(w.g, a->h, NULLP(void **)), RP_EINVAL);
    CHECK_ST(rp_node_dependencies(ng, c->h, buf, 2, &count), RP_EINVAL);
    CHECK_ST(rp_node_dependencies(w.g, c->h, NULLP(rp_node_t *), 2, &count), RP_EINVAL);
    CHECK_ST(rp_node_dependencies(w.g, c->h, buf, 2, NULLP(size_t *)), RP_EINVAL);
    CHECK_ST(rp_node_subscribers(ng, a->h, buf, 2, &count), RP_EINVAL);
    CHECK_ST(rp_node_subscribers(w.g, a->h, NULLP(rp_node_t *), 2, &count), RP_EINVAL);
    CHECK_ST(rp_node_subscribers(w.g, a->h, buf, 2, NULLP(size_t *)), RP_EINVAL);

    /* Reads, writes, sections. */
    CHECK_ST(rp_node_read(ng, a->h), RP_EINVAL);
    CHECK_ST(rp_source_set(ng, a->h), RP_EINVAL);
    CHECK_ST(rp_batch_begin(ng), RP_EINVAL);
    CHECK_ST(rp_batch_end(ng), RP_EINVAL);
    CHECK_ST(rp_untracked_begin(ng), RP_EINVAL);
    CHECK_ST(rp_untracked_end(ng), RP_EINVAL);

    /* NULL with capacity 0 is fine. */
    CHECK_ST(rp_node_dependencies(w.g, c->h, NULL, 0, &count), RP_OK);
    CHECK_EQ(count, 1);
    CHECK_ST(rp_graph_diagnostic(w.g, NULL, 0, &count), RP_OK);
    CHECK_EQ(count, 0);
    /* A message buffer may be omitted. */
    CHECK_ST(_rp_graph_check(w.g, NULL, 0), RP_OK);
    char tiny[1] = {'x'};
    CHECK_ST(_rp_graph_check(w.g, tiny, 1), RP_OK);

    CHECK(same_counts(before, th_stats(&w)));
    CHECK_EQ(e->runs, 1);
    CHECK_ST(th_write(&w, a, 2), RP_OK);
    CHECK_EQ(e->value, 2);
    th_done(&w);
}

static void kinds_out_of_range_are_invalid(void)
{
    harness_begin("kinds_out_of_range_are_invalid");
    th_world_t w;
    th_init(&w, 32, 0);
    rp_graph_stats_t before = th_stats(&w);
    /* 3, a deferred effect, is refused for the testhost's missing `schedule`. */
    volatile int bad_kinds[] = {3, RP_KIND_ASYNC + 1, 255, -1, 0x7fffffff};
    for (size_t i = 0; i < sizeof bad_kinds / sizeof bad_kinds[0]; i++) {
        rp_node_t h = TH_UNWRITTEN;
        CHECK_ST(rp_node_create(w.g, (rp_kind_t)bad_kinds[i], NULL, &h), RP_EINVAL);
        CHECK_NODE(h, TH_UNWRITTEN);
    }
    CHECK(same_counts(before, th_stats(&w)));
    th_done(&w);
}

/* Every call that takes a node, with its status: the same for all of them. */
static void every_node_call_reports(th_world_t *w, rp_node_t h, rp_status_t want, bool source)
{
    rp_kind_t kind = (rp_kind_t)77;
    void *data = &kind;
    rp_node_t buf[2] = {TH_UNWRITTEN, TH_UNWRITTEN};
    size_t count = 77;
    CHECK_ST(rp_node_kind(w->g, h, &kind), want);
    CHECK_EQ(kind, 77);
    CHECK_ST(rp_node_data(w->g, h, &data), want);
    CHECK(data == &kind);
    CHECK_ST(rp_node_dependencies(w->g, h, buf, 2, &count), want);
    CHECK_ST(rp_node_subscribers(w->g, h, buf, 2, &count), want);
    CHECK_EQ(count, 77);
    CHECK_NODE(buf[0], TH_UNWRITTEN);
    CHECK_ST(rp_node_read(w->g, h), want);
    if (source)
        CHECK_ST(rp_source_set(w->g, h), want);
    CHECK_ST(rp_node_dispose(w->g, h), want);
}

static void stale_handles_are_reported_on_every_call(void)
{
    harness_begin("stale_handles_are_reported_on_every_call");
    th_world_t w;
    th_init(&w, 32, 0);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *b = th_source(&w, "b", 2);
    th_node_t *c = th_computed(&w, "c", th_sum, 0, a, NULL);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, a, NULL);
    CHECK_EQ(th_read(&w, c), 1);
    rp_node_t hb = b->h, hc = c->h, he = e->h;
    CHECK_ST(th_dispose(&w, b), RP_OK);
    CHECK_ST(th_dispose(&w, c), RP_OK);
    CHECK_ST(th_dispose(&w, e), RP_OK);
    rp_graph_stats_t before = th_stats(&w);
    CHECK_EQ(before.live_nodes, 1);
    CHECK_EQ(before.live_edges, 0);
    every_node_call_reports(&w, hb, RP_ESTALE, true);
    every_node_call_reports(&w, hc, RP_ESTALE, true);
    every_node_call_reports(&w, he, RP_ESTALE, true);
    CHECK(same_counts(before, th_stats(&w)));
    CHECK(th_check(&w));

    /* New nodes reuse freed slots; the old handles stay stale. */
    th_node_t *n1 = th_source(&w, "n1", 5);
    th_node_t *n2 = th_computed(&w, "n2", th_sum, 0, n1, NULL);
    th_node_t *n3 = th_effect(&w, "n3", th_sum, 0, n2, NULL);
    CHECK_EQ(n3->value, 5);
    every_node_call_reports(&w, hb, RP_ESTALE, true);
    every_node_call_reports(&w, hc, RP_ESTALE, true);
    every_node_call_reports(&w, he, RP_ESTALE, true);
    CHECK_EQ(n3->runs, 1);
    CHECK_EQ(th_stats(&w).live_nodes, 4);
    CHECK_ST(th_write(&w, n1, 6), RP_OK);
    CHECK_EQ(n3->value, 6);

    /* The same slot disposed and reused many times: each handle once. */
    rp_node_t old[50];
    for (int i = 0; i < 50; i++) {
        CHECK_ST(rp_node_create(w.g, RP_KIND_SOURCE, NULL, &old[i]), RP_OK);
        CHECK_ST(rp_node_dispose(w.g, old[i]), RP_OK);
    }
    for (int i = 0; i < 50; i++)
        CHECK_ST(rp_node_read(w.g, old[i]), RP_ESTALE);
    th_done(&w);
}

static void handles_of_another_graph_are_foreign(void)
{
    harness_begin("handles_of_another_graph_are_foreign");
    th_world_t w1, w2;
    th_init(&w1, 32, 0);
    th_init(&w2, 32, 0);
    /* Same creation sequence in both: same slots, same generations. */
    th_node_t *a1 = th_source(&w1, "a1", 1);
    th_node_t *c1 = th_computed(&w1, "c1", th_sum, 0, a1, NULL);
    th_node_t *a2 = th_source(&w2, "a2", 1);
    th_node_t *c2 = th_computed(&w2, "c2", th_sum, 0, a2, NULL);
    th_node_t *e2 = th_effect(&w2, "e2", th_sum, 0, c2, NULL);
    CHECK(a1->h.graph_tag != a2->h.graph_tag);
    CHECK_EQ(th_read(&w1, c1), 1);
    rp_graph_stats_t before = th_stats(&w1);
    every_node_call_reports(&w1, a2->h, RP_EFOREIGN, true);
    every_node_call_reports(&w1, c2->h, RP_EFOREIGN, true);
    every_node_call_reports(&w1, e2->h, RP_EFOREIGN, true);
    /* A handle with this graph's tag from a node of the other graph. */
    CHECK(same_counts(before, th_stats(&w1)));
    CHECK_EQ(th_stats(&w2).live_nodes, 3);
    CHECK_EQ(e2->runs, 1);
    CHECK_EQ(c1->computes, 1);
    th_done(&w2);
    th_done(&w1);
}

static void forged_handles_are_rejected(void)
{
    harness_begin("forged_handles_are_rejected");
    th_world_t w;
    th_init(&w, 32, 0);
    th_node_t *a = th_source(&w, "a", 1);
    rp_node_t forged[] = {
        {a->h.slot + 1000, a->h.generation, a->h.graph_tag},
        {0xffffffffu, 1, a->h.graph_tag},
        {a->h.slot, a->h.generation + 1, a->h.graph_tag},
        {a->h.slot, 0, a->h.graph_tag},
    };
    for (size_t i = 0; i < sizeof forged / sizeof forged[0]; i++) {
        rp_kind_t kind;
        rp_status_t st = rp_node_kind(w.g, forged[i], &kind);
        if (!CHECK(st == RP_ESTALE || st == RP_EINVAL))
            fprintf(stderr, "    forged handle %zu: %s\n", i, rp_status_string(st));
        st = rp_node_read(w.g, forged[i]);
        CHECK(st == RP_ESTALE || st == RP_EINVAL);
        st = rp_node_dispose(w.g, forged[i]);
        CHECK(st == RP_ESTALE || st == RP_EINVAL);
    }
    CHECK_EQ(th_stats(&w).live_nodes, 1);
    CHECK_EQ(th_read(&w, a), 1);
    th_done(&w);
}

static long write_a_computed(th_world_t *w, th_node_t *self)
{
    CHECK_ST(rp_source_set(w->g, self->in[1]->h), RP_EKIND);
    return th_read(w, self->in[0]);
}

static void calls_that_do_not_fit_the_kind(void)
{
    harness_begin("calls_that_do_not_fit_the_kind");
    th_world_t w;
    th_init(&w, 32, 0);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *c = th_computed(&w, "c", th_sum, 0, a, NULL);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, c, NULL);
    rp_graph_stats_t before = th_stats(&w);
    CHECK_ST(rp_source_set(w.g, c->h), RP_EKIND);
    CHECK_ST(rp_source_set(w.g, e->h), RP_EKIND);
    CHECK_ST(rp_node_read(w.g, e->h), RP_EKIND);
    CHECK(same_counts(before, th_stats(&w)));
    CHECK_EQ(c->computes, 1);
    CHECK_EQ(e->runs, 1);
    /* Inside a body too, where a read of an effect must not become an edge. */
    th_node_t *f = th_effect(&w, "f", write_a_computed, 0, a, c);
    CHECK_EQ(f->runs, 1);
    CHECK_DEPS(&w, f, a);
    th_done(&w);
}

static rp_status_t end_inside_run_batch, end_inside_run_untracked;

static long end_what_was_not_begun(th_world_t *w, th_node_t *self)
{
    end_inside_run_batch = rp_batch_end(w->g);
    end_inside_run_untracked = rp_untracked_end(w->g);
    return th_read(w, self->in[0]);
}

static void ends_without_a_begin(void)
{
    harness_begin("ends_without_a_begin");
    th_world_t w;
    th_init(&w, 32, 0);
    CHECK_ST(rp_batch_end(w.g), RP_ESTATE);
    CHECK_ST(rp_untracked_end(w.g), RP_ESTATE);
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_ST(rp_batch_end(w.g), RP_ESTATE);
    CHECK_ST(rp_untracked_begin(w.g), RP_OK);
    CHECK_ST(rp_untracked_begin(w.g), RP_OK);
    CHECK_ST(rp_untracked_end(w.g), RP_OK);
    CHECK_ST(rp_untracked_end(w.g), RP_OK);
    CHECK_ST(rp_untracked_end(w.g), RP_ESTATE);
    /* An effect's implicit batch is not the host's to end. */
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *other = th_source(&w, "other", 1);
    th_node_t *e = th_effect(&w, "e", end_what_was_not_begun, 0, a, NULL);
    th_node_t *f = th_effect(&w, "f", th_sum, 0, other, NULL);
    CHECK_ST(end_inside_run_batch, RP_ESTATE);
    CHECK_ST(end_inside_run_untracked, RP_ESTATE);
    CHECK_DEPS(&w, e, a);
    CHECK(th_check(&w));
    /* The graph still batches properly. */
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(th_write(&w, a, 2), RP_OK);
    CHECK_ST(th_write(&w, other, 2), RP_OK);
    CHECK_EQ(e->runs + f->runs, 2);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_EQ(e->runs, 2);
    CHECK_EQ(f->runs, 2);
    CHECK_ST(rp_batch_end(w.g), RP_ESTATE);
    th_done(&w);
}

/* Reads in[0] and, when in[1] (a switch) is non-zero or absent, in[2]. */
static long read_maybe(th_world_t *w, th_node_t *self)
{
    long v = self->in[0] ? th_read(w, self->in[0]) : 0;
    if (self->in[1] == NULL || th_read(w, self->in[1]))
        v += self->in[2] ? th_read(w, self->in[2]) : 0;
    return v + 1;
}

static void cycles_are_reported_with_their_nodes(void)
{
    harness_begin("cycles_are_reported_with_their_nodes");
    th_world_t w;
    th_init(&w, 32, 0);
    rp_status_t st;

    /* A computed that reads itself. */
    th_node_t *self_reader = th_prepare(&w, "self", RP_KIND_COMPUTED, read_maybe, 0, NULL, NULL);
    self_reader->in[2] = self_reader;
    CHECK_ST(th_create(&w, self_reader), RP_OK);
    th_get(&w, self_reader, &st);
    CHECK_ST(st, RP_ECYCLE);
    CHECK_DIAGNOSTIC(&w, self_reader);
    CHECK(th_check(&w));

    /* x -> c1 -> c2 -> c3 -> c1, closed while `on` is 1. */
    th_node_t *on = th_source(&w, "on", 1);
    th_node_t *c1 = th_prepare(&w, "c1", RP_KIND_COMPUTED, read_maybe, 0, NULL, NULL);
    th_node_t *c2 = th_prepare(&w, "c2", RP_KIND_COMPUTED, read_maybe, 0, NULL, NULL);
    th_node_t *c3 = th_prepare(&w, "c3", RP_KIND_COMPUTED, read_maybe, 0, NULL, NULL);
    th_node_t *x = th_prepare(&w, "x", RP_KIND_COMPUTED, read_maybe, 0, NULL, NULL);
    c1->in[2] = c2;
    c2->in[2] = c3;
    c3->in[1] = on;
    c3->in[2] = c1;
    x->in[2] = c1;
    CHECK_ST(th_create(&w, c1), RP_OK);
    CHECK_ST(th_create(&w, c2), RP_OK);
    CHECK_ST(th_create(&w, c3), RP_OK);
    CHECK_ST(th_create(&w, x), RP_OK);
    rp_graph_stats_t before = th_stats(&w);
    th_get(&w, x, &st);
    CHECK_ST(st, RP_ECYCLE);
    /* The cycle's nodes in the order they were being computed, starting with
     * the node that was read again; x, which only leads to it, is not on it. */
    CHECK_DIAGNOSTIC(&w, c1, c2, c3);
    CHECK(th_check(&w));
    th_get(&w, c2, &st);
    CHECK_ST(st, RP_ECYCLE);
    CHECK_DIAGNOSTIC(&w, c2, c3, c1);
    th_get(&w, c3, &st);
    CHECK_ST(st, RP_ECYCLE);
    CHECK_DIAGNOSTIC(&w, c3, c1, c2);
    /* The capacity limits the copy, not the count. */
    rp_node_t one[1];
    size_t count = 0;
    CHECK_ST(rp_graph_diagnostic(w.g, one, 1, &count), RP_OK);
    CHECK_EQ(count, 3);
    CHECK_NODE(one[0], c3->h);
    CHECK(th_check(&w));
    CHECK_EQ(th_stats(&w).live_nodes, before.live_nodes);

    /* An effect reading into the cycle gets RP_ECYCLE from its read. */
    th_node_t *e = th_effect(&w, "e", th_sum, 0, x, NULL);
    CHECK_ST(e->body_status, RP_ECYCLE);
    CHECK(th_check(&w));

    /* Opening the cycle: every node computes, once. */
    CHECK_ST(th_write(&w, on, 0), RP_OK);
    CHECK_EQ(th_get(&w, x, &st), 4);
    CHECK_ST(st, RP_OK);
    CHECK_EQ(c1->value, 3);
    CHECK_EQ(c2->value, 2);
    CHECK_EQ(c3->value, 1);
    unsigned computes = c1->computes + c2->computes + c3->computes + x->computes;
    CHECK_EQ(th_get(&w, x, &st), 4);
    CHECK_EQ(c1->computes + c2->computes + c3->computes + x->computes, computes);
    CHECK_DEPS(&w, c3, on);
    /* And closing it again. */
    CHECK_ST(th_write(&w, on, 1), RP_OK);
    th_get(&w, x, &st);
    CHECK_ST(st, RP_ECYCLE);
    CHECK_DIAGNOSTIC(&w, c1, c2, c3);
    CHECK_ST(th_write(&w, on, 0), RP_OK);
    CHECK_EQ(th_get(&w, x, &st), 4);
    CHECK_ST(st, RP_OK);
    th_done(&w);
}

/* The statuses read_with_wrong_handles' body saw, in read order. */
static rp_status_t checked[6];

/* Reads in[0] with handles that name its slot but are not its own (a later
 * generation, another graph's tag), before and after its own read, and the
 * effect in[1]: the edge at the reader's cursor, the edge before it
 * (read_in_run, propagation.c) and the stamp answer none of them. */
static long read_with_wrong_handles(th_world_t *w, th_node_t *self)
{
    rp_node_t own = self->in[0]->h, later = own, foreign = own;
    later.generation++;
    foreign.graph_tag++;
    checked[0] = rp_node_read(w->g, later);
    checked[1] = rp_node_read(w->g, own);
    checked[2] = rp_node_read(w->g, later);
    checked[3] = rp_node_read(w->g, foreign);
    checked[4] = rp_node_read(w->g, self->in[1]->h);
    checked[5] = rp_node_read(w->g, own);
    return self->in[0]->value + 1;
}

static void reads_in_a_run_check_their_handle(void)
{
    harness_begin("reads_in_a_run_check_their_handle");
    th_world_t w;
    th_init(&w, 16, 0);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, a, NULL);
    th_node_t *c = th_computed(&w, "c", read_with_wrong_handles, 0, a, e);
    for (long round = 0; round < 2; round++) {
        /* The first evaluation links a; the second confirms it at the cursor. */
        if (round == 1)
            CHECK_ST(th_write(&w, a, 5), RP_OK);
        memset(checked, 0, sizeof checked);
        CHECK_EQ(th_read(&w, c), round == 0 ? 2 : 6);
        CHECK_ST(checked[0], RP_ESTALE);
        CHECK_ST(checked[1], RP_OK);
        CHECK_ST(checked[2], RP_ESTALE);
        CHECK_ST(checked[3], RP_EFOREIGN);
        CHECK_ST(checked[4], RP_EKIND);
        CHECK_ST(checked[5], RP_OK);
        CHECK(th_deps_are(&w, c, TH_LIST(a)));
        CHECK_EQ(c->computes, round + 1);
    }
    th_done(&w);
}

int main(void)
{
    null_pointers_are_invalid();
    kinds_out_of_range_are_invalid();
    stale_handles_are_reported_on_every_call();
    handles_of_another_graph_are_foreign();
    forged_handles_are_rejected();
    calls_that_do_not_fit_the_kind();
    ends_without_a_begin();
    cycles_are_reported_with_their_nodes();
    reads_in_a_run_check_their_handle();
    return harness_finish();
}
