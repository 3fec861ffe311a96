/*
 * invalidation.c: rp_node_invalidate, a computed marked out of date although
 * nothing it read changed. Unobserved it recomputes lazily; observed, in the
 * flush before the call returns; its readers re-run once, glitch-free, and
 * only when the new value differs. Inside a batch it waits for the end; bad
 * kinds and calls from the node's own compute are refused.
 *
 * The computeds here read `arg` as well as their inputs: a value from outside
 * the graph, which the test changes before it invalidates.
 */
#include "testhost.h"

static void an_unobserved_computed_recomputes_on_the_next_read(void)
{
    harness_begin("an_unobserved_computed_recomputes_on_the_next_read");
    th_world_t w;
    th_init(&w, 8, 0);
    th_node_t *s = th_source(&w, "s", 2);
    th_node_t *c = th_computed(&w, "c", th_scale, 3, s, NULL);
    /* Never computed: invalidating it changes nothing, it computes once. */
    CHECK_ST(rp_node_invalidate(w.g, c->h), RP_OK);
    CHECK_EQ(c->computes, 0);
    CHECK_EQ(th_read(&w, c), 6);
    CHECK_EQ(c->computes, 1);
    c->arg = 4;
    CHECK_ST(rp_node_invalidate(w.g, c->h), RP_OK);
    CHECK_ST(rp_node_invalidate(w.g, c->h), RP_OK);
    CHECK_EQ(c->computes, 1); /* lazy */
    CHECK_EQ(th_read(&w, c), 8);
    CHECK_EQ(th_read(&w, c), 8);
    CHECK_EQ(c->computes, 2); /* once for both invalidations */
    CHECK_STR(th_take_log(&w), "c c");
    th_done(&w);
}

static void an_observed_computed_recomputes_before_the_call_returns(void)
{
    harness_begin("an_observed_computed_recomputes_before_the_call_returns");
    th_world_t w;
    th_init(&w, 8, 0);
    th_node_t *s = th_source(&w, "s", 2);
    th_node_t *c = th_computed(&w, "c", th_scale, 3, s, NULL);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, c, NULL);
    CHECK_STR(th_take_log(&w), "e c");
    c->arg = 5;
    CHECK_ST(rp_node_invalidate(w.g, c->h), RP_OK);
    CHECK_STR(th_take_log(&w), "c e");
    CHECK_EQ(e->value, 10);
    CHECK_EQ(c->computes, 2);
    CHECK_EQ(e->runs, 2);
    CHECK_EQ(s->commits, 0); /* its input was not touched */
    th_done(&w);
}

static void an_equal_value_cuts_off_its_readers(void)
{
    harness_begin("an_equal_value_cuts_off_its_readers");
    th_world_t w;
    th_init(&w, 8, 0);
    th_node_t *s = th_source(&w, "s", 2);
    th_node_t *c = th_computed(&w, "c", th_scale, 3, s, NULL);
    th_node_t *d = th_computed(&w, "d", th_sum, 1, c, NULL);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, d, NULL);
    th_take_log(&w);
    CHECK_ST(rp_node_invalidate(w.g, c->h), RP_OK);
    CHECK_STR(th_take_log(&w), "c"); /* same value: neither d nor e */
    CHECK_EQ(e->runs, 1);
    /* Invalidating the reader in the middle recomputes it alone. */
    CHECK_ST(rp_node_invalidate(w.g, d->h), RP_OK);
    CHECK_STR(th_take_log(&w), "d");
    CHECK_EQ(d->computes, 2);
    CHECK_EQ(c->computes, 2);
    th_done(&w);
}

static void a_diamond_below_recomputes_each_node_once(void)
{
    harness_begin("a_diamond_below_recomputes_each_node_once");
    th_world_t w;
    th_init(&w, 8, 0);
    th_node_t *s = th_source(&w, "s", 1);
    th_node_t *c = th_computed(&w, "c", th_scale, 2, s, NULL);
    th_node_t *l = th_computed(&w, "l", th_scale, 10, c, NULL);
    th_node_t *r = th_computed(&w, "r", th_scale, 100, c, NULL);
    th_node_t *j = th_computed(&w, "j", th_sum, 0, l, r);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, j, NULL);
    CHECK_EQ(e->value, 220);
    th_take_log(&w);
    c->arg = 3;
    CHECK_ST(rp_node_invalidate(w.g, c->h), RP_OK);
    CHECK_STR(th_take_log(&w), "c l j r e");
    CHECK_EQ(e->value, 330);
    CHECK_EQ(e->runs, 2);
    th_done(&w);
}

static void inside_a_batch_it_computes_once_at_the_end(void)
{
    harness_begin("inside_a_batch_it_computes_once_at_the_end");
    th_world_t w;
    th_init(&w, 8, 0);
    th_node_t *s = th_source(&w, "s", 2);
    th_node_t *c = th_computed(&w, "c", th_scale, 3, s, NULL);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, c, NULL);
    th_take_log(&w);
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    c->arg = 4;
    CHECK_ST(rp_node_invalidate(w.g, c->h), RP_OK);
    CHECK_ST(th_write(&w, s, 5), RP_OK);
    CHECK_ST(rp_node_invalidate(w.g, c->h), RP_OK);
    CHECK_STR(th_take_log(&w), "");
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_STR(th_take_log(&w), "c e");
    CHECK_EQ(e->value, 20);
    th_done(&w);
}

/* An effect body that invalidates node in[1] after reading in[0]. */
static long invalidate_second(th_world_t *w, th_node_t *self)
{
    long v = th_read(w, self->in[0]);
    th_note_failure(w, rp_node_invalidate(w->g, self->in[1]->h));
    return v;
}

static void an_effect_may_invalidate_what_another_reads(void)
{
    harness_begin("an_effect_may_invalidate_what_another_reads");
    th_world_t w;
    th_init(&w, 8, 0);
    th_node_t *s = th_source(&w, "s", 1);
    th_node_t *t = th_source(&w, "t", 2);
    th_node_t *c = th_computed(&w, "c", th_scale, 3, t, NULL);
    th_node_t *reader = th_effect(&w, "reader", th_sum, 0, c, NULL);
    th_node_t *kicker = th_effect(&w, "kicker", invalidate_second, 0, s, c);
    /* kicker's first run invalidates c, which reader observes: c computes
     * again in the same flush, to the same value, and reader does not run. */
    CHECK_STR(th_take_log(&w), "reader c kicker c");
    c->arg = 7;
    CHECK_ST(th_write(&w, s, 9), RP_OK);
    CHECK_STR(th_take_log(&w), "kicker c reader");
    CHECK_EQ(reader->value, 14);
    CHECK_EQ(kicker->body_status, RP_OK);
    th_done(&w);
}

/* A computed body that invalidates itself, keeping the status in `arg`. */
static long invalidate_self(th_world_t *w, th_node_t *self)
{
    self->arg = (long)rp_node_invalidate(w->g, self->h);
    return 1;
}

/* A computed body that reads in[0] and invalidates in[1]. */
static long read_then_invalidate(th_world_t *w, th_node_t *self)
{
    long v = th_read(w, self->in[0]);
    self->arg = (long)rp_node_invalidate(w->g, self->in[1]->h);
    return v;
}

static void its_own_compute_and_other_kinds_are_refused(void)
{
    harness_begin("its_own_compute_and_other_kinds_are_refused");
    th_world_t w;
    th_init(&w, 8, 0);
    th_node_t *s = th_source(&w, "s", 1);
    th_node_t *self = th_computed(&w, "self", invalidate_self, 0, NULL, NULL);
    CHECK_EQ(th_read(&w, self), 1);
    CHECK_EQ(self->arg, RP_EBUSY);
    CHECK_EQ(self->computes, 1);
    CHECK_EQ(th_read(&w, self), 1);
    CHECK_EQ(self->computes, 1); /* the refused call changed nothing */
    /* A reader that invalidates its own dependency during its compute: like a
     * write of what it read, allowed; the dependency recomputes when next
     * needed. */
    th_node_t *base = th_computed(&w, "base", th_scale, 2, s, NULL);
    th_node_t *top = th_computed(&w, "top", read_then_invalidate, 0, base, base);
    CHECK_EQ(th_read(&w, top), 2);
    CHECK_EQ(top->arg, RP_OK);
    CHECK_EQ(base->computes, 1);
    CHECK_EQ(top->computes, 1);
    th_take_log(&w);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, s, NULL);
    CHECK_ST(rp_node_invalidate(w.g, s->h), RP_EKIND);
    CHECK_ST(rp_node_invalidate(w.g, e->h), RP_EKIND);
    th_node_t *a = th_async(&w, "a", th_sum, 0, s, NULL);
    CHECK_ST(rp_node_invalidate(w.g, a->h), RP_EKIND);
    CHECK_ST(th_dispose(&w, a), RP_OK);
    CHECK_ST(rp_node_invalidate(w.g, a->h), RP_ESTALE);
    CHECK_ST(rp_node_invalidate(NULL, base->h), RP_EINVAL);
    CHECK_ST(rp_node_invalidate(w.g, RP_NODE_NONE), RP_EINVAL);
    th_done(&w);
}

static void a_failed_recompute_stays_dirty_for_a_retry(void)
{
    harness_begin("a_failed_recompute_stays_dirty_for_a_retry");
    th_world_t w;
    th_init(&w, 8, 0);
    th_node_t *s = th_source(&w, "s", 2);
    th_node_t *c = th_computed(&w, "c", th_scale, 3, s, NULL);
    CHECK_EQ(th_read(&w, c), 6);
    c->inject = RP_ENOMEM;
    CHECK_ST(rp_node_invalidate(w.g, c->h), RP_OK); /* unobserved: nothing computes yet */
    rp_status_t st;
    (void)th_get(&w, c, &st);
    CHECK_ST(st, RP_ENOMEM);
    c->inject = RP_OK;
    c->arg = 10;
    CHECK_EQ(th_read(&w, c), 20);
    CHECK_EQ(c->computes, 3);
    th_done(&w);
}

int main(void)
{
    an_unobserved_computed_recomputes_on_the_next_read();
    an_observed_computed_recomputes_before_the_call_returns();
    an_equal_value_cuts_off_its_readers();
    a_diamond_below_recomputes_each_node_once();
    inside_a_batch_it_computes_once_at_the_end();
    an_effect_may_invalidate_what_another_reads();
    its_own_compute_and_other_kinds_are_refused();
    a_failed_recompute_stays_dirty_for_a_retry();
    return harness_finish();
}
