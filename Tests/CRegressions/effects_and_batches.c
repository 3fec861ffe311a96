/*
 * effects_and_batches.c: effect order, batches, the implicit batch of an
 * effect's run, effects that write, the settle bound (RP_ELOOP), and effects
 * disposed while they run or wait.
 */
#include "testhost.h"

static void effects_run_in_creation_order(void)
{
    harness_begin("effects_run_in_creation_order");
    th_world_t w;
    th_init(&w, 32, 0);
    w.log_mask = TH_LOG_RUN;
    th_node_t *s1 = th_source(&w, "s1", 0);
    th_node_t *s2 = th_source(&w, "s2", 0);
    th_node_t *s3 = th_source(&w, "s3", 0);
    th_node_t *e1 = th_effect(&w, "e1", th_sum, 0, s3, NULL);
    th_node_t *e2 = th_effect(&w, "e2", th_sum, 0, s1, NULL);
    th_node_t *e3 = th_effect(&w, "e3", th_sum, 0, s2, NULL);
    CHECK_STR(th_take_log(&w), "e1 e2 e3");
    /* Triggered in the order s1, s2, s3; run in creation order. */
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(th_write(&w, s1, 1), RP_OK);
    CHECK_ST(th_write(&w, s2, 1), RP_OK);
    CHECK_ST(th_write(&w, s3, 1), RP_OK);
    CHECK_STR(th_take_log(&w), "");
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_STR(th_take_log(&w), "e1 e2 e3");
    /* A node created after a dispose (its slot may be reused) is still the newest. */
    CHECK_ST(th_dispose(&w, e1), RP_OK);
    th_node_t *e4 = th_effect(&w, "e4", th_sum, 0, s3, NULL);
    CHECK_STR(th_take_log(&w), "e4");
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(th_write(&w, s3, 2), RP_OK);
    CHECK_ST(th_write(&w, s2, 2), RP_OK);
    CHECK_ST(th_write(&w, s1, 2), RP_OK);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_STR(th_take_log(&w), "e2 e3 e4");
    /* One write that several effects read. */
    th_node_t *f1 = th_effect(&w, "f1", th_sum, 0, s1, NULL);
    th_node_t *f2 = th_effect(&w, "f2", th_sum, 0, s1, NULL);
    th_take_log(&w);
    CHECK_ST(th_write(&w, s1, 3), RP_OK);
    CHECK_STR(th_take_log(&w), "e2 f1 f2");
    CHECK_EQ(e2->runs, 4);
    CHECK_EQ(e3->runs, 3);
    CHECK_EQ(e4->runs, 2);
    CHECK_EQ(f1->runs + f2->runs, 4);
    th_done(&w);
}

/* The args of the effects run by many_effects_reached_out_of_order_..., in run order. */
static long noted_runs[1024];
static size_t noted_count;

static long note_run(th_world_t *w, th_node_t *self)
{
    long v = th_read(w, self->in[0]);
    if (noted_count < sizeof noted_runs / sizeof noted_runs[0])
        noted_runs[noted_count] = self->arg;
    noted_count++;
    return v;
}

/* More effects than the flush sorts by insertion, reached in an order that is
 * a permutation of their creation order, with creation orders spread over
 * more than one byte, two disposed while queued and two more queued in their
 * place (so the queue holds more entries than its room for live effects): one
 * flush runs the live ones in creation order, once each. The flush sorts them
 * in the walk stack's free room, which grows with the nodes read by two or
 * more (`shared` sources get a second reader) and with the deepest walk (a
 * chain `deep` long, re-validated once): with room for two runs, the sort
 * ends there; with room for one, it ends in the queue's array and moves out
 * of the merge's way; with four sources and no room, the flush takes them
 * from a heap. */
static void many_effects_reached_out_of_order_run_in_creation_order(const char *scenario, int source_count,
                                                                     int shared, int deep)
{
    harness_begin(scenario);
    enum { N = 512 };
    th_world_t w;
    th_init(&w, 5 * N + 8, 0);
    th_node_t *sources[N], *effects[N];
    for (int i = 0; i < source_count; i++)
        sources[i] = th_source(&w, "s", 0);
    for (int i = 0; i < shared; i++)
        CHECK_EQ(th_read(&w, th_computed(&w, "r", th_sum, 0, sources[i], NULL)), 0);
    th_node_t *chain = th_source(&w, "c", 0), *root = chain;
    for (int i = 0; i < deep; i++)
        chain = th_computed(&w, "c", th_sum, 1, chain, NULL);
    CHECK_EQ(th_read(&w, chain), deep);
    CHECK_ST(th_write(&w, root, 1), RP_OK);
    CHECK_EQ(th_read(&w, chain), deep + 1);
    /* 7 is prime to the source counts: effect i reads source 7i mod that
     * count, and writing the sources in index order reaches the effects out
     * of creation order. */
    for (int i = 0; i < N; i++)
        effects[i] = th_effect(&w, "e", note_run, i, sources[(i * 7) % source_count], NULL);
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    for (int j = 0; j < source_count; j++)
        CHECK_ST(th_write(&w, sources[j], 1), RP_OK);
    CHECK_ST(th_dispose(&w, effects[5]), RP_OK);
    CHECK_ST(th_dispose(&w, effects[200]), RP_OK);
    th_node_t *late1 = th_effect(&w, "late1", note_run, N, sources[3], NULL);
    th_node_t *late2 = th_effect(&w, "late2", note_run, N + 1, sources[1], NULL);
    noted_count = 0;
    CHECK_ST(th_write(&w, sources[3], 2), RP_OK);
    CHECK_ST(th_write(&w, sources[1], 2), RP_OK);
    CHECK_EQ(noted_count, 0);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_EQ(noted_count, N);
    bool ordered = true;
    for (size_t i = 1; i < noted_count && i < N; i++)
        ordered = ordered && noted_runs[i - 1] < noted_runs[i];
    CHECK(ordered);
    CHECK_EQ(noted_runs[0], 0);
    CHECK_EQ(noted_runs[5], 6);
    CHECK_EQ(noted_runs[N - 2], N);
    CHECK_EQ(noted_runs[N - 1], N + 1);
    CHECK_EQ(effects[0]->runs, 2);
    CHECK_EQ(late1->runs, 2);
    CHECK_EQ(late2->runs, 2);
    th_done(&w);
}

/* Effects created in a batch while others wait in the flush queue, both in
 * creation order and out of it, make the queue grow twice (it holds an entry
 * per effect): the waiting ones still run once each, in creation order. */
static void effects_created_while_others_wait_keep_the_queue_in_order(void)
{
    harness_begin("effects_created_while_others_wait_keep_the_queue_in_order");
    enum { WAITING = 16, LATE = 20 };
    th_world_t w;
    th_init(&w, 64, 0);
    th_node_t *sources[4], *effects[WAITING];
    for (int i = 0; i < 4; i++)
        sources[i] = th_source(&w, "s", 0);
    /* Effect i reads source 3i mod 4: writing the sources in index order
     * reaches effects 0, 4, 8, 12 in creation order, the others after them. */
    for (int i = 0; i < WAITING; i++)
        effects[i] = th_effect(&w, "e", note_run, i, sources[(i * 3) % 4], NULL);
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    for (int j = 0; j < 4; j++)
        CHECK_ST(th_write(&w, sources[j], 1), RP_OK);
    noted_count = 0;
    for (int i = 0; i < LATE; i++)
        th_effect(&w, "late", note_run, WAITING + i, sources[i % 4], NULL);
    CHECK_EQ(noted_count, LATE); /* each ran once, at its creation */
    noted_count = 0;
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_EQ(noted_count, WAITING);
    for (size_t i = 0; i < noted_count && i < WAITING; i++)
        CHECK_EQ(noted_runs[i], (long)i);
    for (int i = 0; i < WAITING; i++)
        CHECK_EQ(effects[i]->runs, 2);
    th_done(&w);
}

static void nested_batches_run_effects_at_the_outermost_end(void)
{
    harness_begin("nested_batches_run_effects_at_the_outermost_end");
    th_world_t w;
    th_init(&w, 32, 0);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *b = th_source(&w, "b", 2);
    th_node_t *c = th_computed(&w, "c", th_scale, 10, a, NULL);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, c, b);
    CHECK_EQ(e->value, 12);
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(th_write(&w, a, 2), RP_OK);
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(th_write(&w, b, 3), RP_OK);
    CHECK_ST(th_write(&w, a, 3), RP_OK);
    /* Reads inside a batch see the new values. */
    CHECK_EQ(th_read(&w, c), 30);
    CHECK_EQ(th_read(&w, b), 3);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_EQ(e->runs, 1);
    /* An effect created inside a batch still runs at once. */
    th_node_t *f = th_effect(&w, "f", th_sum, 0, a, NULL);
    CHECK_EQ(f->runs, 1);
    CHECK_EQ(f->value, 3);
    CHECK_ST(th_write(&w, a, 4), RP_OK);
    CHECK_EQ(f->runs, 1);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_EQ(e->runs, 2);
    CHECK_EQ(e->value, 43);
    CHECK_EQ(f->runs, 2);
    CHECK_EQ(c->computes, 3); /* once at creation, once read in the batch, once at the end */
    CHECK_ST(rp_batch_end(w.g), RP_ESTATE);
    /* An empty batch is fine. */
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_EQ(e->runs, 2);
    th_done(&w);
}

/* Reads in[0]; writes in[1] = v * 10 and in[2] = v * 100, checking that a read
 * right after a write sees it. */
static unsigned stale_reads_in_effect;

static long fan_out_writer(th_world_t *w, th_node_t *self)
{
    long v = th_read(w, self->in[0]);
    th_write(w, self->in[1], v * 10);
    if (th_read(w, self->in[1]) != v * 10)
        stale_reads_in_effect++;
    th_write(w, self->in[2], v * 100);
    return v;
}

static unsigned torn_views;

static long pair_watcher(th_world_t *w, th_node_t *self)
{
    long tens = th_read(w, self->in[0]);
    long hundreds = th_read(w, self->in[1]);
    if (hundreds != tens * 10)
        torn_views++;
    return tens + hundreds;
}

static void an_effect_run_is_an_implicit_batch(void)
{
    harness_begin("an_effect_run_is_an_implicit_batch");
    th_world_t w;
    th_init(&w, 32, 0);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *tens = th_source(&w, "tens", 0);
    th_node_t *hundreds = th_source(&w, "hundreds", 0);
    th_node_t *writer = th_prepare(&w, "writer", RP_KIND_EFFECT, fan_out_writer, 0, a, tens);
    writer->in[2] = hundreds;
    CHECK_ST(th_create(&w, writer), RP_OK);
    th_node_t *watcher = th_effect(&w, "watcher", pair_watcher, 0, tens, hundreds);
    CHECK_EQ(watcher->value, 110);
    th_take_log(&w);
    CHECK_ST(th_write(&w, a, 2), RP_OK);
    CHECK_STR(th_take_log(&w), "writer watcher");
    CHECK_EQ(watcher->runs, 2);
    CHECK_EQ(watcher->value, 220);
    CHECK_EQ(torn_views, 0);
    CHECK_EQ(stale_reads_in_effect, 0);
    th_done(&w);
}

/* Reads in[0]; while it is below arg, writes it one higher. */
static long count_up_to_arg(th_world_t *w, th_node_t *self)
{
    long v = th_read(w, self->in[0]);
    if (v < self->arg)
        th_write(w, self->in[0], v + 1);
    return v;
}

/* Reads in[0] and copies it into in[1]. */
static long copy_into(th_world_t *w, th_node_t *self)
{
    long v = th_read(w, self->in[0]);
    th_write(w, self->in[1], v);
    return v;
}

static void effects_writing_their_dependencies_settle(void)
{
    harness_begin("effects_writing_their_dependencies_settle");
    th_world_t w;
    th_init(&w, 32, 0);
    th_node_t *a = th_source(&w, "a", 0);
    th_node_t *e = th_effect(&w, "e", count_up_to_arg, 5, a, NULL);
    CHECK_EQ(e->runs, 6);
    CHECK_EQ(a->value, 5);
    CHECK_EQ(e->value, 5);
    CHECK_ST(th_write(&w, a, 2), RP_OK);
    CHECK_EQ(e->runs, 10);
    CHECK_EQ(a->value, 5);

    /* An effect triggered again by a write made later in the same flush runs
     * again, after the writer. */
    w.log_mask = TH_LOG_RUN;
    th_take_log(&w);
    th_node_t *x = th_source(&w, "x", 0);
    th_node_t *s = th_source(&w, "s", 0);
    th_node_t *reader = th_effect(&w, "reader", th_sum, 0, x, NULL);
    th_node_t *copier = th_effect(&w, "copier", copy_into, 0, s, x);
    CHECK_STR(th_take_log(&w), "reader copier");
    CHECK_ST(th_write(&w, s, 7), RP_OK);
    CHECK_STR(th_take_log(&w), "copier reader");
    CHECK_EQ(reader->value, 7);
    CHECK_EQ(copier->runs, 2);
    CHECK_EQ(reader->runs, 2);
    th_done(&w);
}

/* Reads in[0]; when in[1] (the arm) is non-zero, writes in[0] one higher. */
static long loop_when_armed(th_world_t *w, th_node_t *self)
{
    long v = th_read(w, self->in[0]);
    if (th_read(w, self->in[1]))
        th_write(w, self->in[0], v + 1);
    return v;
}

static size_t diagnostic(th_world_t *w, rp_node_t *nodes, size_t capacity)
{
    size_t count = 999;
    CHECK_ST(rp_graph_diagnostic(w->g, nodes, capacity, &count), RP_OK);
    return count;
}

static void runaway_effects_stop_at_the_settle_bound(void)
{
    harness_begin("runaway_effects_stop_at_the_settle_bound");
    th_world_t w;
    th_init(&w, 32, 10);
    th_node_t *arm = th_source(&w, "arm", 0);
    th_node_t *a = th_source(&w, "a", 0);
    th_node_t *looper = th_effect(&w, "looper", loop_when_armed, 0, a, arm);
    CHECK_EQ(looper->runs, 1);
    CHECK_EQ(diagnostic(&w, NULL, 0), 0);
    /* Armed by a write: the flush runs it exactly `bound` times, then stops. */
    CHECK_ST(th_write(&w, arm, 1), RP_ELOOP);
    CHECK_EQ(looper->runs, 11);
    rp_node_t diag[4];
    CHECK_EQ(diagnostic(&w, diag, 4), 1);
    CHECK_NODE(diag[0], looper->h);
    CHECK(th_check(&w));
    /* The graph goes on: disarmed, it settles, and later writes work. */
    CHECK_ST(th_write(&w, arm, 0), RP_OK);
    unsigned runs = looper->runs;
    CHECK_ST(th_write(&w, a, 100), RP_OK);
    CHECK_EQ(looper->runs, runs + 1);
    CHECK_EQ(looper->value, 100);

    /* From rp_batch_end. */
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(th_write(&w, arm, 1), RP_OK);
    CHECK_ST(rp_batch_end(w.g), RP_ELOOP);
    CHECK_EQ(diagnostic(&w, diag, 4), 1);
    CHECK_ST(th_write(&w, arm, 0), RP_OK);
    th_check(&w);

    /* Two runaway effects and a settling one between them: the diagnostic names
     * the runaway ones that reached the bound, in creation order. */
    th_node_t *arm2 = th_source(&w, "arm2", 0);
    th_node_t *b = th_source(&w, "b", 0);
    th_node_t *c = th_source(&w, "c", 0);
    th_node_t *first = th_effect(&w, "first", loop_when_armed, 0, b, arm2);
    th_node_t *calm = th_effect(&w, "calm", th_sum, 0, arm2, NULL);
    th_node_t *second = th_effect(&w, "second", loop_when_armed, 0, c, arm2);
    CHECK_ST(th_write(&w, arm2, 1), RP_ELOOP);
    size_t count = diagnostic(&w, diag, 4);
    CHECK(count == 1 || count == 2);
    CHECK_NODE(diag[0], first->h);
    if (count == 2)
        CHECK_NODE(diag[1], second->h);
    CHECK_EQ(first->runs, 11);
    /* The capacity limits the copy, not the count. */
    rp_node_t one[1] = {TH_UNWRITTEN};
    CHECK_EQ(diagnostic(&w, one, 1), count);
    CHECK_NODE(one[0], first->h);
    /* Whatever the stopped flush left undone, the next change to what they
     * read runs each of them again. */
    CHECK_ST(th_write(&w, arm2, 0), RP_OK);
    CHECK_EQ(calm->value, 0);
    CHECK(calm->runs >= 2);
    unsigned runs_first = first->runs, runs_calm = calm->runs, runs_second = second->runs;
    CHECK_ST(th_write(&w, arm2, 2), RP_ELOOP); /* armed again: loops again */
    CHECK(first->runs > runs_first);
    CHECK_ST(th_write(&w, arm2, 0), RP_OK);
    CHECK(calm->runs > runs_calm);
    CHECK(second->runs > runs_second);
    CHECK_EQ(calm->value, 0);
    th_done(&w);
}

static void a_runaway_first_run_is_reported_by_create(void)
{
    harness_begin("a_runaway_first_run_is_reported_by_create");
    th_world_t w;
    th_init(&w, 32, 5);
    th_node_t *arm = th_source(&w, "arm", 1);
    th_node_t *a = th_source(&w, "a", 0);
    th_node_t *e = th_prepare(&w, "e", RP_KIND_EFFECT, loop_when_armed, 0, a, arm);
    CHECK_ST(th_create(&w, e), RP_ELOOP);
    CHECK(e->created);
    rp_kind_t kind;
    CHECK_ST(rp_node_kind(w.g, e->h, &kind), RP_OK);
    CHECK_EQ(kind, RP_KIND_EFFECT);
    rp_node_t diag[2];
    CHECK_EQ(diagnostic(&w, diag, 2), 1);
    CHECK_NODE(diag[0], e->h);
    CHECK(e->runs >= 5 && e->runs <= 6);
    CHECK_ST(th_write(&w, arm, 0), RP_OK);
    th_done(&w);
}

static void the_default_settle_bound_is_100(void)
{
    harness_begin("the_default_settle_bound_is_100");
    th_world_t w;
    th_init(&w, 32, 0);
    th_node_t *arm = th_source(&w, "arm", 0);
    th_node_t *a = th_source(&w, "a", 0);
    th_node_t *e = th_effect(&w, "e", loop_when_armed, 0, a, arm);
    CHECK_ST(th_write(&w, arm, 1), RP_ELOOP);
    CHECK_EQ(e->runs, 1 + RP_DEFAULT_SETTLE_BOUND);
    CHECK_ST(th_write(&w, arm, 0), RP_OK);
    th_done(&w);
}

/* Disposes itself when in[0] is 2, then checks what it can of itself. */
static rp_status_t self_dispose_status, self_kind_status;
static unsigned released_during_run;

static long dispose_self_at_two(th_world_t *w, th_node_t *self)
{
    long v = th_read(w, self->in[0]);
    if (v == 2) {
        self_dispose_status = rp_node_dispose(w->g, self->h);
        rp_kind_t kind;
        self_kind_status = rp_node_kind(w->g, self->h, &kind);
        released_during_run = self->released;
    }
    return v;
}

/* Disposes in[1] when in[0] is 2. */
static long dispose_other_at_two(th_world_t *w, th_node_t *self)
{
    long v = th_read(w, self->in[0]);
    if (v == 2)
        CHECK_ST(rp_node_dispose(w->g, self->in[1]->h), RP_OK);
    return v;
}

static void disposing_effects_while_they_run_or_wait(void)
{
    harness_begin("disposing_effects_while_they_run_or_wait");
    th_world_t w;
    th_init(&w, 32, 0);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *e = th_effect(&w, "e", dispose_self_at_two, 0, a, NULL);
    size_t live = th_stats(&w).live_nodes;
    CHECK_ST(th_write(&w, a, 2), RP_OK);
    CHECK_ST(self_dispose_status, RP_OK);
    CHECK_ST(self_kind_status, RP_ESTALE); /* stale at once */
    CHECK_EQ(released_during_run, 0);     /* freed when the run finished */
    CHECK_EQ(e->released, 1);
    CHECK_EQ(e->runs, 2);
    CHECK_EQ(th_stats(&w).live_nodes, live - 1);
    CHECK_EQ(th_sub_count(&w, a), 0);
    CHECK_ST(th_write(&w, a, 3), RP_OK);
    CHECK_EQ(e->runs, 2);
    rp_kind_t kind;
    CHECK_ST(rp_node_kind(w.g, e->h, &kind), RP_ESTALE);

    /* An effect disposed by an earlier one in the same flush does not run. */
    th_node_t *b = th_source(&w, "b", 1);
    th_node_t *killer = th_effect(&w, "killer", dispose_other_at_two, 0, b, NULL);
    th_node_t *victim = th_effect(&w, "victim", th_sum, 0, b, NULL);
    killer->in[1] = victim;
    CHECK_ST(th_write(&w, b, 2), RP_OK);
    CHECK_EQ(killer->runs, 2);
    CHECK_EQ(victim->runs, 1);
    CHECK_EQ(victim->released, 1);
    CHECK(th_check(&w));

    /* An effect disposed inside a batch after it was triggered does not run. */
    th_node_t *f = th_effect(&w, "f", th_sum, 0, b, NULL);
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(th_write(&w, b, 5), RP_OK);
    CHECK_ST(th_dispose(&w, f), RP_OK);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_EQ(f->runs, 1);
    CHECK_EQ(f->released, 1);
    th_done(&w);
}

/* Disposes itself on its second compute. */
static long dispose_self_on_second_compute(th_world_t *w, th_node_t *self)
{
    long v = th_read(w, self->in[0]);
    if (self->computes == 2)
        CHECK_ST(rp_node_dispose(w->g, self->h), RP_OK);
    return v;
}

static void a_computed_disposed_while_it_computes(void)
{
    harness_begin("a_computed_disposed_while_it_computes");
    th_world_t w;
    th_init(&w, 32, 0);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *c = th_computed(&w, "c", dispose_self_on_second_compute, 0, a, NULL);
    CHECK_EQ(th_read(&w, c), 1);
    CHECK_ST(th_write(&w, a, 2), RP_OK);
    rp_status_t st;
    th_get(&w, c, &st); /* the status of this read is not specified */
    CHECK_EQ(c->computes, 2);
    CHECK_EQ(c->released, 1);
    CHECK_EQ(th_sub_count(&w, a), 0);
    CHECK_EQ(th_stats(&w).live_nodes, 1);
    th_get(&w, c, &st);
    CHECK_ST(st, RP_ESTALE);
    th_done(&w);
}

/* Creates, once, an effect reading in[1]; checks that it ran at once. */
static th_node_t *created_inside;
static unsigned inner_runs_at_creation;

static long create_an_effect_once(th_world_t *w, th_node_t *self)
{
    long v = th_read(w, self->in[0]);
    if (created_inside == NULL) {
        created_inside = th_prepare(w, "inner", RP_KIND_EFFECT, th_sum, 0, self->in[1], NULL);
        CHECK_ST(th_create(w, created_inside), RP_OK);
        inner_runs_at_creation = created_inside->runs;
    }
    return v;
}

static void effects_created_inside_an_effect(void)
{
    harness_begin("effects_created_inside_an_effect");
    th_world_t w;
    th_init(&w, 32, 0);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *b = th_source(&w, "b", 2);
    th_node_t *outer = th_effect(&w, "outer", create_an_effect_once, 0, a, b);
    CHECK_EQ(inner_runs_at_creation, 1);
    CHECK(created_inside != NULL && created_inside->value == 2);
    /* The inner effect is not a dependency of the outer one. */
    CHECK_DEPS(&w, outer, a);
    CHECK_ST(th_write(&w, b, 3), RP_OK);
    CHECK_EQ(created_inside->runs, 2);
    CHECK_EQ(outer->runs, 1);
    CHECK_ST(th_write(&w, a, 3), RP_OK);
    CHECK_EQ(outer->runs, 2);
    CHECK_EQ(created_inside->runs, 2);
    th_done(&w);
}

/* rp_effect_run runs an effect at once, even inside a batch, keeps its place in
 * the creation order, and refuses other kinds and a run already in progress. */
static rp_status_t run_self_status;

static long run_self(th_world_t *w, th_node_t *self)
{
    long v = th_read(w, self->in[0]);
    run_self_status = rp_effect_run(w->g, self->h);
    return v;
}

static void running_an_effect_explicitly(void)
{
    harness_begin("running_an_effect_explicitly");
    th_world_t w;
    th_init(&w, 32, 0);
    w.log_mask = TH_LOG_RUN;
    th_node_t *s = th_source(&w, "s", 0);
    th_node_t *c = th_computed(&w, "c", th_sum, 0, s, NULL);
    th_node_t *e1 = th_effect(&w, "e1", th_sum, 0, s, NULL);
    th_node_t *e2 = th_effect(&w, "e2", th_sum, 0, s, NULL);
    CHECK_STR(th_take_log(&w), "e1 e2");
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(rp_effect_run(w.g, e1->h), RP_OK);
    CHECK_STR(th_take_log(&w), "e1");
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_ST(th_write(&w, s, 1), RP_OK);
    CHECK_STR(th_take_log(&w), "e1 e2");
    CHECK_ST(rp_effect_run(w.g, s->h), RP_EKIND);
    CHECK_ST(rp_effect_run(w.g, c->h), RP_EKIND);
    th_node_t *e3 = th_effect(&w, "e3", run_self, 0, s, NULL);
    CHECK_ST(run_self_status, RP_EBUSY);
    CHECK_EQ(e3->runs, 1);
    CHECK_ST(th_dispose(&w, e2), RP_OK);
    CHECK_ST(rp_effect_run(w.g, e2->h), RP_ESTALE);
    th_done(&w);
}

int main(void)
{
    effects_run_in_creation_order();
    many_effects_reached_out_of_order_run_in_creation_order("many effects out of order (sorted in the room)", 512, 512,
                                                            600);
    many_effects_reached_out_of_order_run_in_creation_order("many effects out of order (sorted, moved)", 512, 300, 0);
    many_effects_reached_out_of_order_run_in_creation_order("many effects out of order (heap)", 4, 0, 0);
    effects_created_while_others_wait_keep_the_queue_in_order();
    nested_batches_run_effects_at_the_outermost_end();
    an_effect_run_is_an_implicit_batch();
    effects_writing_their_dependencies_settle();
    runaway_effects_stop_at_the_settle_bound();
    a_runaway_first_run_is_reported_by_create();
    the_default_settle_bound_is_100();
    disposing_effects_while_they_run_or_wait();
    a_computed_disposed_while_it_computes();
    effects_created_inside_an_effect();
    running_an_effect_explicitly();
    return harness_finish();
}
