/*
 * bad_input.c: every public function of ripple.h given what a careless or
 * hostile caller can give it, each answered with its documented status and
 * none crashing:
 *
 *   - NULL for every pointer parameter (through volatile pointers, so the
 *     compiler does not warn about the NULL it can see);
 *   - RP_NODE_NONE, stale handles (disposed, slot reused), handles of another
 *     graph and of a destroyed one, forged slots and generations;
 *   - kinds out of range, kinds whose callback is missing (a deferred effect
 *     without `schedule`), calls a node's kind does not support, ends without
 *     a begin, read sections never begun (a garbage ticket);
 *   - the async calls: other kinds, run ids that are not the current run (0
 *     included), disposed async nodes, section ends naming other handles;
 *   - reentrant calls from inside each callback that may call back in
 *     (compute, run, unwatched; commit, watched and release must not), in
 *     every context that triggers it (a top-level read, a nested compute, a
 *     flush, a creation, a disposal): destroying the graph (RP_EBUSY),
 *     unbalanced ends (RP_ESTATE), reading an effect (RP_EKIND) or itself,
 *     running or updating an effect or itself (RP_EBUSY), disposing itself or
 *     its input, creating an effect, writing a source, reading through a read
 *     section, asking what is tracked;
 *   - a runaway effect (RP_ELOOP), cycles (RP_ECYCLE), a compute that fails.
 *
 * After each case: _rp_graph_check holds, the graph still works (a batch
 * balances, a write runs its effect), and destroying it releases every node
 * once and frees every byte. Each reentrancy case runs in a child process so
 * that a crash is reported as that case's failure and the others still run
 * (`--no-fork` runs them in-process, for a debugger).
 *
 * Built with the engine's sources and Tests/CRegressions/testhost.h under
 * ASan and UBSan by scripts/sanitize. Prints `N passed, N failed`.
 */
#define _POSIX_C_SOURCE 200809L

#include "testhost.h"

#include <limits.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

/* NULLs the compiler cannot see through. */
static rp_graph_t *volatile null_graph;
static const rp_graph_config_t *volatile null_config;
static rp_graph_t **volatile null_graph_out;
static rp_graph_stats_t *volatile null_stats;
static uint32_t *volatile null_tag;
static rp_node_t *volatile null_nodes;
static size_t *volatile null_count;
static char *volatile null_message;
static rp_node_t *volatile null_node_out;
static rp_kind_t *volatile null_kind_out;
static void **volatile null_data_out;
static rp_read_section_t *volatile null_section;
static uint64_t *volatile null_run_out;
static void *volatile null_dst;
static const void *volatile null_src;

/* Checks a graph after a refused call: consistent and unchanged in size. */
static void expect_intact(th_world_t *w, size_t nodes, size_t edges)
{
    th_check(w);
    rp_graph_stats_t s = th_stats(w);
    CHECK_EQ(s.live_nodes, nodes);
    CHECK_EQ(s.live_edges, edges);
}

/* --------------------------------------------------------- NULL arguments */

static void null_pointers_are_invalid(void)
{
    harness_begin("null_pointers_are_invalid");
    th_world_t w;
    th_init(&w, 16, 0);
    th_node_t *s = th_source(&w, "s", 1);
    th_node_t *c = th_computed(&w, "c", th_sum, 0, s, NULL);
    CHECK_EQ(th_read(&w, c), 1);
    rp_graph_t *g = w.g;
    rp_node_t nodes[4];
    size_t count = 77;
    char message[64] = "untouched";

    rp_graph_t *out = (rp_graph_t *)&w; /* a sentinel: must stay as it is */
    CHECK_ST(rp_graph_create(null_config, &out), RP_EINVAL);
    CHECK_ST(rp_graph_create(&w.config, null_graph_out), RP_EINVAL);
    CHECK(out == (rp_graph_t *)&w);
    rp_allocator_t no_alloc = {.alloc = NULL, .free = th_free_fn, .context = &w.alloc};
    rp_allocator_t no_free = {.alloc = th_alloc_fn, .free = NULL, .context = &w.alloc};
    rp_graph_config_t config = w.config;
    config.allocator = &no_alloc;
    CHECK_ST(rp_graph_create(&config, &out), RP_EINVAL);
    config.allocator = &no_free;
    CHECK_ST(rp_graph_create(&config, &out), RP_EINVAL);
    CHECK(out == (rp_graph_t *)&w);

    CHECK_ST(rp_graph_destroy(null_graph), RP_OK);
    CHECK_ST(rp_graph_stats(null_graph, &(rp_graph_stats_t){0}), RP_EINVAL);
    CHECK_ST(rp_graph_stats(g, null_stats), RP_EINVAL);
    CHECK_ST(rp_graph_tag(null_graph, &(uint32_t){0}), RP_EINVAL);
    CHECK_ST(rp_graph_tag(g, null_tag), RP_EINVAL);
    uint32_t tag = 0;
    CHECK_ST(rp_graph_tag(g, &tag), RP_OK);
    CHECK_EQ(tag, s->h.graph_tag);
    CHECK_ST(rp_graph_diagnostic(null_graph, nodes, 4, &count), RP_EINVAL);
    CHECK_ST(rp_graph_diagnostic(g, null_nodes, 4, &count), RP_EINVAL);
    CHECK_ST(rp_graph_diagnostic(g, nodes, 4, null_count), RP_EINVAL);
    CHECK_EQ(count, 77);
    CHECK_ST(rp_graph_diagnostic(g, null_nodes, 0, &count), RP_OK);
    CHECK_EQ(count, 0);
    CHECK_ST(_rp_graph_check(null_graph, message, sizeof message), RP_EINVAL);
    CHECK_ST(_rp_graph_check(g, null_message, 64), RP_OK);
    CHECK_ST(_rp_graph_check(g, message, 0), RP_OK);
    CHECK_STR(message, "untouched");

    rp_node_t node = TH_UNWRITTEN;
    CHECK_ST(rp_node_create(null_graph, RP_KIND_SOURCE, NULL, &node), RP_EINVAL);
    CHECK_ST(rp_node_create(g, RP_KIND_SOURCE, NULL, null_node_out), RP_EINVAL);
    CHECK_ST(rp_node_create(g, RP_KIND_EFFECT, NULL, null_node_out), RP_EINVAL);
    CHECK_NODE(node, TH_UNWRITTEN);
    CHECK_ST(rp_node_dispose(null_graph, s->h), RP_EINVAL);
    rp_kind_t kind = (rp_kind_t)7;
    void *data = &kind;
    CHECK_ST(rp_node_kind(null_graph, s->h, &kind), RP_EINVAL);
    CHECK_ST(rp_node_kind(g, s->h, null_kind_out), RP_EINVAL);
    CHECK_ST(rp_node_data(null_graph, s->h, &data), RP_EINVAL);
    CHECK_ST(rp_node_data(g, s->h, null_data_out), RP_EINVAL);
    CHECK_EQ(kind, 7);
    CHECK(data == &kind);
    count = 77;
    CHECK_ST(rp_node_dependencies(null_graph, c->h, nodes, 4, &count), RP_EINVAL);
    CHECK_ST(rp_node_dependencies(g, c->h, null_nodes, 4, &count), RP_EINVAL);
    CHECK_ST(rp_node_dependencies(g, c->h, nodes, 4, null_count), RP_EINVAL);
    CHECK_ST(rp_node_subscribers(null_graph, s->h, nodes, 4, &count), RP_EINVAL);
    CHECK_ST(rp_node_subscribers(g, s->h, null_nodes, 4, &count), RP_EINVAL);
    CHECK_ST(rp_node_subscribers(g, s->h, nodes, 4, null_count), RP_EINVAL);
    CHECK_EQ(count, 77);
    CHECK_ST(rp_node_dependencies(g, c->h, null_nodes, 0, &count), RP_OK);
    CHECK_EQ(count, 1);
    CHECK_ST(rp_node_subscribers(g, s->h, null_nodes, 0, &count), RP_OK);
    CHECK_EQ(count, 1);
    count = 77;
    CHECK_ST(rp_graph_nodes(null_graph, nodes, 4, &count), RP_EINVAL);
    CHECK_ST(rp_graph_nodes(g, null_nodes, 4, &count), RP_EINVAL);
    CHECK_ST(rp_graph_nodes(g, nodes, 4, null_count), RP_EINVAL);
    CHECK_EQ(count, 77);
    CHECK_ST(rp_graph_nodes(g, null_nodes, 0, &count), RP_OK);
    CHECK_EQ(count, 2);
    CHECK_ST(rp_node_read(null_graph, s->h), RP_EINVAL);
    CHECK_ST(rp_source_set(null_graph, s->h), RP_EINVAL);
    CHECK_ST(rp_effect_run(null_graph, s->h), RP_EINVAL);
    CHECK_ST(rp_batch_begin(null_graph), RP_EINVAL);
    CHECK_ST(rp_batch_end(null_graph), RP_EINVAL);
    CHECK_ST(rp_untracked_begin(null_graph), RP_EINVAL);
    CHECK_ST(rp_untracked_end(null_graph), RP_EINVAL);
    CHECK_ST(rp_graph_tracking(null_graph, &node), RP_EINVAL);
    CHECK_ST(rp_graph_tracking(g, null_node_out), RP_EINVAL);
    void *evaluating_data = &node;
    CHECK_ST(rp_graph_evaluating(null_graph, &node, &evaluating_data), RP_EINVAL);
    CHECK_ST(rp_graph_evaluating(g, &node, null_data_out), RP_EINVAL);
    CHECK(evaluating_data == &node);
    CHECK_NODE(node, TH_UNWRITTEN);
    CHECK_ST(rp_effect_update(null_graph, s->h), RP_EINVAL);
    uint64_t run = 77;
    CHECK_ST(rp_async_run(null_graph, s->h, &run), RP_EINVAL);
    CHECK_ST(rp_async_run(g, s->h, null_run_out), RP_EINVAL);
    CHECK_EQ(run, 77);
    CHECK_ST(rp_async_track_begin(null_graph, s->h, 1), RP_EINVAL);
    CHECK_ST(rp_async_track_end(null_graph, s->h), RP_EINVAL);
    CHECK_ST(rp_async_resolve_begin(null_graph, s->h, 1), RP_EINVAL);
    CHECK_ST(rp_async_resolve_end(null_graph, s->h, true), RP_EINVAL);
    CHECK_ST(rp_async_restart(null_graph, s->h), RP_EINVAL);
    CHECK_ST(rp_node_invalidate(null_graph, s->h), RP_EINVAL);
    rp_read_section_t section = {12345};
    CHECK_ST(rp_node_read_begin(null_graph, s->h, &section), RP_EINVAL);
    CHECK_ST(rp_node_read_begin(g, s->h, null_section), RP_EINVAL);
    CHECK_ST(rp_node_read_end(null_graph, &section), RP_EINVAL);
    CHECK_ST(rp_node_read_end(g, null_section), RP_EINVAL);
    CHECK_EQ(section.ticket, 12345);
    rp_node_t created = TH_UNWRITTEN;
    CHECK_ST(rp_node_create_with(null_graph, RP_KIND_SOURCE, 0, NULL, &created), RP_EINVAL);
    CHECK_NODE(created, TH_UNWRITTEN);
    CHECK_ST(rp_node_add_options(null_graph, s->h, RP_NODE_WATCHED_BY_WEAK_READS), RP_EINVAL);
    int64_t copied = 77, source = 5;
    CHECK_ST(rp_node_read_copy(null_graph, s->h, &copied, &source, sizeof copied), RP_EINVAL);
    CHECK_ST(rp_node_read_copy(g, s->h, null_dst, &source, sizeof copied), RP_EINVAL);
    CHECK_ST(rp_node_read_copy(g, s->h, &copied, null_src, sizeof copied), RP_EINVAL);
    CHECK_EQ(copied, 77);
    /* Nothing to copy: the pointers are not needed. */
    CHECK_ST(rp_node_read_copy(g, s->h, null_dst, null_src, 0), RP_OK);

    expect_intact(&w, 2, 1);
    CHECK_EQ(c->computes, 1);
    th_done(&w);
}

static void version_and_status_strings(void)
{
    harness_begin("version_and_status_strings");
    CHECK_EQ(rp_version_number(), RP_VERSION_NUMBER);
    for (int status = RP_OK; status <= RP_ESUPERSEDED; status++) {
        const char *text = rp_status_string((rp_status_t)status);
        CHECK(text != NULL && strncmp(text, "RP_", 3) == 0 && strncmp(text, "RP_?", 4) != 0);
    }
    /* Values outside the enum, as a caller casting an int could pass. */
    static const int unknown[] = {-1, RP_ESUPERSEDED + 1, 1000, INT_MAX, INT_MIN};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++) {
        rp_status_t status;
        int value = unknown[i];
        memcpy(&status, &value, sizeof status);
        CHECK_STR(rp_status_string(status), "RP_?: unknown status");
    }
}

/* ---------------------------------------------------------- bad handles */

/* Every call that takes a node handle, as one signature. Out-parameters must
 * stay unwritten when the call fails. */
typedef rp_status_t (*handle_call_t)(rp_graph_t *g, rp_node_t node);

static rp_status_t call_dispose(rp_graph_t *g, rp_node_t node) { return rp_node_dispose(g, node); }
static rp_status_t call_read(rp_graph_t *g, rp_node_t node) { return rp_node_read(g, node); }
static rp_status_t call_set(rp_graph_t *g, rp_node_t node) { return rp_source_set(g, node); }
static rp_status_t call_run(rp_graph_t *g, rp_node_t node) { return rp_effect_run(g, node); }
static rp_status_t call_update(rp_graph_t *g, rp_node_t node) { return rp_effect_update(g, node); }

/* rp_node_read_begin, and the end when it succeeded. A failed begin opens no
 * section and leaves it unwritten. */
static rp_status_t call_read_section(rp_graph_t *g, rp_node_t node)
{
    rp_read_section_t section = {12345};
    rp_status_t status = rp_node_read_begin(g, node, &section);
    if (status != RP_OK) {
        CHECK_EQ(section.ticket, 12345);
        return status;
    }
    return rp_node_read_end(g, &section);
}

/* rp_node_read_copy: a failed read copies nothing. */
static rp_status_t call_read_copy(rp_graph_t *g, rp_node_t node)
{
    int64_t copied = 77, source = 5;
    rp_status_t status = rp_node_read_copy(g, node, &copied, &source, sizeof copied);
    CHECK_EQ(copied, status == RP_OK ? 5 : 77);
    return status;
}

static rp_status_t call_kind(rp_graph_t *g, rp_node_t node)
{
    rp_kind_t kind = (rp_kind_t)7;
    rp_status_t status = rp_node_kind(g, node, &kind);
    if (status != RP_OK) CHECK_EQ(kind, 7);
    return status;
}

static rp_status_t call_data(rp_graph_t *g, rp_node_t node)
{
    void *data = &data;
    rp_status_t status = rp_node_data(g, node, &data);
    if (status != RP_OK) CHECK(data == &data);
    return status;
}

static rp_status_t call_edges(rp_graph_t *g, rp_node_t node, bool deps)
{
    rp_node_t nodes[2] = {TH_UNWRITTEN, TH_UNWRITTEN};
    size_t count = 77;
    rp_status_t status = deps ? rp_node_dependencies(g, node, nodes, 2, &count)
                              : rp_node_subscribers(g, node, nodes, 2, &count);
    if (status != RP_OK) CHECK(count == 77 && harness_same(nodes[0], TH_UNWRITTEN));
    return status;
}

static rp_status_t call_deps(rp_graph_t *g, rp_node_t node) { return call_edges(g, node, true); }
static rp_status_t call_subs(rp_graph_t *g, rp_node_t node) { return call_edges(g, node, false); }

static rp_status_t call_async_run(rp_graph_t *g, rp_node_t node)
{
    uint64_t run = 77;
    rp_status_t status = rp_async_run(g, node, &run);
    if (status != RP_OK) CHECK_EQ(run, 77);
    return status;
}

/* The begins with run 1 (the handle is checked first), and the end when the
 * begin succeeded. */
static rp_status_t call_track(rp_graph_t *g, rp_node_t node)
{
    rp_status_t status = rp_async_track_begin(g, node, 1);
    return status != RP_OK ? status : rp_async_track_end(g, node);
}

static rp_status_t call_resolve(rp_graph_t *g, rp_node_t node)
{
    rp_status_t status = rp_async_resolve_begin(g, node, 1);
    return status != RP_OK ? status : rp_async_resolve_end(g, node, false);
}

static rp_status_t call_restart(rp_graph_t *g, rp_node_t node) { return rp_async_restart(g, node); }

static rp_status_t call_invalidate(rp_graph_t *g, rp_node_t node) { return rp_node_invalidate(g, node); }

static rp_status_t call_add_options(rp_graph_t *g, rp_node_t node)
{
    return rp_node_add_options(g, node, RP_NODE_WATCHED_BY_WEAK_READS);
}

static const struct {
    const char *name;
    handle_call_t call;
} handle_calls[] = {
    {"rp_node_add_options", call_add_options},
    {"rp_node_dispose", call_dispose},      {"rp_node_kind", call_kind},
    {"rp_node_data", call_data},            {"rp_node_dependencies", call_deps},
    {"rp_node_subscribers", call_subs},     {"rp_node_read", call_read},
    {"rp_source_set", call_set},            {"rp_effect_run", call_run},
    {"rp_effect_update", call_update},      {"rp_node_read_begin", call_read_section},
    {"rp_async_run", call_async_run},       {"rp_async_track_begin", call_track},
    {"rp_async_resolve_begin", call_resolve}, {"rp_async_restart", call_restart},
    {"rp_node_invalidate", call_invalidate}, {"rp_node_read_copy", call_read_copy},
};

static void bad_handles_are_refused(void)
{
    harness_begin("bad_handles_are_refused");
    th_world_t w, other, gone;
    th_init(&w, 16, 0);
    th_init(&other, 16, 0);
    th_init(&gone, 16, 0);
    th_node_t *s = th_source(&w, "s", 1);
    th_node_t *c = th_computed(&w, "c", th_sum, 0, s, NULL);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, c, NULL);
    /* Stale handles of each kind: disposed, and one whose slot was reused. */
    th_node_t *ds = th_source(&w, "ds", 1);
    th_node_t *dc = th_computed(&w, "dc", th_sum, 0, s, NULL);
    th_node_t *de = th_effect(&w, "de", th_sum, 0, s, NULL);
    rp_node_t stale[3] = {ds->h, dc->h, de->h};
    CHECK_ST(th_dispose(&w, ds), RP_OK);
    CHECK_ST(th_dispose(&w, dc), RP_OK);
    CHECK_ST(th_dispose(&w, de), RP_OK);
    th_node_t *reuse = th_source(&w, "reuse", 3);
    CHECK(reuse->h.slot == stale[2].slot || reuse->h.slot == stale[1].slot || reuse->h.slot == stale[0].slot);
    th_node_t *foreign = th_source(&other, "foreign", 1);
    th_node_t *lost = th_source(&gone, "lost", 1);
    rp_node_t lost_handle = lost->h;
    th_done(&gone);

    uint32_t tag = s->h.graph_tag;
    struct {
        const char *what;
        rp_node_t node;
        rp_status_t want;
    } cases[] = {
        {"RP_NODE_NONE", RP_NODE_NONE, RP_EINVAL},
        {"disposed source", stale[0], RP_ESTALE},
        {"disposed computed", stale[1], RP_ESTALE},
        {"disposed effect", stale[2], RP_ESTALE},
        {"another graph's node", foreign->h, RP_EFOREIGN},
        {"a destroyed graph's node", lost_handle, RP_EFOREIGN},
        {"a slot never handed out", {1000000, 1, tag}, RP_EINVAL},
        {"the last slot number", {UINT32_MAX, 1, tag}, RP_EINVAL},
        {"generation 0 of a live slot", {s->h.slot, 0, tag}, RP_EINVAL},
        {"a future generation of a live slot", {s->h.slot, s->h.generation + 1, tag}, RP_ESTALE},
        {"a live slot with the none tag", {s->h.slot, s->h.generation, 0}, RP_EFOREIGN},
        {"a live slot with another tag", {s->h.slot, s->h.generation, tag + 1}, RP_EFOREIGN},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (size_t j = 0; j < sizeof handle_calls / sizeof handle_calls[0]; j++) {
            rp_status_t got = handle_calls[j].call(w.g, cases[i].node);
            if (got != cases[i].want) {
                harness_report(false, __FILE__, __LINE__, "bad handle status");
                fprintf(stderr, "    %s(%s): got %s, want %s\n", handle_calls[j].name, cases[i].what,
                        rp_status_string(got), rp_status_string(cases[i].want));
            } else {
                harness_report(true, __FILE__, __LINE__, "bad handle status");
            }
        }
    }
    /* Nothing changed, nothing ran. */
    expect_intact(&w, 4, 2);
    CHECK_EQ(c->computes, 1);
    CHECK_EQ(e->runs, 1);
    CHECK_ST(call_kind(w.g, reuse->h), RP_OK);
    th_done(&other);
    th_done(&w);
}

/* ------------------------------------------------------------ bad kinds */

static void kinds_are_checked(void)
{
    harness_begin("kinds_are_checked");
    th_world_t w;
    th_init(&w, 16, 0);
    th_node_t *s = th_source(&w, "s", 1);
    th_node_t *c = th_computed(&w, "c", th_sum, 0, s, NULL);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, c, NULL);
    CHECK_ST(rp_source_set(w.g, c->h), RP_EKIND);
    CHECK_ST(rp_source_set(w.g, e->h), RP_EKIND);
    CHECK_ST(rp_node_read(w.g, e->h), RP_EKIND);
    CHECK_ST(rp_effect_run(w.g, s->h), RP_EKIND);
    CHECK_ST(rp_effect_run(w.g, c->h), RP_EKIND);
    CHECK_ST(rp_effect_update(w.g, s->h), RP_EKIND);
    CHECK_ST(rp_effect_update(w.g, c->h), RP_EKIND);
    CHECK_ST(call_read_section(w.g, e->h), RP_EKIND);
    CHECK_ST(rp_node_invalidate(w.g, s->h), RP_EKIND);
    CHECK_ST(rp_node_invalidate(w.g, e->h), RP_EKIND);
    /* An effect with nothing changed: the update does not run it. */
    CHECK_ST(rp_effect_update(w.g, e->h), RP_OK);
    /* The testhost has no `schedule`: no deferred effects. */
    rp_node_t deferred = TH_UNWRITTEN;
    CHECK_ST(rp_node_create(w.g, RP_KIND_DEFERRED_EFFECT, NULL, &deferred), RP_EINVAL);
    CHECK_NODE(deferred, TH_UNWRITTEN);
    static const int kinds[] = {RP_KIND_ASYNC + 1, 255, 1000, INT_MAX, -1, INT_MIN};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        rp_kind_t kind;
        int value = kinds[i];
        memcpy(&kind, &value, sizeof kind);
        rp_node_t node = TH_UNWRITTEN;
        CHECK_ST(rp_node_create(w.g, kind, NULL, &node), RP_EINVAL);
        CHECK_NODE(node, TH_UNWRITTEN);
    }
    /* Options unknown, or that the kind cannot have: a source reads nothing,
     * an effect is read by nothing. */
    static const struct {
        int kind;
        uint32_t options;
    } refused[] = {
        {RP_KIND_SOURCE, RP_NODE_WEAK_READS},      {RP_KIND_EFFECT, RP_NODE_WATCHED_BY_WEAK_READS},
        {RP_KIND_SOURCE, 1u << 2},                 {RP_KIND_COMPUTED, UINT32_MAX},
        {RP_KIND_COMPUTED, RP_NODE_WEAK_READS | (1u << 31)},
    };
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++) {
        rp_node_t node = TH_UNWRITTEN;
        CHECK_ST(rp_node_create_with(w.g, (rp_kind_t)refused[i].kind, refused[i].options, NULL, &node), RP_EINVAL);
        CHECK_NODE(node, TH_UNWRITTEN);
    }
    CHECK_ST(rp_node_add_options(w.g, s->h, RP_NODE_WEAK_READS), RP_EINVAL);
    CHECK_ST(rp_node_add_options(w.g, e->h, RP_NODE_WATCHED_BY_WEAK_READS), RP_EINVAL);
    CHECK_ST(rp_node_add_options(w.g, c->h, 1u << 5), RP_EINVAL);
    expect_intact(&w, 3, 2);
    CHECK_EQ(c->computes, 1);
    CHECK_EQ(e->runs, 1);
    th_done(&w);

    /* A graph without compute or run callbacks holds sources only. */
    th_setup(&w, 16, 0);
    w.config.callbacks.compute = NULL;
    w.config.callbacks.run = NULL;
    th_open(&w);
    rp_node_t node = TH_UNWRITTEN;
    CHECK_ST(rp_node_create(w.g, RP_KIND_COMPUTED, NULL, &node), RP_EINVAL);
    CHECK_ST(rp_node_create(w.g, RP_KIND_EFFECT, NULL, &node), RP_EINVAL);
    CHECK_ST(rp_node_create(w.g, RP_KIND_DEFERRED_EFFECT, NULL, &node), RP_EINVAL);
    CHECK_NODE(node, TH_UNWRITTEN);
    s = th_source(&w, "s", 1);
    CHECK_ST(th_write(&w, s, 2), RP_OK);
    CHECK_ST(rp_node_read(w.g, s->h), RP_OK);
    expect_intact(&w, 1, 0);
    th_done(&w);
}

/* The async calls given what they do not take: other kinds (RP_EKIND), run
 * ids that are not the current run (RP_ESUPERSEDED), a disposed async node
 * (RP_ESTALE), ends of sections never begun or of another node (RP_ESTATE).
 * Refused calls change nothing: no compute, no edge, no run id. */
static void async_calls_are_checked(void)
{
    harness_begin("async_calls_are_checked");
    th_world_t w;
    th_init(&w, 16, 0);
    th_node_t *s = th_source(&w, "s", 1);
    th_node_t *c = th_computed(&w, "c", th_sum, 0, s, NULL);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, c, NULL);
    th_node_t *a = th_async(&w, "a", th_sum, 0, s, NULL);
    th_node_t *gone = th_async(&w, "gone", th_sum, 0, s, NULL);
    CHECK_EQ(th_read(&w, gone), TH_IN_FLIGHT);
    uint64_t gone_run = th_async_run(&w, gone);
    rp_node_t stale = gone->h;
    CHECK_ST(th_dispose(&w, gone), RP_OK);

    th_node_t *others[] = {s, c, e};
    for (size_t i = 0; i < 3; i++) {
        uint64_t run = 77;
        rp_node_t h = others[i]->h;
        CHECK_ST(rp_async_run(w.g, h, &run), RP_EKIND);
        CHECK_EQ(run, 77);
        CHECK_ST(rp_async_track_begin(w.g, h, 1), RP_EKIND);
        CHECK_ST(rp_async_track_end(w.g, h), RP_ESTATE);
        CHECK_ST(rp_async_resolve_begin(w.g, h, 1), RP_EKIND);
        CHECK_ST(rp_async_resolve_end(w.g, h, true), RP_ESTATE);
        CHECK_ST(rp_async_restart(w.g, h), RP_EKIND);
    }
    CHECK_ST(rp_node_invalidate(w.g, a->h), RP_EKIND);
    /* Before its first run, every run id is superseded, 0 included. */
    CHECK_EQ(th_async_run(&w, a), 0);
    static const uint64_t runs[] = {0, 1, 2, UINT64_MAX};
    for (size_t i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        CHECK_ST(rp_async_track_begin(w.g, a->h, runs[i]), RP_ESUPERSEDED);
        CHECK_ST(rp_async_resolve_begin(w.g, a->h, runs[i]), RP_ESUPERSEDED);
    }
    CHECK_EQ(a->computes, 0);
    CHECK_EQ(th_read(&w, a), TH_IN_FLIGHT);
    uint64_t run = th_async_run(&w, a);
    CHECK(run != 0);
    /* Run 0, the disposed node's run, the ids around the current one. */
    const uint64_t wrong[] = {0, gone_run, run - 1, run + 1, UINT64_MAX};
    for (size_t i = 0; i < sizeof wrong / sizeof wrong[0]; i++) {
        CHECK_ST(rp_async_track_begin(w.g, a->h, wrong[i]), RP_ESUPERSEDED);
        CHECK_ST(rp_async_resolve_begin(w.g, a->h, wrong[i]), RP_ESUPERSEDED);
    }
    /* The disposed node, with its own run id. */
    CHECK_ST(call_async_run(w.g, stale), RP_ESTALE);
    CHECK_ST(rp_async_track_begin(w.g, stale, gone_run), RP_ESTALE);
    CHECK_ST(rp_async_resolve_begin(w.g, stale, gone_run), RP_ESTALE);
    CHECK_ST(rp_async_restart(w.g, stale), RP_ESTALE);
    /* Ends without begins, with any handle. */
    rp_node_t handles[] = {a->h, stale, RP_NODE_NONE, TH_UNWRITTEN};
    for (size_t i = 0; i < 4; i++) {
        CHECK_ST(rp_async_track_end(w.g, handles[i]), RP_ESTATE);
        CHECK_ST(rp_async_resolve_end(w.g, handles[i], true), RP_ESTATE);
    }
    /* Sections open: ends naming other handles are refused, the right one
     * still closes them. */
    CHECK_ST(rp_async_track_begin(w.g, a->h, run), RP_OK);
    for (size_t i = 1; i < 4; i++) CHECK_ST(rp_async_track_end(w.g, handles[i]), RP_ESTATE);
    CHECK_ST(rp_async_track_end(w.g, (rp_node_t){a->h.slot, a->h.generation, a->h.graph_tag + 1}), RP_ESTATE);
    CHECK_ST(rp_async_track_end(w.g, a->h), RP_OK);
    CHECK_ST(rp_async_resolve_begin(w.g, a->h, run), RP_OK);
    for (size_t i = 1; i < 4; i++) CHECK_ST(rp_async_resolve_end(w.g, handles[i], true), RP_ESTATE);
    CHECK_ST(rp_async_resolve_end(w.g, a->h, false), RP_OK);

    expect_intact(&w, 4, 2);
    CHECK_EQ(a->computes, 1);
    CHECK_EQ(th_async_run(&w, a), run);
    CHECK_EQ(th_dep_count(&w, a), 0);
    CHECK_EQ(c->computes, 1);
    CHECK_EQ(e->runs, 1);
    /* Nothing is left held. */
    CHECK_ST(rp_batch_end(w.g), RP_ESTATE);
    th_done(&w);
}

static void ends_without_begins(void)
{
    harness_begin("ends_without_begins");
    th_world_t w;
    th_init(&w, 16, 0);
    th_node_t *s = th_source(&w, "s", 1);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, s, NULL);
    CHECK_ST(rp_batch_end(w.g), RP_ESTATE);
    CHECK_ST(rp_untracked_end(w.g), RP_ESTATE);
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(th_write(&w, s, 2), RP_OK);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_EQ(e->runs, 1);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_EQ(e->runs, 2);
    CHECK_ST(rp_batch_end(w.g), RP_ESTATE);
    CHECK_ST(rp_untracked_begin(w.g), RP_OK);
    CHECK_ST(rp_untracked_end(w.g), RP_OK);
    CHECK_ST(rp_untracked_end(w.g), RP_ESTATE);
    /* Read sections that no begin filled: tickets no begin gives. */
    static const uint32_t garbage[] = {0, 1, 8, 16, 17, 12345, 0x7fffffffu, UINT32_MAX - 2, UINT32_MAX - 1};
    for (size_t i = 0; i < sizeof garbage / sizeof garbage[0]; i++) {
        rp_read_section_t section = {garbage[i]};
        CHECK_ST(rp_node_read_end(w.g, &section), RP_EINVAL);
        CHECK_ST(rp_batch_begin(w.g), RP_OK);
        CHECK_ST(rp_node_read_end(w.g, &section), RP_EINVAL);
        CHECK_ST(rp_batch_end(w.g), RP_OK);
    }
    /* A section begun and ended, outside and inside a batch, is refused when
     * ended again: inside the batch, the second end leaves the batch its
     * hold, so that its write runs the effect at the batch's end only. */
    rp_read_section_t section;
    CHECK_ST(rp_node_read_begin(w.g, s->h, &section), RP_OK);
    CHECK_ST(rp_node_read_end(w.g, &section), RP_OK);
    CHECK_ST(rp_node_read_end(w.g, &section), RP_EINVAL);
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(rp_node_read_begin(w.g, s->h, &section), RP_OK);
    CHECK_ST(rp_node_read_end(w.g, &section), RP_OK);
    CHECK_ST(rp_node_read_end(w.g, &section), RP_EINVAL);
    CHECK_ST(th_write(&w, s, 3), RP_OK);
    CHECK_EQ(e->runs, 2);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_EQ(e->runs, 3);
    CHECK_ST(rp_batch_end(w.g), RP_ESTATE);
    rp_node_t tracked = TH_UNWRITTEN;
    CHECK_ST(rp_graph_tracking(w.g, &tracked), RP_OK);
    CHECK_NODE(tracked, RP_NODE_NONE);
    /* A write still runs the effect at once: no batch was left open. */
    CHECK_ST(th_write(&w, s, 4), RP_OK);
    CHECK_EQ(e->runs, 4);
    expect_intact(&w, 2, 1);
    th_done(&w);
}

/* ------------------------------------------------------------- savepoints */

typedef struct savepoint_probe {
    rp_graph_t *g;
    rp_savepoint_t savepoint;
    rp_status_t rollback, release, begin;
} savepoint_probe_t;

/* Another thread's calls on a savepoint it did not open: refused, without
 * waiting for the graph the opening thread holds. */
static void *savepoint_from_other_thread(void *context)
{
    savepoint_probe_t *probe = context;
    rp_savepoint_t mine;
    probe->rollback = rp_savepoint_rollback(probe->g, &probe->savepoint);
    probe->release = rp_savepoint_release(probe->g, &probe->savepoint);
    probe->begin = rp_savepoint_begin(probe->g, &mine);
    return NULL;
}

static savepoint_probe_t compute_probe;

/* A compute that tries to close the savepoint its reader's caller opened. */
static long close_callers_savepoint(th_world_t *w, th_node_t *self)
{
    compute_probe.rollback = rp_savepoint_rollback(w->g, &compute_probe.savepoint);
    compute_probe.release = rp_savepoint_release(w->g, &compute_probe.savepoint);
    return th_read(w, self->in[0]);
}

static void savepoints_are_checked(void)
{
    harness_begin("savepoints_are_checked");
    th_world_t w;
    th_init(&w, 16, 0);
    th_node_t *s = th_source(&w, "s", 1);
    th_node_t *c = th_computed(&w, "c", close_callers_savepoint, 0, s, NULL);
    th_node_t *e = th_effect(&w, "e", th_sum, 0, s, NULL);
    rp_savepoint_t sp = {1};
    rp_savepoint_t *null_savepoint = NULL;
    CHECK_ST(rp_savepoint_begin(NULL, &sp), RP_EINVAL);
    CHECK_ST(rp_savepoint_begin(w.g, null_savepoint), RP_EINVAL);
    CHECK_ST(rp_savepoint_rollback(NULL, &sp), RP_EINVAL);
    CHECK_ST(rp_savepoint_rollback(w.g, null_savepoint), RP_EINVAL);
    CHECK_ST(rp_savepoint_release(NULL, &sp), RP_EINVAL);
    CHECK_ST(rp_savepoint_release(w.g, null_savepoint), RP_EINVAL);
    /* Outside a batch: no begin, and nothing to close. */
    CHECK_ST(rp_savepoint_begin(w.g, &sp), RP_ESTATE);
    CHECK_ST(rp_savepoint_rollback(w.g, &sp), RP_ESTATE);
    CHECK_ST(rp_savepoint_release(w.g, &sp), RP_ESTATE);
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    /* A rollback or release without a savepoint. */
    CHECK_ST(rp_savepoint_rollback(w.g, &sp), RP_ESTATE);
    CHECK_ST(rp_savepoint_release(w.g, &sp), RP_ESTATE);
    rp_savepoint_t outer, inner;
    CHECK_ST(rp_savepoint_begin(w.g, &outer), RP_OK);
    CHECK_ST(rp_savepoint_begin(w.g, &inner), RP_OK);
    /* Out of order, and handles no begin gave. */
    CHECK_ST(rp_savepoint_release(w.g, &outer), RP_ESTATE);
    CHECK_ST(rp_savepoint_rollback(w.g, &outer), RP_ESTATE);
    static const uint32_t garbage[] = {0, 3, 77, UINT32_MAX};
    for (size_t i = 0; i < sizeof garbage / sizeof garbage[0]; i++) {
        rp_savepoint_t wrong = {garbage[i]};
        CHECK_ST(rp_savepoint_rollback(w.g, &wrong), RP_ESTATE);
        CHECK_ST(rp_savepoint_release(w.g, &wrong), RP_ESTATE);
    }
    /* The batch cannot end while a savepoint it holds is open. */
    CHECK_ST(rp_batch_end(w.g), RP_ESTATE);
    /* Another thread: refused at once (it does not hold the graph). */
    savepoint_probe_t probe = {w.g, inner, RP_OK, RP_OK, RP_OK};
    pthread_t thread;
    CHECK(pthread_create(&thread, NULL, savepoint_from_other_thread, &probe) == 0);
    CHECK(pthread_join(thread, NULL) == 0);
    CHECK_ST(probe.rollback, RP_ESTATE);
    CHECK_ST(probe.release, RP_ESTATE);
    CHECK_ST(probe.begin, RP_ESTATE);
    /* A compute that this thread's read runs: another context than the begin's. */
    compute_probe.savepoint = inner;
    CHECK_EQ(th_read(&w, c), 1);
    CHECK_ST(compute_probe.rollback, RP_ESTATE);
    CHECK_ST(compute_probe.release, RP_ESTATE);
    CHECK_ST(rp_savepoint_release(w.g, &inner), RP_OK);
    CHECK_ST(rp_savepoint_release(w.g, &inner), RP_ESTATE);
    CHECK_ST(rp_savepoint_rollback(w.g, &outer), RP_OK);
    CHECK_ST(rp_savepoint_rollback(w.g, &outer), RP_ESTATE);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_ST(rp_batch_end(w.g), RP_ESTATE);
    CHECK_EQ(e->runs, 1);
    expect_intact(&w, 3, 2);
    th_done(&w);
}

/* -------------------------------------------- runaway effects and cycles */

static long increment_own_input(th_world_t *w, th_node_t *self)
{
    long v = th_read(w, self->in[0]);
    th_write(w, self->in[0], v + 1);
    return v;
}

static long read_self(th_world_t *w, th_node_t *self)
{
    return th_read(w, self) + 1;
}

static void loops_and_cycles_are_reported(void)
{
    harness_begin("loops_and_cycles_are_reported");
    th_world_t w;
    th_init(&w, 16, 3);
    th_node_t *s = th_source(&w, "s", 0);
    th_node_t *calm = th_effect(&w, "calm", th_sum, 0, s, NULL);
    /* An effect that writes what it reads never settles: RP_ELOOP, with the
     * handle written all the same, and the graph left consistent. `calm`
     * reads what `loop` writes, so it reaches the bound as well: the
     * diagnostic names both, in creation order. */
    th_node_t *loop = th_prepare(&w, "loop", RP_KIND_EFFECT, increment_own_input, 0, s, NULL);
    CHECK_ST(th_create(&w, loop), RP_ELOOP);
    CHECK(loop->created);
    CHECK_EQ(loop->runs, 4); /* the creation run, then the bound of 3 */
    rp_node_t named[4];
    size_t count = 0;
    CHECK_ST(rp_graph_diagnostic(w.g, named, 4, &count), RP_OK);
    CHECK_EQ(count, 2);
    CHECK_NODE(named[0], calm->h);
    CHECK_NODE(named[1], loop->h);
    th_check(&w);
    /* Without the runaway effect, the next write runs `calm` again. */
    CHECK_ST(th_dispose(&w, loop), RP_OK);
    unsigned runs = calm->runs;
    CHECK_ST(th_write(&w, s, 100), RP_OK);
    CHECK_EQ(calm->runs, runs + 1);
    CHECK_EQ(calm->value, 100);

    th_node_t *me = th_computed(&w, "me", read_self, 0, NULL, NULL);
    rp_status_t status;
    th_get(&w, me, &status);
    CHECK_ST(status, RP_ECYCLE);
    CHECK_ST(rp_graph_diagnostic(w.g, named, 4, &count), RP_OK);
    CHECK_EQ(count, 1);
    CHECK_NODE(named[0], me->h);
    th_check(&w);

    /* A compute that fails: the read returns its status, the node stays dirty
     * and computes again on the next read. */
    th_node_t *flaky = th_computed(&w, "flaky", th_sum, 0, s, NULL);
    flaky->inject = RP_ENOMEM;
    th_get(&w, flaky, &status);
    CHECK_ST(status, RP_ENOMEM);
    th_check(&w);
    flaky->inject = RP_OK;
    CHECK_EQ(th_get(&w, flaky, &status), 100);
    CHECK_ST(status, RP_OK);
    CHECK_EQ(flaky->computes, 2);
    th_done(&w);
}

/* ------------------------------------------------------------ reentrancy */

typedef enum action {
    ACT_DESTROY,       /* rp_graph_destroy: RP_EBUSY */
    ACT_BATCH_END,     /* rp_batch_end without a begin of its own: RP_ESTATE */
    ACT_UNTRACKED_END, /* rp_untracked_end without a begin: RP_ESTATE */
    ACT_TRACKING,      /* rp_graph_tracking: the running body, or none */
    ACT_READ_EFFECT,   /* rp_node_read of an effect: RP_EKIND */
    ACT_READ_SELF,     /* rp_node_read of the node whose callback this is */
    ACT_DISPOSE_SELF,  /* rp_node_dispose of it: RP_OK, stale at once */
    ACT_DISPOSE_OTHER, /* rp_node_dispose of a node it is linked to: RP_OK */
    ACT_CREATE_EFFECT, /* rp_node_create of an effect reading `s`: RP_OK */
    ACT_WRITE,         /* rp_source_set of `t` (a side write): RP_OK */
    ACT_RUN_OTHER,     /* rp_effect_run of the effect `x`: RP_OK */
    ACT_RUN_SELF,      /* rp_effect_run of itself: RP_EBUSY (an effect), RP_EKIND */
    ACT_UPDATE_OTHER,  /* rp_effect_update of the effect `x` (up to date): RP_OK */
    ACT_UPDATE_SELF,   /* rp_effect_update of itself: RP_EBUSY (an effect), RP_EKIND */
    ACT_READ_SECTION,  /* rp_node_read_begin and rp_node_read_end of `t`: RP_OK */
    ACTIONS
} action_t;

static const char *const action_names[] = {
    "destroy", "batch_end", "untracked_end", "tracking", "read_effect", "read_self",
    "dispose_self", "dispose_other", "create_effect", "write", "run_other", "run_self",
    "update_other", "update_self", "read_section",
};

typedef enum site { SITE_BODY, SITE_UNWATCHED } site_t;

typedef enum context {
    CTX_COMPUTE_TOP,       /* c's first compute, from a top-level read */
    CTX_COMPUTE_NESTED,    /* c computed from the compute of p, which reads it */
    CTX_COMPUTE_FLUSH,     /* c recomputed while a flush re-validates effect e */
    CTX_RUN_CREATE,        /* e's first run, inside rp_node_create */
    CTX_RUN_FLUSH,         /* e's run in the flush of a write */
    CTX_RUN_EXPLICIT,      /* e's run by rp_effect_run */
    CTX_UNWATCHED_DISPOSE, /* c unwatched after its only reader is disposed */
    CTX_UNWATCHED_FLUSH,   /* c unwatched after e stops reading it */
    CONTEXTS
} context_t;

static const char *const context_names[] = {
    "compute_top", "compute_nested", "compute_flush", "run_create",
    "run_flush", "run_explicit", "unwatched_dispose", "unwatched_flush",
};

/* The case being run: which node's callback acts, and what it saw. */
static struct probe {
    action_t action;
    site_t site;
    th_node_t *node;              /* whose callback acts */
    th_node_t *s, *t, *c, *e, *x; /* the case's nodes */
    rp_node_t expect_tracking;
    bool armed, fired;
    rp_status_t result; /* what the action's call returned */
    rp_status_t after;  /* dispose_self: rp_node_kind of the handle right after */
    rp_node_t tracked;
} probe;

static void act(th_world_t *w, th_node_t *self)
{
    rp_graph_t *g = w->g;
    rp_kind_t kind;
    probe.fired = true;
    switch (probe.action) {
    case ACT_DESTROY: probe.result = rp_graph_destroy(g); break;
    case ACT_BATCH_END: probe.result = rp_batch_end(g); break;
    case ACT_UNTRACKED_END: probe.result = rp_untracked_end(g); break;
    case ACT_TRACKING: probe.result = rp_graph_tracking(g, &probe.tracked); break;
    case ACT_READ_EFFECT: probe.result = rp_node_read(g, probe.x->h); break;
    case ACT_READ_SELF: probe.result = rp_node_read(g, self->h); break;
    case ACT_DISPOSE_SELF:
        probe.result = rp_node_dispose(g, self->h);
        probe.after = rp_node_kind(g, self->h, &kind);
        break;
    case ACT_DISPOSE_OTHER: probe.result = rp_node_dispose(g, probe.s->h); break; /* its input */
    case ACT_CREATE_EFFECT: {
        th_node_t *made = th_prepare(w, "made", RP_KIND_EFFECT, th_sum, 0, probe.s, NULL);
        probe.result = th_create(w, made);
        break;
    }
    case ACT_WRITE: probe.result = th_write(w, probe.t, probe.t->pending + 5); break;
    case ACT_RUN_OTHER: probe.result = rp_effect_run(g, probe.x->h); break;
    case ACT_RUN_SELF: probe.result = rp_effect_run(g, self->h); break;
    case ACT_UPDATE_OTHER: probe.result = rp_effect_update(g, probe.x->h); break;
    case ACT_UPDATE_SELF: probe.result = rp_effect_update(g, self->h); break;
    case ACT_READ_SECTION: {
        rp_read_section_t section;
        probe.result = rp_node_read_begin(g, probe.t->h, &section);
        if (probe.result == RP_OK) probe.result = rp_node_read_end(g, &section);
        break;
    }
    case ACTIONS: break;
    }
}

static void maybe_act(th_world_t *w, th_node_t *self, site_t site)
{
    if (probe.armed && !probe.fired && probe.node == self && probe.site == site) act(w, self);
}

/* A body that reads in[0], lets the probe act, then reads in[1]: so the
 * action happens with the run half done. */
static long acting_sum(th_world_t *w, th_node_t *self)
{
    long v = self->in[0] ? th_read(w, self->in[0]) : 0;
    maybe_act(w, self, SITE_BODY);
    return v + (self->in[1] ? th_read(w, self->in[1]) : 0);
}

static void acting_unwatched(th_world_t *w, th_node_t *n)
{
    maybe_act(w, n, SITE_UNWATCHED);
}

static void arm(th_node_t *node, site_t site)
{
    probe.node = node;
    probe.site = site;
    probe.armed = true;
}

static rp_status_t expected_result(context_t context)
{
    switch (probe.action) {
    case ACT_DESTROY: return RP_EBUSY;
    case ACT_BATCH_END:
    case ACT_UNTRACKED_END: return RP_ESTATE;
    case ACT_READ_EFFECT: return RP_EKIND;
    case ACT_READ_SELF:
        if (context <= CTX_COMPUTE_FLUSH) return RP_ECYCLE; /* a computed reading itself */
        if (context <= CTX_RUN_EXPLICIT) return RP_EKIND;   /* an effect */
        return RP_OK;                                       /* a computed in its unwatched */
    case ACT_RUN_SELF:
    case ACT_UPDATE_SELF:
        return context >= CTX_RUN_CREATE && context <= CTX_RUN_EXPLICIT ? RP_EBUSY : RP_EKIND;
    default: return RP_OK;
    }
}

static void reentrant_case(context_t context, action_t action)
{
    th_world_t w;
    th_setup(&w, 16, 0);
    w.on_unwatched = acting_unwatched;
    th_open(&w);
    memset(&probe, 0, sizeof probe);
    probe.action = action;
    probe.result = RP_ECORRUPT; /* no call made */
    probe.after = RP_ECORRUPT;
    probe.s = th_source(&w, "s", 1);
    probe.t = th_source(&w, "t", 10);
    probe.x = th_effect(&w, "x", NULL, 0, NULL, NULL);
    probe.c = th_computed(&w, "c", acting_sum, 0, probe.s, probe.t);
    th_node_t *s = probe.s, *c = probe.c;
    rp_status_t status = RP_OK;
    switch (context) {
    case CTX_COMPUTE_TOP:
        arm(c, SITE_BODY);
        th_get(&w, c, &status);
        break;
    case CTX_COMPUTE_NESTED: {
        th_node_t *p = th_computed(&w, "p", th_sum, 0, c, NULL);
        arm(c, SITE_BODY);
        th_get(&w, p, &status);
        break;
    }
    case CTX_COMPUTE_FLUSH:
        probe.e = th_effect(&w, "e", th_sum, 0, c, NULL);
        arm(c, SITE_BODY);
        status = th_write(&w, s, 2);
        break;
    case CTX_RUN_CREATE:
        probe.e = th_prepare(&w, "e", RP_KIND_EFFECT, acting_sum, 0, s, probe.t);
        arm(probe.e, SITE_BODY);
        status = th_create(&w, probe.e);
        probe.expect_tracking = probe.e->h; /* written by the first run */
        break;
    case CTX_RUN_FLUSH:
        probe.e = th_effect(&w, "e", acting_sum, 0, s, probe.t);
        arm(probe.e, SITE_BODY);
        status = th_write(&w, s, 2);
        break;
    case CTX_RUN_EXPLICIT:
        probe.e = th_effect(&w, "e", acting_sum, 0, s, probe.t);
        arm(probe.e, SITE_BODY);
        status = rp_effect_run(w.g, probe.e->h);
        break;
    case CTX_UNWATCHED_DISPOSE:
        probe.e = th_effect(&w, "e", th_sum, 0, c, NULL);
        arm(c, SITE_UNWATCHED);
        status = th_dispose(&w, probe.e);
        break;
    case CTX_UNWATCHED_FLUSH:
        probe.e = th_prepare(&w, "e", RP_KIND_EFFECT, th_pick, 0, s, c);
        probe.e->in[2] = probe.t;
        CHECK_ST(th_create(&w, probe.e), RP_OK);
        arm(c, SITE_UNWATCHED);
        status = th_write(&w, s, 0);
        break;
    case CONTEXTS: return;
    }
    if (probe.site == SITE_BODY && context != CTX_RUN_CREATE) probe.expect_tracking = probe.node->h;

    CHECK(probe.fired);
    CHECK_ST(probe.result, expected_result(context));
    if (action == ACT_TRACKING) CHECK_NODE(probe.tracked, probe.expect_tracking);
    if (action == ACT_DISPOSE_SELF) CHECK_ST(probe.after, RP_ESTALE);
    /* The call that triggered the callback: it may report that the node it
     * read was disposed meanwhile, or the cycle the body met; nothing else. */
    if (action == ACT_DISPOSE_SELF || action == ACT_DISPOSE_OTHER) {
        CHECK(status == RP_OK || status == RP_ESTALE);
    } else {
        CHECK_ST(status, RP_OK);
    }

    /* The graph is consistent, balanced and working. */
    th_check(&w);
    rp_node_t tracked = TH_UNWRITTEN;
    CHECK_ST(rp_graph_tracking(w.g, &tracked), RP_OK);
    CHECK_NODE(tracked, RP_NODE_NONE);
    CHECK_ST(rp_untracked_end(w.g), RP_ESTATE);
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_ST(rp_batch_end(w.g), RP_ESTATE);
    th_node_t *u = th_source(&w, "u", 1);
    th_node_t *f = th_effect(&w, "f", th_sum, 0, u, NULL);
    CHECK_ST(th_write(&w, u, 2), RP_OK);
    CHECK_EQ(f->runs, 2);
    CHECK_EQ(f->value, 2);
    th_done(&w);
}

/* ---------------------------------------------------------------- driver */

static bool no_fork;

/* Runs one case in a child process, so that a crash fails that case only.
 * The child sends its pass and fail counts back through a pipe. */
static void isolated(const char *name, void (*run)(context_t, action_t), context_t context, action_t action)
{
    char scenario[96];
    snprintf(scenario, sizeof scenario, "%s", name);
    if (no_fork) {
        harness_begin(scenario);
        run(context, action);
        return;
    }
    fflush(stdout);
    fflush(stderr);
    int channel[2];
    if (pipe(channel) != 0) {
        perror("pipe");
        exit(2);
    }
    pid_t child = fork();
    if (child < 0) {
        perror("fork");
        exit(2);
    }
    if (child == 0) {
        close(channel[0]);
        harness_passed = harness_failed = 0;
        harness_begin(scenario);
        run(context, action);
        unsigned counts[2] = {harness_passed, harness_failed};
        if (write(channel[1], counts, sizeof counts) != (ssize_t)sizeof counts) _exit(3);
        close(channel[1]);
        fflush(stdout);
        fflush(stderr);
        exit(harness_failed ? 1 : 0); /* exit, not _exit: the leak checker runs at exit */
    }
    close(channel[1]);
    unsigned counts[2] = {0, 0};
    ssize_t got = read(channel[0], counts, sizeof counts);
    close(channel[0]);
    int wait_status = 0;
    waitpid(child, &wait_status, 0);
    harness_passed += counts[0];
    harness_failed += counts[1];
    bool clean_exit = WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == (counts[1] ? 1 : 0);
    if (got != (ssize_t)sizeof counts || !clean_exit) {
        harness_failed++;
        if (WIFSIGNALED(wait_status)) {
            fprintf(stderr, "[%s] crashed: signal %d\n", scenario, WTERMSIG(wait_status));
        } else {
            fprintf(stderr, "[%s] did not finish cleanly: exit status %d\n", scenario, WEXITSTATUS(wait_status));
        }
    }
}

int main(int argc, char **argv)
{
    no_fork = argc > 1 && strcmp(argv[1], "--no-fork") == 0;
    version_and_status_strings();
    null_pointers_are_invalid();
    bad_handles_are_refused();
    kinds_are_checked();
    async_calls_are_checked();
    ends_without_begins();
    savepoints_are_checked();
    loops_and_cycles_are_reported();
    for (int context = 0; context < CONTEXTS; context++) {
        for (int action = 0; action < ACTIONS; action++) {
            char name[96];
            snprintf(name, sizeof name, "reentrant %s from %s", action_names[action], context_names[context]);
            isolated(name, reentrant_case, (context_t)context, (action_t)action);
        }
    }
    return harness_finish();
}
