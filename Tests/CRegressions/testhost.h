/*
 * testhost.h: a small host for the C regression programs, doing what the Swift
 * module does for real: it keeps every node's value next to the node's `data`
 * pointer, computes and runs node bodies, commits written sources, and counts
 * every callback so that tests can state exact expectations.
 *
 * Values are longs. A node's body is a C function of the world and the node; it
 * reads other nodes through th_read() (rp_node_read, then the value) and writes
 * sources through th_write() (store, then rp_source_set). A source has a
 * committed `value` and a `pending` written value: the commit callback moves
 * pending into value and reports whether it differed.
 *
 * An async node (th_async) is driven the way a host drives its tasks: its
 * compute notes the run's id and shows TH_IN_FLIGHT; the test runs the run's
 * body later, in a track section (th_async_track), and delivers a result in
 * a resolve section (th_async_resolve).
 *
 * Every world gets memory from a counting allocator that checks the size given
 * to `free` and can refuse allocations on demand; th_done() checks the graph
 * (_rp_graph_check), destroys it, and checks that every node was released
 * exactly once and every block was freed.
 */
#ifndef RIPPLE_TESTHOST_H
#define RIPPLE_TESTHOST_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* ------------------------------------------------------ counting allocator */

typedef struct th_alloc {
    size_t calls;          /* calls to alloc, refused ones included */
    size_t frees;          /* calls to free */
    size_t failures;       /* calls to alloc that returned NULL on purpose */
    size_t live_blocks;    /* blocks handed out and not freed */
    size_t live_bytes;     /* their sizes, added up */
    size_t size_mismatches; /* free called with a size other than the block's */
    long fail_at;          /* refuse the call whose index (calls before it) is this; -1: none */
    bool fail_all;         /* refuse every call while set */
} th_alloc_t;

/* Each block carries its size in front, 16 bytes to keep max_align_t alignment. */
#define TH_BLOCK_HEADER 16u

static void *th_alloc_fn(void *context, size_t size)
{
    th_alloc_t *a = context;
    size_t index = a->calls++;
    if (a->fail_all || (a->fail_at >= 0 && (size_t)a->fail_at == index)) {
        a->failures++;
        return NULL;
    }
    unsigned char *p = malloc(size + TH_BLOCK_HEADER);
    if (p == NULL)
        return NULL;
    memcpy(p, &size, sizeof size);
    a->live_blocks++;
    a->live_bytes += size;
    return p + TH_BLOCK_HEADER;
}

static void th_free_fn(void *context, void *block, size_t size)
{
    th_alloc_t *a = context;
    unsigned char *p = (unsigned char *)block - TH_BLOCK_HEADER;
    size_t stored;
    memcpy(&stored, p, sizeof stored);
    a->frees++;
    if (stored != size)
        a->size_mismatches++;
    a->live_blocks--;
    a->live_bytes -= stored;
    free(p);
}

/* ------------------------------------------------------------------- world */

typedef struct th_world th_world_t;
typedef struct th_node th_node_t;
typedef long (*th_body_t)(th_world_t *w, th_node_t *self);

#define TH_INPUTS 4

struct th_node {
    th_world_t *w;
    const char *name;
    rp_kind_t kind;
    rp_node_t h;
    bool created;        /* rp_node_create gave it a handle */
    long value;          /* source: committed; computed: last result; effect: last run's result */
    long pending;        /* source: latest written value */
    bool has_value;      /* computed: computed successfully at least once */
    bool always_changed; /* computed: report every result as a change */
    th_body_t body;
    th_node_t *in[TH_INPUTS]; /* what the body reads; its meaning is the body's */
    long arg;                 /* the body's parameter */
    rp_status_t inject;       /* compute returns this when not RP_OK */
    rp_status_t body_status;  /* the first failed read or write of the body's current run */
    unsigned computes, runs, commits, watched, unwatched, released;
    /* async nodes (th_async): the run its last compute started, as
     * rp_async_run gave it inside that compute; results delivered */
    uint64_t run;
    unsigned resolves;
    th_body_t on_start; /* async: called by compute, as the tracked reader */
    uint32_t options;   /* given to rp_node_create_with by th_create */
};

enum {
    TH_LOG_COMPUTE = 1, /* "name" when a computed computes */
    TH_LOG_RUN = 2,     /* "name" when an effect runs */
    TH_LOG_RELEASE = 4, /* "~name" when a node is released */
    TH_LOG_WATCH = 8    /* "+name" when watched, "-name" when unwatched */
};

struct th_world {
    rp_graph_t *g;
    th_alloc_t alloc;
    rp_allocator_t allocator;
    rp_graph_config_t config;
    th_node_t *nodes;
    size_t count, capacity;
    th_node_t *running;  /* the innermost node whose body is running */
    unsigned wrong_args; /* callbacks whose graph, node, data or kind did not match */
    unsigned anonymous_releases; /* release of a node created with NULL data */
    unsigned log_mask;
    char log[8192];
    size_t log_len;
    void (*on_unwatched)(th_world_t *w, th_node_t *n); /* optional hook, after counting */
    void *user;
};

static inline void th_log(th_world_t *w, unsigned kind, const char *prefix, const char *name)
{
    if ((w->log_mask & kind) == 0)
        return;
    int n = snprintf(w->log + w->log_len, sizeof w->log - w->log_len, "%s%s%s",
                     w->log_len ? " " : "", prefix, name);
    if (n > 0 && (size_t)n < sizeof w->log - w->log_len)
        w->log_len += (size_t)n;
}

/* The log so far (space-separated events), then an empty log. */
static inline const char *th_take_log(th_world_t *w)
{
    static char copy[sizeof w->log];
    memcpy(copy, w->log, w->log_len + 1);
    w->log_len = 0;
    w->log[0] = '\0';
    return copy;
}

static inline th_node_t *th_find(th_world_t *w, rp_node_t h)
{
    for (size_t i = 0; i < w->count; i++)
        if (w->nodes[i].created && harness_same(w->nodes[i].h, h))
            return &w->nodes[i];
    return NULL;
}

static inline const char *th_name(th_world_t *w, rp_node_t h)
{
    th_node_t *n = th_find(w, h);
    return n ? n->name : "(unknown)";
}

static inline void th_args(th_world_t *w, rp_graph_t *graph, rp_node_t node, th_node_t *n, rp_kind_t kind)
{
    if (graph != w->g || n == NULL || n->w != w || n->kind != kind) {
        w->wrong_args++;
        return;
    }
    if (!n->created) /* an effect's first run, before rp_node_create returns */
        n->h = node;
    else if (!harness_same(n->h, node))
        w->wrong_args++;
}

/* What an async node's readers see while its run is in flight. */
#define TH_IN_FLIGHT (-1L)

/* The compute of an async node: starts a run. It notes the run's id (which
 * rp_async_run gives inside the compute), calls on_start if any (reads it
 * makes are the node's own), and sets the value to TH_IN_FLIGHT, a change
 * unless it was in flight already. The run's body is run later by the test
 * (th_async_track). */
static rp_status_t th_async_compute(th_world_t *w, rp_graph_t *graph, rp_node_t node, th_node_t *n, bool *changed)
{
    n->computes++;
    th_log(w, TH_LOG_COMPUTE, "", n->name);
    uint64_t run = 0;
    CHECK_ST(rp_async_run(graph, node, &run), RP_OK);
    CHECK(run != 0 && run != n->run);
    n->run = run;
    th_node_t *outer = w->running;
    w->running = n;
    n->body_status = RP_OK;
    if (n->on_start)
        n->on_start(w, n);
    w->running = outer;
    if (n->body_status != RP_OK)
        return n->body_status;
    if (n->inject != RP_OK)
        return n->inject;
    *changed = !n->has_value || n->value != TH_IN_FLIGHT;
    n->value = TH_IN_FLIGHT;
    n->has_value = true;
    return RP_OK;
}

static rp_status_t th_compute_cb(void *host, rp_graph_t *graph, rp_node_t node, void *data, bool *changed)
{
    th_world_t *w = host;
    th_node_t *n = data;
    if (n != NULL && n->kind == RP_KIND_ASYNC) {
        th_args(w, graph, node, n, RP_KIND_ASYNC);
        return th_async_compute(w, graph, node, n, changed);
    }
    th_args(w, graph, node, n, RP_KIND_COMPUTED);
    n->computes++;
    th_log(w, TH_LOG_COMPUTE, "", n->name);
    th_node_t *outer = w->running;
    w->running = n;
    n->body_status = RP_OK;
    long v = n->body ? n->body(w, n) : 0;
    w->running = outer;
    if (n->body_status != RP_OK)
        return n->body_status;
    if (n->inject != RP_OK)
        return n->inject;
    *changed = !n->has_value || n->always_changed || v != n->value;
    n->value = v;
    n->has_value = true;
    return RP_OK;
}

static bool th_commit_cb(void *host, rp_graph_t *graph, rp_node_t node, void *data)
{
    th_world_t *w = host;
    th_node_t *n = data;
    th_args(w, graph, node, n, RP_KIND_SOURCE);
    n->commits++;
    bool changed = n->pending != n->value;
    n->value = n->pending;
    return changed;
}

static void th_run_cb(void *host, rp_graph_t *graph, rp_node_t node, void *data)
{
    th_world_t *w = host;
    th_node_t *n = data;
    th_args(w, graph, node, n, RP_KIND_EFFECT);
    n->runs++;
    th_log(w, TH_LOG_RUN, "", n->name);
    th_node_t *outer = w->running;
    w->running = n;
    n->body_status = RP_OK;
    n->value = n->body ? n->body(w, n) : 0;
    w->running = outer;
}

/* The node a watched or unwatched notification is about, its arguments
 * checked; NULL (counted as wrong) when the engine passed no data. */
static th_node_t *th_watch_node(th_world_t *w, rp_graph_t *graph, rp_node_t node, void *data)
{
    th_node_t *n = data;
    if (n == NULL) {
        w->wrong_args++;
        return NULL;
    }
    th_args(w, graph, node, n, n->kind);
    return n;
}

static void th_watched_cb(void *host, rp_graph_t *graph, rp_node_t node, void *data)
{
    th_world_t *w = host;
    th_node_t *n = th_watch_node(w, graph, node, data);
    if (n == NULL)
        return;
    n->watched++;
    th_log(w, TH_LOG_WATCH, "+", n->name);
}

static void th_unwatched_cb(void *host, rp_graph_t *graph, rp_node_t node, void *data)
{
    th_world_t *w = host;
    th_node_t *n = th_watch_node(w, graph, node, data);
    if (n == NULL)
        return;
    n->unwatched++;
    th_log(w, TH_LOG_WATCH, "-", n->name);
    if (w->on_unwatched)
        w->on_unwatched(w, n);
}

static void th_release_cb(void *host, rp_graph_t *graph, rp_node_t node, void *data)
{
    th_world_t *w = host;
    th_node_t *n = data;
    if (n == NULL) {
        w->anonymous_releases++;
        return;
    }
    th_args(w, graph, node, n, n->kind);
    n->released++;
    th_log(w, TH_LOG_RELEASE, "~", n->name);
}

/* Sets up a world (callbacks, counting allocator, room for `capacity` nodes)
 * without creating its graph, so that a test can change the configuration. */
static inline void th_setup(th_world_t *w, size_t capacity, uint32_t settle_bound)
{
    memset(w, 0, sizeof *w);
    w->alloc.fail_at = -1;
    w->allocator = (rp_allocator_t){.alloc = th_alloc_fn, .free = th_free_fn, .context = &w->alloc};
    w->config = (rp_graph_config_t){
        .callbacks = {.host = w,
                      .compute = th_compute_cb,
                      .commit = th_commit_cb,
                      .run = th_run_cb,
                      .watched = th_watched_cb,
                      .unwatched = th_unwatched_cb,
                      .release = th_release_cb},
        .allocator = &w->allocator,
        .settle_bound = settle_bound,
    };
    w->log_mask = TH_LOG_COMPUTE | TH_LOG_RUN;
    w->capacity = capacity;
    w->nodes = calloc(capacity, sizeof *w->nodes);
    if (w->nodes == NULL) {
        fprintf(stderr, "out of memory for %zu test nodes\n", capacity);
        exit(2);
    }
}

static inline void th_open(th_world_t *w)
{
    w->g = NULL;
    CHECK_ST(rp_graph_create(&w->config, &w->g), RP_OK);
    CHECK(w->g != NULL);
}

static inline void th_init(th_world_t *w, size_t capacity, uint32_t settle_bound)
{
    th_setup(w, capacity, settle_bound);
    th_open(w);
}

/* _rp_graph_check, with its message printed when it fails. */
static inline bool th_check(th_world_t *w)
{
    char message[512] = "";
    rp_status_t st = _rp_graph_check(w->g, message, sizeof message);
    CHECK_ST(st, RP_OK);
    if (st != RP_OK)
        fprintf(stderr, "    _rp_graph_check: %s\n", message);
    return st == RP_OK;
}

static inline rp_graph_stats_t th_stats(th_world_t *w)
{
    rp_graph_stats_t s;
    memset(&s, 0, sizeof s);
    CHECK_ST(rp_graph_stats(w->g, &s), RP_OK);
    return s;
}

/* Checks the graph, destroys it, and checks that every node was released
 * exactly once, that callbacks always got matching arguments, and that every
 * block from the counting allocator was freed with its own size. */
static inline void th_done(th_world_t *w)
{
    th_check(w);
    CHECK_ST(rp_graph_destroy(w->g), RP_OK);
    w->g = NULL;
    unsigned bad = 0;
    for (size_t i = 0; i < w->count; i++) {
        th_node_t *n = &w->nodes[i];
        if (n->created && n->released != 1) {
            if (bad++ < 5)
                fprintf(stderr, "    node %s released %u times\n", n->name, n->released);
        }
    }
    CHECK_EQ(bad, 0);
    CHECK_EQ(w->wrong_args, 0);
    if (w->config.allocator == &w->allocator) {
        CHECK_EQ(w->alloc.live_blocks, 0);
        CHECK_EQ(w->alloc.live_bytes, 0);
        CHECK_EQ(w->alloc.size_mismatches, 0);
    }
    free(w->nodes);
    w->nodes = NULL;
}

/* ------------------------------------------------------- nodes, reads, writes */

/* A node's host storage, not yet created in the graph. */
static inline th_node_t *th_prepare(th_world_t *w, const char *name, rp_kind_t kind, th_body_t body,
                                    long arg, th_node_t *in0, th_node_t *in1)
{
    if (w->count == w->capacity) {
        fprintf(stderr, "test world full (%zu nodes)\n", w->capacity);
        exit(2);
    }
    th_node_t *n = &w->nodes[w->count++];
    memset(n, 0, sizeof *n);
    n->w = w;
    n->name = name;
    n->kind = kind;
    n->body = body;
    n->arg = arg;
    n->in[0] = in0;
    n->in[1] = in1;
    return n;
}

#define TH_UNWRITTEN ((rp_node_t){0xdeadu, 0xbeefu, 0xcafeu})

/* rp_node_create for a prepared node. Out-parameters are written only on RP_OK,
 * except that an effect's handle is written whenever the effect was created
 * (its status then reports the first run's flush). */
static inline rp_status_t th_create(th_world_t *w, th_node_t *n)
{
    rp_node_t h = TH_UNWRITTEN;
    rp_status_t st = rp_node_create_with(w->g, n->kind, n->options, n, &h);
    bool written = !harness_same(h, TH_UNWRITTEN);
    if (st == RP_OK || (n->kind == RP_KIND_EFFECT && written)) {
        CHECK(written);
        n->h = h;
        n->created = true;
    } else {
        CHECK(!written);
    }
    return st;
}

static inline th_node_t *th_source(th_world_t *w, const char *name, long value)
{
    th_node_t *n = th_prepare(w, name, RP_KIND_SOURCE, NULL, 0, NULL, NULL);
    n->value = n->pending = value;
    CHECK_ST(th_create(w, n), RP_OK);
    return n;
}

static inline th_node_t *th_computed(th_world_t *w, const char *name, th_body_t body, long arg, th_node_t *in0,
                                     th_node_t *in1)
{
    th_node_t *n = th_prepare(w, name, RP_KIND_COMPUTED, body, arg, in0, in1);
    CHECK_ST(th_create(w, n), RP_OK);
    return n;
}

static inline th_node_t *th_effect(th_world_t *w, const char *name, th_body_t body, long arg, th_node_t *in0,
                                   th_node_t *in1)
{
    th_node_t *n = th_prepare(w, name, RP_KIND_EFFECT, body, arg, in0, in1);
    CHECK_ST(th_create(w, n), RP_OK);
    return n;
}

/* An effect whose reads are weak (RP_NODE_WEAK_READS). */
static inline th_node_t *th_weak_effect(th_world_t *w, const char *name, th_body_t body, long arg, th_node_t *in0,
                                        th_node_t *in1)
{
    th_node_t *n = th_prepare(w, name, RP_KIND_EFFECT, body, arg, in0, in1);
    n->options = RP_NODE_WEAK_READS;
    CHECK_ST(th_create(w, n), RP_OK);
    return n;
}

/* An async node whose runs, run by th_async_track, compute `body`. */
static inline th_node_t *th_async(th_world_t *w, const char *name, th_body_t body, long arg, th_node_t *in0,
                                  th_node_t *in1)
{
    th_node_t *n = th_prepare(w, name, RP_KIND_ASYNC, body, arg, in0, in1);
    CHECK_ST(th_create(w, n), RP_OK);
    return n;
}

/* The id of an async node's current run (0 when the call fails). */
static inline uint64_t th_async_run(th_world_t *w, th_node_t *n)
{
    uint64_t run = 0;
    CHECK_ST(rp_async_run(w->g, n->h, &run), RP_OK);
    return run;
}

/* One step of run `run` of async node `n`: its body, inside a track
 * section; the result is kept in `pending` for th_async_resolve. Returns the
 * begin's status when it fails, else the end's. */
static inline rp_status_t th_async_track(th_world_t *w, th_node_t *n, uint64_t run)
{
    rp_status_t st = rp_async_track_begin(w->g, n->h, run);
    if (st != RP_OK)
        return st;
    th_node_t *outer = w->running;
    w->running = n;
    n->body_status = RP_OK;
    n->pending = n->body ? n->body(w, n) : 0;
    w->running = outer;
    return rp_async_track_end(w->g, n->h);
}

/* Delivers `value` as run `run`'s result: stored inside a resolve section,
 * a change when it differs from what readers saw. Returns the begin's
 * status when it fails (nothing stored), else the end's. */
static inline rp_status_t th_async_resolve(th_world_t *w, th_node_t *n, uint64_t run, long value)
{
    rp_status_t st = rp_async_resolve_begin(w->g, n->h, run);
    if (st != RP_OK)
        return st;
    bool changed = !n->has_value || n->value != value;
    n->value = value;
    n->has_value = true;
    n->resolves++;
    return rp_async_resolve_end(w->g, n->h, changed);
}

static inline void th_note_failure(th_world_t *w, rp_status_t st)
{
    if (st != RP_OK && w->running != NULL && w->running->body_status == RP_OK)
        w->running->body_status = st;
}

/* Reads a node: rp_node_read, then its value. A failure is kept in the running
 * body's body_status (and so returned by its compute). */
static inline long th_read(th_world_t *w, th_node_t *n)
{
    th_note_failure(w, rp_node_read(w->g, n->h));
    return n->value;
}

/* Reads a node, giving the status. */
static inline long th_get(th_world_t *w, th_node_t *n, rp_status_t *status)
{
    *status = rp_node_read(w->g, n->h);
    return n->value;
}

/* Writes a source: stores the value, then rp_source_set. Without a commit
 * callback the value is visible at once. */
static inline rp_status_t th_write(th_world_t *w, th_node_t *n, long v)
{
    n->pending = v;
    if (w->config.callbacks.commit == NULL)
        n->value = v;
    rp_status_t st = rp_source_set(w->g, n->h);
    th_note_failure(w, st);
    return st;
}

static inline rp_status_t th_dispose(th_world_t *w, th_node_t *n)
{
    return rp_node_dispose(w->g, n->h);
}

/* ----------------------------------------------------------------- bodies */

/* The sum of the inputs' values, plus arg. */
static inline long th_sum(th_world_t *w, th_node_t *self)
{
    long v = self->arg;
    for (int i = 0; i < TH_INPUTS; i++)
        if (self->in[i])
            v += th_read(w, self->in[i]);
    return v;
}

/* in[0] times arg. */
static inline long th_scale(th_world_t *w, th_node_t *self)
{
    return th_read(w, self->in[0]) * self->arg;
}

/* in[0] divided by arg (rounding toward zero): many inputs give one result. */
static inline long th_div(th_world_t *w, th_node_t *self)
{
    return th_read(w, self->in[0]) / self->arg;
}

/* in[0] ? in[1] : in[2], reading the condition first. */
static inline long th_pick(th_world_t *w, th_node_t *self)
{
    return th_read(w, self->in[0]) ? th_read(w, self->in[1]) : th_read(w, self->in[2]);
}

/* ------------------------------------------------------------ edge checks */

/* Prints what a list check got and what it wanted, by name. */
static inline void th_print_mismatch(th_world_t *w, const char *what, rp_status_t st, const rp_node_t *got,
                                     size_t got_count, size_t room, th_node_t *const *want, size_t count)
{
    fprintf(stderr, "    %s (%s): ", what, rp_status_string(st));
    for (size_t i = 0; i < got_count && i < room; i++)
        fprintf(stderr, "%s ", th_name(w, got[i]));
    fprintf(stderr, "; want ");
    for (size_t i = 0; i < count; i++)
        fprintf(stderr, "%s ", want[i]->name);
    fprintf(stderr, "\n");
}

/* Whether `got` is exactly `want`, in that order. */
static inline bool th_handles_are(rp_status_t st, const rp_node_t *got, size_t got_count, th_node_t *const *want,
                                  size_t count)
{
    bool ok = st == RP_OK && got_count == count;
    for (size_t i = 0; ok && i < count; i++)
        ok = harness_same(got[i], want[i]->h);
    return ok;
}

/* Whether the node's dependencies are exactly `want`, in that order. */
static inline bool th_deps_are(th_world_t *w, th_node_t *n, th_node_t *const *want, size_t count)
{
    rp_node_t got[16];
    size_t got_count = 0;
    rp_status_t st = rp_node_dependencies(w->g, n->h, got, 16, &got_count);
    bool ok = th_handles_are(st, got, got_count, want, count);
    if (!ok) {
        char what[96];
        snprintf(what, sizeof what, "dependencies of %s", n->name);
        th_print_mismatch(w, what, st, got, got_count, 16, want, count);
    }
    return ok;
}

/* Whether the last RP_ECYCLE or RP_ELOOP named exactly `want`, in that order
 * (rp_graph_diagnostic). */
static inline bool th_diagnostic_is(th_world_t *w, th_node_t *const *want, size_t count)
{
    rp_node_t got[8];
    size_t got_count = 99;
    rp_status_t st = rp_graph_diagnostic(w->g, got, 8, &got_count);
    bool ok = th_handles_are(st, got, got_count, want, count);
    if (!ok)
        th_print_mismatch(w, "diagnostic", st, got, got_count, 8, want, count);
    return ok;
}

/* Whether the node's subscribers are exactly `want`, in any order. */
static inline bool th_subs_are(th_world_t *w, th_node_t *n, th_node_t *const *want, size_t count)
{
    rp_node_t got[16];
    size_t got_count = 0;
    rp_status_t st = rp_node_subscribers(w->g, n->h, got, 16, &got_count);
    bool ok = st == RP_OK && got_count == count;
    for (size_t i = 0; ok && i < count; i++) {
        bool found = false;
        for (size_t j = 0; j < got_count; j++)
            found = found || harness_same(got[j], want[i]->h);
        ok = found;
    }
    if (!ok) {
        char what[96];
        snprintf(what, sizeof what, "subscribers of %s", n->name);
        th_print_mismatch(w, what, st, got, got_count, 16, want, count);
    }
    return ok;
}

static inline size_t th_dep_count(th_world_t *w, th_node_t *n)
{
    size_t count = 99;
    CHECK_ST(rp_node_dependencies(w->g, n->h, NULL, 0, &count), RP_OK);
    return count;
}

static inline size_t th_sub_count(th_world_t *w, th_node_t *n)
{
    size_t count = 99;
    CHECK_ST(rp_node_subscribers(w->g, n->h, NULL, 0, &count), RP_OK);
    return count;
}

#define TH_LIST(...) ((th_node_t *const[]){__VA_ARGS__}), (sizeof((th_node_t *const[]){__VA_ARGS__}) / sizeof(th_node_t *))
#define CHECK_DEPS(w, n, ...) CHECK(th_deps_are((w), (n), TH_LIST(__VA_ARGS__)))
#define CHECK_SUBS(w, n, ...) CHECK(th_subs_are((w), (n), TH_LIST(__VA_ARGS__)))
#define CHECK_DIAGNOSTIC(w, ...) CHECK(th_diagnostic_is((w), TH_LIST(__VA_ARGS__)))

#endif /* RIPPLE_TESTHOST_H */
