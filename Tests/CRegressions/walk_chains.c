/*
 * walk_chains.c: a walk outside runs (the flush's, a read's from the host)
 * recomputes a chain of readers one after the other, leaving each the active
 * node until its loop of runs ends (propagation.c, run.h). What a body sees
 * (the tracked and evaluating node), what the host sees after the walk (none),
 * the order of the recomputes and the equality cut-off are as with a save and
 * restore around each run; a walk under an untracked section opened outside
 * runs keeps that section open.
 */
#include "testhost.h"

/* What each body of the chain saw: the tracked and the evaluating node. */
static rp_node_t seen_tracking[8], seen_evaluating[8];
static void *seen_data[8];
static unsigned seen_count;

/* in[0] plus arg, noting what rp_graph_tracking and rp_graph_evaluating say. */
static long noting_plus(th_world_t *w, th_node_t *self)
{
    if (seen_count < 8) {
        CHECK_ST(rp_graph_tracking(w->g, &seen_tracking[seen_count]), RP_OK);
        CHECK_ST(rp_graph_evaluating(w->g, &seen_evaluating[seen_count], &seen_data[seen_count]), RP_OK);
        seen_count++;
    }
    return th_read(w, self->in[0]) + self->arg;
}

/* Nothing is active for the host once the walk is over. */
static void check_nothing_active(th_world_t *w)
{
    rp_node_t t = TH_UNWRITTEN, e = TH_UNWRITTEN;
    void *data = &t;
    CHECK_ST(rp_graph_tracking(w->g, &t), RP_OK);
    CHECK_NODE(t, RP_NODE_NONE);
    CHECK_ST(rp_graph_evaluating(w->g, &e, &data), RP_OK);
    CHECK_NODE(e, RP_NODE_NONE);
    CHECK(data == NULL);
}

static void each_recompute_up_a_chain_is_the_active_node(void)
{
    harness_begin("each_recompute_up_a_chain_is_the_active_node");
    th_world_t w;
    th_init(&w, 16, 0);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *c1 = th_computed(&w, "c1", noting_plus, 1, a, NULL);
    th_node_t *c2 = th_computed(&w, "c2", noting_plus, 1, c1, NULL);
    th_node_t *c3 = th_computed(&w, "c3", noting_plus, 1, c2, NULL);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, c3, NULL);
    CHECK_EQ(e->value, 4);
    (void)th_take_log(&w);
    seen_count = 0;
    CHECK_ST(th_write(&w, a, 10), RP_OK);
    CHECK_EQ(e->value, 13);
    CHECK_STR(th_take_log(&w), "c1 c2 c3 e");
    CHECK_EQ(seen_count, 3);
    th_node_t *chain[3] = {c1, c2, c3};
    for (unsigned i = 0; i < 3 && i < seen_count; i++) {
        CHECK_NODE(seen_tracking[i], chain[i]->h);
        CHECK_NODE(seen_evaluating[i], chain[i]->h);
        CHECK(seen_data[i] == chain[i]);
    }
    check_nothing_active(&w);
    /* The host's read of the top walks the same chain outside runs. */
    th_node_t *top = th_computed(&w, "top", noting_plus, 100, c3, NULL);
    CHECK_EQ(th_read(&w, top), 113);
    CHECK_ST(th_write(&w, a, 20), RP_OK);
    CHECK_EQ(e->value, 23);
    (void)th_take_log(&w);
    seen_count = 0;
    CHECK_EQ(th_read(&w, top), 123);
    CHECK_STR(th_take_log(&w), "top");
    CHECK_EQ(seen_count, 1);
    check_nothing_active(&w);
    th_done(&w);
}

static void an_unchanged_value_stops_the_chain_and_leaves_nothing_active(void)
{
    harness_begin("an_unchanged_value_stops_the_chain_and_leaves_nothing_active");
    th_world_t w;
    th_init(&w, 16, 0);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *c1 = th_computed(&w, "c1", noting_plus, 0, a, NULL);
    th_node_t *c2 = th_computed(&w, "c2", th_div, 10, c1, NULL);
    th_node_t *c3 = th_computed(&w, "c3", noting_plus, 1, c2, NULL);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, c3, NULL);
    CHECK_EQ(e->value, 1);
    (void)th_take_log(&w);
    CHECK_ST(th_write(&w, a, 5), RP_OK); /* c2 stays 0 */
    CHECK_STR(th_take_log(&w), "c1 c2");
    CHECK_EQ(e->runs, 1);
    check_nothing_active(&w);
    CHECK_ST(th_write(&w, a, 25), RP_OK); /* c2 becomes 2 */
    CHECK_STR(th_take_log(&w), "c1 c2 c3 e");
    CHECK_EQ(e->value, 3);
    check_nothing_active(&w);
    th_done(&w);
}

static void a_walk_under_an_untracked_section_keeps_it_open(void)
{
    harness_begin("a_walk_under_an_untracked_section_keeps_it_open");
    th_world_t w;
    th_init(&w, 16, 0);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *c1 = th_computed(&w, "c1", noting_plus, 1, a, NULL);
    th_node_t *c2 = th_computed(&w, "c2", noting_plus, 1, c1, NULL);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, c2, NULL);
    CHECK_EQ(e->value, 3);
    (void)th_take_log(&w);
    CHECK_ST(rp_untracked_begin(w.g), RP_OK);
    seen_count = 0;
    CHECK_ST(th_write(&w, a, 5), RP_OK); /* flushed inside the section */
    CHECK_STR(th_take_log(&w), "c1 c2 e");
    CHECK_EQ(e->value, 7);
    CHECK_EQ(seen_count, 2);
    if (seen_count == 2) {
        /* Each run opens no untracked section of its own. */
        CHECK_NODE(seen_tracking[0], c1->h);
        CHECK_NODE(seen_tracking[1], c2->h);
    }
    /* Still inside the section: it ends once, and only once. */
    CHECK_ST(rp_untracked_end(w.g), RP_OK);
    CHECK_ST(rp_untracked_end(w.g), RP_ESTATE);
    check_nothing_active(&w);
    th_done(&w);
}

/* in[0] plus one; with arg set, it disposes itself first. */
static long disposing_plus(th_world_t *w, th_node_t *self)
{
    if (self->arg)
        CHECK_ST(rp_node_dispose(w->g, self->h), RP_OK);
    return th_read(w, self->in[0]) + 1;
}

/* What the read of in[1] by reading_both gave. */
static rp_status_t second_read;

/* in[0] plus in[1], reading them in that order; a failed read of in[1] counts
 * as 0 and is noted in second_read. */
static long reading_both(th_world_t *w, th_node_t *self)
{
    long v = th_read(w, self->in[0]);
    second_read = rp_node_read(w->g, self->in[1]->h);
    return second_read == RP_OK ? v + self->in[1]->value : v;
}

/* The walk recomputes the first dependency that changed and leaves the
 * others to the body: the second is recomputed by the read in the body, and
 * when its compute disposes it, that read says so. */
static void a_dependency_recomputed_by_a_read_in_a_run(void)
{
    harness_begin("a_dependency_recomputed_by_a_read_in_a_run");
    th_world_t w;
    th_init(&w, 16, 0);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *c1 = th_computed(&w, "c1", disposing_plus, 0, a, NULL);
    th_node_t *c2 = th_computed(&w, "c2", disposing_plus, 0, a, NULL);
    th_node_t *sum = th_computed(&w, "sum", reading_both, 0, c1, c2);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, sum, NULL);
    CHECK_EQ(e->value, 4);
    CHECK_ST(second_read, RP_OK);
    (void)th_take_log(&w);
    CHECK_ST(th_write(&w, a, 2), RP_OK);
    CHECK_STR(th_take_log(&w), "c1 sum c2 e");
    CHECK_EQ(e->value, 6);
    CHECK_ST(second_read, RP_OK);
    check_nothing_active(&w);
    c2->arg = 1;
    CHECK_ST(th_write(&w, a, 3), RP_OK);
    CHECK_STR(th_take_log(&w), "c1 sum c2 e");
    CHECK_ST(second_read, RP_ESTALE);
    CHECK_EQ(sum->value, 4);
    CHECK_EQ(e->value, 4);
    CHECK_EQ(c2->released, 1);
    check_nothing_active(&w);
    th_done(&w);
}

/* in[0] plus one; with arg set, it disposes in[1] (an effect) first. */
static long disposing_other_plus(th_world_t *w, th_node_t *self)
{
    if (self->arg)
        CHECK_ST(rp_node_dispose(w->g, self->in[1]->h), RP_OK);
    return th_read(w, self->in[0]) + 1;
}

/* The flush walks the effects after one that came out clean in one call
 * (rp_check_queued). When such a walk fails, the effect ends as the flush's
 * own failed walks leave theirs: here, disposed by the failing compute during
 * its walk, it is freed by the walk's unwinding, not left live and queued for
 * the next flush; the write reports the failure, and the next write runs
 * what is due. */
static void a_failed_walk_after_a_clean_effect_frees_an_effect_it_disposed(void)
{
    harness_begin("a_failed_walk_after_a_clean_effect_frees_an_effect_it_disposed");
    th_world_t w;
    th_init(&w, 16, 0);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *c = th_computed(&w, "c", th_div, 10, a, NULL); /* 0 for a < 10 */
    th_node_t *e1 = th_effect(&w, "e1", th_sum, 0, c, NULL);
    th_node_t *d = th_computed(&w, "d", disposing_other_plus, 0, a, NULL);
    th_node_t *e2 = th_effect(&w, "e2", th_sum, 0, d, NULL);
    d->in[1] = e2;
    CHECK_EQ(e2->value, 2);
    (void)th_take_log(&w);
    d->arg = 1;
    d->inject = RP_ENOMEM;
    CHECK_ST(th_write(&w, a, 2), RP_ENOMEM); /* e1 clean, then e2's walk fails in d */
    CHECK_STR(th_take_log(&w), "c d");
    CHECK_EQ(e1->runs, 1);
    CHECK_EQ(e2->runs, 1);
    CHECK_EQ(e2->released, 1);
    rp_graph_stats_t stats;
    CHECK_ST(rp_graph_stats(w.g, &stats), RP_OK);
    CHECK_EQ(stats.live_nodes, 4); /* a, c, e1, d: e2's slot is free */
    check_nothing_active(&w);
    d->arg = 0;
    d->inject = RP_OK;
    CHECK_ST(th_write(&w, a, 3), RP_OK);
    CHECK_STR(th_take_log(&w), "c");
    CHECK_EQ(e1->runs, 1);
    th_done(&w);
}

int main(void)
{
    each_recompute_up_a_chain_is_the_active_node();
    an_unchanged_value_stops_the_chain_and_leaves_nothing_active();
    a_walk_under_an_untracked_section_keeps_it_open();
    a_dependency_recomputed_by_a_read_in_a_run();
    a_failed_walk_after_a_clean_effect_frees_an_effect_it_disposed();
    return harness_finish();
}
