/*
 * dynamic_deps.c: dependencies recorded in read order, branches that switch,
 * untracked reads, watched and unwatched (which follow the set of watching
 * readers, whatever the order weak readers come and go in), and readers of a
 * disposed node.
 */
#include "testhost.h"

/* Reads in[0] (the order flag), then in[1], in[2], in[3] forward when the flag
 * is 0 and backward otherwise. */
static long read_in_flagged_order(th_world_t *w, th_node_t *self)
{
    long v = 0;
    if (th_read(w, self->in[0]) == 0) {
        for (int i = 1; i < 4; i++)
            v = v * 10 + th_read(w, self->in[i]);
    } else {
        for (int i = 3; i >= 1; i--)
            v = v * 10 + th_read(w, self->in[i]);
    }
    return v;
}

static void dependencies_are_kept_in_read_order(void)
{
    harness_begin("dependencies_are_kept_in_read_order");
    th_world_t w;
    th_init(&w, 32, 0);
    th_node_t *flag = th_source(&w, "flag", 0);
    th_node_t *x = th_source(&w, "x", 1);
    th_node_t *y = th_source(&w, "y", 2);
    th_node_t *z = th_source(&w, "z", 3);
    th_node_t *c = th_computed(&w, "c", read_in_flagged_order, 0, flag, x);
    c->in[2] = y;
    c->in[3] = z;
    CHECK_EQ(th_read(&w, c), 123);
    CHECK_DEPS(&w, c, flag, x, y, z);
    CHECK_SUBS(&w, x, c);
    CHECK_EQ(th_stats(&w).live_edges, 4);
    CHECK_ST(th_write(&w, flag, 1), RP_OK);
    CHECK_EQ(th_read(&w, c), 321);
    CHECK_DEPS(&w, c, flag, z, y, x);
    CHECK_EQ(th_stats(&w).live_edges, 4);
    CHECK_ST(th_write(&w, flag, 0), RP_OK);
    CHECK_EQ(th_read(&w, c), 123);
    CHECK_DEPS(&w, c, flag, x, y, z);
    /* Reordering unlinks nobody for good: each source kept its one subscriber. */
    CHECK_SUBS(&w, x, c);
    CHECK_SUBS(&w, y, c);
    CHECK_SUBS(&w, z, c);

    /* A buffer smaller than the list: the count is the whole count, and only
     * `capacity` handles are written. */
    rp_node_t buf[4] = {TH_UNWRITTEN, TH_UNWRITTEN, TH_UNWRITTEN, TH_UNWRITTEN};
    size_t count = 0;
    CHECK_ST(rp_node_dependencies(w.g, c->h, buf, 2, &count), RP_OK);
    CHECK_EQ(count, 4);
    CHECK_NODE(buf[0], flag->h);
    CHECK_NODE(buf[1], x->h);
    CHECK_NODE(buf[2], TH_UNWRITTEN);
    count = 0;
    CHECK_ST(rp_node_subscribers(w.g, x->h, buf, 0, &count), RP_OK);
    CHECK_EQ(count, 1);
    CHECK_NODE(buf[0], flag->h);
    /* Sources have no dependencies; effects have no subscribers. */
    th_node_t *e = th_effect(&w, "e", th_sum, 0, c, NULL);
    CHECK_EQ(th_dep_count(&w, x), 0);
    CHECK_EQ(th_sub_count(&w, e), 0);
    CHECK_DEPS(&w, e, c);
    th_done(&w);
}

static void switching_branches_unlinks_the_old_dependency(void)
{
    harness_begin("switching_branches_unlinks_the_old_dependency");
    th_world_t w;
    th_init(&w, 32, 0);
    th_node_t *cond = th_source(&w, "cond", 1);
    th_node_t *x = th_source(&w, "x", 10);
    th_node_t *y = th_source(&w, "y", 20);
    th_node_t *c = th_computed(&w, "c", th_pick, 0, cond, x);
    c->in[2] = y;
    th_node_t *e = th_effect(&w, "e", th_sum, 0, c, NULL);
    CHECK_EQ(e->value, 10);
    CHECK_DEPS(&w, c, cond, x);
    CHECK_SUBS(&w, x, c);
    CHECK_EQ(th_sub_count(&w, y), 0);
    CHECK_EQ(x->watched, 1);
    CHECK_EQ(y->watched, 0);

    /* y is not read: writing it does nothing. */
    CHECK_ST(th_write(&w, y, 21), RP_OK);
    CHECK_EQ(c->computes, 1);
    CHECK_EQ(e->runs, 1);
    /* Recomputing with the same dependencies: no unwatched/watched churn. */
    CHECK_ST(th_write(&w, x, 11), RP_OK);
    CHECK_EQ(c->computes, 2);
    CHECK_EQ(e->value, 11);
    CHECK_EQ(x->watched, 1);
    CHECK_EQ(x->unwatched, 0);
    CHECK_EQ(cond->watched, 1);
    CHECK_EQ(cond->unwatched, 0);

    for (int round = 0; round < 3; round++) {
        /* Switch to y: x is unlinked. */
        CHECK_ST(th_write(&w, cond, 0), RP_OK);
        CHECK_EQ(e->value, 21);
        CHECK_DEPS(&w, c, cond, y);
        CHECK_EQ(th_sub_count(&w, x), 0);
        CHECK_SUBS(&w, y, c);
        CHECK_EQ(x->unwatched, round + 1);
        CHECK_EQ(y->watched, round + 1);
        unsigned computes = c->computes, runs = e->runs;
        CHECK_ST(th_write(&w, x, 100 + round), RP_OK);
        CHECK_EQ(c->computes, computes);
        CHECK_EQ(e->runs, runs);
        CHECK_ST(th_write(&w, x, 11), RP_OK);
        /* And back to x: y is unlinked. */
        CHECK_ST(th_write(&w, cond, 1), RP_OK);
        CHECK_EQ(e->value, 11);
        CHECK_DEPS(&w, c, cond, x);
        CHECK_EQ(th_sub_count(&w, y), 0);
        CHECK_EQ(y->unwatched, round + 1);
        CHECK_EQ(x->watched, round + 2);
        computes = c->computes;
        runs = e->runs;
        CHECK_ST(th_write(&w, y, 30 + round), RP_OK);
        CHECK_ST(th_write(&w, y, 21), RP_OK);
        CHECK_EQ(c->computes, computes);
        CHECK_EQ(e->runs, runs);
    }
    CHECK_EQ(th_stats(&w).live_edges, 3);
    th_done(&w);
}

/* Reads in[0] tracked and in[1] untracked (inside nested sections). */
static long read_second_untracked(th_world_t *w, th_node_t *self)
{
    long v = th_read(w, self->in[0]);
    CHECK_ST(rp_untracked_begin(w->g), RP_OK);
    CHECK_ST(rp_untracked_begin(w->g), RP_OK);
    CHECK_ST(rp_untracked_end(w->g), RP_OK);
    v += 100 * th_read(w, self->in[1]); /* still inside the outer section */
    CHECK_ST(rp_untracked_end(w->g), RP_OK);
    return v;
}

/* Reads in[0] only inside an untracked section. */
static long read_all_untracked(th_world_t *w, th_node_t *self)
{
    CHECK_ST(rp_untracked_begin(w->g), RP_OK);
    long v = th_read(w, self->in[0]);
    CHECK_ST(rp_untracked_end(w->g), RP_OK);
    return v;
}

static void untracked_reads_record_no_dependency(void)
{
    harness_begin("untracked_reads_record_no_dependency");
    th_world_t w;
    th_init(&w, 32, 0);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *b = th_source(&w, "b", 2);
    th_node_t *e = th_effect(&w, "e", read_second_untracked, 0, a, b);
    CHECK_EQ(e->value, 201);
    CHECK_DEPS(&w, e, a);
    CHECK_EQ(th_sub_count(&w, b), 0);
    CHECK_ST(th_write(&w, b, 3), RP_OK);
    CHECK_EQ(e->runs, 1);
    CHECK_ST(th_write(&w, a, 4), RP_OK);
    CHECK_EQ(e->runs, 2);
    CHECK_EQ(e->value, 304);
    CHECK_DEPS(&w, e, a);

    /* In a computed. */
    th_node_t *c = th_computed(&w, "c", read_second_untracked, 0, a, b);
    CHECK_EQ(th_read(&w, c), 304);
    CHECK_DEPS(&w, c, a);
    CHECK_ST(th_write(&w, b, 5), RP_OK);
    CHECK_EQ(th_read(&w, c), 304);
    CHECK_EQ(c->computes, 1);

    /* A computed that is computed during an untracked section of its reader
     * still records its own dependencies: untracked applies to the reader. */
    th_node_t *inner = th_computed(&w, "inner", th_scale, 2, a, NULL);
    th_node_t *outer = th_effect(&w, "outer", read_all_untracked, 0, inner, NULL);
    CHECK_EQ(outer->value, 8);
    CHECK_EQ(th_dep_count(&w, outer), 0);
    CHECK_DEPS(&w, inner, a);
    CHECK_ST(th_write(&w, a, 5), RP_OK);
    CHECK_EQ(outer->runs, 1);
    CHECK_EQ(th_read(&w, inner), 10);

    /* Untracked sections at the top level. */
    CHECK_ST(rp_untracked_begin(w.g), RP_OK);
    CHECK_EQ(th_read(&w, c), 505);
    CHECK_ST(rp_untracked_end(w.g), RP_OK);
    th_done(&w);
}

static void watched_and_unwatched_follow_the_subscribers(void)
{
    harness_begin("watched_and_unwatched_follow_the_subscribers");
    th_world_t w;
    th_init(&w, 32, 0);
    w.log_mask = TH_LOG_WATCH;
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *c1 = th_computed(&w, "c1", th_sum, 0, a, NULL);
    th_node_t *c2 = th_computed(&w, "c2", th_sum, 0, a, NULL);
    CHECK_EQ(a->watched, 0);
    CHECK_EQ(th_read(&w, c1), 1);
    CHECK_EQ(a->watched, 1);
    CHECK_EQ(th_read(&w, c2), 1);
    CHECK_EQ(a->watched, 1);
    CHECK_EQ(c1->watched + c2->watched, 0); /* read from the top level only */
    CHECK_STR(th_take_log(&w), "+a");
    CHECK_ST(th_dispose(&w, c1), RP_OK);
    CHECK_EQ(a->unwatched, 0);
    CHECK_ST(th_dispose(&w, c2), RP_OK);
    CHECK_EQ(a->unwatched, 1);
    CHECK_STR(th_take_log(&w), "-a");
    /* An effect gains a subscriber never. */
    th_node_t *e = th_effect(&w, "e", th_sum, 0, a, NULL);
    CHECK_EQ(a->watched, 2);
    CHECK_EQ(e->watched, 0);
    CHECK_ST(th_dispose(&w, e), RP_OK);
    CHECK_EQ(a->unwatched, 2);
    CHECK_EQ(e->unwatched, 0);
    th_done(&w);
}

/* Weak readers (RP_NODE_WEAK_READS) neither start nor end a node's watched
 * period, whichever comes first; a node created with
 * RP_NODE_WATCHED_BY_WEAK_READS counts them. */
static void watching_follows_the_strong_readers_in_any_order(void)
{
    harness_begin("watching_follows_the_strong_readers_in_any_order");
    th_world_t w;
    th_init(&w, 32, 0);
    w.log_mask = TH_LOG_WATCH;
    th_node_t *a = th_source(&w, "a", 1);
    /* A weak reader first, then a strong one: the strong one watches. */
    th_node_t *weak = th_weak_effect(&w, "weak", th_sum, 0, a, NULL);
    CHECK_EQ(weak->value, 1);
    CHECK_SUBS(&w, a, weak);
    CHECK_STR(th_take_log(&w), "");
    th_node_t *strong = th_effect(&w, "strong", th_sum, 0, a, NULL);
    CHECK_STR(th_take_log(&w), "+a");
    CHECK_ST(th_dispose(&w, weak), RP_OK);
    CHECK_STR(th_take_log(&w), "");
    CHECK_ST(th_dispose(&w, strong), RP_OK);
    CHECK_STR(th_take_log(&w), "-a");
    /* A strong reader first, then a weak one, then the strong one goes: the
     * weak one alone does not watch, though it still reads. */
    strong = th_effect(&w, "strong", th_sum, 0, a, NULL);
    weak = th_weak_effect(&w, "weak", th_sum, 0, a, NULL);
    CHECK_STR(th_take_log(&w), "+a");
    CHECK_ST(th_dispose(&w, strong), RP_OK);
    CHECK_STR(th_take_log(&w), "-a");
    CHECK_DEPS(&w, weak, a);
    CHECK_ST(th_write(&w, a, 2), RP_OK);
    CHECK_EQ(weak->runs, 2);
    CHECK_EQ(weak->value, 2);
    /* A strong computed reads it again: watched again, and unwatched when it goes. */
    th_node_t *c = th_computed(&w, "c", th_sum, 0, a, NULL);
    CHECK_EQ(th_read(&w, c), 2);
    CHECK_STR(th_take_log(&w), "+a");
    CHECK_ST(th_dispose(&w, c), RP_OK);
    CHECK_STR(th_take_log(&w), "-a");
    CHECK_ST(th_dispose(&w, weak), RP_OK);
    CHECK_STR(th_take_log(&w), "");
    CHECK_EQ(a->watched, 3);
    CHECK_EQ(a->unwatched, 3);
    /* A weak reader's own readers watch it; its reads stay weak. */
    th_node_t *wc = th_prepare(&w, "wc", RP_KIND_COMPUTED, th_sum, 0, a, NULL);
    wc->options = RP_NODE_WEAK_READS;
    CHECK_ST(th_create(&w, wc), RP_OK);
    strong = th_effect(&w, "strong", th_sum, 0, wc, NULL);
    CHECK_EQ(strong->value, 2);
    CHECK_STR(th_take_log(&w), "+wc");
    CHECK_ST(th_dispose(&w, strong), RP_OK);
    CHECK_STR(th_take_log(&w), "-wc");
    CHECK_ST(th_dispose(&w, wc), RP_OK);
    /* A node watched by weak reads, from its creation or added before it is read. */
    th_node_t *b = th_prepare(&w, "b", RP_KIND_SOURCE, NULL, 0, NULL, NULL);
    b->value = b->pending = 5;
    b->options = RP_NODE_WATCHED_BY_WEAK_READS;
    CHECK_ST(th_create(&w, b), RP_OK);
    th_node_t *d = th_source(&w, "d", 7);
    CHECK_ST(rp_node_add_options(w.g, d->h, RP_NODE_WATCHED_BY_WEAK_READS), RP_OK);
    weak = th_weak_effect(&w, "weak", th_sum, 0, b, d);
    CHECK_EQ(weak->value, 12);
    CHECK_STR(th_take_log(&w), "+b +d");
    /* Options that would recount existing edges are refused. */
    CHECK_ST(rp_node_add_options(w.g, a->h, RP_NODE_WATCHED_BY_WEAK_READS), RP_OK); /* nothing reads it */
    CHECK_ST(rp_node_add_options(w.g, d->h, RP_NODE_WATCHED_BY_WEAK_READS), RP_ESTATE);
    CHECK_ST(rp_node_add_options(w.g, weak->h, RP_NODE_WEAK_READS), RP_ESTATE);
    CHECK_ST(th_dispose(&w, weak), RP_OK);
    CHECK_STR(th_take_log(&w), "-d -b");
    th_done(&w);
}

/* A host that ties computeds' lifetimes to their readers: when one loses its
 * last subscriber, the host disposes it. */
static unsigned cascade_dispose_failures;

static void dispose_unwatched_computeds(th_world_t *w, th_node_t *n)
{
    if (n->kind == RP_KIND_COMPUTED && rp_node_dispose(w->g, n->h) != RP_OK)
        cascade_dispose_failures++;
}

static void unwatched_may_dispose_nodes(void)
{
    harness_begin("unwatched_may_dispose_nodes");
    th_world_t w;
    th_init(&w, 32, 0);
    w.log_mask = TH_LOG_WATCH | TH_LOG_RELEASE;
    w.on_unwatched = dispose_unwatched_computeds;
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *b = th_computed(&w, "b", th_sum, 1, a, NULL);
    th_node_t *c = th_computed(&w, "c", th_sum, 1, b, NULL);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, c, NULL);
    CHECK_EQ(e->value, 3);
    CHECK_STR(th_take_log(&w), "+a +b +c");
    CHECK_ST(th_dispose(&w, e), RP_OK);
    /* Delivered after the outermost call finished its work, one after another. */
    CHECK_STR(th_take_log(&w), "~e -c ~c -b ~b -a");
    CHECK_EQ(cascade_dispose_failures, 0);
    CHECK_EQ(b->released + c->released + e->released, 3);
    CHECK_EQ(a->released, 0);
    rp_graph_stats_t s = th_stats(&w);
    CHECK_EQ(s.live_nodes, 1);
    CHECK_EQ(s.live_edges, 0);
    th_done(&w);
}

static void readers_of_a_disposed_node_are_dirty(void)
{
    harness_begin("readers_of_a_disposed_node_are_dirty");
    th_world_t w;
    th_init(&w, 32, 0);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *b = th_source(&w, "b", 2);
    th_node_t *c = th_computed(&w, "c", th_sum, 0, a, b);
    CHECK_EQ(th_read(&w, c), 3);
    c->in[1] = NULL; /* from now on the host's body reads only a */
    CHECK_ST(th_dispose(&w, b), RP_OK);
    CHECK_DEPS(&w, c, a);
    CHECK_EQ(th_read(&w, c), 1);
    CHECK_EQ(c->computes, 2);
    CHECK_DEPS(&w, c, a);

    /* An effect whose source is disposed inside a batch runs once at its end. */
    th_node_t *d = th_source(&w, "d", 5);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, a, d);
    CHECK_EQ(e->value, 6);
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    e->in[1] = NULL;
    CHECK_ST(th_dispose(&w, d), RP_OK);
    CHECK_EQ(e->runs, 1);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_EQ(e->runs, 2);
    CHECK_EQ(e->value, 1);
    CHECK_DEPS(&w, e, a);
    CHECK_EQ(th_stats(&w).live_edges, 2);
    th_done(&w);
}

int main(void)
{
    dependencies_are_kept_in_read_order();
    switching_branches_unlinks_the_old_dependency();
    untracked_reads_record_no_dependency();
    watched_and_unwatched_follow_the_subscribers();
    watching_follows_the_strong_readers_in_any_order();
    unwatched_may_dispose_nodes();
    readers_of_a_disposed_node_are_dirty();
    return harness_finish();
}
