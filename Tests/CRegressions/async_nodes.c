/*
 * async_nodes.c: async nodes (RP_KIND_ASYNC) and their runs, driven on one
 * thread the way a host drives them from its tasks: the node's compute starts
 * a run (testhost's th_async_compute notes its id and shows TH_IN_FLIGHT),
 * the test then runs the run's body in track sections (th_async_track) and
 * delivers results in resolve sections (th_async_resolve), with exact
 * expectations on values, compute and run counts, the log, dependencies,
 * run ids and statuses.
 *
 *   lifecycle      created dirty; the first read starts run 1; reads do not
 *                  restart it; its id is what the compute saw;
 *   dependencies   reads in track sections are dependencies, in read order,
 *                  across sections, without duplicates; a new run drops them;
 *   observed       a write to what the run read starts a new run in the flush;
 *                  the effect runs only when compute reports a change; the
 *                  old run's begins are RP_ESUPERSEDED and change nothing;
 *   unobserved     a write starts nothing; the old run's resolve is
 *                  RP_ESUPERSEDED and leaves the node dirty; a derivation in
 *                  between that recomputes to an equal value keeps it current;
 *   resolve        a changed result runs readers once, glitch-free; an
 *                  unchanged one runs nothing; a stream resolves many times;
 *   restart        observed and not: a new run, the old one superseded;
 *   disposal       inside a track section, inside a resolve section, with a
 *                  run in flight: later calls RP_ESTALE, released once;
 *   cycles         the node, or a derivation of it (up to date or stale), read
 *                  in its own track section: RP_ECYCLE naming the nodes;
 *   misuse         RP_ESTATE for begins inside computes, runs, untracked and
 *                  track sections, ends without begins, an end on a thread
 *                  that does not hold the graph;
 *   failures       a compute that fails leaves the node dirty and its run
 *                  unusable.
 *
 * th_done runs _rp_graph_check after every scenario and checks releases and
 * memory. Built with the engine under ASan and UBSan (scripts/test) and under
 * ThreadSanitizer (scripts/tsan-c: one scenario ends a section from another
 * thread). Prints `N passed, N failed`.
 */
#define _POSIX_C_SOURCE 200809L

#include "testhost.h"

#include <pthread.h>

/* ------------------------------------------------------------- lifecycle */

static void created_dirty_first_read_starts_a_run(void)
{
    harness_begin("created_dirty_first_read_starts_a_run");
    th_world_t w;
    th_init(&w, 16, 0);
    th_node_t *s = th_source(&w, "s", 4);
    th_node_t *a = th_async(&w, "a", th_sum, 0, s, NULL);
    rp_kind_t kind = RP_KIND_SOURCE;
    CHECK_ST(rp_node_kind(w.g, a->h, &kind), RP_OK);
    CHECK_EQ(kind, RP_KIND_ASYNC);
    CHECK_EQ(a->computes, 0);
    CHECK_EQ(th_async_run(&w, a), 0);
    CHECK_EQ(th_dep_count(&w, a), 0);

    CHECK_EQ(th_read(&w, a), TH_IN_FLIGHT);
    CHECK_EQ(a->computes, 1);
    uint64_t run = th_async_run(&w, a);
    CHECK(run != 0);
    /* The compute saw the id of the run it started, not the one before. */
    CHECK_EQ(a->run, run);
    /* Up to date: reading again starts nothing. */
    CHECK_EQ(th_read(&w, a), TH_IN_FLIGHT);
    rp_read_section_t section;
    CHECK_ST(rp_node_read_begin(w.g, a->h, &section), RP_OK);
    CHECK_ST(rp_node_read_end(w.g, &section), RP_OK);
    CHECK_EQ(a->computes, 1);
    CHECK_EQ(th_async_run(&w, a), run);
    CHECK_STR(th_take_log(&w), "a");

    /* The run reads s, then delivers its result. */
    CHECK_ST(th_async_track(&w, a, run), RP_OK);
    CHECK_EQ(a->pending, 4);
    CHECK_DEPS(&w, a, s);
    CHECK_ST(th_async_resolve(&w, a, run, a->pending), RP_OK);
    CHECK_EQ(th_read(&w, a), 4);
    CHECK_EQ(a->computes, 1);
    CHECK_EQ(a->resolves, 1);
    CHECK_EQ(th_async_run(&w, a), run);
    /* Run ids are never reused: a second node's first run is another id. */
    th_node_t *b = th_async(&w, "b", th_sum, 0, s, NULL);
    CHECK_EQ(th_read(&w, b), TH_IN_FLIGHT);
    CHECK(th_async_run(&w, b) != 0 && th_async_run(&w, b) != run);
    th_done(&w);
}

/* --------------------------------------------------------- dependencies */

static long read_s1_s0_s1(th_world_t *w, th_node_t *self)
{
    return th_read(w, self->in[1]) + th_read(w, self->in[0]) + th_read(w, self->in[1]);
}

static long read_s0_s2(th_world_t *w, th_node_t *self)
{
    return th_read(w, self->in[0]) + th_read(w, self->in[2]);
}

static long read_in3(th_world_t *w, th_node_t *self)
{
    return th_read(w, self->in[3]);
}

static void track_sections_record_dependencies(void)
{
    harness_begin("track_sections_record_dependencies");
    th_world_t w;
    th_init(&w, 16, 0);
    th_node_t *s0 = th_source(&w, "s0", 1);
    th_node_t *s1 = th_source(&w, "s1", 10);
    th_node_t *s2 = th_source(&w, "s2", 100);
    th_node_t *s3 = th_source(&w, "s3", 1000);
    th_node_t *a = th_async(&w, "a", read_s1_s0_s1, 0, s0, s1);
    a->in[2] = s2;
    a->in[3] = s3;
    a->on_start = read_in3; /* the compute itself reads s3 */
    CHECK_EQ(th_read(&w, a), TH_IN_FLIGHT);
    uint64_t run = th_async_run(&w, a);
    CHECK_DEPS(&w, a, s3);

    /* One section reads s1, s0, s1: two dependencies, after the compute's. */
    CHECK_ST(th_async_track(&w, a, run), RP_OK);
    CHECK_EQ(a->pending, 21);
    CHECK_DEPS(&w, a, s3, s1, s0);
    CHECK_SUBS(&w, s1, a);
    CHECK_EQ(th_sub_count(&w, s1), 1);
    /* A second section reads s0 again (no duplicate) and s2 (appended). */
    a->body = read_s0_s2;
    CHECK_ST(th_async_track(&w, a, run), RP_OK);
    CHECK_EQ(a->pending, 101);
    CHECK_DEPS(&w, a, s3, s1, s0, s2);
    CHECK_EQ(th_sub_count(&w, s0), 1);
    /* A third one reads s3, which the compute read. */
    a->body = read_in3;
    CHECK_ST(th_async_track(&w, a, run), RP_OK);
    CHECK_DEPS(&w, a, s3, s1, s0, s2);
    /* Read sections count as reads too. */
    CHECK_ST(rp_async_track_begin(w.g, a->h, run), RP_OK);
    rp_node_t tracking = RP_NODE_NONE;
    CHECK_ST(rp_graph_tracking(w.g, &tracking), RP_OK);
    CHECK_NODE(tracking, a->h);
    rp_read_section_t section;
    CHECK_ST(rp_node_read_begin(w.g, s2->h, &section), RP_OK);
    CHECK_ST(rp_node_read_end(w.g, &section), RP_OK);
    /* Untracked reads inside the section are nobody's. */
    th_node_t *u = th_source(&w, "u", 0);
    CHECK_ST(rp_untracked_begin(w.g), RP_OK);
    CHECK_ST(rp_node_read(w.g, u->h), RP_OK);
    CHECK_ST(rp_untracked_end(w.g), RP_OK);
    CHECK_ST(rp_async_track_end(w.g, a->h), RP_OK);
    CHECK_ST(rp_graph_tracking(w.g, &tracking), RP_OK);
    CHECK_NODE(tracking, RP_NODE_NONE);
    CHECK_DEPS(&w, a, s3, s1, s0, s2);
    CHECK_EQ(th_sub_count(&w, u), 0);
    th_check(&w);

    /* A new run drops what the old one read; its compute reads s3 again. */
    CHECK_ST(rp_async_restart(w.g, a->h), RP_OK);
    CHECK_EQ(a->computes, 2);
    CHECK(th_async_run(&w, a) != run);
    CHECK_DEPS(&w, a, s3);
    CHECK_EQ(th_sub_count(&w, s1), 0);
    CHECK_EQ(th_sub_count(&w, s0), 0);
    th_done(&w);
}

/* ------------------------------------------------------------- observed */

static void observed_write_starts_a_new_run(void)
{
    harness_begin("observed_write_starts_a_new_run");
    th_world_t w;
    th_init(&w, 16, 0);
    th_node_t *s = th_source(&w, "s", 1);
    th_node_t *t = th_source(&w, "t", 7);
    th_node_t *a = th_async(&w, "a", th_sum, 0, s, NULL);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, a, NULL);
    CHECK_STR(th_take_log(&w), "e a");
    CHECK_EQ(e->value, TH_IN_FLIGHT);
    uint64_t r1 = th_async_run(&w, a);
    CHECK_EQ(a->run, r1);
    CHECK_ST(th_async_track(&w, a, r1), RP_OK);
    CHECK_ST(th_async_resolve(&w, a, r1, 10), RP_OK);
    CHECK_EQ(e->runs, 2);
    CHECK_EQ(e->value, 10);
    CHECK_STR(th_take_log(&w), "e");

    /* The write's flush re-validates e, which brings a up to date: a new run. */
    CHECK_ST(th_write(&w, s, 2), RP_OK);
    CHECK_STR(th_take_log(&w), "a e");
    CHECK_EQ(a->computes, 2);
    uint64_t r2 = th_async_run(&w, a);
    CHECK(r2 != r1);
    CHECK_EQ(a->run, r2);
    CHECK_EQ(e->runs, 3);
    CHECK_EQ(e->value, TH_IN_FLIGHT);
    CHECK_EQ(th_dep_count(&w, a), 0); /* the new run has read nothing yet */
    CHECK_EQ(th_sub_count(&w, s), 0);

    /* The superseded run: both begins refused, nothing changed. */
    CHECK_ST(rp_async_track_begin(w.g, a->h, r1), RP_ESUPERSEDED);
    CHECK_ST(th_async_track(&w, a, r1), RP_ESUPERSEDED);
    CHECK_ST(th_async_resolve(&w, a, r1, 99), RP_ESUPERSEDED);
    CHECK_EQ(a->value, TH_IN_FLIGHT);
    CHECK_EQ(a->resolves, 1);
    CHECK_EQ(th_dep_count(&w, a), 0);
    CHECK_EQ(th_async_run(&w, a), r2);
    CHECK_STR(th_take_log(&w), "");
    /* Nothing was left held: another thread's call would not block, and a
     * write still runs e at once. */
    CHECK_ST(rp_batch_end(w.g), RP_ESTATE);

    /* The new run reads s and t. A write to t supersedes it, and the new
     * run's compute reports no change (still in flight): e does not run. */
    a->in[1] = t;
    CHECK_ST(th_async_track(&w, a, r2), RP_OK);
    CHECK_DEPS(&w, a, s, t);
    CHECK_ST(th_write(&w, t, 8), RP_OK);
    CHECK_STR(th_take_log(&w), "a");
    uint64_t r3 = th_async_run(&w, a);
    CHECK(r3 != r2 && r3 != r1);
    CHECK_EQ(e->runs, 3);
    CHECK_ST(th_async_resolve(&w, a, r2, 9), RP_ESUPERSEDED);
    CHECK_ST(th_async_track(&w, a, r3), RP_OK);
    CHECK_EQ(a->pending, 10);
    CHECK_ST(th_async_resolve(&w, a, r3, a->pending), RP_OK);
    CHECK_EQ(e->runs, 4);
    CHECK_EQ(e->value, 10);
    CHECK_STR(th_take_log(&w), "e");

    /* A write inside a batch starts the run when the batch ends. */
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(th_write(&w, s, 5), RP_OK);
    CHECK_EQ(a->computes, 3);
    /* Inside the batch the run is stale: its resolve is refused and leaves the
     * node dirty, for the batch's flush. */
    CHECK_ST(th_async_resolve(&w, a, r3, 42), RP_ESUPERSEDED);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_STR(th_take_log(&w), "a e");
    CHECK_EQ(a->computes, 4);
    CHECK_EQ(e->runs, 5);
    CHECK_EQ(e->value, TH_IN_FLIGHT);
    th_done(&w);
}

/* ----------------------------------------------------------- unobserved */

static void unobserved_write_supersedes_at_resolve(void)
{
    harness_begin("unobserved_write_supersedes_at_resolve");
    th_world_t w;
    th_init(&w, 16, 0);
    th_node_t *s = th_source(&w, "s", 1);
    th_node_t *a = th_async(&w, "a", th_sum, 0, s, NULL);
    CHECK_EQ(th_read(&w, a), TH_IN_FLIGHT);
    uint64_t r1 = th_async_run(&w, a);
    CHECK_ST(th_async_track(&w, a, r1), RP_OK);
    CHECK_EQ(a->pending, 1);

    /* Nobody observes a: the write starts nothing. */
    CHECK_ST(th_write(&w, s, 5), RP_OK);
    CHECK_EQ(a->computes, 1);
    CHECK_EQ(th_async_run(&w, a), r1);
    CHECK_STR(th_take_log(&w), "a");
    /* Its result is for an input that changed: refused, and the node is left
     * dirty. The run can no longer track either. */
    CHECK_ST(th_async_resolve(&w, a, r1, a->pending), RP_ESUPERSEDED);
    CHECK_EQ(a->value, TH_IN_FLIGHT);
    CHECK_EQ(a->resolves, 0);
    CHECK_EQ(a->computes, 1);
    CHECK_EQ(s->commits, 1); /* the re-validation committed the write */
    CHECK_ST(rp_async_track_begin(w.g, a->h, r1), RP_ESUPERSEDED);
    CHECK_ST(th_async_resolve(&w, a, r1, a->pending), RP_ESUPERSEDED);
    CHECK_EQ(a->computes, 1);
    th_check(&w);
    /* The next read starts a new run. */
    CHECK_EQ(th_read(&w, a), TH_IN_FLIGHT);
    CHECK_EQ(a->computes, 2);
    uint64_t r2 = th_async_run(&w, a);
    CHECK(r2 != r1);
    CHECK_ST(th_async_track(&w, a, r2), RP_OK);
    CHECK_EQ(a->pending, 5);
    CHECK_ST(th_async_resolve(&w, a, r2, a->pending), RP_OK);
    CHECK_EQ(th_read(&w, a), 5);
    CHECK_EQ(a->computes, 2);

    /* A reader that is not an effect does not observe: a computed over a is
     * marked, and nothing starts until it is read. */
    th_node_t *c = th_computed(&w, "c", th_scale, 2, a, NULL);
    CHECK_EQ(th_read(&w, c), 10);
    CHECK_ST(th_async_track(&w, a, r2), RP_OK);
    CHECK_ST(th_write(&w, s, 7), RP_OK);
    CHECK_EQ(a->computes, 2);
    CHECK_EQ(th_async_run(&w, a), r2);
    th_take_log(&w);
    CHECK_EQ(th_read(&w, c), 2 * TH_IN_FLIGHT);
    CHECK_STR(th_take_log(&w), "a c");
    CHECK_EQ(a->computes, 3);
    CHECK(th_async_run(&w, a) != r2);

    /* A derivation in between: a reads d = s / 10. A write that leaves d
     * equal keeps the run current (the resolve re-validates d); one that
     * changes d supersedes it. */
    th_node_t *d = th_computed(&w, "d", th_div, 10, s, NULL);
    th_node_t *b = th_async(&w, "b", th_sum, 0, d, NULL);
    CHECK_EQ(th_read(&w, b), TH_IN_FLIGHT);
    uint64_t rb = th_async_run(&w, b);
    CHECK_ST(th_async_track(&w, b, rb), RP_OK);
    CHECK_EQ(b->pending, 0);
    CHECK_EQ(d->computes, 1);
    th_take_log(&w);
    CHECK_ST(th_write(&w, s, 6), RP_OK);
    CHECK_EQ(d->computes, 1);
    CHECK_ST(th_async_resolve(&w, b, rb, 3), RP_OK);
    CHECK_STR(th_take_log(&w), "d");
    CHECK_EQ(d->computes, 2);
    CHECK_EQ(b->computes, 1);
    CHECK_EQ(th_read(&w, b), 3);
    CHECK_EQ(b->computes, 1);
    CHECK_EQ(th_async_run(&w, b), rb);
    /* And the run still tracks and resolves (a stream). */
    CHECK_ST(th_async_track(&w, b, rb), RP_OK);
    CHECK_ST(th_write(&w, s, 25), RP_OK);
    CHECK_ST(th_async_resolve(&w, b, rb, 4), RP_ESUPERSEDED);
    CHECK_STR(th_take_log(&w), "d");
    CHECK_EQ(th_read(&w, b), TH_IN_FLIGHT);
    CHECK_EQ(b->computes, 2);
    CHECK_EQ(b->value, TH_IN_FLIGHT);

    th_done(&w);
}

/* -------------------------------------------------------------- resolve */

static void resolve_marks_readers(void)
{
    harness_begin("resolve_marks_readers");
    th_world_t w;
    th_init(&w, 16, 0);
    th_node_t *s = th_source(&w, "s", 1);
    th_node_t *a = th_async(&w, "a", th_sum, 0, s, NULL);
    th_node_t *c = th_computed(&w, "c", th_scale, 2, a, NULL);
    /* A diamond: e reads a, then c = 2a. */
    th_node_t *e = th_effect(&w, "e", th_sum, 0, a, c);
    CHECK_STR(th_take_log(&w), "e a c");
    CHECK_EQ(e->value, 3 * TH_IN_FLIGHT);
    uint64_t run = th_async_run(&w, a);

    CHECK_ST(th_async_track(&w, a, run), RP_OK);
    CHECK_STR(th_take_log(&w), "");
    CHECK_ST(th_async_resolve(&w, a, run, 7), RP_OK);
    CHECK_STR(th_take_log(&w), "e c");
    CHECK_EQ(e->runs, 2);
    CHECK_EQ(c->computes, 2);
    CHECK_EQ(e->value, 21); /* never 7 + 2 * TH_IN_FLIGHT */

    /* The same result again: no change, nothing runs. */
    CHECK_ST(th_async_resolve(&w, a, run, 7), RP_OK);
    CHECK_STR(th_take_log(&w), "");
    CHECK_EQ(e->runs, 2);
    CHECK_EQ(c->computes, 2);
    CHECK_EQ(a->resolves, 2);

    /* A stream: each result of the current run reaches its readers once. */
    for (long v = 8; v <= 10; v++) {
        CHECK_ST(th_async_resolve(&w, a, run, v), RP_OK);
        CHECK_STR(th_take_log(&w), "e c");
        CHECK_EQ(e->value, 3 * v);
    }
    CHECK_EQ(e->runs, 5);
    CHECK_EQ(a->computes, 1);

    /* Inside a batch the effect runs when the batch ends, once. */
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(th_async_resolve(&w, a, run, 11), RP_OK);
    CHECK_ST(th_async_resolve(&w, a, run, 12), RP_OK);
    CHECK_STR(th_take_log(&w), "");
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_STR(th_take_log(&w), "e c");
    CHECK_EQ(e->value, 36);

    /* A change that a derivation cuts off: z = a / 100 stays 0, so g, which
     * reads z only, does not run. */
    th_node_t *z = th_computed(&w, "z", th_div, 100, a, NULL);
    th_node_t *g = th_effect(&w, "g", th_sum, 0, z, NULL);
    CHECK_STR(th_take_log(&w), "g z");
    CHECK_ST(th_async_resolve(&w, a, run, 13), RP_OK);
    CHECK_STR(th_take_log(&w), "e c z");
    CHECK_EQ(g->runs, 1);
    th_done(&w);
}

/* -------------------------------------------------------------- restart */

static void restart_starts_a_new_run(void)
{
    harness_begin("restart_starts_a_new_run");
    th_world_t w;
    th_init(&w, 16, 0);
    th_node_t *s = th_source(&w, "s", 3);
    th_node_t *a = th_async(&w, "a", th_sum, 0, s, NULL);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, a, NULL);
    uint64_t r1 = th_async_run(&w, a);
    CHECK_ST(th_async_track(&w, a, r1), RP_OK);
    CHECK_ST(th_async_resolve(&w, a, r1, a->pending), RP_OK);
    CHECK_EQ(e->value, 3);
    th_take_log(&w);

    /* Observed: the restart's compute shows in flight, e runs. */
    CHECK_ST(rp_async_restart(w.g, a->h), RP_OK);
    CHECK_STR(th_take_log(&w), "a e");
    uint64_t r2 = th_async_run(&w, a);
    CHECK(r2 != r1);
    CHECK_EQ(a->run, r2);
    CHECK_EQ(e->value, TH_IN_FLIGHT);
    CHECK_EQ(th_dep_count(&w, a), 0);
    CHECK_ST(th_async_track(&w, a, r1), RP_ESUPERSEDED);
    CHECK_ST(th_async_resolve(&w, a, r1, 3), RP_ESUPERSEDED);
    /* Restarted again while in flight: no change, e does not run. */
    CHECK_ST(rp_async_restart(w.g, a->h), RP_OK);
    CHECK_STR(th_take_log(&w), "a");
    uint64_t r3 = th_async_run(&w, a);
    CHECK(r3 != r2);
    CHECK_ST(th_async_track(&w, a, r2), RP_ESUPERSEDED);
    CHECK_ST(th_async_track(&w, a, r3), RP_OK);
    CHECK_ST(th_async_resolve(&w, a, r3, a->pending), RP_OK);
    CHECK_STR(th_take_log(&w), "e");
    CHECK_EQ(e->value, 3);
    CHECK_EQ(e->runs, 4);
    /* Inside a batch: the compute at once, e at the end. */
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(rp_async_restart(w.g, a->h), RP_OK);
    CHECK_STR(th_take_log(&w), "a");
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_STR(th_take_log(&w), "e");

    /* Unobserved, never read: the restart starts its first run. */
    th_node_t *b = th_async(&w, "b", th_sum, 0, s, NULL);
    CHECK_ST(rp_async_restart(w.g, b->h), RP_OK);
    CHECK_EQ(b->computes, 1);
    uint64_t b1 = th_async_run(&w, b);
    CHECK(b1 != 0);
    CHECK_ST(th_async_track(&w, b, b1), RP_OK);
    CHECK_ST(rp_async_restart(w.g, b->h), RP_OK);
    CHECK_EQ(b->computes, 2);
    CHECK(th_async_run(&w, b) != b1);
    CHECK_ST(th_async_resolve(&w, b, b1, 3), RP_ESUPERSEDED);
    CHECK_EQ(th_read(&w, b), TH_IN_FLIGHT);
    CHECK_EQ(b->computes, 2);
    /* Restart from inside its own run's track section: busy. */
    uint64_t b2 = th_async_run(&w, b);
    CHECK_ST(rp_async_track_begin(w.g, b->h, b2), RP_OK);
    CHECK_ST(rp_async_restart(w.g, b->h), RP_EBUSY);
    CHECK_ST(rp_async_resolve_begin(w.g, b->h, b2), RP_EBUSY);
    CHECK_ST(rp_async_track_end(w.g, b->h), RP_OK);
    CHECK_EQ(th_async_run(&w, b), b2);
    th_done(&w);
}

/* ------------------------------------------------------------- disposal */

static void disposal_during_and_between_sections(void)
{
    harness_begin("disposal_during_and_between_sections");
    th_world_t w;
    th_init(&w, 16, 0);
    w.log_mask |= TH_LOG_RELEASE;
    th_node_t *s = th_source(&w, "s", 1);
    th_node_t *t = th_source(&w, "t", 2);
    th_node_t *a = th_async(&w, "a", th_sum, 0, s, NULL);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, a, NULL);
    uint64_t run = th_async_run(&w, a);
    th_take_log(&w);

    /* Disposed from inside its own track section: the handle is stale at
     * once, the node freed when the section ends, its reader re-runs then. */
    CHECK_ST(rp_async_track_begin(w.g, a->h, run), RP_OK);
    CHECK_ST(rp_node_read(w.g, s->h), RP_OK);
    CHECK_ST(rp_node_dispose(w.g, a->h), RP_OK);
    CHECK_EQ(a->released, 0);
    uint64_t id = 5;
    CHECK_ST(rp_async_run(w.g, a->h, &id), RP_ESTALE);
    CHECK_EQ(id, 5);
    CHECK_ST(rp_node_read(w.g, t->h), RP_OK); /* recorded for nobody */
    CHECK_ST(rp_async_track_begin(w.g, a->h, run), RP_ESTALE);
    CHECK_ST(rp_async_resolve_begin(w.g, a->h, run), RP_ESTALE);
    CHECK_ST(rp_async_restart(w.g, a->h), RP_ESTALE);
    CHECK_STR(th_take_log(&w), "");
    CHECK_ST(rp_async_track_end(w.g, a->h), RP_OK);
    CHECK_STR(th_take_log(&w), "~a e");
    CHECK_EQ(a->released, 1);
    CHECK_EQ(e->runs, 2);
    CHECK_EQ(th_sub_count(&w, s), 0);
    CHECK_EQ(th_sub_count(&w, t), 0);
    CHECK_ST(rp_async_track_end(w.g, a->h), RP_ESTATE);
    CHECK_ST(rp_async_track_begin(w.g, a->h, run), RP_ESTALE);
    CHECK_ST(rp_async_resolve_begin(w.g, a->h, run), RP_ESTALE);
    CHECK_ST(rp_async_resolve_end(w.g, a->h, true), RP_ESTATE);
    th_check(&w);

    /* Disposed with a run in flight, between its sections; the slot is then
     * reused by another async node, whose runs are new ids. */
    th_node_t *b = th_async(&w, "b", th_sum, 0, s, t);
    CHECK_EQ(th_read(&w, b), TH_IN_FLIGHT);
    uint64_t rb = th_async_run(&w, b);
    CHECK_ST(th_async_track(&w, b, rb), RP_OK);
    CHECK_ST(th_dispose(&w, b), RP_OK);
    CHECK_EQ(b->released, 1);
    CHECK_EQ(th_sub_count(&w, s), 0);
    CHECK_ST(rp_async_track_begin(w.g, b->h, rb), RP_ESTALE);
    CHECK_ST(rp_async_resolve_begin(w.g, b->h, rb), RP_ESTALE);
    th_node_t *c = th_async(&w, "c", th_sum, 0, s, NULL);
    CHECK_EQ(c->h.slot, b->h.slot);
    CHECK_ST(rp_async_track_begin(w.g, b->h, rb), RP_ESTALE);
    CHECK_EQ(th_read(&w, c), TH_IN_FLIGHT);
    uint64_t rc = th_async_run(&w, c);
    CHECK(rc != rb);
    CHECK_ST(rp_async_track_begin(w.g, c->h, rb), RP_ESUPERSEDED);

    /* Disposed inside its resolve section: the end marks nobody (its reader
     * was marked by the disposal and re-runs once). */
    th_node_t *f = th_effect(&w, "f", th_sum, 0, c, NULL);
    th_take_log(&w);
    CHECK_ST(rp_async_resolve_begin(w.g, c->h, rc), RP_OK);
    c->value = 9;
    CHECK_ST(rp_node_dispose(w.g, c->h), RP_OK);
    CHECK_ST(rp_async_resolve_end(w.g, c->h, true), RP_OK);
    CHECK_STR(th_take_log(&w), "~c f");
    CHECK_EQ(f->runs, 2);
    CHECK_EQ(c->released, 1);
    CHECK_ST(rp_batch_end(w.g), RP_ESTATE); /* nothing left held */
    th_done(&w);
}

/* --------------------------------------------------------------- cycles */

static void cycles_through_the_node(void)
{
    harness_begin("cycles_through_the_node");
    th_world_t w;
    th_init(&w, 16, 0);
    th_node_t *s = th_source(&w, "s", 1);
    th_node_t *a = th_async(&w, "a", th_sum, 0, s, NULL);
    CHECK_EQ(th_read(&w, a), TH_IN_FLIGHT);
    uint64_t run = th_async_run(&w, a);
    CHECK_ST(th_async_track(&w, a, run), RP_OK);

    /* The node itself. */
    CHECK_ST(rp_async_track_begin(w.g, a->h, run), RP_OK);
    CHECK_ST(rp_node_read(w.g, a->h), RP_ECYCLE);
    CHECK_DIAGNOSTIC(&w, a);
    CHECK_ST(rp_async_track_end(w.g, a->h), RP_OK);
    CHECK_DEPS(&w, a, s);

    /* A derivation of it, up to date: c1 = 2a, c2 = c1 / 1. */
    th_node_t *c1 = th_computed(&w, "c1", th_scale, 2, a, NULL);
    th_node_t *c2 = th_computed(&w, "c2", th_div, 1, c1, NULL);
    CHECK_EQ(th_read(&w, c2), 2 * TH_IN_FLIGHT);
    CHECK_ST(rp_async_track_begin(w.g, a->h, run), RP_OK);
    CHECK_ST(rp_node_read(w.g, c1->h), RP_ECYCLE);
    CHECK_DIAGNOSTIC(&w, a, c1);
    CHECK_ST(rp_node_read(w.g, c2->h), RP_ECYCLE);
    CHECK_DIAGNOSTIC(&w, a, c2, c1);
    CHECK_ST(rp_async_track_end(w.g, a->h), RP_OK);
    CHECK_DEPS(&w, a, s);
    CHECK_EQ(th_dep_count(&w, c1), 1);
    th_check(&w);

    /* Stale: s was written, so a and its readers are PENDING. Bringing c2 up
     * to date would start a new run of a inside its own run's section. */
    CHECK_ST(th_write(&w, s, 2), RP_OK);
    th_take_log(&w);
    CHECK_ST(rp_async_track_begin(w.g, a->h, run), RP_OK);
    CHECK_ST(rp_node_read(w.g, c2->h), RP_ECYCLE);
    CHECK_DIAGNOSTIC(&w, a, c2, c1);
    CHECK_ST(rp_async_track_end(w.g, a->h), RP_OK);
    CHECK_STR(th_take_log(&w), "");
    CHECK_EQ(a->computes, 1);
    CHECK_EQ(th_async_run(&w, a), run);
    CHECK_DEPS(&w, a, s);
    th_check(&w);
    /* The graph still works: the read starts a new run. */
    CHECK_EQ(th_read(&w, c2), 2 * TH_IN_FLIGHT);
    CHECK_EQ(a->computes, 2);
    CHECK_ST(th_async_resolve(&w, a, run, 5), RP_ESUPERSEDED);
    run = th_async_run(&w, a);
    CHECK_ST(th_async_resolve(&w, a, run, 5), RP_OK);
    CHECK_EQ(th_read(&w, c2), 10);
    th_done(&w);
}

/* The same holes for a plain computed: a computed that, during its compute,
 * reads (untracked) a derivation of itself. */
static th_node_t *self_reader_target;

static long read_own_reader_untracked(th_world_t *w, th_node_t *self)
{
    long v = th_read(w, self->in[0]);
    if (self_reader_target != NULL) {
        CHECK_ST(rp_untracked_begin(w->g), RP_OK);
        CHECK_ST(rp_node_read(w->g, self_reader_target->h), RP_ECYCLE);
        CHECK_ST(rp_untracked_end(w->g), RP_OK);
    }
    return v;
}

static void computed_reading_its_stale_reader(void)
{
    harness_begin("computed_reading_its_stale_reader");
    th_world_t w;
    th_init(&w, 16, 0);
    th_node_t *s = th_source(&w, "s", 1);
    th_node_t *x = th_computed(&w, "x", read_own_reader_untracked, 0, s, NULL);
    th_node_t *y = th_computed(&w, "y", th_scale, 3, x, NULL);
    CHECK_EQ(th_read(&w, y), 3);
    /* x recomputes; while it does, y (PENDING, reading x) is read: a cycle.
     * Without the report, y was re-validated as unchanged, and kept its
     * value computed from the old x after x changed. */
    self_reader_target = y;
    CHECK_ST(th_write(&w, s, 2), RP_OK);
    CHECK_EQ(th_read(&w, x), 2);
    self_reader_target = NULL;
    CHECK_EQ(th_read(&w, y), 6);
    CHECK_EQ(y->computes, 2);
    th_done(&w);
}

/* --------------------------------------------------------------- misuse */

static th_node_t *misuse_target;

static long begin_track_inside(th_world_t *w, th_node_t *self)
{
    (void)self;
    uint64_t run = th_async_run(w, misuse_target);
    CHECK_ST(rp_async_track_begin(w->g, misuse_target->h, run), RP_ESTATE);
    CHECK_ST(rp_async_track_end(w->g, misuse_target->h), RP_ESTATE);
    CHECK_ST(rp_async_resolve_end(w->g, misuse_target->h, true), RP_ESTATE);
    return 1;
}

typedef struct other_thread_call {
    th_world_t *w;
    th_node_t *n;
    rp_status_t track_end, resolve_end, batch_end;
} other_thread_call_t;

static void *end_on_another_thread(void *arg)
{
    other_thread_call_t *call = arg;
    call->track_end = rp_async_track_end(call->w->g, call->n->h);
    call->resolve_end = rp_async_resolve_end(call->w->g, call->n->h, true);
    call->batch_end = rp_batch_end(call->w->g);
    return NULL;
}

static void ends_on_another_thread(th_world_t *w, th_node_t *n, rp_status_t want)
{
    other_thread_call_t call = {w, n, RP_OK, RP_OK, RP_OK};
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, end_on_another_thread, &call) == 0);
    pthread_join(thread, NULL);
    CHECK_ST(call.track_end, want);
    CHECK_ST(call.resolve_end, want);
    CHECK_ST(call.batch_end, want);
}

static void misuse_is_refused(void)
{
    harness_begin("misuse_is_refused");
    th_world_t w;
    th_init(&w, 16, 0);
    th_node_t *s = th_source(&w, "s", 1);
    th_node_t *a = th_async(&w, "a", th_sum, 0, s, NULL);
    th_node_t *b = th_async(&w, "b", th_sum, 0, s, NULL);
    CHECK_EQ(th_read(&w, a), TH_IN_FLIGHT);
    CHECK_EQ(th_read(&w, b), TH_IN_FLIGHT);
    uint64_t ra = th_async_run(&w, a), rb = th_async_run(&w, b);
    misuse_target = a;

    /* Inside a compute and an effect's run. */
    th_node_t *c = th_computed(&w, "c", begin_track_inside, 0, NULL, NULL);
    CHECK_EQ(th_read(&w, c), 1);
    th_node_t *e = th_effect(&w, "e", begin_track_inside, 0, NULL, NULL);
    CHECK_EQ(e->runs, 1);
    /* Inside an async node's own compute. */
    th_node_t *d = th_async(&w, "d", th_sum, 0, s, NULL);
    d->on_start = begin_track_inside;
    CHECK_EQ(th_read(&w, d), TH_IN_FLIGHT);
    CHECK_EQ(d->computes, 1);
    /* Inside an untracked section. */
    CHECK_ST(rp_untracked_begin(w.g), RP_OK);
    CHECK_ST(rp_async_track_begin(w.g, a->h, ra), RP_ESTATE);
    CHECK_ST(rp_untracked_end(w.g), RP_OK);
    /* Inside another track section, of another node or its own. */
    CHECK_ST(rp_async_track_begin(w.g, a->h, ra), RP_OK);
    CHECK_ST(rp_async_track_begin(w.g, b->h, rb), RP_ESTATE);
    CHECK_ST(rp_async_track_begin(w.g, a->h, ra), RP_ESTATE);
    /* The end of another node's section, or with an untracked section open. */
    CHECK_ST(rp_async_track_end(w.g, b->h), RP_ESTATE);
    CHECK_ST(rp_untracked_begin(w.g), RP_OK);
    CHECK_ST(rp_async_track_end(w.g, a->h), RP_ESTATE);
    CHECK_ST(rp_untracked_end(w.g), RP_OK);
    /* Ends on a thread that holds nothing. */
    ends_on_another_thread(&w, a, RP_ESTATE);
    CHECK_ST(rp_async_track_end(w.g, a->h), RP_OK);
    CHECK_ST(rp_async_track_end(w.g, a->h), RP_ESTATE);

    /* Ends without begins, outside and inside a batch; the batch still
     * balances afterwards. */
    CHECK_ST(rp_async_resolve_end(w.g, a->h, true), RP_ESTATE);
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(rp_async_resolve_end(w.g, a->h, true), RP_ESTATE);
    CHECK_ST(rp_async_track_end(w.g, a->h), RP_ESTATE);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_ST(rp_batch_end(w.g), RP_ESTATE);
    CHECK_ST(rp_untracked_begin(w.g), RP_OK);
    CHECK_ST(rp_async_resolve_end(w.g, a->h, true), RP_ESTATE);
    CHECK_ST(rp_untracked_end(w.g), RP_OK);

    /* A resolve section: its end on another thread, or naming another node,
     * is refused; nested resolve sections are refused. */
    CHECK_ST(rp_async_resolve_begin(w.g, a->h, ra), RP_OK);
    ends_on_another_thread(&w, a, RP_ESTATE);
    CHECK_ST(rp_async_resolve_end(w.g, b->h, true), RP_ESTATE);
    CHECK_ST(rp_async_resolve_begin(w.g, b->h, rb), RP_ESTATE);
    CHECK_ST(rp_async_resolve_end(w.g, a->h, false), RP_OK);
    CHECK_ST(rp_async_resolve_end(w.g, a->h, false), RP_ESTATE);

    /* Nothing is left held, and nothing ran. */
    CHECK_ST(rp_batch_end(w.g), RP_ESTATE);
    ends_on_another_thread(&w, a, RP_ESTATE);
    CHECK_EQ(a->computes, 1);
    CHECK_EQ(b->computes, 1);
    CHECK_EQ(th_async_run(&w, a), ra);
    CHECK_EQ(th_dep_count(&w, a), 0);
    misuse_target = NULL;
    th_done(&w);
}

/* ------------------------------------------------------------- failures */

static void failed_compute_leaves_the_node_dirty(void)
{
    harness_begin("failed_compute_leaves_the_node_dirty");
    th_world_t w;
    th_init(&w, 16, 0);
    th_node_t *s = th_source(&w, "s", 1);
    th_node_t *a = th_async(&w, "a", th_sum, 0, s, NULL);
    CHECK_EQ(th_read(&w, a), TH_IN_FLIGHT);
    uint64_t r1 = th_async_run(&w, a);
    CHECK_ST(th_async_track(&w, a, r1), RP_OK);
    CHECK_ST(th_async_resolve(&w, a, r1, 1), RP_OK);
    a->inject = RP_ENOMEM;
    CHECK_ST(rp_async_restart(w.g, a->h), RP_ENOMEM);
    CHECK_EQ(a->computes, 2);
    /* The run the failed compute started is not current, nor is the one
     * before (it was cancelled): both are refused. */
    uint64_t r2 = th_async_run(&w, a);
    CHECK_EQ(r2, a->run);
    CHECK_ST(rp_async_track_begin(w.g, a->h, r1), RP_ESUPERSEDED);
    CHECK_ST(rp_async_track_begin(w.g, a->h, r2), RP_ESUPERSEDED);
    CHECK_ST(rp_async_resolve_begin(w.g, a->h, r2), RP_ESUPERSEDED);
    th_check(&w);
    /* The next read retries. */
    a->inject = RP_OK;
    CHECK_EQ(th_read(&w, a), TH_IN_FLIGHT);
    CHECK_EQ(a->computes, 3);
    uint64_t r3 = th_async_run(&w, a);
    CHECK(r3 != r2 && r3 != r1);
    CHECK_ST(th_async_track(&w, a, r3), RP_OK);
    CHECK_ST(th_async_resolve(&w, a, r3, 2), RP_OK);
    CHECK_EQ(th_read(&w, a), 2);
    th_done(&w);
}

/* The source a computed disposes the next time it computes (then forgets it). */
static th_node_t *doomed;

static long read_then_dispose_doomed(th_world_t *w, th_node_t *self)
{
    long v = self->in[0] ? th_read(w, self->in[0]) : 0;
    if (doomed != NULL && self->in[0] == doomed) {
        CHECK_ST(th_dispose(w, doomed), RP_OK);
        self->in[0] = NULL;
        doomed = NULL;
    }
    return v;
}

/* A run's track section reads a computed that is still stale after its
 * compute (it disposed what it had just read): the async node is then stale,
 * and so must be what reads it, or the observing effect never re-validates
 * it (the fuzzer found an effect left unmarked below a stale async node). */
static void a_stale_read_in_a_track_section_marks_the_readers(void)
{
    harness_begin("a_stale_read_in_a_track_section_marks_the_readers");
    th_world_t w;
    th_init(&w, 16, 0);
    th_node_t *x = th_source(&w, "x", 5);
    th_node_t *c = th_computed(&w, "c", read_then_dispose_doomed, 0, x, NULL);
    th_node_t *a = th_async(&w, "a", th_sum, 0, c, NULL);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, a, NULL);
    uint64_t r1 = th_async_run(&w, a);
    CHECK_ST(th_async_track(&w, a, r1), RP_OK);
    CHECK_ST(th_async_resolve(&w, a, r1, 5), RP_OK);
    CHECK_EQ(e->value, 5);
    CHECK_ST(th_write(&w, x, 6), RP_OK); /* e's flush starts run 2, which has read nothing yet */
    uint64_t r2 = th_async_run(&w, a);
    CHECK(r2 != r1);
    CHECK_ST(th_write(&w, x, 7), RP_OK); /* c is stale; a, reading nothing, is not */
    CHECK_EQ(a->computes, 2);
    doomed = x;
    CHECK_ST(th_async_track(&w, a, r2), RP_OK); /* c recomputes, disposes x: c stays stale */
    CHECK(th_check(&w));
    /* e re-validated a at the section's end: c changed, so a started run 3. */
    CHECK_EQ(a->computes, 3);
    uint64_t r3 = th_async_run(&w, a);
    CHECK(r3 != r2);
    /* The section computed run 2's result, and run 2 is superseded: its
     * resolve is refused, and run 3, which has read nothing yet, must not be
     * given that result (the fuzzer's host once did). */
    CHECK_ST(th_async_resolve(&w, a, r2, a->pending), RP_ESUPERSEDED);
    CHECK_EQ(a->resolves, 1);
    CHECK_EQ(th_read(&w, a), TH_IN_FLIGHT);
    CHECK_EQ(th_dep_count(&w, a), 0);
    CHECK_EQ(a->computes, 3);
    CHECK_EQ(e->value, TH_IN_FLIGHT);
    th_done(&w);
}

int main(void)
{
    a_stale_read_in_a_track_section_marks_the_readers();
    created_dirty_first_read_starts_a_run();
    track_sections_record_dependencies();
    observed_write_starts_a_new_run();
    unobserved_write_supersedes_at_resolve();
    resolve_marks_readers();
    restart_starts_a_new_run();
    disposal_during_and_between_sections();
    cycles_through_the_node();
    computed_reading_its_stale_reader();
    misuse_is_refused();
    failed_compute_leaves_the_node_dirty();
    return harness_finish();
}
