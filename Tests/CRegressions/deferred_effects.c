/*
 * deferred_effects.c: RP_KIND_DEFERRED_EFFECT on one thread. A deferred effect
 * does not run when it becomes due: the engine calls `schedule` (once, until
 * the host calls rp_effect_update), and the update runs it if something it
 * read changed. Checked with exact values, counts and order:
 *
 *   - creation schedules once and does not run; the first update runs it and
 *     records what it read; an update with nothing changed does not run it;
 *   - writes made before the update coalesce into one `schedule` and one run
 *     that sees the latest values (inside and outside batches);
 *   - a write undone before the update, or a change cut off by a derivation
 *     whose value did not change, schedules it but the update does not run it;
 *   - schedules and runs interleave with plain effects in creation order;
 *   - rp_node_kind says RP_KIND_DEFERRED_EFFECT; creating one without a
 *     `schedule` (or `run`) callback is RP_EINVAL; rp_effect_update of a
 *     source or computed is RP_EKIND, of a running effect RP_EBUSY;
 *   - an effect that writes what it reads is scheduled again, not run in a
 *     loop, also when `schedule` updates it at once;
 *   - disposing a scheduled effect, then updating it: RP_ESTALE; disposing
 *     what it reads schedules it.
 *
 * _rp_graph_check holds after every step (th_check), and th_done checks that
 * every node was released once and every block freed.
 */
#include "testhost.h"

/* ------------------------------------------------------------ the host */

#define DE_NODES 32

/* What `schedule` saw, per node (indexed like w->nodes). */
typedef struct schedules {
    unsigned calls[DE_NODES];
    rp_node_t last[DE_NODES];
    unsigned wrong; /* calls with a graph, node or data that did not match */
    bool update_at_once;
    unsigned updates_at_once;
    rp_status_t update_status; /* the first non-OK status of an update made at once */
} schedules_t;

static void schedule_cb(void *host, rp_graph_t *graph, rp_node_t node, void *data)
{
    th_world_t *w = host;
    schedules_t *s = w->user;
    th_node_t *n = data;
    if (graph != w->g || n == NULL || n < w->nodes || n >= w->nodes + w->count || n->kind != RP_KIND_EFFECT) {
        s->wrong++;
        return;
    }
    if (n->created && !harness_same(n->h, node))
        s->wrong++;
    size_t index = (size_t)(n - w->nodes);
    s->calls[index]++;
    s->last[index] = node;
    th_log(w, TH_LOG_RUN, "?", n->name);
    if (s->update_at_once) {
        s->updates_at_once++;
        rp_status_t status = rp_effect_update(graph, node);
        if (status != RP_OK && s->update_status == RP_OK)
            s->update_status = status;
    }
}

static void de_init(th_world_t *w, schedules_t *s)
{
    th_setup(w, DE_NODES, 0);
    memset(s, 0, sizeof *s);
    w->config.callbacks.schedule = schedule_cb;
    w->user = s;
    th_open(w);
}

static unsigned scheduled(th_world_t *w, th_node_t *n)
{
    return ((schedules_t *)w->user)->calls[n - w->nodes];
}

/* A deferred effect. The host keeps it as an effect (the testhost's callbacks
 * check that kind); the graph is told it is deferred. */
static th_node_t *th_deferred(th_world_t *w, const char *name, th_body_t body, long arg, th_node_t *in0,
                              th_node_t *in1)
{
    th_node_t *n = th_prepare(w, name, RP_KIND_EFFECT, body, arg, in0, in1);
    rp_node_t h = TH_UNWRITTEN;
    CHECK_ST(rp_node_create(w->g, RP_KIND_DEFERRED_EFFECT, n, &h), RP_OK);
    CHECK(!harness_same(h, TH_UNWRITTEN));
    n->h = h;
    n->created = true;
    return n;
}

static rp_status_t update(th_world_t *w, th_node_t *n)
{
    return rp_effect_update(w->g, n->h);
}

static void de_done(th_world_t *w)
{
    CHECK_EQ(((schedules_t *)w->user)->wrong, 0);
    th_done(w);
}

/* ------------------------------------------------------------ scenarios */

static void creation_schedules_and_the_update_runs(void)
{
    harness_begin("creation_schedules_and_the_update_runs");
    th_world_t w;
    schedules_t s;
    de_init(&w, &s);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *b = th_source(&w, "b", 10);
    th_take_log(&w);
    th_node_t *d = th_deferred(&w, "d", th_sum, 0, a, b);
    /* Scheduled once, with its own handle, and not run. */
    CHECK_STR(th_take_log(&w), "?d");
    CHECK_EQ(scheduled(&w, d), 1);
    CHECK_NODE(s.last[d - w.nodes], d->h);
    CHECK_EQ(d->runs, 0);
    CHECK_EQ(th_dep_count(&w, d), 0);
    CHECK_EQ(th_sub_count(&w, a), 0);
    rp_kind_t kind = RP_KIND_SOURCE;
    CHECK_ST(rp_node_kind(w.g, d->h, &kind), RP_OK);
    CHECK_EQ(kind, RP_KIND_DEFERRED_EFFECT);
    CHECK_ST(rp_node_read(w.g, d->h), RP_EKIND);
    CHECK_ST(rp_source_set(w.g, d->h), RP_EKIND);
    rp_graph_stats_t stats = th_stats(&w);
    CHECK_EQ(stats.live_nodes, 3);
    CHECK_EQ(stats.live_edges, 0);
    th_check(&w);

    /* The update runs it once and records what it read, in read order. */
    CHECK_ST(update(&w, d), RP_OK);
    CHECK_STR(th_take_log(&w), "d");
    CHECK_EQ(d->runs, 1);
    CHECK_EQ(d->value, 11);
    CHECK_DEPS(&w, d, a, b);
    CHECK_SUBS(&w, a, d);
    CHECK_SUBS(&w, b, d);
    CHECK_EQ(scheduled(&w, d), 1);
    th_check(&w);

    /* Nothing changed: an update does nothing, however often. */
    CHECK_ST(update(&w, d), RP_OK);
    CHECK_ST(update(&w, d), RP_OK);
    CHECK_STR(th_take_log(&w), "");
    CHECK_EQ(d->runs, 1);
    CHECK_EQ(scheduled(&w, d), 1);
    th_check(&w);

    /* rp_effect_run runs it now, as it does any effect, and schedules nothing. */
    CHECK_ST(rp_effect_run(w.g, d->h), RP_OK);
    CHECK_STR(th_take_log(&w), "d");
    CHECK_EQ(d->runs, 2);
    CHECK_EQ(scheduled(&w, d), 1);
    CHECK_DEPS(&w, d, a, b);
    th_check(&w);
    CHECK_ST(rp_node_kind(w.g, d->h, &kind), RP_OK);
    CHECK_EQ(kind, RP_KIND_DEFERRED_EFFECT);
    de_done(&w);
}

static void writes_before_the_update_coalesce(void)
{
    harness_begin("writes_before_the_update_coalesce");
    th_world_t w;
    schedules_t s;
    de_init(&w, &s);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *b = th_source(&w, "b", 10);
    th_node_t *d = th_deferred(&w, "d", th_sum, 0, a, b);
    CHECK_ST(update(&w, d), RP_OK);
    CHECK_EQ(d->value, 11);
    th_take_log(&w);

    /* The first write schedules it; later ones find it scheduled. */
    CHECK_ST(th_write(&w, a, 2), RP_OK);
    CHECK_STR(th_take_log(&w), "?d");
    CHECK_EQ(scheduled(&w, d), 2);
    CHECK_EQ(d->runs, 1);
    th_check(&w);
    CHECK_ST(th_write(&w, a, 3), RP_OK);
    th_check(&w);
    CHECK_ST(th_write(&w, b, 20), RP_OK);
    th_check(&w);
    CHECK_ST(th_write(&w, a, 4), RP_OK);
    CHECK_STR(th_take_log(&w), "");
    CHECK_EQ(scheduled(&w, d), 2);
    CHECK_EQ(d->runs, 1);
    CHECK_EQ(d->value, 11);
    th_check(&w);
    /* One run, with the latest values. */
    CHECK_ST(update(&w, d), RP_OK);
    CHECK_STR(th_take_log(&w), "d");
    CHECK_EQ(d->runs, 2);
    CHECK_EQ(d->value, 24);
    CHECK_EQ(scheduled(&w, d), 2);
    th_check(&w);
    CHECK_ST(update(&w, d), RP_OK);
    CHECK_EQ(d->runs, 2);

    /* In a batch, `schedule` comes when the batch ends, once. */
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(th_write(&w, a, 5), RP_OK);
    CHECK_ST(th_write(&w, b, 30), RP_OK);
    CHECK_STR(th_take_log(&w), "");
    CHECK_EQ(scheduled(&w, d), 2);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_STR(th_take_log(&w), "?d");
    CHECK_EQ(scheduled(&w, d), 3);
    CHECK_EQ(d->runs, 2);
    th_check(&w);
    /* Writes after the schedule and before the update join it too. */
    CHECK_ST(th_write(&w, a, 6), RP_OK);
    CHECK_STR(th_take_log(&w), "");
    CHECK_ST(update(&w, d), RP_OK);
    CHECK_STR(th_take_log(&w), "d");
    CHECK_EQ(d->runs, 3);
    CHECK_EQ(d->value, 36);
    CHECK_EQ(scheduled(&w, d), 3);
    th_check(&w);
    de_done(&w);
}

static void an_update_with_nothing_changed_does_not_run(void)
{
    harness_begin("an_update_with_nothing_changed_does_not_run");
    th_world_t w;
    schedules_t s;
    de_init(&w, &s);
    th_node_t *a = th_source(&w, "a", 5);
    th_node_t *d = th_deferred(&w, "d", th_sum, 0, a, NULL);
    CHECK_ST(update(&w, d), RP_OK);
    CHECK_EQ(d->runs, 1);
    CHECK_EQ(d->value, 5);
    th_take_log(&w);

    /* Written, then written back before the update: scheduled, not run. */
    CHECK_ST(th_write(&w, a, 6), RP_OK);
    CHECK_ST(th_write(&w, a, 5), RP_OK);
    CHECK_STR(th_take_log(&w), "?d");
    CHECK_EQ(scheduled(&w, d), 2);
    th_check(&w);
    CHECK_ST(update(&w, d), RP_OK);
    CHECK_STR(th_take_log(&w), "");
    CHECK_EQ(d->runs, 1);
    CHECK_EQ(d->value, 5);
    CHECK_EQ(a->commits, 1);
    CHECK_DEPS(&w, d, a);
    th_check(&w);
    /* It is no longer scheduled: the next write schedules it again. */
    CHECK_ST(th_write(&w, a, 7), RP_OK);
    CHECK_STR(th_take_log(&w), "?d");
    CHECK_EQ(scheduled(&w, d), 3);
    CHECK_ST(update(&w, d), RP_OK);
    CHECK_STR(th_take_log(&w), "d");
    CHECK_EQ(d->runs, 2);
    CHECK_EQ(d->value, 7);
    th_check(&w);
    de_done(&w);
}

static void a_change_cut_off_upstream_does_not_run_it(void)
{
    harness_begin("a_change_cut_off_upstream_does_not_run_it");
    th_world_t w;
    schedules_t s;
    de_init(&w, &s);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *tens = th_computed(&w, "tens", th_div, 10, a, NULL);
    th_node_t *d = th_deferred(&w, "d", th_sum, 0, tens, NULL);
    CHECK_STR(th_take_log(&w), "?d");
    CHECK_ST(update(&w, d), RP_OK);
    CHECK_STR(th_take_log(&w), "d tens");
    CHECK_EQ(d->value, 0);
    CHECK_EQ(tens->computes, 1);

    /* The write makes it PENDING: scheduled without re-validating anything. */
    CHECK_ST(th_write(&w, a, 2), RP_OK);
    CHECK_STR(th_take_log(&w), "?d");
    CHECK_EQ(tens->computes, 1);
    th_check(&w);
    /* The update re-validates: `tens` recomputes to the same value, so the
     * effect does not run. */
    CHECK_ST(update(&w, d), RP_OK);
    CHECK_STR(th_take_log(&w), "tens");
    CHECK_EQ(tens->computes, 2);
    CHECK_EQ(d->runs, 1);
    CHECK_EQ(d->value, 0);
    CHECK_EQ(scheduled(&w, d), 2);
    th_check(&w);
    CHECK_ST(update(&w, d), RP_OK);
    CHECK_STR(th_take_log(&w), "");

    /* A change that gets through runs it, after the derivation. */
    CHECK_ST(th_write(&w, a, 15), RP_OK);
    CHECK_STR(th_take_log(&w), "?d");
    CHECK_ST(update(&w, d), RP_OK);
    CHECK_STR(th_take_log(&w), "tens d");
    CHECK_EQ(d->runs, 2);
    CHECK_EQ(d->value, 1);
    CHECK_EQ(tens->computes, 3);
    CHECK_EQ(scheduled(&w, d), 3);
    th_check(&w);
    de_done(&w);
}

static void schedules_and_runs_keep_creation_order(void)
{
    harness_begin("schedules_and_runs_keep_creation_order");
    th_world_t w;
    schedules_t s;
    de_init(&w, &s);
    w.log_mask = TH_LOG_RUN;
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *d1 = th_deferred(&w, "d1", th_sum, 0, a, NULL);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, a, NULL);
    th_node_t *d2 = th_deferred(&w, "d2", th_sum, 100, a, NULL);
    CHECK_STR(th_take_log(&w), "?d1 e ?d2");
    CHECK_ST(update(&w, d2), RP_OK);
    CHECK_ST(update(&w, d1), RP_OK);
    CHECK_STR(th_take_log(&w), "d2 d1");
    th_check(&w);
    /* One write: the plain effect runs, the deferred ones are scheduled, in
     * creation order. */
    CHECK_ST(th_write(&w, a, 2), RP_OK);
    CHECK_STR(th_take_log(&w), "?d1 e ?d2");
    CHECK_EQ(e->runs, 2);
    CHECK_EQ(e->value, 2);
    th_check(&w);
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(th_write(&w, a, 3), RP_OK);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_STR(th_take_log(&w), "e");
    CHECK_ST(update(&w, d1), RP_OK);
    CHECK_ST(update(&w, d2), RP_OK);
    CHECK_STR(th_take_log(&w), "d1 d2");
    CHECK_EQ(d1->value, 3);
    CHECK_EQ(d2->value, 103);
    CHECK_EQ(d1->runs, 2);
    CHECK_EQ(d2->runs, 2);
    CHECK_EQ(scheduled(&w, d1), 2);
    CHECK_EQ(scheduled(&w, d2), 2);
    th_check(&w);
    /* Created inside a batch: scheduled before rp_node_create returns, as a
     * plain effect created there runs at once; writes later in the batch
     * coalesce into that schedule. */
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    th_node_t *d3 = th_deferred(&w, "d3", th_sum, 0, a, NULL);
    CHECK_STR(th_take_log(&w), "?d3");
    CHECK_ST(th_write(&w, a, 4), RP_OK);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_STR(th_take_log(&w), "?d1 e ?d2");
    CHECK_EQ(scheduled(&w, d3), 1);
    CHECK_ST(update(&w, d3), RP_OK);
    CHECK_STR(th_take_log(&w), "d3");
    CHECK_EQ(d3->value, 4);
    th_check(&w);
    de_done(&w);
}

static void missing_callbacks_are_invalid(void)
{
    harness_begin("missing_callbacks_are_invalid");
    th_world_t w;
    th_init(&w, 8, 0); /* the testhost's callbacks: no `schedule` */
    rp_node_t node = TH_UNWRITTEN;
    CHECK_ST(rp_node_create(w.g, RP_KIND_DEFERRED_EFFECT, NULL, &node), RP_EINVAL);
    CHECK_NODE(node, TH_UNWRITTEN);
    CHECK_EQ(th_stats(&w).live_nodes, 0);
    th_check(&w);
    th_done(&w);

    /* `schedule` without `run` is not enough either. */
    schedules_t s;
    th_setup(&w, 8, 0);
    memset(&s, 0, sizeof s);
    w.config.callbacks.schedule = schedule_cb;
    w.config.callbacks.run = NULL;
    w.user = &s;
    th_open(&w);
    CHECK_ST(rp_node_create(w.g, RP_KIND_DEFERRED_EFFECT, NULL, &node), RP_EINVAL);
    CHECK_NODE(node, TH_UNWRITTEN);
    CHECK_EQ(th_stats(&w).live_nodes, 0);
    CHECK_EQ(s.calls[0], 0);
    th_check(&w);
    de_done(&w);
}

static rp_status_t self_update_status = RP_ECORRUPT;

/* Updates itself from its own run, then sums its inputs. */
static long update_self(th_world_t *w, th_node_t *self)
{
    self_update_status = rp_effect_update(w->g, self->h);
    return th_sum(w, self);
}

static void updates_of_other_kinds(void)
{
    harness_begin("updates_of_other_kinds");
    th_world_t w;
    schedules_t s;
    de_init(&w, &s);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *c = th_computed(&w, "c", th_scale, 2, a, NULL);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, c, NULL);
    th_take_log(&w);
    CHECK_ST(update(&w, a), RP_EKIND);
    CHECK_ST(update(&w, c), RP_EKIND);
    CHECK_ST(rp_effect_update(w.g, RP_NODE_NONE), RP_EINVAL);
    CHECK_STR(th_take_log(&w), "");
    CHECK_EQ(c->computes, 1);
    th_check(&w);
    /* A plain effect that is up to date: nothing to do. */
    CHECK_ST(update(&w, e), RP_OK);
    CHECK_EQ(e->runs, 1);
    /* A plain effect made due inside a batch: the update runs it there, and
     * the end of the batch finds nothing left to run. */
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(th_write(&w, a, 2), RP_OK);
    CHECK_EQ(e->runs, 1);
    CHECK_ST(update(&w, e), RP_OK);
    CHECK_STR(th_take_log(&w), "c e");
    CHECK_EQ(e->runs, 2);
    CHECK_EQ(e->value, 4);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_STR(th_take_log(&w), "");
    CHECK_EQ(e->runs, 2);
    th_check(&w);

    /* An effect updating itself from its own run: RP_EBUSY. */
    th_node_t *busy = th_deferred(&w, "busy", update_self, 0, a, NULL);
    CHECK_ST(update(&w, busy), RP_OK);
    CHECK_ST(self_update_status, RP_EBUSY);
    CHECK_EQ(busy->runs, 1);
    CHECK_EQ(busy->value, 2);
    th_check(&w);
    de_done(&w);
}

/* Reads in[0]; while it is below arg, writes it one higher. */
static long count_up_to_arg(th_world_t *w, th_node_t *self)
{
    long v = th_read(w, self->in[0]);
    if (v < self->arg)
        th_write(w, self->in[0], v + 1);
    return v;
}

static void an_effect_writing_what_it_reads_is_scheduled_again(void)
{
    harness_begin("an_effect_writing_what_it_reads_is_scheduled_again");
    th_world_t w;
    schedules_t s;
    de_init(&w, &s);
    w.log_mask = TH_LOG_RUN;
    th_node_t *a = th_source(&w, "a", 0);
    th_node_t *d = th_deferred(&w, "d", count_up_to_arg, 5, a, NULL);
    CHECK_STR(th_take_log(&w), "?d");
    /* Each update runs it once; its write schedules it again, before the
     * update returns. */
    for (long i = 1; i <= 5; i++) {
        CHECK_ST(update(&w, d), RP_OK);
        CHECK_STR(th_take_log(&w), "d ?d");
        CHECK_EQ(d->runs, i);
        CHECK_EQ(d->value, i - 1);
        CHECK_EQ(a->pending, i);
        CHECK_EQ(scheduled(&w, d), 1 + i);
        th_check(&w);
    }
    /* It reads 5 and writes nothing: done. */
    CHECK_ST(update(&w, d), RP_OK);
    CHECK_STR(th_take_log(&w), "d");
    CHECK_EQ(d->runs, 6);
    CHECK_EQ(d->value, 5);
    CHECK_EQ(scheduled(&w, d), 6);
    th_check(&w);
    CHECK_ST(update(&w, d), RP_OK);
    CHECK_STR(th_take_log(&w), "");
    CHECK_EQ(d->runs, 6);

    /* A host that updates from inside `schedule` gets the same sequence, one
     * run per schedule, without RP_ELOOP. */
    s.update_at_once = true;
    th_node_t *b = th_source(&w, "b", 0);
    th_node_t *f = th_deferred(&w, "f", count_up_to_arg, 5, b, NULL);
    CHECK_STR(th_take_log(&w), "?f f ?f f ?f f ?f f ?f f ?f f");
    CHECK_EQ(f->runs, 6);
    CHECK_EQ(f->value, 5);
    CHECK_EQ(b->pending, 5);
    CHECK_EQ(scheduled(&w, f), 6);
    CHECK_EQ(s.updates_at_once, 6);
    CHECK_ST(s.update_status, RP_OK);
    th_check(&w);
    s.update_at_once = false;
    CHECK_ST(update(&w, f), RP_OK);
    CHECK_STR(th_take_log(&w), "");
    de_done(&w);
}

static void disposal_of_a_scheduled_effect(void)
{
    harness_begin("disposal_of_a_scheduled_effect");
    th_world_t w;
    schedules_t s;
    de_init(&w, &s);
    w.log_mask = TH_LOG_RUN | TH_LOG_RELEASE;
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *d = th_deferred(&w, "d", th_sum, 0, a, NULL);
    CHECK_ST(update(&w, d), RP_OK);
    CHECK_ST(th_write(&w, a, 2), RP_OK);
    CHECK_STR(th_take_log(&w), "?d d ?d");
    CHECK_EQ(scheduled(&w, d), 2);
    /* Disposed while scheduled: released once, its handle stale, and the
     * host's pending update answered with RP_ESTALE. */
    CHECK_ST(th_dispose(&w, d), RP_OK);
    CHECK_STR(th_take_log(&w), "~d");
    CHECK_EQ(d->released, 1);
    CHECK_EQ(th_stats(&w).live_nodes, 1);
    CHECK_EQ(th_sub_count(&w, a), 0);
    th_check(&w);
    CHECK_ST(update(&w, d), RP_ESTALE);
    CHECK_ST(rp_effect_run(w.g, d->h), RP_ESTALE);
    CHECK_STR(th_take_log(&w), "");
    CHECK_EQ(d->runs, 1);
    CHECK_ST(th_write(&w, a, 3), RP_OK);
    CHECK_STR(th_take_log(&w), "");
    CHECK_EQ(scheduled(&w, d), 2);
    th_check(&w);

    /* Disposed before its first update. */
    th_node_t *fresh = th_deferred(&w, "fresh", th_sum, 0, a, NULL);
    CHECK_STR(th_take_log(&w), "?fresh");
    CHECK_ST(th_dispose(&w, fresh), RP_OK);
    CHECK_STR(th_take_log(&w), "~fresh");
    CHECK_ST(update(&w, fresh), RP_ESTALE);
    CHECK_EQ(fresh->runs, 0);
    th_check(&w);

    /* Disposing what it reads makes it due: scheduled; the update runs it,
     * and it reads nothing any more. */
    th_node_t *b = th_source(&w, "b", 7);
    th_node_t *g = th_deferred(&w, "g", th_sum, 0, a, b);
    CHECK_ST(update(&w, g), RP_OK);
    CHECK_EQ(g->value, 10);
    th_take_log(&w);
    CHECK_ST(th_dispose(&w, b), RP_OK);
    CHECK_STR(th_take_log(&w), "~b ?g");
    CHECK_EQ(scheduled(&w, g), 2);
    th_check(&w);
    CHECK_ST(update(&w, g), RP_OK);
    CHECK_STR(th_take_log(&w), "g");
    CHECK_EQ(g->runs, 2);
    CHECK_DEPS(&w, g, a);
    th_check(&w);
    /* Disposed while scheduled again, inside a batch. */
    CHECK_ST(th_write(&w, a, 4), RP_OK);
    CHECK_STR(th_take_log(&w), "?g");
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(th_dispose(&w, g), RP_OK);
    CHECK_ST(th_write(&w, a, 5), RP_OK);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_STR(th_take_log(&w), "~g");
    CHECK_ST(update(&w, g), RP_ESTALE);
    CHECK_EQ(th_stats(&w).live_nodes, 1);
    th_check(&w);
    de_done(&w);
}

int main(void)
{
    creation_schedules_and_the_update_runs();
    writes_before_the_update_coalesce();
    an_update_with_nothing_changed_does_not_run();
    a_change_cut_off_upstream_does_not_run_it();
    schedules_and_runs_keep_creation_order();
    missing_callbacks_are_invalid();
    updates_of_other_kinds();
    an_effect_writing_what_it_reads_is_scheduled_again();
    disposal_of_a_scheduled_effect();
    return harness_finish();
}
