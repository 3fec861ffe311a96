/*
 * failed_flushes.c: what a read does after a flush stopped with an error and
 * left effects queued (issue 15, defect 6; the fuzzer's input is
 * Tests/CFuzz/corpus/bug-read-after-failed-flush).
 *
 * Those effects were due before the read began, so the read runs them first
 * and only then brings its node up to date: the value it gives includes their
 * writes. Each scenario makes the flush fail with a compute that returns
 * RP_ENOMEM (the testhost's `inject`), exactly where the fuzzer's did: in the
 * re-validation of a queued effect, which leaves that effect queued.
 */
#include "testhost.h"

/* Reads in[0]; writes ten times it into in[1] when that differs. */
static long write_ten_times(th_world_t *w, th_node_t *self)
{
    long v = th_read(w, self->in[0]);
    if (self->in[1]->pending != v * 10)
        th_write(w, self->in[1], v * 10);
    return v;
}

/* Reads in[0]; writes arg into in[1] when that differs (a side write). */
static long read_then_write_arg(th_world_t *w, th_node_t *self)
{
    long v = th_read(w, self->in[0]);
    if (self->in[1]->pending != self->arg)
        th_write(w, self->in[1], self->arg);
    return v;
}

/* The fuzzer's case: a read whose own compute makes an effect due (here by a
 * side write; in the fuzzer's input, by a disposal), whose flush then fails,
 * and the retry of that read. The retry's flush runs the effect, which writes
 * what the node reads: the retry must give the value after that write. */
static void a_retried_read_gives_the_value_after_the_effects_left_queued(void)
{
    harness_begin("a_retried_read_gives_the_value_after_the_effects_left_queued");
    th_world_t w;
    th_init(&w, 8, 0);
    th_node_t *a = th_source(&w, "a", 0);
    th_node_t *b = th_source(&w, "b", 0);
    th_node_t *c = th_computed(&w, "c", th_scale, 1, a, NULL);
    th_node_t *e = th_effect(&w, "e", write_ten_times, 0, c, b);
    th_node_t *x = th_computed(&w, "x", read_then_write_arg, 1, b, a);
    CHECK_STR(th_take_log(&w), "e c"); /* e's first run, and the c it reads */

    /* x computes (b is 0) and writes a = 1, which makes e due; the flush at
     * the end of the read re-validates e, whose dependency c fails. */
    rp_status_t st;
    c->inject = RP_ENOMEM;
    CHECK_EQ(th_get(&w, x, &st), 0);
    CHECK_ST(st, RP_ENOMEM);
    CHECK_STR(th_take_log(&w), "x c");
    CHECK_EQ(e->runs, 1);
    CHECK_EQ(b->value, 0);
    CHECK(th_check(&w));

    /* The retry: e runs first (c = 1, so b = 10), then x recomputes from the
     * new b. Before the fix, x was read first and e ran after, leaving the
     * read's value 0 while b was already 10. */
    c->inject = RP_OK;
    CHECK_EQ(th_get(&w, x, &st), 10);
    CHECK_ST(st, RP_OK);
    CHECK_STR(th_take_log(&w), "c e x");
    CHECK_EQ(b->value, 10);
    CHECK_EQ(e->value, 1);

    /* Now everything is up to date: the next read computes nothing. */
    CHECK_EQ(th_get(&w, x, &st), 10);
    CHECK_ST(st, RP_OK);
    CHECK_STR(th_take_log(&w), "");
    CHECK_EQ(x->computes, 2);
    CHECK_EQ(c->computes, 3);
    CHECK_EQ(e->runs, 2);
    th_done(&w);
}

/* The same through a write: a write whose flush fails leaves its effect
 * queued; a read of a node that effect writes into runs it first. */
static void a_read_after_a_failed_write_runs_the_effects_left_queued_first(void)
{
    harness_begin("a_read_after_a_failed_write_runs_the_effects_left_queued_first");
    th_world_t w;
    th_init(&w, 8, 0);
    th_node_t *a = th_source(&w, "a", 0);
    th_node_t *b = th_source(&w, "b", 0);
    th_node_t *c = th_computed(&w, "c", th_scale, 1, a, NULL);
    th_node_t *e = th_effect(&w, "e", write_ten_times, 0, c, b);
    th_node_t *y = th_computed(&w, "y", th_sum, 0, b, NULL);
    rp_status_t st;
    CHECK_EQ(th_get(&w, y, &st), 0);
    CHECK_ST(st, RP_OK);
    CHECK_STR(th_take_log(&w), "e c y");

    c->inject = RP_ENOMEM;
    CHECK_ST(th_write(&w, a, 2), RP_ENOMEM);
    CHECK_STR(th_take_log(&w), "c");
    c->inject = RP_OK;
    CHECK_EQ(th_get(&w, y, &st), 20);
    CHECK_ST(st, RP_OK);
    CHECK_STR(th_take_log(&w), "c e y");
    CHECK_EQ(y->computes, 2);
    CHECK_EQ(e->runs, 2);
    th_done(&w);
}

/* When the effects left queued fail again, the read stops there with their
 * status and brings nothing up to date (a value computed then would miss their
 * writes); they stay queued, and the next read runs them, then computes once. */
static void a_read_whose_left_effects_fail_again_computes_nothing(void)
{
    harness_begin("a_read_whose_left_effects_fail_again_computes_nothing");
    th_world_t w;
    th_init(&w, 8, 0);
    th_node_t *a = th_source(&w, "a", 0);
    th_node_t *b = th_source(&w, "b", 0);
    th_node_t *d = th_source(&w, "d", 0);
    th_node_t *c = th_computed(&w, "c", th_scale, 1, a, NULL);
    th_node_t *e = th_effect(&w, "e", write_ten_times, 0, c, b);
    th_node_t *y = th_computed(&w, "y", th_sum, 0, b, d);
    rp_status_t st;
    CHECK_EQ(th_get(&w, y, &st), 0);
    CHECK_ST(st, RP_OK);
    CHECK_ST(th_write(&w, d, 5), RP_OK); /* y is now stale, and no effect reads d */
    CHECK_STR(th_take_log(&w), "e c y");

    c->inject = RP_ENOMEM;
    CHECK_ST(th_write(&w, a, 2), RP_ENOMEM);
    CHECK_EQ(th_get(&w, y, &st), 0);
    CHECK_ST(st, RP_ENOMEM);
    CHECK_STR(th_take_log(&w), "c c");
    CHECK_EQ(y->computes, 1);
    CHECK(th_check(&w));

    c->inject = RP_OK;
    CHECK_EQ(th_get(&w, y, &st), 25);
    CHECK_ST(st, RP_OK);
    CHECK_STR(th_take_log(&w), "c e y");
    CHECK_EQ(y->computes, 2);
    CHECK_EQ(e->runs, 2);
    th_done(&w);
}

int main(void)
{
    a_retried_read_gives_the_value_after_the_effects_left_queued();
    a_read_after_a_failed_write_runs_the_effects_left_queued_first();
    a_read_whose_left_effects_fail_again_computes_nothing();
    return harness_finish();
}
