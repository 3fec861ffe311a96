/*
 * propagation.c: lazy computeds, commits of written sources, equality
 * cut-off, glitch-free diamonds, compute failures, writes inside computes.
 */
#include "testhost.h"

static void computeds_are_lazy_and_cached(void)
{
    harness_begin("computeds_are_lazy_and_cached");
    th_world_t w;
    th_init(&w, 32, 0);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *c = th_computed(&w, "c", th_scale, 2, a, NULL);
    th_node_t *d = th_computed(&w, "d", th_sum, 1, c, NULL);
    CHECK_EQ(c->computes, 0);
    CHECK_EQ(th_read(&w, d), 3);
    CHECK_EQ(c->computes, 1);
    CHECK_EQ(d->computes, 1);
    CHECK_STR(th_take_log(&w), "d c");
    /* Cached. */
    CHECK_EQ(th_read(&w, d), 3);
    CHECK_EQ(th_read(&w, c), 2);
    CHECK_EQ(c->computes + d->computes, 2);
    /* An unobserved computed costs nothing when its sources are written. */
    for (long i = 2; i < 12; i++)
        CHECK_ST(th_write(&w, a, i), RP_OK);
    CHECK_EQ(c->computes + d->computes, 2);
    CHECK_STR(th_take_log(&w), "");
    /* One read brings it up to date, each node once. */
    CHECK_EQ(th_read(&w, d), 23);
    CHECK_EQ(c->computes, 2);
    CHECK_EQ(d->computes, 2);
    /* Reading the middle first, then the end. */
    CHECK_ST(th_write(&w, a, 20), RP_OK);
    CHECK_EQ(th_read(&w, c), 40);
    CHECK_EQ(th_read(&w, d), 41);
    CHECK_EQ(c->computes, 3);
    CHECK_EQ(d->computes, 3);
    th_done(&w);
}

static void a_read_commits_a_written_source_once(void)
{
    harness_begin("a_read_commits_a_written_source_once");
    th_world_t w;
    th_init(&w, 32, 0);
    th_node_t *a = th_source(&w, "a", 1);
    CHECK_ST(th_write(&w, a, 2), RP_OK);
    CHECK_EQ(th_read(&w, a), 2);
    CHECK_EQ(a->commits, 1);
    CHECK_EQ(th_read(&w, a), 2);
    CHECK_EQ(a->commits, 1);
    /* Never written: nothing to commit. */
    th_node_t *b = th_source(&w, "b", 7);
    CHECK_EQ(th_read(&w, b), 7);
    CHECK_EQ(b->commits, 0);
    th_done(&w);
}

static void a_source_written_back_is_no_change(void)
{
    harness_begin("a_source_written_back_is_no_change");
    th_world_t w;
    th_init(&w, 32, 0);
    /* Unobserved: written and written back before anyone re-validates. */
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *c = th_computed(&w, "c", th_scale, 2, a, NULL);
    CHECK_EQ(th_read(&w, c), 2);
    CHECK_ST(th_write(&w, a, 5), RP_OK);
    CHECK_ST(th_write(&w, a, 1), RP_OK);
    CHECK_EQ(th_read(&w, c), 2);
    CHECK_EQ(c->computes, 1);
    CHECK_EQ(a->commits, 1);

    /* Observed, inside a batch: the commit reports no change, so nothing
     * downstream recomputes or re-runs. */
    th_node_t *b = th_source(&w, "b", 10);
    th_node_t *d = th_computed(&w, "d", th_sum, 0, b, NULL);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, d, NULL);
    CHECK_EQ(e->runs, 1);
    CHECK_EQ(d->computes, 1);
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(th_write(&w, b, 11), RP_OK);
    CHECK_ST(th_write(&w, b, 12), RP_OK);
    CHECK_ST(th_write(&w, b, 10), RP_OK);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_EQ(b->commits, 1);
    CHECK_EQ(d->computes, 1);
    CHECK_EQ(e->runs, 1);
    CHECK_EQ(e->value, 10);
    /* A real change after it still propagates. */
    CHECK_ST(th_write(&w, b, 13), RP_OK);
    CHECK_EQ(d->computes, 2);
    CHECK_EQ(e->runs, 2);
    CHECK_EQ(e->value, 13);
    th_done(&w);
}

static void without_commit_every_write_is_a_change(void)
{
    harness_begin("without_commit_every_write_is_a_change");
    th_world_t w;
    th_setup(&w, 32, 0);
    w.config.callbacks.commit = NULL;
    th_open(&w);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *c = th_computed(&w, "c", th_scale, 2, a, NULL);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, a, NULL);
    CHECK_EQ(th_read(&w, c), 2);
    CHECK_ST(th_write(&w, a, 1), RP_OK); /* the same value */
    CHECK_EQ(e->runs, 2);
    CHECK_EQ(th_read(&w, c), 2);
    CHECK_EQ(c->computes, 2);
    CHECK_EQ(a->commits, 0);
    th_done(&w);
}

static void an_equal_result_stops_propagation(void)
{
    harness_begin("an_equal_result_stops_propagation");
    th_world_t w;
    th_init(&w, 32, 0);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *half = th_computed(&w, "half", th_div, 2, a, NULL);
    th_node_t *q = th_computed(&w, "q", th_sum, 100, half, NULL);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, q, NULL);
    CHECK_EQ(e->value, 100);
    CHECK_STR(th_take_log(&w), "e q half");
    /* 1/2 == 0/2: half recomputes, reports no change; q and e stay. */
    CHECK_ST(th_write(&w, a, 0), RP_OK);
    CHECK_EQ(half->computes, 2);
    CHECK_EQ(q->computes, 1);
    CHECK_EQ(e->runs, 1);
    CHECK_STR(th_take_log(&w), "half");
    /* A real change goes all the way. */
    CHECK_ST(th_write(&w, a, 2), RP_OK);
    CHECK_EQ(half->computes, 3);
    CHECK_EQ(q->computes, 2);
    CHECK_EQ(e->runs, 2);
    CHECK_EQ(e->value, 101);
    /* Unobserved computeds cut off too, on the next read. */
    th_node_t *b = th_source(&w, "b", 4);
    th_node_t *bh = th_computed(&w, "bh", th_div, 2, b, NULL);
    th_node_t *bq = th_computed(&w, "bq", th_sum, 0, bh, NULL);
    CHECK_EQ(th_read(&w, bq), 2);
    CHECK_ST(th_write(&w, b, 5), RP_OK);
    CHECK_EQ(th_read(&w, bq), 2);
    CHECK_EQ(bh->computes, 2);
    CHECK_EQ(bq->computes, 1);
    /* A computed whose host reports every result as a change never cuts off. */
    th_node_t *c = th_source(&w, "c", 4);
    th_node_t *ch = th_computed(&w, "ch", th_div, 2, c, NULL);
    ch->always_changed = true;
    th_node_t *ce = th_effect(&w, "ce", th_sum, 0, ch, NULL);
    CHECK_ST(th_write(&w, c, 5), RP_OK);
    CHECK_EQ(ch->computes, 2);
    CHECK_EQ(ce->runs, 2);
    th_done(&w);
}

/* Effect body for a diamond: reads both sides and counts inconsistent views. */
static unsigned inconsistent_views;

static long diamond_watcher(th_world_t *w, th_node_t *self)
{
    long plus_one = th_read(w, self->in[0]);  /* a + 1 */
    long times_two = th_read(w, self->in[1]); /* a * 2 */
    if (times_two != 2 * (plus_one - 1))
        inconsistent_views++;
    return plus_one + times_two;
}

static void a_diamond_computes_each_node_once(void)
{
    harness_begin("a_diamond_computes_each_node_once");
    th_world_t w;
    th_init(&w, 32, 0);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *b = th_computed(&w, "b", th_sum, 1, a, NULL);
    th_node_t *c = th_computed(&w, "c", th_scale, 2, a, NULL);
    th_node_t *d = th_computed(&w, "d", th_sum, 0, b, c);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, d, NULL);
    th_node_t *f = th_effect(&w, "f", diamond_watcher, 0, b, c);
    CHECK_EQ(e->value, 4);
    CHECK_EQ(f->value, 4);
    for (long v = 2; v <= 6; v++) {
        CHECK_ST(th_write(&w, a, v), RP_OK);
        long runs = v; /* one run at creation, one per write */
        CHECK_EQ(b->computes, runs);
        CHECK_EQ(c->computes, runs);
        CHECK_EQ(d->computes, runs);
        CHECK_EQ(e->runs, runs);
        CHECK_EQ(f->runs, runs);
        CHECK_EQ(e->value, (v + 1) + 2 * v);
        CHECK_EQ(f->value, (v + 1) + 2 * v);
    }
    CHECK_EQ(inconsistent_views, 0);
    /* The effects ran in creation order, after what they read was computed. */
    CHECK_ST(th_write(&w, a, 10), RP_OK);
    const char *log = th_take_log(&w);
    const char *pe = strstr(log, "e"), *pf = strstr(log, "f");
    CHECK(pe != NULL && pf != NULL && pe < pf);
    CHECK(strstr(log, "b") != NULL && strstr(log, "b") < pf);

    th_done(&w);
}

/* join = sum of every computed in w->user's array of ten. */
static long join_ten(th_world_t *w, th_node_t *self)
{
    th_node_t **parts = w->user;
    long v = 0;
    for (int i = 0; i < 10; i++)
        v += th_read(w, parts[i]);
    (void)self;
    return v;
}

static void a_wide_join_computes_once(void)
{
    harness_begin("a_wide_join_computes_once");
    th_world_t w;
    th_init(&w, 32, 0);
    th_node_t *s = th_source(&w, "s", 0);
    th_node_t *parts[10];
    for (int i = 0; i < 10; i++)
        parts[i] = th_computed(&w, "part", th_sum, i, s, NULL);
    w.user = parts;
    th_node_t *join = th_computed(&w, "join", join_ten, 0, NULL, NULL);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, join, NULL);
    CHECK_EQ(e->value, 45);
    CHECK_ST(th_write(&w, s, 2), RP_OK);
    CHECK_EQ(e->value, 65);
    CHECK_EQ(join->computes, 2);
    CHECK_EQ(e->runs, 2);
    for (int i = 0; i < 10; i++)
        CHECK_EQ(parts[i]->computes, 2);
    CHECK_EQ(th_stats(&w).live_edges, 10 + 10 + 1);
    th_done(&w);
}

static void a_failed_compute_leaves_the_node_dirty(void)
{
    harness_begin("a_failed_compute_leaves_the_node_dirty");
    th_world_t w;
    th_init(&w, 32, 0);
    th_node_t *a = th_source(&w, "a", 3);
    th_node_t *c = th_computed(&w, "c", th_scale, 2, a, NULL);
    th_node_t *d = th_computed(&w, "d", th_sum, 1, c, NULL);
    rp_status_t st;
    c->inject = RP_ENOMEM;
    th_get(&w, c, &st);
    CHECK_ST(st, RP_ENOMEM);
    CHECK_EQ(c->computes, 1);
    th_get(&w, c, &st);
    CHECK_ST(st, RP_ENOMEM);
    CHECK_EQ(c->computes, 2);
    /* Through a reader that passes the failure on. */
    th_get(&w, d, &st);
    CHECK_ST(st, RP_ENOMEM);
    CHECK_EQ(c->computes, 3);
    CHECK_EQ(d->computes, 1);
    CHECK(th_check(&w));
    /* Once the compute succeeds, the values are right and cached. */
    c->inject = RP_OK;
    CHECK_EQ(th_get(&w, d, &st), 7);
    CHECK_ST(st, RP_OK);
    CHECK_EQ(c->computes, 4);
    CHECK_EQ(d->computes, 2);
    CHECK_EQ(th_get(&w, d, &st), 7);
    CHECK_EQ(c->computes + d->computes, 6);
    /* A failure after a success: the old value stays, and the next read retries. */
    CHECK_ST(th_write(&w, a, 4), RP_OK);
    c->inject = RP_ESTATE;
    th_get(&w, d, &st);
    CHECK_ST(st, RP_ESTATE);
    c->inject = RP_OK;
    CHECK_EQ(th_get(&w, d, &st), 9);
    CHECK_ST(st, RP_OK);
    th_done(&w);
}

/* Reads in[0]; while it is below arg, writes it one higher. */
static long bump_own_dependency(th_world_t *w, th_node_t *self)
{
    long v = th_read(w, self->in[0]);
    if (v < self->arg)
        th_write(w, self->in[0], v + 1);
    return v;
}

/* Reads in[0]; writes ten times it into in[1]. */
static long write_other_source(th_world_t *w, th_node_t *self)
{
    long v = th_read(w, self->in[0]);
    th_write(w, self->in[1], v * 10);
    return v;
}

static void writes_inside_a_compute(void)
{
    harness_begin("writes_inside_a_compute");
    th_world_t w;
    th_init(&w, 32, 0);
    /* A computed that writes its own dependency is left stale by its write:
     * it recomputes on the next read; it is not a cycle. */
    th_node_t *a = th_source(&w, "a", 0);
    th_node_t *c = th_computed(&w, "c", bump_own_dependency, 3, a, NULL);
    rp_status_t st;
    CHECK_EQ(th_get(&w, c, &st), 0);
    CHECK_ST(st, RP_OK);
    CHECK_EQ(c->computes, 1);
    CHECK_EQ(th_get(&w, c, &st), 1);
    CHECK_ST(st, RP_OK);
    CHECK_EQ(c->computes, 2);
    CHECK_EQ(th_get(&w, c, &st), 2);
    CHECK_EQ(th_get(&w, c, &st), 3);
    CHECK_EQ(c->computes, 4);
    /* a is 3 now: no more writes, and the value is cached. */
    CHECK_EQ(th_get(&w, c, &st), 3);
    CHECK_ST(st, RP_OK);
    CHECK_EQ(c->computes, 4);

    /* A write to another source is applied at once; its readers see it. */
    th_node_t *x = th_source(&w, "x", 1);
    th_node_t *y = th_source(&w, "y", 0);
    th_node_t *cx = th_computed(&w, "cx", write_other_source, 0, x, y);
    th_node_t *ey = th_effect(&w, "ey", th_sum, 0, y, NULL);
    CHECK_EQ(ey->runs, 1);
    CHECK_EQ(th_get(&w, cx, &st), 1);
    CHECK_ST(st, RP_OK);
    CHECK_EQ(th_read(&w, y), 10);
    CHECK_EQ(ey->runs, 2);
    CHECK_EQ(ey->value, 10);
    CHECK_ST(th_write(&w, x, 2), RP_OK);
    CHECK_EQ(ey->runs, 2);
    CHECK_EQ(th_get(&w, cx, &st), 2);
    CHECK_EQ(ey->runs, 3);
    CHECK_EQ(ey->value, 20);
    th_done(&w);
}

static void a_long_chain_with_a_cut_off_in_the_middle(void)
{
    harness_begin("a_long_chain_with_a_cut_off_in_the_middle");
    enum { LENGTH = 200 };
    th_world_t w;
    th_init(&w, LENGTH + 4, 0);
    th_node_t *s = th_source(&w, "s", 0);
    th_node_t *chain[LENGTH];
    th_node_t *prev = s;
    for (int i = 0; i < LENGTH; i++) {
        if (i == LENGTH / 2)
            chain[i] = th_computed(&w, "half", th_div, 2, prev, NULL);
        else
            chain[i] = th_computed(&w, "link", th_sum, 1, prev, NULL);
        prev = chain[i];
    }
    th_node_t *e = th_effect(&w, "e", th_sum, 0, prev, NULL);
    long first = e->value;
    CHECK_EQ(first, (LENGTH / 2) / 2 + (LENGTH - LENGTH / 2 - 1));
    /* s + 100 even or odd gives the same half: the second half stays. */
    CHECK_ST(th_write(&w, s, 1), RP_OK);
    for (int i = 0; i <= LENGTH / 2; i++)
        CHECK_EQ(chain[i]->computes, 2);
    for (int i = LENGTH / 2 + 1; i < LENGTH; i++)
        CHECK_EQ(chain[i]->computes, 1);
    CHECK_EQ(e->runs, 1);
    CHECK_ST(th_write(&w, s, 2), RP_OK);
    CHECK_EQ(chain[LENGTH - 1]->computes, 2);
    CHECK_EQ(e->runs, 2);
    CHECK_EQ(e->value, first + 1);
    th_done(&w);
}

int main(void)
{
    computeds_are_lazy_and_cached();
    a_read_commits_a_written_source_once();
    a_source_written_back_is_no_change();
    without_commit_every_write_is_a_change();
    an_equal_result_stops_propagation();
    a_diamond_computes_each_node_once();
    a_wide_join_computes_once();
    a_failed_compute_leaves_the_node_dirty();
    writes_inside_a_compute();
    a_long_chain_with_a_cut_off_in_the_middle();
    return harness_finish();
}
