/*
 * savepoints.c: rp_savepoint_begin / rollback / release (issue 36).
 *
 * A savepoint's rollback puts the graph back as it was at the begin, even
 * when reads inside it brought nodes up to date from the writes it undoes:
 * effects queued only by those writes do not run, derivations recomputed
 * get their values back (from the host's copy, or recomputed), and the
 * sources' values come back without counting as a change.
 */
#include "testhost.h"

/* The host's copies (callbacks.save / restore): a stack, as ripple.h asks. */
typedef struct copy {
    th_node_t *node;
    long value;
    bool has_value;
} copy_t;

static copy_t copies[64];
static size_t copy_count;
static unsigned saves, applied, dropped, restore_mismatches;

static bool save_cb(void *host, rp_graph_t *graph, rp_node_t node, void *data) {
    (void)host, (void)graph, (void)node;
    th_node_t *n = data;
    if (copy_count == sizeof copies / sizeof copies[0]) return false;
    copies[copy_count++] = (copy_t){n, n->value, n->has_value};
    saves++;
    return true;
}

static void restore_cb(void *host, rp_graph_t *graph, rp_node_t node, void *data, bool apply) {
    (void)host, (void)graph, (void)node;
    copy_t copy = copies[--copy_count];
    if (data != NULL && copy.node != data) restore_mismatches++;
    if (!apply) {
        dropped++;
        return;
    }
    applied++;
    copy.node->value = copy.value;
    copy.node->has_value = copy.has_value;
}

static void world(th_world_t *w, bool with_copies) {
    th_setup(w, 32, 0);
    if (with_copies) {
        w->config.callbacks.save = save_cb;
        w->config.callbacks.restore = restore_cb;
    }
    th_open(w);
    copy_count = 0;
    saves = applied = dropped = restore_mismatches = 0;
}

/* The defect: write, read a derivation of the write that an effect observes,
 * then roll back. */
static void write_read_rollback(bool with_copies) {
    harness_begin(with_copies ? "write, read, rollback (host copies)" : "write, read, rollback (recomputed)");
    th_world_t w;
    world(&w, with_copies);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *d = th_computed(&w, "d", th_scale, 10, a, NULL);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, d, NULL);
    CHECK_EQ(e->runs, 1);
    CHECK_EQ(d->computes, 1);
    (void)th_take_log(&w);

    rp_savepoint_t sp;
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(rp_savepoint_begin(w.g, &sp), RP_OK);
    CHECK_EQ(sp.depth, 1);
    th_write(&w, a, 5);
    CHECK_EQ(th_read(&w, d), 50);
    CHECK_EQ(d->computes, 2);
    th_write(&w, a, 1); /* the host stores the value back */
    CHECK_ST(rp_savepoint_rollback(w.g, &sp), RP_OK);
    CHECK_EQ(d->value, 10);
    CHECK_EQ(d->computes, with_copies ? 2 : 3);
    CHECK_ST(rp_batch_end(w.g), RP_OK);

    CHECK_EQ(e->runs, 1);
    CHECK_EQ(d->computes, with_copies ? 2 : 3);
    CHECK_EQ(th_read(&w, d), 10);
    CHECK_EQ(d->computes, with_copies ? 2 : 3);
    CHECK_EQ(a->value, 1);
    CHECK_STR(th_take_log(&w), with_copies ? "d" : "d d");
    if (with_copies) {
        CHECK_EQ(saves, 1);
        CHECK_EQ(applied, 1);
        CHECK_EQ(copy_count, 0);
        CHECK_EQ(restore_mismatches, 0);
    }
    th_check(&w);

    /* The graph works on: the value from before is no change, a new one is. */
    th_write(&w, a, 1);
    CHECK_EQ(e->runs, 1);
    th_write(&w, a, 5);
    CHECK_EQ(e->runs, 2);
    CHECK_EQ(e->value, 50);
    /* The transaction's own value again is a change too (the readers never saw it). */
    th_write(&w, a, 1);
    CHECK_EQ(e->runs, 3);
    CHECK_EQ(e->value, 10);
    th_done(&w);
}

/* A released savepoint keeps everything; the host's copies are dropped. */
static void release_keeps(void) {
    harness_begin("release keeps the writes");
    th_world_t w;
    world(&w, true);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *d = th_computed(&w, "d", th_scale, 10, a, NULL);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, d, NULL);
    rp_savepoint_t sp;
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(rp_savepoint_begin(w.g, &sp), RP_OK);
    th_write(&w, a, 5);
    CHECK_EQ(th_read(&w, d), 50);
    CHECK_ST(rp_savepoint_release(w.g, &sp), RP_OK);
    CHECK_EQ(copy_count, 0);
    CHECK_EQ(dropped, 1);
    CHECK_EQ(applied, 0);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_EQ(e->runs, 2);
    CHECK_EQ(e->value, 50);
    CHECK_EQ(d->computes, 2);
    th_done(&w);
}

/* Nested: the inner one rolls back after reads, the outer one keeps its own
 * write, made before: only the outer write's effect runs, once. */
static void nested(void) {
    harness_begin("nested: inner rolls back, outer released");
    th_world_t w;
    world(&w, true);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *b = th_source(&w, "b", 2);
    th_node_t *d = th_computed(&w, "d", th_scale, 10, a, NULL);
    th_node_t *both = th_computed(&w, "both", th_sum, 0, a, b);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, d, NULL);
    th_node_t *f = th_effect(&w, "f", th_sum, 0, b, NULL);
    th_node_t *g = th_effect(&w, "g", th_sum, 0, both, NULL);
    rp_savepoint_t outer, inner;
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(rp_savepoint_begin(w.g, &outer), RP_OK);
    th_write(&w, b, 3);
    CHECK_ST(rp_savepoint_begin(w.g, &inner), RP_OK);
    CHECK_EQ(inner.depth, 2);
    th_write(&w, a, 7);
    CHECK_EQ(th_read(&w, d), 70);
    CHECK_EQ(th_read(&w, both), 10);
    /* Out of order: the outer one cannot close while the inner one is open. */
    CHECK_ST(rp_savepoint_release(w.g, &outer), RP_ESTATE);
    CHECK_ST(rp_savepoint_rollback(w.g, &outer), RP_ESTATE);
    th_write(&w, a, 1);
    CHECK_ST(rp_savepoint_rollback(w.g, &inner), RP_OK);
    CHECK_ST(rp_savepoint_rollback(w.g, &inner), RP_ESTATE);
    CHECK_EQ(d->value, 10);
    CHECK_ST(rp_savepoint_release(w.g, &outer), RP_OK);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_EQ(e->runs, 1);
    CHECK_EQ(f->runs, 2);
    CHECK_EQ(f->value, 3);
    CHECK_EQ(g->runs, 2);
    CHECK_EQ(g->value, 4);
    CHECK_EQ(copy_count, 0);
    th_check(&w);
    th_done(&w);
}

/* A node whose reads changed inside the savepoint is recomputed, not given
 * the host's copy (the copy read other nodes). */
static void dynamic_reads(void) {
    harness_begin("reads that changed inside the savepoint");
    th_world_t w;
    world(&w, true);
    th_node_t *c = th_source(&w, "c", 1);
    th_node_t *x = th_source(&w, "x", 4);
    th_node_t *y = th_source(&w, "y", 9);
    th_node_t *p = th_prepare(&w, "p", RP_KIND_COMPUTED, th_pick, 0, c, x);
    p->in[2] = y;
    CHECK_ST(th_create(&w, p), RP_OK);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, p, NULL);
    CHECK_EQ(e->value, 4);
    rp_savepoint_t sp;
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(rp_savepoint_begin(w.g, &sp), RP_OK);
    th_write(&w, c, 0);
    CHECK_EQ(th_read(&w, p), 9);
    th_write(&w, c, 1);
    CHECK_ST(rp_savepoint_rollback(w.g, &sp), RP_OK);
    CHECK_EQ(applied, 0);
    CHECK_EQ(dropped, 1);
    CHECK_EQ(p->value, 4);
    CHECK_EQ(p->computes, 3);
    /* The recompute read x again, not y: y is told at once that it lost its
     * last watcher (the fuzzer found it told only by a later call). */
    CHECK_EQ(y->watched, 1);
    CHECK_EQ(y->unwatched, 1);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_EQ(e->runs, 1);
    th_node_t *const want[] = {c, x};
    CHECK(th_deps_are(&w, p, want, 2));
    /* y is no dependency any more: its writes change nothing. */
    th_write(&w, y, 10);
    CHECK_EQ(e->runs, 1);
    th_write(&w, x, 5);
    CHECK_EQ(e->runs, 2);
    CHECK_EQ(e->value, 5);
    th_done(&w);
}

/* A write earlier in the batch, before the savepoint: its effect still runs,
 * once, with the value from before the savepoint. */
static void stale_at_begin(void) {
    harness_begin("a node stale at the begin");
    th_world_t w;
    world(&w, true);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *d = th_computed(&w, "d", th_scale, 10, a, NULL);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, d, NULL);
    rp_savepoint_t sp;
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    th_write(&w, a, 2);
    CHECK_ST(rp_savepoint_begin(w.g, &sp), RP_OK);
    th_write(&w, a, 7);
    CHECK_EQ(th_read(&w, d), 70);
    th_write(&w, a, 2);
    CHECK_ST(rp_savepoint_rollback(w.g, &sp), RP_OK);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_EQ(e->runs, 2);
    CHECK_EQ(e->value, 20);
    th_check(&w);
    th_done(&w);
}

/* A write written back without any read: nothing runs, and the source's
 * commit state is the value from before. */
static void write_only(void) {
    harness_begin("a write and its write-back, unread");
    th_world_t w;
    world(&w, true);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, a, NULL);
    rp_savepoint_t sp;
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(rp_savepoint_begin(w.g, &sp), RP_OK);
    th_write(&w, a, 3);
    th_write(&w, a, 1);
    CHECK_ST(rp_savepoint_rollback(w.g, &sp), RP_OK);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_EQ(e->runs, 1);
    CHECK_EQ(saves, 0);
    th_write(&w, a, 3);
    CHECK_EQ(e->runs, 2);
    CHECK_EQ(e->value, 3);
    th_done(&w);
}

/* A derivation created inside the savepoint, read there: after the rollback
 * its value is the one from the values restored. */
static void created_inside(void) {
    harness_begin("a node created inside the savepoint");
    th_world_t w;
    world(&w, true);
    th_node_t *a = th_source(&w, "a", 1);
    rp_savepoint_t sp;
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(rp_savepoint_begin(w.g, &sp), RP_OK);
    th_write(&w, a, 6);
    th_node_t *d = th_computed(&w, "d", th_scale, 10, a, NULL);
    CHECK_EQ(th_read(&w, d), 60);
    th_write(&w, a, 1);
    CHECK_ST(rp_savepoint_rollback(w.g, &sp), RP_OK);
    CHECK_EQ(d->value, 10);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_EQ(th_read(&w, d), 10);
    th_done(&w);
}

/* An effect that runs inside the savepoint (created there, or run again by
 * rp_effect_run) sees values the rollback takes back: it runs again when the
 * batch ends and sees the values restored (the fuzzer found the one created
 * there left out of date, having seen a value no one else ever would). */
static void effect_ran_inside(bool created) {
    harness_begin(created ? "an effect created inside the savepoint" : "an effect run inside the savepoint");
    th_world_t w;
    world(&w, true);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *e = created ? NULL : th_effect(&w, "e", th_sum, 0, a, NULL);
    rp_savepoint_t sp;
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(rp_savepoint_begin(w.g, &sp), RP_OK);
    th_write(&w, a, 6);
    if (created) {
        e = th_effect(&w, "e", th_sum, 0, a, NULL);
    } else {
        CHECK_ST(rp_effect_run(w.g, e->h), RP_OK);
    }
    CHECK_EQ(e->runs, created ? 1 : 2);
    CHECK_EQ(e->value, 6);
    th_write(&w, a, 1);
    CHECK_ST(rp_savepoint_rollback(w.g, &sp), RP_OK);
    CHECK_EQ(e->runs, created ? 1 : 2);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_EQ(e->runs, created ? 2 : 3);
    CHECK_EQ(e->value, 1);
    th_check(&w);
    th_done(&w);
}

/* A write before the savepoint, committed inside it by a read after the
 * savepoint wrote back the committed value: the rollback brings back the
 * write from before, and its readers see it (the fuzzer found the source left
 * committed with the savepoint's value, the write from before lost). */
static void committed_inside(void) {
    harness_begin("a write from before the savepoint, committed inside it");
    th_world_t w;
    world(&w, true);
    th_node_t *a = th_source(&w, "a", 2);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, a, NULL);
    rp_savepoint_t sp;
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    th_write(&w, a, 0);
    CHECK_ST(rp_savepoint_begin(w.g, &sp), RP_OK);
    th_node_t *d = th_computed(&w, "d", th_scale, 10, a, NULL);
    th_write(&w, a, 2);
    CHECK_EQ(th_read(&w, d), 20);
    /* The host stores back, without rp_source_set, the values from before:
     * written 0, committed 2. */
    a->pending = 0;
    a->value = 2;
    CHECK_ST(rp_savepoint_rollback(w.g, &sp), RP_OK);
    CHECK_EQ(d->value, 0);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_EQ(a->value, 0);
    CHECK_EQ(e->runs, 2);
    CHECK_EQ(e->value, 0);
    CHECK_EQ(th_read(&w, d), 0);
    th_check(&w);
    th_done(&w);
}

/* An invalidation inside the savepoint (the host changed a term of the
 * derivation's from outside the graph), read by an effect created there: the
 * rollback (the host puts the term back) runs the effect again, from the
 * value restored (the fuzzer found it left out of date: the rollback walked
 * again only from the sources written). */
static void invalidated_inside(void) {
    harness_begin("an invalidation inside the savepoint, read by an effect created there");
    th_world_t w;
    world(&w, true);
    th_node_t *a = th_source(&w, "a", 2);
    th_node_t *d = th_computed(&w, "d", th_scale, 10, a, NULL);
    CHECK_EQ(th_read(&w, d), 20);
    rp_savepoint_t sp;
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(rp_savepoint_begin(w.g, &sp), RP_OK);
    d->arg = 100;
    CHECK_ST(rp_node_invalidate(w.g, d->h), RP_OK);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, d, NULL);
    CHECK_EQ(e->value, 200);
    d->arg = 10; /* the host puts its term back */
    CHECK_ST(rp_savepoint_rollback(w.g, &sp), RP_OK);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_EQ(e->runs, 2);
    CHECK_EQ(e->value, 20);
    CHECK_EQ(th_read(&w, d), 20);
    th_check(&w);
    th_done(&w);
}

/* A derivation stale at the begin (a write from before), re-validated inside
 * and found unchanged from the savepoint's value, read by a node created
 * inside: the rollback's recompute of that node re-validates it again, from
 * the write from before (the fuzzer found the recompute reading the value
 * the savepoint's write had left). */
static void revalidated_inside(void) {
    harness_begin("a derivation stale at the begin, re-validated inside");
    th_world_t w;
    world(&w, true);
    th_node_t *a = th_source(&w, "a", 0);
    th_node_t *d = th_computed(&w, "d", th_div, 10, a, NULL);
    th_node_t *f = th_computed(&w, "f", th_sum, 0, d, NULL);
    CHECK_EQ(th_read(&w, f), 0);
    rp_savepoint_t sp;
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    th_write(&w, a, 15);
    CHECK_ST(rp_savepoint_begin(w.g, &sp), RP_OK);
    th_write(&w, a, 5);
    th_node_t *g = th_computed(&w, "g", th_sum, 0, f, NULL);
    CHECK_EQ(th_read(&w, g), 0);
    a->pending = 15; /* the host stores back the values from before: written 15, committed 0 */
    a->value = 0;
    CHECK_ST(rp_savepoint_rollback(w.g, &sp), RP_OK);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_EQ(th_read(&w, g), 1);
    CHECK_EQ(th_read(&w, f), 1);
    th_check(&w);
    th_done(&w);
}

/* A derivation stale at the begin (a write from before) that a read inside
 * re-validates: a run inside links the node it reads (x) to the source
 * written (b), and the read that ran it finds y unchanged (x gives 5 again,
 * from b's value inside). y's journal entry then said "up to date": taken
 * for its state at the begin, with the host's copy of its 5 when a second
 * write reaches it (`written_again`), else when the rollback's walk reaches
 * it. The rollback's recompute of z read y's 5 beside b's 1 restored (6),
 * though x is 1 again (the fuzzer's "read as", with no disposal). Now the
 * re-validation gives y a run stamp, as a run would: the rollback recomputes
 * it (1) before z reads it, and the effect that reads it runs once. */
static void revalidated_before_a_write_reached_it(bool written_again) {
    harness_begin(written_again ? "a derivation re-validated inside, then reached by a write"
                                : "a derivation re-validated inside, below an edge made inside");
    th_world_t w;
    world(&w, true);
    th_node_t *a = th_source(&w, "a", 0);
    th_node_t *b = th_source(&w, "b", 1);
    th_node_t *k = th_source(&w, "k", 5);
    th_node_t *x = th_prepare(&w, "x", RP_KIND_COMPUTED, th_pick, 0, a, b);
    x->in[2] = k;
    CHECK_ST(th_create(&w, x), RP_OK);
    th_node_t *y = th_computed(&w, "y", th_sum, 0, x, NULL);
    th_node_t *z = th_computed(&w, "z", th_sum, 0, y, b);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, y, NULL);
    CHECK_EQ(th_read(&w, z), 6);
    CHECK_EQ(e->value, 5);
    rp_savepoint_t sp;
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    th_write(&w, a, 1);
    CHECK_ST(rp_savepoint_begin(w.g, &sp), RP_OK);
    th_write(&w, b, 5);
    (void)th_take_log(&w);
    CHECK_EQ(th_read(&w, z), 10);
    CHECK_STR(th_take_log(&w), "x z"); /* y re-validated, not recomputed */
    if (written_again) {
        th_write(&w, b, 6);
        CHECK_EQ(th_read(&w, z), 12);
        CHECK_STR(th_take_log(&w), "x y z");
    }
    b->pending = 1; /* the host stores back b's value */
    b->value = 1;
    CHECK_ST(rp_savepoint_rollback(w.g, &sp), RP_OK);
    CHECK_STR(th_take_log(&w), "z y x"); /* z's read of y recomputes y, whose read of x recomputes x */
    CHECK_EQ(y->value, 1);
    CHECK_EQ(z->value, 2);
    CHECK_EQ(applied, 0);
    CHECK(th_check(&w));
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_STR(th_take_log(&w), "e");
    CHECK_EQ(e->runs, 2);
    CHECK_EQ(e->value, 1);
    CHECK_EQ(th_read(&w, z), 2);
    CHECK_STR(th_take_log(&w), "");
    th_done(&w);
}

/* A node disposed inside the savepoint stays disposed: its readers lost it
 * for good, so the rollback keeps the marks the disposal gave them (and their
 * readers'), and an effect among them runs at the batch's end. `depth` 1: one
 * savepoint; 2: disposed in a nested one that is released, then the outer
 * rolls back; 3: the nested one rolls back too. `through`: the effect reads a
 * derivation of the disposed node, which a read brought up to date inside. */
static void disposed_inside(int depth, bool through) {
    char name[96];
    snprintf(name, sizeof name, "a node disposed inside the savepoint (depth %d%s)", depth,
             through ? ", read through a derivation" : "");
    harness_begin(name);
    th_world_t w;
    world(&w, true);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *b = th_source(&w, "b", 2);
    th_node_t *d = through ? th_computed(&w, "d", th_sum, 0, a, b) : NULL;
    th_node_t *e = through ? th_effect(&w, "e", th_sum, 0, d, NULL) : th_effect(&w, "e", th_sum, 0, a, b);
    th_node_t *reader = through ? d : e;
    CHECK_EQ(e->value, 3);
    CHECK_EQ(e->runs, 1);
    rp_savepoint_t outer, inner;
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(rp_savepoint_begin(w.g, &outer), RP_OK);
    th_write(&w, a, 5);
    if (through) CHECK_EQ(th_read(&w, d), 7);
    if (depth > 1) CHECK_ST(rp_savepoint_begin(w.g, &inner), RP_OK);
    CHECK_ST(th_dispose(&w, b), RP_OK);
    reader->in[1] = NULL; /* the host knows b is gone: its body no longer reads it */
    if (depth == 2) CHECK_ST(rp_savepoint_release(w.g, &inner), RP_OK);
    if (depth == 3) CHECK_ST(rp_savepoint_rollback(w.g, &inner), RP_OK);
    a->pending = 1; /* the host stores back a's value */
    a->value = 1;
    CHECK_ST(rp_savepoint_rollback(w.g, &outer), RP_OK);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_EQ(e->runs, 2);
    CHECK_EQ(e->value, 1);
    if (through) CHECK_EQ(th_read(&w, d), 1);
    th_check(&w); /* no node keeps the lost dependency's mark */
    th_write(&w, a, 4);
    CHECK_EQ(e->runs, 3);
    CHECK_EQ(e->value, 4);
    th_done(&w);
}

/* A node disposed inside changes for good what reads it two reads below:
 * a -> d1 (reads b too) -> d2 -> d3 (reads a too), and e reads d2. The
 * write brings d1 and d2 up to date inside; b is disposed; the rollback.
 * Without the host's copies, the rollback's recompute gave d2 its new value
 * (10) and the effect the marks from the begin, when it had seen 30: d2
 * recomputed again found no change, and e never ran (the fuzzer's "effect
 * out of date"). With them, d2's copy (30, computed with b) was applied,
 * and the rollback's recompute of d3 read it beside a's 1 (31, a mix of
 * values no write ever made; the fuzzer's "read as"). Now: nothing below a
 * node disposed gets its copy back, every compute reads the values as they
 * are, and e runs once, from them. */
static void disposed_two_reads_below(bool with_copies) {
    harness_begin(with_copies ? "a node disposed inside, two reads below (host copies)"
                              : "a node disposed inside, two reads below (recomputed)");
    th_world_t w;
    world(&w, with_copies);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *b = th_source(&w, "b", 2);
    th_node_t *d1 = th_computed(&w, "d1", th_sum, 0, a, b);
    th_node_t *d2 = th_computed(&w, "d2", th_scale, 10, d1, NULL);
    th_node_t *d3 = th_computed(&w, "d3", th_sum, 0, d2, a);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, d2, NULL);
    CHECK_EQ(th_read(&w, d3), 31);
    CHECK_EQ(e->value, 30);
    (void)th_take_log(&w);
    rp_savepoint_t sp;
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(rp_savepoint_begin(w.g, &sp), RP_OK);
    th_write(&w, a, 5);
    CHECK_EQ(th_read(&w, d3), 75);
    CHECK_STR(th_take_log(&w), "d1 d2 d3");
    CHECK_ST(th_dispose(&w, b), RP_OK);
    d1->in[1] = NULL; /* the host knows b is gone */
    a->pending = 1; /* the host stores back a's value */
    a->value = 1;
    CHECK_ST(rp_savepoint_rollback(w.g, &sp), RP_OK);
    /* Recomputed, each from the values as they are (d1 = 1, d2 = 10; d3's
     * read of d2 recomputes d2, inside d3's compute). */
    CHECK_STR(th_take_log(&w), "d1 d3 d2");
    CHECK_EQ(d3->value, 11);
    CHECK(th_check(&w));
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_STR(th_take_log(&w), "e");
    CHECK_EQ(e->runs, 2);
    CHECK_EQ(e->value, 10);
    CHECK_EQ(th_read(&w, d3), 11);
    CHECK_STR(th_take_log(&w), "");
    if (with_copies) {
        CHECK_EQ(applied, 0);
        CHECK_EQ(copy_count, 0);
        CHECK_EQ(restore_mismatches, 0);
    }
    th_write(&w, a, 4);
    CHECK_EQ(e->value, 40);
    CHECK_EQ(e->runs, 3);
    th_done(&w);
}

/* in[0] ? in[1] : in[2], a node disposed counting as 0 (the host knows its
 * nodes can go: a read of one says RP_ESTALE). */
static long pick_gone_as_zero(th_world_t *w, th_node_t *self) {
    th_node_t *chosen = th_read(w, self->in[0]) ? self->in[1] : self->in[2];
    return rp_node_read(w->g, chosen->h) == RP_OK ? chosen->value : 0;
}

/* A node read at the begin, no longer read when it is disposed inside: the
 * disposal marks nothing, but the rollback's recompute, from the selector
 * restored, reads it again and finds it gone. The effect had seen the value
 * computed with it (2), and got its marks from the begin back: it never ran
 * with the 0 its derivation now holds. Now the reader that found it gone is
 * marked as the disposal marks its readers, and the effect runs. */
static void disposed_after_its_reader_left_it(void) {
    harness_begin("a node disposed inside after its reader left it, read again by the rollback");
    th_world_t w;
    world(&w, true);
    th_node_t *sel = th_source(&w, "sel", 1);
    th_node_t *gone = th_source(&w, "gone", 2);
    th_node_t *other = th_source(&w, "other", 3);
    th_node_t *x = th_prepare(&w, "x", RP_KIND_COMPUTED, pick_gone_as_zero, 0, sel, gone);
    x->in[2] = other;
    CHECK_ST(th_create(&w, x), RP_OK);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, x, NULL);
    CHECK_EQ(e->value, 2);
    rp_savepoint_t sp;
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(rp_savepoint_begin(w.g, &sp), RP_OK);
    th_write(&w, sel, 0);
    CHECK_EQ(th_read(&w, x), 3);
    CHECK_ST(th_dispose(&w, gone), RP_OK);
    sel->pending = 1; /* the host stores back sel's value */
    sel->value = 1;
    (void)th_take_log(&w);
    CHECK_ST(rp_savepoint_rollback(w.g, &sp), RP_OK);
    CHECK_STR(th_take_log(&w), "x");
    CHECK_EQ(x->value, 0);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_STR(th_take_log(&w), "e");
    CHECK_EQ(e->runs, 2);
    CHECK_EQ(e->value, 0);
    th_check(&w);
    th_write(&w, sel, 0);
    CHECK_EQ(e->value, 3);
    CHECK_EQ(e->runs, 3);
    th_done(&w);
}

/* Effects queued inside by a write, below a node disposed inside and never
 * read since: the rollback unqueues them (step 3) and marks them again below
 * the disposed node's reader (step 4). Their entries from inside were still
 * in the queue, so each had two, in a queue with room for one per effect (16
 * here, its first size: the fuzzer's heap-buffer-overflow in rp_enqueue, and
 * "ordered flush queue unsorted"). Each runs once, in creation order. */
#define QUEUED_EFFECTS 16
static void disposed_inside_effects_queued(void) {
    harness_begin("a node disposed inside, effects queued inside below it");
    th_world_t w;
    world(&w, true);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *b = th_source(&w, "b", 2);
    th_node_t *d = th_computed(&w, "d", th_sum, 0, a, b);
    th_node_t *f = th_computed(&w, "f", th_sum, 0, d, NULL);
    static char names[QUEUED_EFFECTS][8];
    char want[QUEUED_EFFECTS * 5 + 8] = "d f";
    th_node_t *effects[QUEUED_EFFECTS];
    for (int i = 0; i < QUEUED_EFFECTS; i++) {
        snprintf(names[i], sizeof names[i], "e%d", i % 100);
        effects[i] = th_effect(&w, names[i], th_sum, 0, f, NULL);
        strcat(want, " ");
        strcat(want, names[i]);
    }
    (void)th_take_log(&w);
    rp_savepoint_t sp;
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(rp_savepoint_begin(w.g, &sp), RP_OK);
    th_write(&w, a, 5); /* queues every effect */
    CHECK_ST(th_dispose(&w, b), RP_OK);
    d->in[1] = NULL; /* the host knows b is gone */
    a->pending = 1; /* the host stores back a's value */
    a->value = 1;
    CHECK_ST(rp_savepoint_rollback(w.g, &sp), RP_OK);
    CHECK(th_check(&w));
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_STR(th_take_log(&w), want);
    for (int i = 0; i < QUEUED_EFFECTS; i++) {
        CHECK_EQ(effects[i]->runs, 2);
        CHECK_EQ(effects[i]->value, 1);
    }
    th_done(&w);
}

/* Misuse: every refusal changes nothing. */
static void misuse(void) {
    harness_begin("misuse");
    th_world_t w;
    world(&w, true);
    rp_savepoint_t sp = {1};
    CHECK_ST(rp_savepoint_begin(NULL, &sp), RP_EINVAL);
    CHECK_ST(rp_savepoint_begin(w.g, NULL), RP_EINVAL);
    CHECK_ST(rp_savepoint_rollback(w.g, NULL), RP_EINVAL);
    CHECK_ST(rp_savepoint_begin(w.g, &sp), RP_ESTATE); /* outside a batch */
    CHECK_ST(rp_savepoint_rollback(w.g, &sp), RP_ESTATE);
    CHECK_ST(rp_savepoint_release(w.g, &sp), RP_ESTATE);
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(rp_savepoint_rollback(w.g, &sp), RP_ESTATE); /* none open */
    CHECK_ST(rp_savepoint_begin(w.g, &sp), RP_OK);
    CHECK_ST(rp_batch_end(w.g), RP_ESTATE); /* the savepoint is still open */
    rp_savepoint_t wrong = {sp.depth + 1};
    CHECK_ST(rp_savepoint_release(w.g, &wrong), RP_ESTATE);
    CHECK_ST(rp_savepoint_release(w.g, &sp), RP_OK);
    CHECK_ST(rp_savepoint_release(w.g, &sp), RP_ESTATE);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    th_done(&w);
}

/* ---------------------------------------------------- random, against a twin */

/* Two worlds built alike: in every batch, `a` opens a savepoint and makes
 * random writes and reads inside it, in nested savepoints too (each rolled
 * back or released), then rolls the outermost back; `b` does nothing. After
 * every batch both must agree exactly: no effect ran in `a` either, and every
 * value is the same. The host's side of a rollback: each savepoint remembers
 * the sources' values at its begin, and stores them back. */
#define TWIN_SOURCES 5
#define TWIN_NODES 24
#define TWIN_DEPTH 4

static unsigned long twin_seed;
static unsigned twin_next(void) {
    twin_seed = twin_seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)(twin_seed >> 33);
}

typedef struct twin {
    th_world_t w;
    th_node_t *nodes[TWIN_NODES];
} twin_t;

static void twin_build(twin_t *t, unsigned long seed, bool with_copies) {
    world(&t->w, with_copies);
    twin_seed = seed;
    for (int i = 0; i < TWIN_NODES; i++) {
        char *name = calloc(16, 1); /* room for any int: gcc checks the format's widest output */
        snprintf(name, 16, "n%d", i);
        if (i < TWIN_SOURCES) {
            t->nodes[i] = th_source(&t->w, name, (long)(twin_next() % 3));
            continue;
        }
        th_node_t *in0 = t->nodes[twin_next() % i], *in1 = t->nodes[twin_next() % i], *in2 = t->nodes[twin_next() % i];
        unsigned kind = twin_next() % 4;
        rp_kind_t k = kind == 3 ? RP_KIND_EFFECT : RP_KIND_COMPUTED;
        if (in0->kind == RP_KIND_EFFECT) in0 = t->nodes[0];
        if (in1->kind == RP_KIND_EFFECT) in1 = t->nodes[1];
        if (in2->kind == RP_KIND_EFFECT) in2 = t->nodes[2];
        th_node_t *n = th_prepare(&t->w, name, k, kind == 1 ? th_pick : th_sum, 0, in0, in1);
        if (kind == 1) n->in[2] = in2;
        n->always_changed = false;
        CHECK_ST(th_create(&t->w, n), RP_OK);
        t->nodes[i] = n;
    }
}

static void twin_free(twin_t *t) {
    for (int i = 0; i < TWIN_NODES; i++) free((char *)t->nodes[i]->name);
}

static void twin_compare(twin_t *a, twin_t *b, int round) {
    for (int i = 0; i < TWIN_NODES; i++) {
        th_node_t *x = a->nodes[i], *y = b->nodes[i];
        if (x->kind == RP_KIND_EFFECT) {
            if (x->runs != y->runs || x->value != y->value) {
                fprintf(stderr, "    round %d: effect n%d ran %u times (value %ld), its twin %u (value %ld)\n", round,
                        i, x->runs, x->value, y->runs, y->value);
                CHECK(false);
            }
        } else if (th_read(&a->w, x) != th_read(&b->w, y)) {
            fprintf(stderr, "    round %d: node n%d is %ld, its twin %ld\n", round, i, x->value, y->value);
            CHECK(false);
        }
    }
}

static void random_against_twin(unsigned long seed, bool with_copies) {
    harness_begin(with_copies ? "random, against a twin (host copies)" : "random, against a twin (recomputed)");
    twin_t a, b;
    twin_build(&a, seed, with_copies);
    twin_build(&b, seed, with_copies);
    twin_seed = seed ^ 0x5eed;
    unsigned before_failed = harness_failed;
    for (int round = 0; round < 300 && harness_failed == before_failed; round++) {
        CHECK_ST(rp_batch_begin(a.w.g), RP_OK);
        CHECK_ST(rp_batch_begin(b.w.g), RP_OK);
        rp_savepoint_t open[TWIN_DEPTH];
        long saved[TWIN_DEPTH][TWIN_SOURCES];
        for (int i = 0; i < TWIN_SOURCES; i++) saved[0][i] = a.nodes[i]->pending;
        CHECK_ST(rp_savepoint_begin(a.w.g, &open[0]), RP_OK);
        int depth = 1;
        for (int step = 0; step < 16; step++) {
            unsigned op = twin_next() % 10;
            if (op < 2 && depth < TWIN_DEPTH) {
                for (int i = 0; i < TWIN_SOURCES; i++) saved[depth][i] = a.nodes[i]->pending;
                CHECK_ST(rp_savepoint_begin(a.w.g, &open[depth]), RP_OK);
                depth++;
            } else if (op < 4 && depth > 1) {
                depth--;
                if (twin_next() % 2) {
                    for (int i = 0; i < TWIN_SOURCES; i++) {
                        if (a.nodes[i]->pending != saved[depth][i]) th_write(&a.w, a.nodes[i], saved[depth][i]);
                    }
                    CHECK_ST(rp_savepoint_rollback(a.w.g, &open[depth]), RP_OK);
                } else {
                    CHECK_ST(rp_savepoint_release(a.w.g, &open[depth]), RP_OK);
                }
            } else if (op < 7) {
                int i = (int)(twin_next() % TWIN_SOURCES);
                th_write(&a.w, a.nodes[i], (long)(twin_next() % 3));
            } else {
                int i = TWIN_SOURCES + (int)(twin_next() % (TWIN_NODES - TWIN_SOURCES));
                if (a.nodes[i]->kind != RP_KIND_EFFECT) (void)th_read(&a.w, a.nodes[i]);
            }
        }
        /* The inner ones still open are released; the outermost rolls back. */
        while (depth > 1) CHECK_ST(rp_savepoint_release(a.w.g, &open[--depth]), RP_OK);
        for (int i = 0; i < TWIN_SOURCES; i++) {
            if (a.nodes[i]->pending != saved[0][i]) th_write(&a.w, a.nodes[i], saved[0][i]);
        }
        CHECK_ST(rp_savepoint_rollback(a.w.g, &open[0]), RP_OK);
        /* Then a write kept in both, so that the next round starts from other values. */
        if (twin_next() % 2) {
            int i = (int)(twin_next() % TWIN_SOURCES);
            long v = (long)(twin_next() % 3);
            th_write(&a.w, a.nodes[i], v);
            th_write(&b.w, b.nodes[i], v);
        }
        CHECK_ST(rp_batch_end(a.w.g), RP_OK);
        CHECK_ST(rp_batch_end(b.w.g), RP_OK);
        if (!th_check(&a.w)) break;
        twin_compare(&a, &b, round);
        CHECK_EQ(copy_count, 0);
        CHECK_EQ(restore_mismatches, 0);
    }
    if (harness_failed != before_failed) fprintf(stderr, "    seed %lu\n", seed);
    twin_free(&a);
    twin_free(&b);
    th_done(&a.w);
    th_done(&b.w);
}

int main(void) {
    write_read_rollback(true);
    write_read_rollback(false);
    release_keeps();
    nested();
    dynamic_reads();
    stale_at_begin();
    write_only();
    created_inside();
    effect_ran_inside(true);
    effect_ran_inside(false);
    committed_inside();
    invalidated_inside();
    revalidated_inside();
    revalidated_before_a_write_reached_it(false);
    revalidated_before_a_write_reached_it(true);
    for (int depth = 1; depth <= 3; depth++) {
        disposed_inside(depth, false);
        disposed_inside(depth, true);
    }
    disposed_two_reads_below(true);
    disposed_two_reads_below(false);
    disposed_after_its_reader_left_it();
    disposed_inside_effects_queued();
    misuse();
    for (unsigned long seed = 1; seed <= 40; seed++) {
        random_against_twin(seed, true);
        random_against_twin(seed * 7919, false);
    }
    return harness_finish();
}
