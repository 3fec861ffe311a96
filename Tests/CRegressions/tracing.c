/*
 * tracing.c: what a tracer (rp_graph_set_tracer) is told, in order, with
 * causes: a diamond, an equality cut-off, a batch, a dynamic dependency that
 * switches branches, an effect that writes an atom, an invalidation,
 * removal, and a tracer that a compute installs.
 */
#include "testhost.h"

/* Appends "<kind> <node>[ <- <cause>][ =]" to the world's log: `=` marks a
 * commit or compute that changed nothing. */
static void trace_into_log(void *context, rp_graph_t *graph, const rp_trace_event_t *event)
{
    th_world_t *w = context;
    (void)graph;
    static const char *const kinds[] = {"write", "commit", "compute", "run", "resolve", "invalidate"};
    const th_node_t *node = event->data;
    const th_node_t *cause = event->cause_data;
    char entry[96];
    snprintf(entry, sizeof entry, "%s %s%s%s%s", kinds[event->kind], node->name, cause ? "<-" : "",
             cause ? cause->name : "", event->changed ? "" : "=");
    size_t length = strlen(entry);
    if (w->log_len + length + 2 >= sizeof w->log)
        return;
    if (w->log_len)
        w->log[w->log_len++] = ',';
    memcpy(w->log + w->log_len, entry, length + 1);
    w->log_len += length;
}

static void traced(th_world_t *w)
{
    th_init(w, 32, 0);
    w->log_mask = 0; /* only the tracer writes the log */
    CHECK_ST(rp_graph_set_tracer(w->g, trace_into_log, w), RP_OK);
}

static void diamond_names_each_cause(void)
{
    harness_begin("diamond_names_each_cause");
    th_world_t w;
    traced(&w);
    th_node_t *s = th_source(&w, "s", 1);
    th_node_t *l = th_computed(&w, "l", th_scale, 2, s, NULL);
    th_node_t *r = th_computed(&w, "r", th_scale, 3, s, NULL);
    th_node_t *j = th_computed(&w, "j", th_sum, 0, l, r);
    th_effect(&w, "e", th_sum, 0, j, NULL);
    /* First computes have no cause; computes are told when they end. */
    CHECK_STR(th_take_log(&w), "run e,compute l,compute r,compute j");
    CHECK_ST(th_write(&w, s, 2), RP_OK);
    CHECK_STR(th_take_log(&w), "write s,commit s,compute l<-s,compute r<-s,compute j<-l,run e<-j");
    th_done(&w);
}

static void a_cut_off_is_a_compute_that_changed_nothing(void)
{
    harness_begin("a_cut_off_is_a_compute_that_changed_nothing");
    th_world_t w;
    traced(&w);
    th_node_t *s = th_source(&w, "s", 4);
    th_node_t *half = th_computed(&w, "half", th_div, 2, s, NULL);
    th_effect(&w, "e", th_sum, 0, half, NULL);
    th_take_log(&w);
    CHECK_ST(th_write(&w, s, 5), RP_OK); /* 5 / 2 == 4 / 2: e does not run */
    CHECK_STR(th_take_log(&w), "write s,commit s,compute half<-s=");
    th_done(&w);
}

static void a_batch_commits_what_changed_once(void)
{
    harness_begin("a_batch_commits_what_changed_once");
    th_world_t w;
    traced(&w);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *b = th_source(&w, "b", 2);
    th_effect(&w, "e", th_sum, 0, a, b);
    th_take_log(&w);
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(th_write(&w, a, 10), RP_OK);
    CHECK_ST(th_write(&w, b, 20), RP_OK);
    CHECK_ST(th_write(&w, b, 2), RP_OK); /* written back: no change */
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_STR(th_take_log(&w), "write a,write b,write b,commit a,run e<-a,commit b=");
    th_done(&w);
}

static void a_branch_switch_names_the_condition(void)
{
    harness_begin("a_branch_switch_names_the_condition");
    th_world_t w;
    traced(&w);
    th_node_t *flag = th_source(&w, "flag", 1);
    th_node_t *x = th_source(&w, "x", 10);
    th_node_t *y = th_source(&w, "y", 20);
    th_node_t *pick = th_computed(&w, "pick", th_pick, 0, flag, x);
    pick->in[2] = y;
    th_effect(&w, "e", th_sum, 0, pick, NULL);
    th_take_log(&w);
    CHECK_ST(th_write(&w, flag, 0), RP_OK);
    CHECK_STR(th_take_log(&w), "write flag,commit flag,compute pick<-flag,run e<-pick");
    CHECK_ST(th_write(&w, x, 11), RP_OK); /* no longer read: nothing re-runs */
    CHECK_STR(th_take_log(&w), "write x");
    CHECK_ST(th_write(&w, y, 21), RP_OK);
    CHECK_STR(th_take_log(&w), "write y,commit y,compute pick<-y,run e<-pick");
    th_done(&w);
}

/* An effect that copies its input into another source, which a second effect
 * reads: the second runs because of the first's write. */
static long copy_into_target(th_world_t *w, th_node_t *self)
{
    long v = th_read(w, self->in[0]);
    th_write(w, self->in[1], v * 10);
    return v;
}

static void an_effect_write_causes_the_next_run(void)
{
    harness_begin("an_effect_write_causes_the_next_run");
    th_world_t w;
    traced(&w);
    th_node_t *input = th_source(&w, "input", 1);
    th_node_t *target = th_source(&w, "target", 0);
    th_node_t *copier = th_effect(&w, "copier", copy_into_target, 0, input, target);
    th_node_t *shower = th_effect(&w, "shower", th_sum, 0, target, NULL);
    th_take_log(&w);
    CHECK_ST(th_write(&w, input, 2), RP_OK);
    CHECK_STR(th_take_log(&w), "write input,commit input,run copier<-input,write target,commit target,run shower<-target");
    CHECK_EQ(shower->value, 20);
    (void)copier;
    th_done(&w);
}

/* A node marked because of a dependency that is then disposed, its slot
 * reused: the compute names no cause, not the slot's new node (the fuzzer
 * found it: a computed traced with an effect as its cause). */
static void a_disposed_cause_is_not_its_slots_next_node(void)
{
    harness_begin("a_disposed_cause_is_not_its_slots_next_node");
    th_world_t w;
    traced(&w);
    th_node_t *s = th_source(&w, "s", 1);
    th_node_t *a = th_computed(&w, "a", th_sum, 0, s, NULL);
    th_node_t *b = th_computed(&w, "b", th_sum, 0, s, NULL);
    th_effect(&w, "e", th_sum, 0, a, NULL);
    CHECK_EQ(th_read(&w, b), 1);
    CHECK_ST(th_write(&w, s, 2), RP_OK); /* e re-validates a; b is marked, with s as its cause */
    a->in[0] = b->in[0] = NULL; /* their bodies stop reading s */
    CHECK_ST(th_dispose(&w, s), RP_OK);
    th_node_t *f = th_effect(&w, "f", th_sum, 0, NULL, NULL);
    CHECK_EQ(f->h.slot, s->h.slot);
    th_take_log(&w);
    CHECK_EQ(th_read(&w, b), 0);
    CHECK_STR(th_take_log(&w), "compute b");
    th_done(&w);
}

static void an_invalidation_causes_a_compute_without_a_cause(void)
{
    harness_begin("an_invalidation_causes_a_compute_without_a_cause");
    th_world_t w;
    traced(&w);
    th_node_t *s = th_source(&w, "s", 1);
    th_node_t *c = th_computed(&w, "c", th_scale, 2, s, NULL);
    th_effect(&w, "e", th_sum, 0, c, NULL);
    th_take_log(&w);
    c->arg = 3;
    CHECK_ST(rp_node_invalidate(w.g, c->h), RP_OK);
    CHECK_STR(th_take_log(&w), "invalidate c,compute c,run e<-c");
    CHECK_ST(rp_node_invalidate(w.g, c->h), RP_OK); /* same value */
    CHECK_STR(th_take_log(&w), "invalidate c,compute c=");
    th_done(&w);
}

static void a_removed_tracer_is_told_nothing(void)
{
    harness_begin("a_removed_tracer_is_told_nothing");
    th_world_t w;
    traced(&w);
    th_node_t *s = th_source(&w, "s", 1);
    th_effect(&w, "e", th_sum, 0, s, NULL);
    CHECK_ST(rp_graph_set_tracer(w.g, NULL, NULL), RP_OK);
    th_take_log(&w);
    CHECK_ST(th_write(&w, s, 2), RP_OK);
    CHECK_STR(th_take_log(&w), "");
    CHECK_ST(rp_graph_set_tracer(NULL, trace_into_log, &w), RP_EINVAL);
    th_done(&w);
}

/* A compute that installs the tracer (once: `arg` says whether to), then
 * passes its input on. */
static long install_then_pass(th_world_t *w, th_node_t *self)
{
    if (self->arg) {
        self->arg = 0;
        CHECK_ST(rp_graph_set_tracer(w->g, trace_into_log, w), RP_OK);
    }
    return th_read(w, self->in[0]);
}

/* A re-validation walk tests for a tracer once: one that a compute installs
 * is told from the next walk on (the flush's run of e is the next event told
 * here), and then of everything, with causes. */
static void a_tracer_installed_by_a_compute_is_told_from_the_next_walk(void)
{
    harness_begin("a_tracer_installed_by_a_compute_is_told_from_the_next_walk");
    th_world_t w;
    th_init(&w, 32, 0);
    w.log_mask = 0; /* only the tracer writes the log */
    th_node_t *s = th_source(&w, "s", 1);
    th_node_t *a = th_computed(&w, "a", install_then_pass, 0, s, NULL);
    th_node_t *b = th_computed(&w, "b", th_sum, 0, a, NULL);
    th_node_t *c = th_computed(&w, "c", th_sum, 0, b, NULL);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, c, NULL);
    CHECK_STR(th_take_log(&w), "");
    a->arg = 1;
    CHECK_ST(th_write(&w, s, 2), RP_OK); /* e's walk recomputes a, which installs it, then b and c */
    CHECK_STR(th_take_log(&w), "run e");
    CHECK_EQ(e->value, 2);
    CHECK_ST(th_write(&w, s, 3), RP_OK);
    CHECK_STR(th_take_log(&w), "write s,commit s,compute a<-s,compute b<-a,compute c<-b,run e<-c");
    CHECK_EQ(e->value, 3);
    th_done(&w);
}

int main(void)
{
    diamond_names_each_cause();
    a_cut_off_is_a_compute_that_changed_nothing();
    a_batch_commits_what_changed_once();
    a_branch_switch_names_the_condition();
    an_effect_write_causes_the_next_run();
    a_disposed_cause_is_not_its_slots_next_node();
    an_invalidation_causes_a_compute_without_a_cause();
    a_removed_tracer_is_told_nothing();
    a_tracer_installed_by_a_compute_is_told_from_the_next_walk();
    return harness_finish();
}
