/*
 * api_lifecycle.c: versions, status names, graph create and destroy, node
 * creation of each kind, node queries, tracking, and the release callback.
 */
#include "testhost.h"

/* The engine's internals, for one test: it starts the creation counter near
 * its wrap (creation_orders_are_numbered_again_before_they_wrap). */
#include "../../Sources/CRipple/graph.h"

static void version_matches_header(void)
{
    harness_begin("version_matches_header");
    CHECK_EQ(RP_VERSION_NUMBER, RP_VERSION_MAJOR * 10000 + RP_VERSION_MINOR * 100 + RP_VERSION_PATCH);
    CHECK_EQ(rp_version_number(), RP_VERSION_NUMBER);
}

static void status_strings_name_every_code(void)
{
    harness_begin("status_strings_name_every_code");
    static const char *const names[] = {"RP_OK",     "RP_ENOMEM", "RP_EINVAL", "RP_ESTALE",
                                        "RP_EFOREIGN", "RP_EKIND",  "RP_ECYCLE", "RP_ELOOP",
                                        "RP_ESTATE", "RP_EBUSY",  "RP_ECORRUPT", "RP_ESUPERSEDED"};
    const size_t codes = sizeof names / sizeof names[0];
    CHECK_STR(rp_status_string(RP_OK), "RP_OK: success");
    for (size_t i = 0; i < codes; i++) {
        const char *s = rp_status_string((rp_status_t)i);
        CHECK(s != NULL);
        if (s == NULL)
            continue;
        size_t len = strlen(names[i]);
        /* "NAME: description", with a description. */
        if (!CHECK(strncmp(s, names[i], len) == 0 && s[len] == ':' && s[len + 1] == ' ' && s[len + 2] != '\0'))
            fprintf(stderr, "    code %zu: \"%s\"\n", i, s);
        for (size_t j = 0; j < i; j++)
            CHECK(strcmp(s, rp_status_string((rp_status_t)j)) != 0);
        /* A static string: the same pointer every time. */
        CHECK(s == rp_status_string((rp_status_t)i));
    }
    CHECK_STR(rp_status_string((rp_status_t)codes), "RP_?: unknown status");
    CHECK_STR(rp_status_string((rp_status_t)15), "RP_?: unknown status");
    CHECK_STR(rp_status_string((rp_status_t)1000), "RP_?: unknown status");
}

static void graph_create_and_destroy(void)
{
    harness_begin("graph_create_and_destroy");
    /* NULL does nothing. */
    CHECK_ST(rp_graph_destroy(NULL), RP_OK);

    /* No callbacks and the C library's allocator: a graph of sources only. */
    rp_graph_config_t config;
    memset(&config, 0, sizeof config);
    rp_graph_t *g = NULL;
    CHECK_ST(rp_graph_create(&config, &g), RP_OK);
    CHECK(g != NULL);
    rp_graph_stats_t s;
    CHECK_ST(rp_graph_stats(g, &s), RP_OK);
    CHECK_EQ(s.live_nodes, 0);
    CHECK_EQ(s.live_edges, 0);
    CHECK_EQ(s.arena_bytes_in_use, 0);
    size_t count = 99;
    CHECK_ST(rp_graph_diagnostic(g, NULL, 0, &count), RP_OK);
    CHECK_EQ(count, 0);
    rp_node_t a, b;
    CHECK_ST(rp_node_create(g, RP_KIND_SOURCE, NULL, &a), RP_OK);
    CHECK_ST(rp_node_create(g, RP_KIND_SOURCE, NULL, &b), RP_OK);
    CHECK_ST(rp_source_set(g, a), RP_OK);
    CHECK_ST(rp_node_read(g, a), RP_OK);
    /* Kinds whose callback is missing. */
    rp_node_t c = TH_UNWRITTEN;
    CHECK_ST(rp_node_create(g, RP_KIND_COMPUTED, NULL, &c), RP_EINVAL);
    CHECK_ST(rp_node_create(g, RP_KIND_EFFECT, NULL, &c), RP_EINVAL);
    CHECK_NODE(c, TH_UNWRITTEN);
    CHECK_ST(rp_graph_stats(g, &s), RP_OK);
    CHECK_EQ(s.live_nodes, 2);
    CHECK_ST(_rp_graph_check(g, NULL, 0), RP_OK);
    /* Destroying a graph with live nodes and no release callback. */
    CHECK_ST(rp_graph_destroy(g), RP_OK);

    /* The configuration is copied: changing it after creation changes nothing. */
    th_world_t w;
    th_setup(&w, 32, 0);
    rp_graph_config_t *cfg = malloc(sizeof *cfg);
    rp_allocator_t *alloc = malloc(sizeof *alloc);
    *cfg = w.config;
    *alloc = w.allocator;
    cfg->allocator = alloc;
    CHECK_ST(rp_graph_create(cfg, &w.g), RP_OK);
    memset(cfg, 0, sizeof *cfg);
    memset(alloc, 0, sizeof *alloc);
    free(cfg);
    free(alloc);
    th_node_t *x = th_source(&w, "x", 1);
    th_node_t *y = th_computed(&w, "y", th_scale, 3, x, NULL);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, y, NULL);
    CHECK_EQ(e->runs, 1);
    CHECK_EQ(e->value, 3);
    CHECK_ST(th_write(&w, x, 2), RP_OK);
    CHECK_EQ(e->value, 6);
    CHECK(w.alloc.calls > 0);
    th_done(&w);
}

static void graphs_with_a_settle_bound(void)
{
    harness_begin("graphs_with_a_settle_bound");
    th_world_t w;
    th_init(&w, 32, 3);
    th_node_t *a = th_source(&w, "a", 0);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, a, NULL);
    CHECK_EQ(e->runs, 1);
    th_done(&w);
}

static void node_creation_of_each_kind(void)
{
    harness_begin("node_creation_of_each_kind");
    th_world_t w;
    th_init(&w, 32, 0);
    th_node_t *a = th_source(&w, "a", 5);
    th_node_t *c = th_computed(&w, "c", th_scale, 2, a, NULL);
    /* A computed starts dirty and computes on its first read, not before. */
    CHECK_EQ(c->computes, 0);
    /* An effect runs once, synchronously, during its creation. */
    th_node_t *e = th_effect(&w, "e", th_sum, 0, c, NULL);
    CHECK_EQ(e->runs, 1);
    CHECK_EQ(c->computes, 1);
    CHECK_EQ(e->value, 10);
    CHECK_STR(th_take_log(&w), "e c");

    /* Handles: not RP_NODE_NONE, distinct, of one graph. */
    CHECK(!harness_same(a->h, RP_NODE_NONE));
    CHECK(!harness_same(c->h, RP_NODE_NONE));
    CHECK(!harness_same(e->h, RP_NODE_NONE));
    CHECK(!harness_same(a->h, c->h) && !harness_same(c->h, e->h) && !harness_same(a->h, e->h));
    CHECK(a->h.graph_tag == c->h.graph_tag && c->h.graph_tag == e->h.graph_tag);

    /* Kind and data. */
    th_node_t *nodes[] = {a, c, e};
    for (int i = 0; i < 3; i++) {
        rp_kind_t kind = (rp_kind_t)99;
        void *data = NULL;
        CHECK_ST(rp_node_kind(w.g, nodes[i]->h, &kind), RP_OK);
        CHECK_EQ(kind, nodes[i]->kind);
        CHECK_ST(rp_node_data(w.g, nodes[i]->h, &data), RP_OK);
        CHECK(data == nodes[i]);
    }
    /* A NULL data pointer is allowed and given back. */
    rp_node_t n;
    void *data = &w;
    CHECK_ST(rp_node_create(w.g, RP_KIND_SOURCE, NULL, &n), RP_OK);
    CHECK_ST(rp_node_data(w.g, n, &data), RP_OK);
    CHECK(data == NULL);
    w.config.callbacks.release = NULL; /* the engine copied the callbacks: still called */
    CHECK_ST(rp_node_dispose(w.g, n), RP_OK);
    CHECK_EQ(w.anonymous_releases, 1);
    w.config.callbacks.release = th_release_cb;

    /* Edges, from both sides. */
    CHECK_DEPS(&w, c, a);
    CHECK_DEPS(&w, e, c);
    CHECK_EQ(th_dep_count(&w, a), 0);
    CHECK_SUBS(&w, a, c);
    CHECK_SUBS(&w, c, e);
    CHECK_EQ(th_sub_count(&w, e), 0);
    rp_graph_stats_t s = th_stats(&w);
    CHECK_EQ(s.live_nodes, 3);
    CHECK_EQ(s.live_edges, 2);
    CHECK(s.arena_bytes_in_use > 0);
    CHECK(s.arena_bytes_in_use <= s.arena_bytes_reserved);
    CHECK(s.allocations > 0);
    th_done(&w);
}

static void the_all_zero_handle_is_never_a_live_node(void)
{
    harness_begin("the_all_zero_handle_is_never_a_live_node");
    th_world_t w;
    th_init(&w, 32, 0);
    th_node_t *a = th_source(&w, "a", 1);
    (void)a;
    rp_kind_t kind;
    rp_status_t st = rp_node_kind(w.g, RP_NODE_NONE, &kind);
    CHECK(st == RP_ESTALE || st == RP_EFOREIGN || st == RP_EINVAL);
    st = rp_node_read(w.g, RP_NODE_NONE);
    CHECK(st == RP_ESTALE || st == RP_EFOREIGN || st == RP_EINVAL);
    st = rp_node_dispose(w.g, RP_NODE_NONE);
    CHECK(st == RP_ESTALE || st == RP_EFOREIGN || st == RP_EINVAL);
    CHECK_EQ(th_stats(&w).live_nodes, 1);
    th_done(&w);
}

/* ------------------------------------------------------------- tracking */

typedef struct tracking_probe {
    rp_node_t in_body, in_untracked, after_untracked, after_inner_read;
    /* What rp_graph_evaluating names: untracked sections do not hide it. */
    rp_node_t evaluating_in_untracked;
    void *data_in_body, *data_in_untracked, *data_after_inner_read;
    rp_status_t st;
} tracking_probe_t;

static tracking_probe_t probe_c, probe_e;

static long tracked_compute(th_world_t *w, th_node_t *self)
{
    CHECK_ST(rp_graph_tracking(w->g, &probe_c.in_body), RP_OK);
    CHECK_ST(rp_graph_evaluating(w->g, NULL, &probe_c.data_in_body), RP_OK);
    long v = th_read(w, self->in[0]);
    CHECK_ST(rp_untracked_begin(w->g), RP_OK);
    CHECK_ST(rp_graph_tracking(w->g, &probe_c.in_untracked), RP_OK);
    CHECK_ST(rp_graph_evaluating(w->g, &probe_c.evaluating_in_untracked, &probe_c.data_in_untracked), RP_OK);
    CHECK_ST(rp_untracked_end(w->g), RP_OK);
    CHECK_ST(rp_graph_tracking(w->g, &probe_c.after_untracked), RP_OK);
    return v;
}

static long tracked_effect(th_world_t *w, th_node_t *self)
{
    CHECK_ST(rp_graph_tracking(w->g, &probe_e.in_body), RP_OK);
    CHECK_ST(rp_graph_evaluating(w->g, NULL, &probe_e.data_in_body), RP_OK);
    long v = th_read(w, self->in[0]); /* computes in[0], a computed */
    CHECK_ST(rp_graph_tracking(w->g, &probe_e.after_inner_read), RP_OK);
    CHECK_ST(rp_graph_evaluating(w->g, NULL, &probe_e.data_after_inner_read), RP_OK);
    CHECK_ST(rp_untracked_begin(w->g), RP_OK);
    CHECK_ST(rp_untracked_begin(w->g), RP_OK);
    CHECK_ST(rp_untracked_end(w->g), RP_OK);
    CHECK_ST(rp_graph_tracking(w->g, &probe_e.in_untracked), RP_OK); /* still inside the outer section */
    CHECK_ST(rp_graph_evaluating(w->g, &probe_e.evaluating_in_untracked, &probe_e.data_in_untracked), RP_OK);
    CHECK_ST(rp_untracked_end(w->g), RP_OK);
    CHECK_ST(rp_graph_tracking(w->g, &probe_e.after_untracked), RP_OK);
    return v;
}

static void tracking_names_the_running_reader(void)
{
    harness_begin("tracking_names_the_running_reader");
    th_world_t w;
    th_init(&w, 32, 0);
    rp_node_t t = TH_UNWRITTEN;
    CHECK_ST(rp_graph_tracking(w.g, &t), RP_OK);
    CHECK_NODE(t, RP_NODE_NONE);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *c = th_computed(&w, "c", tracked_compute, 0, a, NULL);
    th_node_t *e = th_effect(&w, "e", tracked_effect, 0, c, NULL);
    CHECK_NODE(probe_e.in_body, e->h);
    CHECK_NODE(probe_c.in_body, c->h);
    CHECK_NODE(probe_c.in_untracked, RP_NODE_NONE);
    CHECK_NODE(probe_c.after_untracked, c->h);
    CHECK_NODE(probe_e.after_inner_read, e->h);
    CHECK_NODE(probe_e.in_untracked, RP_NODE_NONE);
    CHECK_NODE(probe_e.after_untracked, e->h);
    /* The node evaluating, with its data, in the body, after an inner compute and inside untracked
     * sections. */
    CHECK(probe_c.data_in_body == c && probe_c.data_in_untracked == c);
    CHECK_NODE(probe_c.evaluating_in_untracked, c->h);
    CHECK(probe_e.data_in_body == e && probe_e.data_after_inner_read == e && probe_e.data_in_untracked == e);
    CHECK_NODE(probe_e.evaluating_in_untracked, e->h);
    /* Outside any body, and in an untracked section outside any body. */
    void *data = &t;
    CHECK_ST(rp_graph_tracking(w.g, &t), RP_OK);
    CHECK_NODE(t, RP_NODE_NONE);
    t = TH_UNWRITTEN;
    CHECK_ST(rp_graph_evaluating(w.g, &t, &data), RP_OK);
    CHECK_NODE(t, RP_NODE_NONE);
    CHECK(data == NULL);
    CHECK_ST(rp_untracked_begin(w.g), RP_OK);
    CHECK_ST(rp_graph_tracking(w.g, &t), RP_OK);
    CHECK_NODE(t, RP_NODE_NONE);
    data = &t;
    CHECK_ST(rp_graph_evaluating(w.g, &t, &data), RP_OK);
    CHECK_NODE(t, RP_NODE_NONE);
    CHECK(data == NULL);
    CHECK_ST(rp_untracked_end(w.g), RP_OK);
    /* Top-level reads record no edge. */
    rp_graph_stats_t before = th_stats(&w);
    CHECK_ST(rp_node_read(w.g, a->h), RP_OK);
    CHECK_ST(rp_node_read(w.g, c->h), RP_OK);
    CHECK_EQ(th_stats(&w).live_edges, before.live_edges);
    CHECK_EQ(before.live_edges, 2);
    th_done(&w);
}

/* -------------------------------------------------------------- release */

static void release_is_called_once_for_each_node(void)
{
    harness_begin("release_is_called_once_for_each_node");
    th_world_t w;
    th_init(&w, 32, 0);
    w.log_mask = TH_LOG_RELEASE;
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *b = th_source(&w, "b", 2);
    th_node_t *c = th_computed(&w, "c", th_sum, 0, a, NULL);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, c, b);
    CHECK_EQ(e->value, 3);
    /* e re-runs without b once b is gone: its body reads only a live b. */
    e->in[1] = NULL;
    /* On dispose: at once, exactly once. */
    CHECK_ST(th_dispose(&w, b), RP_OK);
    CHECK_EQ(b->released, 1);
    CHECK_STR(th_take_log(&w), "~b");
    CHECK_EQ(a->released + c->released + e->released, 0);
    CHECK_EQ(th_stats(&w).live_nodes, 3);
    /* On destroy: every node still alive (th_done checks each exactly once). */
    CHECK_ST(rp_graph_destroy(w.g), RP_OK);
    CHECK_EQ(a->released, 1);
    CHECK_EQ(b->released, 1);
    CHECK_EQ(c->released, 1);
    CHECK_EQ(e->released, 1);
    CHECK_EQ(w.alloc.live_blocks, 0);
    free(w.nodes);
}

/* Live nodes are listed in creation order, also once freed slots are reused. */
static void live_nodes_are_listed_in_creation_order(void)
{
    harness_begin("live_nodes_are_listed_in_creation_order");
    th_world_t w;
    th_init(&w, 32, 0);
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *b = th_source(&w, "b", 2);
    th_node_t *c = th_computed(&w, "c", th_sum, 0, a, b);
    CHECK_EQ(th_read(&w, c), 3);
    CHECK_ST(th_dispose(&w, a), RP_OK);
    th_node_t *d = th_source(&w, "d", 4); /* takes a's slot */
    CHECK_EQ(d->h.slot, a->h.slot);
    rp_node_t nodes[8];
    size_t count = 0;
    CHECK_ST(rp_graph_nodes(w.g, NULL, 0, &count), RP_OK);
    CHECK_EQ(count, 3);
    CHECK_ST(rp_graph_nodes(w.g, nodes, 8, &count), RP_OK);
    CHECK_EQ(count, 3);
    CHECK(harness_same(nodes[0], b->h));
    CHECK(harness_same(nodes[1], c->h));
    CHECK(harness_same(nodes[2], d->h));
    c->in[0] = NULL;
    th_done(&w);
}

/* Creation orders take 32 bits: before they would wrap, the live nodes are
 * numbered again in the same order (the tests start the graph's counter near
 * the wrap: graph.h). Listings keep it across the renumbering,
 * so does the flush queue (effects run in creation order), and a savepoint
 * open across it keeps the nodes created after its begin as its own: the same
 * steps give the same values and runs with the renumbering as without. */
static long savepoint_across(bool wrap, unsigned *runs)
{
    th_world_t w;
    th_init(&w, 32, 0);
    th_node_t *x = th_source(&w, "x", 1);
    th_node_t *old = th_computed(&w, "old", th_scale, 2, x, NULL);
    CHECK_EQ(th_read(&w, old), 2);
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    if (wrap)
        w.g->next_order = UINT32_MAX - 1;
    rp_savepoint_t sp;
    CHECK_ST(rp_savepoint_begin(w.g, &sp), RP_OK);
    th_write(&w, x, 5);
    th_node_t *d1 = th_computed(&w, "d1", th_scale, 10, x, NULL); /* the last order before the wrap */
    CHECK_EQ(th_read(&w, d1), 50);
    th_node_t *d2 = th_computed(&w, "d2", th_sum, 0, d1, old); /* numbered again first */
    CHECK_EQ(th_read(&w, d2), 60);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, d2, NULL);
    CHECK(th_check(&w));
    th_write(&w, x, 1);
    CHECK_ST(rp_savepoint_rollback(w.g, &sp), RP_OK);
    CHECK(th_check(&w));
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    long result = th_read(&w, d2) * 1000 + th_read(&w, d1) * 10 + th_read(&w, old);
    th_write(&w, x, 3);
    result = result * 1000 + e->value;
    *runs = e->runs;
    CHECK(th_check(&w));
    th_done(&w);
    return result;
}

static void creation_orders_are_numbered_again_before_they_wrap(void)
{
    harness_begin("creation_orders_are_numbered_again_before_they_wrap");
    th_world_t w;
    th_init(&w, 32, 0);
    w.log_mask = TH_LOG_RUN;
    th_node_t *a = th_source(&w, "a", 1);
    th_node_t *b = th_source(&w, "b", 2);
    th_node_t *c = th_computed(&w, "c", th_sum, 0, a, b);
    th_node_t *ec = th_effect(&w, "ec", th_sum, 0, c, NULL);
    w.g->next_order = UINT32_MAX - 2; /* as after 2^32 - 3 creations */
    th_node_t *d = th_source(&w, "d", 4);                    /* UINT32_MAX - 1 */
    th_node_t *ed = th_effect(&w, "ed", th_sum, 0, d, NULL); /* UINT32_MAX */
    /* The renumbering sorts in room of its own: refused, the creation fails
     * and changes nothing; tried again, it succeeds. */
    th_node_t *f = th_prepare(&w, "f", RP_KIND_COMPUTED, th_sum, 0, d, NULL);
    w.alloc.fail_at = (long)w.alloc.calls;
    CHECK_ST(th_create(&w, f), RP_ENOMEM);
    CHECK_EQ(th_stats(&w).live_nodes, 6);
    CHECK(th_check(&w));
    CHECK_ST(th_create(&w, f), RP_OK); /* after a, ..., ed are numbered 1 to 6: 7 */
    c->in[0] = NULL;                                         /* c stops reading a */
    CHECK_ST(th_dispose(&w, a), RP_OK);
    th_node_t *g = th_source(&w, "g", 8); /* a's slot, order 8 */
    CHECK_EQ(g->h.slot, a->h.slot);
    CHECK_EQ(th_read(&w, f), 4);
    CHECK_EQ(ec->value, 2);
    CHECK(th_check(&w));
    rp_node_t nodes[8];
    size_t count = 0;
    CHECK_ST(rp_graph_nodes(w.g, nodes, 8, &count), RP_OK);
    CHECK_EQ(count, 7);
    th_node_t *expected[] = {b, c, ec, d, ed, f, g};
    for (size_t i = 0; i < 7 && i < count; i++)
        CHECK(harness_same(nodes[i], expected[i]->h));
    /* Both effects again, in one flush: creation order. */
    (void)th_take_log(&w);
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(th_write(&w, d, 5), RP_OK);
    CHECK_ST(th_write(&w, b, 3), RP_OK);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_STR(th_take_log(&w), "ec ed");
    th_done(&w);

    unsigned runs_plain = 0, runs_wrapped = 0;
    long plain = savepoint_across(false, &runs_plain);
    long wrapped = savepoint_across(true, &runs_wrapped);
    CHECK_EQ(plain, (12 * 1000 + 10 * 10 + 2) * 1000 + 36);
    CHECK_EQ(wrapped, plain);
    CHECK_EQ(runs_wrapped, runs_plain);
}

/* ------------------------------------------------- destroy inside callbacks */

static rp_status_t destroy_status;

static long destroy_from_body(th_world_t *w, th_node_t *self)
{
    destroy_status = rp_graph_destroy(w->g);
    return self->in[0] ? th_read(w, self->in[0]) : 0;
}

static void destroy_unwatched_hook(th_world_t *w, th_node_t *n)
{
    (void)n;
    destroy_status = rp_graph_destroy(w->g);
}

static void destroy_inside_a_callback_is_busy(void)
{
    harness_begin("destroy_inside_a_callback_is_busy");
    th_world_t w;
    th_init(&w, 32, 0);
    th_node_t *a = th_source(&w, "a", 1);
    destroy_status = RP_OK;
    th_node_t *e = th_effect(&w, "e", destroy_from_body, 0, a, NULL);
    CHECK_ST(destroy_status, RP_EBUSY);
    CHECK_EQ(e->runs, 1);
    destroy_status = RP_OK;
    th_node_t *c = th_computed(&w, "c", destroy_from_body, 0, a, NULL);
    CHECK_EQ(th_read(&w, c), 1);
    CHECK_ST(destroy_status, RP_EBUSY);
    /* The graph goes on working. */
    destroy_status = RP_OK;
    CHECK_ST(th_write(&w, a, 2), RP_OK);
    CHECK_ST(destroy_status, RP_EBUSY);
    CHECK_EQ(e->runs, 2);
    CHECK_EQ(th_read(&w, c), 2);
    th_check(&w);

    /* unwatched is a callback of the graph too: a loses its last subscriber. */
    CHECK_ST(th_dispose(&w, c), RP_OK);
    CHECK_EQ(a->unwatched, 0);
    w.on_unwatched = destroy_unwatched_hook;
    destroy_status = RP_OK;
    CHECK_ST(th_dispose(&w, e), RP_OK);
    CHECK_EQ(a->unwatched, 1);
    CHECK_ST(destroy_status, RP_EBUSY);
    w.on_unwatched = NULL;
    th_done(&w);
}

int main(void)
{
    version_matches_header();
    status_strings_name_every_code();
    graph_create_and_destroy();
    graphs_with_a_settle_bound();
    node_creation_of_each_kind();
    the_all_zero_handle_is_never_a_live_node();
    tracking_names_the_running_reader();
    release_is_called_once_for_each_node();
    live_nodes_are_listed_in_creation_order();
    creation_orders_are_numbered_again_before_they_wrap();
    destroy_inside_a_callback_is_busy();
    return harness_finish();
}
