/*
 * reads_in_runs.c: a body reading a dependency that is not up to date yet. The
 * walk that recomputes a node stops at its first dependency that changed and
 * leaves the others to the body, whose reads recompute them
 * (read_recomputing_in_run, propagation.c). Each node still computes once per
 * write, after what it reads, in read order; a dependency that comes out
 * unchanged re-runs nobody; and every other reader of a dependency that
 * changed learns it, wherever the reading body's edge is among its readers.
 */
#include "testhost.h"

/* A triangle: c1 = a + 1, c2 = c1 + 1, c3 = c2 + 1, and sum reads a, c1, c2
 * and c3, in that order, for effect e. `chain_first`: the chain is evaluated
 * before sum, so that each node's next one is its first reader and sum its
 * second (otherwise sum is the first). */
static void triangle(bool chain_first)
{
    harness_begin(chain_first ? "triangle_chain_read_first" : "triangle_sum_read_first");
    th_world_t w;
    th_init(&w, 16, 0);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *c1 = th_computed(&w, "c1", th_sum, 1, a, NULL);
    th_node_t *c2 = th_computed(&w, "c2", th_sum, 1, c1, NULL);
    th_node_t *c3 = th_computed(&w, "c3", th_sum, 1, c2, NULL);
    if (chain_first)
        CHECK_EQ(th_read(&w, c3), 4);
    th_node_t *sum = th_prepare(&w, "sum", RP_KIND_COMPUTED, th_sum, 0, a, c1);
    sum->in[2] = c2;
    sum->in[3] = c3;
    CHECK_ST(th_create(&w, sum), RP_OK);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, sum, NULL);
    CHECK_EQ(e->value, 10);
    if (chain_first) {
        CHECK_SUBS(&w, c1, c2, sum);
        CHECK_SUBS(&w, c2, c3, sum);
    } else {
        CHECK_SUBS(&w, c1, sum, c2);
        CHECK_SUBS(&w, c2, sum, c3);
    }
    w.log_mask = TH_LOG_COMPUTE | TH_LOG_RUN;
    (void)th_take_log(&w);
    for (long value = 2; value <= 4; value++) {
        CHECK_ST(th_write(&w, a, value), RP_OK);
        CHECK_STR(th_take_log(&w), "sum c1 c2 c3 e");
        CHECK_EQ(sum->value, 4 * value + 6);
        CHECK_EQ(e->value, 4 * value + 6);
    }
    CHECK_EQ(c1->computes, 4);
    CHECK_EQ(c2->computes, 4);
    CHECK_EQ(c3->computes, 4);
    CHECK_EQ(sum->computes, 4);
    CHECK_EQ(e->runs, 4);
    CHECK_DEPS(&w, sum, a, c1, c2, c3);
    th_done(&w);
}

/* c1 = a / 2 (many values of a give one of c1), c2 = c1 + 1, sum = a + c1 +
 * c2: when c1 comes out unchanged, the body's read of it leaves c2 as it was,
 * and c2 is not recomputed. */
static void an_unchanged_dependency_recomputes_no_other_reader(void)
{
    harness_begin("an_unchanged_dependency_recomputes_no_other_reader");
    th_world_t w;
    th_init(&w, 16, 0);
    th_node_t *a = th_source(&w, "a", 2);
    th_node_t *c1 = th_computed(&w, "c1", th_div, 2, a, NULL);
    th_node_t *c2 = th_computed(&w, "c2", th_sum, 1, c1, NULL);
    th_node_t *sum = th_prepare(&w, "sum", RP_KIND_COMPUTED, th_sum, 0, a, c1);
    sum->in[2] = c2;
    CHECK_ST(th_create(&w, sum), RP_OK);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, sum, NULL);
    CHECK_EQ(e->value, 5);
    w.log_mask = TH_LOG_COMPUTE | TH_LOG_RUN;
    (void)th_take_log(&w);
    CHECK_ST(th_write(&w, a, 3), RP_OK);
    CHECK_STR(th_take_log(&w), "sum c1 e");
    CHECK_EQ(e->value, 6);
    CHECK_EQ(c2->computes, 1);
    CHECK_ST(th_write(&w, a, 4), RP_OK);
    CHECK_STR(th_take_log(&w), "sum c1 c2 e");
    CHECK_EQ(e->value, 9);
    CHECK_EQ(c2->computes, 2);
    th_done(&w);
}

/* c = a + 1 is read by sum (a + c, for effect e) and by `others` computeds
 * d1, d2 = c + 1, each for an effect (h1, h2) created after e. `others_first`:
 * the computeds read c before sum does (they come before sum among its
 * readers; otherwise after). Sum's body recomputes c, and every other reader
 * of c learns that it changed: each recomputes for its effect, which runs
 * once with the new value (a reader only PENDING would be found clean). */
static void every_other_reader_learns_of_the_change(unsigned others, bool others_first)
{
    harness_begin(others == 1 ? (others_first ? "one_other_reader_before" : "one_other_reader_after")
                              : (others_first ? "two_other_readers_before" : "two_other_readers_after"));
    th_world_t w;
    th_init(&w, 16, 0);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *c = th_computed(&w, "c", th_sum, 1, a, NULL);
    th_node_t *d[2] = {th_computed(&w, "d1", th_sum, 1, c, NULL), NULL};
    if (others == 2)
        d[1] = th_computed(&w, "d2", th_sum, 1, c, NULL);
    if (others_first)
        for (unsigned i = 0; i < others; i++)
            CHECK_EQ(th_read(&w, d[i]), 3);
    th_node_t *sum = th_computed(&w, "sum", th_sum, 0, a, c);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, sum, NULL);
    th_node_t *h[2] = {th_effect(&w, "h1", th_sum, 0, d[0], NULL), NULL};
    if (others == 2)
        h[1] = th_effect(&w, "h2", th_sum, 0, d[1], NULL);
    CHECK_EQ(e->value, 3);
    if (others_first)
        CHECK(others == 2 ? th_subs_are(&w, c, TH_LIST(d[0], d[1], sum)) : th_subs_are(&w, c, TH_LIST(d[0], sum)));
    else
        CHECK(others == 2 ? th_subs_are(&w, c, TH_LIST(sum, d[0], d[1])) : th_subs_are(&w, c, TH_LIST(sum, d[0])));
    w.log_mask = TH_LOG_COMPUTE | TH_LOG_RUN;
    (void)th_take_log(&w);
    CHECK_ST(th_write(&w, a, 5), RP_OK);
    CHECK_STR(th_take_log(&w), others == 2 ? "sum c e d1 h1 d2 h2" : "sum c e d1 h1");
    CHECK_EQ(e->value, 11);
    for (unsigned i = 0; i < others; i++) {
        CHECK_EQ(d[i]->computes, 2);
        CHECK_EQ(h[i]->value, 7);
        CHECK_EQ(h[i]->runs, 2);
    }
    CHECK_EQ(c->computes, 2);
    th_done(&w);
}

/* Reads in[0], then (when arg is set, once) writes in[2], then reads in[1]
 * and in[0] again. */
static long reads_writes_then_reads_again(th_world_t *w, th_node_t *self)
{
    long v = th_read(w, self->in[0]);
    if (self->arg) {
        self->arg = 0;
        th_write(w, self->in[2], 3);
    }
    v += th_read(w, self->in[1]);
    return v + th_read(w, self->in[0]);
}

/* A node that ran after a run read it, with no read since: that run reading
 * it again finds it among its confirmed reads, and links no second edge. r
 * reads x, writes s (x = s / 2 is marked, r too: it has read x), then reads
 * y = x, whose walk recomputes x, unchanged (nobody reads it after), then
 * reads x again. x's run took the room of its read stamp, which said that r
 * had read it (graph.h); the stamp it leaves sends r to its confirmed reads. */
static void a_node_run_since_a_read_is_read_again_without_a_second_edge(void)
{
    harness_begin("a_node_run_since_a_read_is_read_again_without_a_second_edge");
    th_world_t w;
    th_init(&w, 16, 0);
    th_node_t *s = th_source(&w, "s", 2);
    th_node_t *x = th_computed(&w, "x", th_div, 2, s, NULL);
    th_node_t *y = th_computed(&w, "y", th_sum, 0, x, NULL);
    CHECK_EQ(th_read(&w, y), 1);
    th_node_t *r = th_prepare(&w, "r", RP_KIND_COMPUTED, reads_writes_then_reads_again, 0, x, y);
    r->in[2] = s;
    CHECK_ST(th_create(&w, r), RP_OK);
    CHECK_EQ(th_read(&w, r), 3);
    CHECK_DEPS(&w, r, x, y);
    r->arg = 1;
    w.log_mask = TH_LOG_COMPUTE;
    (void)th_take_log(&w);
    CHECK_ST(rp_node_invalidate(w.g, r->h), RP_OK);
    CHECK_EQ(th_read(&w, r), 3);
    CHECK_STR(th_take_log(&w), "r x");
    CHECK_EQ(s->value, 3);
    CHECK_DEPS(&w, r, x, y);
    CHECK_SUBS(&w, x, y, r);
    CHECK_EQ(x->computes, 2);
    CHECK_EQ(y->computes, 1);
    CHECK_EQ(r->computes, 2);
    th_done(&w);
}

int main(void)
{
    triangle(false);
    triangle(true);
    an_unchanged_dependency_recomputes_no_other_reader();
    every_other_reader_learns_of_the_change(1, false);
    every_other_reader_learns_of_the_change(1, true);
    every_other_reader_learns_of_the_change(2, false);
    every_other_reader_learns_of_the_change(2, true);
    a_node_run_since_a_read_is_read_again_without_a_second_edge();
    return harness_finish();
}
