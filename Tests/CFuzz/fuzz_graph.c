/*
 * fuzz_graph.c: a differential fuzzer for the engine (libFuzzer).
 *
 * The input bytes are a program of operations on one graph: create sources,
 * computeds and effects; write sources (writing back to the committed value
 * too); read nodes (now and then in a read section then ended twice, which
 * must be refused); open and close batches; dispose nodes. A computed or an
 * effect reads a selector node, then one of two sets of nodes depending on
 * the selector's parity (so what it reads changes from run to run), and
 * reduces the sum modulo 5 (so equal results, which stop propagation, are
 * common). Reading a disposed node gives RP_ESTALE and counts as 0.
 *
 * The first byte turns on callbacks that change the graph while it works, and
 * failures (the environment variable FUZZ_GRAPH_MODES, a mask, keeps only
 * some; FUZZ_GRAPH_TRACE=1 prints every operation and callback, to triage;
 * FUZZ_GRAPH_STATS=1 prints, at exit, how many inputs ran in each mode):
 *   1  effects write a source created after them (so effects re-trigger
 *      later effects of the same flush, and never loop);
 *   2  computeds write such a source (side writes during reads);
 *   4  a compute or a run disposes a node (itself, or one created before it)
 *      half-way through its body;
 *   8  some computeds fail every second or third compute (RP_ENOMEM, after
 *      reading their selector); the host retries as the contract says: a
 *      failed read is read again, an effect whose run met a failure is run
 *      again (rp_effect_run), and effects left queued by a failed flush run
 *      at the next flush (an empty batch);
 *  16  async nodes: created like computeds (a program over earlier nodes),
 *      their compute starts a run (its id from rp_async_run, the value "in
 *      flight", 7) and reads nothing; operations then run the current run's
 *      program in a track section (or try a superseded run's), deliver its
 *      result in a resolve section (a stream: as often as they like), and
 *      restart nodes. With mode 8, async computes fail too.
 *  32  invalidations: operations invalidate computeds (rp_node_invalidate),
 *      in and out of batches, half the time changing a term of the
 *      computed's program that lives outside the graph (its `salt`), so that
 *      the recompute gives a new value, half the time not (an equal value,
 *      which must stop there).
 *
 * The model of an invalidated computed: its program adds its salt; it must
 * recompute (lazily, or before the call returns when an effect reads it)
 * though nothing it read changed, and its readers re-run only if its value
 * did.
 *
 * Bit 7 of the first byte turns on savepoints, in the modes without side
 * writes, disposals from callbacks, failures and async nodes (0, 1, 32, 33):
 * one operation byte in eight is then a savepoint operation: a begin (nested
 * up to 3; refused, RP_ESTATE, outside a batch), a rollback or a release of
 * the innermost one (then the same handle again, refused), or, now and then,
 * of one that is not the innermost, or with none open (refused, changing
 * nothing); ending the batch a savepoint opened in is refused too. The host
 * keeps copies of computed values (callbacks.save, a stack: every third node
 * and a full stack get none) and checks that `restore` gives them back
 * newest first, each once, applied only by a rollback. A rollback's model,
 * as ripple.h documents it: the host first puts back each source it wrote
 * since the begin (and the salts of its invalidations); then every read,
 * and every effect outside batches, must see the model's values again, as
 * if the savepoint's writes had never been made; nodes created since stay;
 * a node stale at the begin (or created since) may re-validate once more
 * than needed: after a rollback each node may run once without a reason
 * ("at most": a second one fails the check; a recompute by the rollback
 * itself uses it up). Operations dispose nodes inside savepoints too: a
 * node disposed there stays disposed (it reads as 0 after the rollback, as
 * before it), and what read it, directly or not, is up to date again from
 * the values as they are (ripple.h: it "lost them for good: it is
 * recomputed, or stays marked (each re-validates or runs again, at worst
 * once more than needed)"): within the same allowance, and every value
 * read, by the rollback's recomputes too, must be the model's.
 *
 * Bit 6 of the first byte (the one above the modes) has the graph created on
 * a thread that then ends: a graph is biased to its creator, so the
 * fuzzer's first call revokes the bias and every call then takes the turns
 * and reader stripes that threads share; otherwise every call takes the
 * graph through the bias.
 *
 * The model of an async node: its value is "in flight" until its current
 * run resolves, then the program's result over the current values (a run
 * whose inputs changed must have been superseded by then); a new run starts
 * only when the node was never run, its last compute failed, it is
 * restarted, or something its run read changed (by version) or was
 * disposed; a begin is refused (RP_ESUPERSEDED) exactly for runs that are
 * not current, and a resolve exactly when something the run read changed.
 *
 * Beside the graph, the harness keeps a naive model: every value recomputed
 * from scratch from the written values. After every operation it checks:
 *
 *   - every value a read returns, and every value a compute or an effect run
 *     sees while it runs, equals the model's (no stale or mixed values);
 *   - no node computes, and no effect runs, twice in one operation; effects
 *     of one flush run in creation order; in a batch, writes run no effect
 *     (without side writes, disposals from callbacks and failures, which may
 *     legitimately invalidate a node again within the operation);
 *   - a computed recomputes, and an effect re-runs, only when something it
 *     read last time changed (its commit or compute reported a change) or was
 *     disposed, or its last attempt failed: nothing runs whose inputs did
 *     not change;
 *   - outside batches every effect is up to date: what its last run read, and
 *     the values it saw, are what the model says it reads now (async nodes
 *     included: an effect sees each result, and starts a new run when what
 *     the run read changed);
 *   - each node's dependencies are what its last run read, in read order;
 *     `watched`/`unwatched` are balanced with having watching subscribers:
 *     every fourth reader is created with weak reads (RP_NODE_WEAK_READS),
 *     which watch only the nodes created watched by them (every fifth);
 *   - _rp_graph_check is clean; at the end, destroying the graph releases
 *     every node once and frees every byte it allocated.
 *
 * A failed check prints what went wrong and aborts, so libFuzzer keeps the
 * input. Built by scripts/fuzz:
 *   clang -fsanitize=fuzzer,address,undefined ...          (libFuzzer)
 *   cc -DFUZZ_MAIN ...  then  fuzz_graph FILE|DIR...        (replays inputs)
 */
#ifdef FUZZ_MAIN
#define _POSIX_C_SOURCE 200809L /* the replayer's fork, waitpid and opendir */
#endif

#include "ripple.h"

#include <pthread.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NODES 48 /* created per input */
#define MAX_LIVE 32
#define MAX_READS 8 /* a program reads at most 1 + 2 nodes; deduplicated */
#define MAX_BATCH 3
#define MAX_SAVEPOINTS 3
#define MAX_COPIES 64 /* the host's stack of computed values kept for savepoints: full, `save` declines */

enum {
    MODE_EFFECT_WRITES = 1,
    MODE_SIDE_WRITES = 2,
    MODE_DISPOSALS = 4,
    MODE_FAILURES = 8,
    MODE_ASYNC = 16,
    MODE_INVALIDATE = 32,
    MODES = 64,
};

#define IN_FLIGHT 7L /* an async node's value while its run is in flight (results are 0..4) */

typedef struct read_entry {
    int id;
    unsigned long version; /* the node's version when it was read */
    long value;
} read_entry_t;

typedef struct model_node {
    int id;
    rp_kind_t kind;
    bool alive;
    rp_node_t handle;
    /* sources */
    long pending;   /* written */
    long committed; /* what readers see */
    unsigned long written; /* the clock at its last write (savepoints: written since a begin) */
    /* computeds and effects: the program */
    int selector, even[2], odd[2];
    int neven, nodd;
    long add;
    int write_target;   /* a source created later, which its runs write (-1: none) */
    int dispose_target; /* a node its next run disposes (-1: none) */
    int fail_period;    /* computeds and async nodes: every fail_period-th compute fails (0: never) */
    /* async nodes: the host's runs */
    uint64_t run;       /* the run its last compute started (rp_async_run in the compute) */
    uint64_t old_run;   /* the run before, superseded */
    bool resolved;      /* the current run delivered a result: `value` */
    bool has_result;    /* a track section of the current run computed `result` */
    long result;
    bool restarting;    /* rp_async_restart is in progress: a reason to run */
    /* computeds: invalidations */
    long salt;        /* a term of its program from outside the graph */
    bool invalidated; /* invalidated since its last successful compute: a reason to run */
    /* what the host caches */
    long value;
    bool has_value;
    unsigned long version;         /* bumped whenever a commit or compute reports a change */
    read_entry_t reads[MAX_READS]; /* what the last successful run read */
    int nreads;
    read_entry_t current[MAX_READS]; /* what the run in progress has read */
    int ncurrent;
    bool failed;     /* its last compute or run failed: it must run again */
    bool may_rerun;  /* a rollback left it free to re-validate once without a reason (ripple.h's savepoints) */
    int attempts;    /* computes started */
    /* per operation */
    int computes;
    int watched, unwatched, released;
} model_node_t;

static struct harness {
    rp_graph_t *graph;
    model_node_t nodes[MAX_NODES];
    int count, live;
    int batch_depth;
    int last_run_id; /* the last effect run in this operation, for order */
    bool in_batch_write;
    const char *op;
    unsigned mode;
    bool strict;            /* none of side writes, disposals from callbacks, failures */
    unsigned long meddling; /* side writes and disposals made by callbacks */
    unsigned long failures; /* computes failed on purpose */
    bool recovering;        /* retrying after failures: no more of them */
    unsigned long clock; /* versions are stamps from it, so that a rollback can give a node back an old one */
    /* savepoints (bit 7 of the first byte): the model as each began, and the host's copies of computed values */
    bool savepoints;
    struct savepoint_frame {
        rp_savepoint_t handle;
        int count;       /* nodes created before it */
        int batch_depth; /* the batch it began in */
        int copies;      /* copies kept before it */
        unsigned long clock; /* h.clock at the begin */
        bool pre_committed[MAX_NODES]; /* sources whose write from before the begin was committed since */
        model_node_t nodes[MAX_NODES];
    } frames[MAX_SAVEPOINTS];
    int savepoint_depth;
    struct copy {
        int id;
        rp_node_t handle;
        long value;
    } copies[MAX_COPIES];
    int ncopies;
    bool closing; /* inside rp_savepoint_rollback or rp_savepoint_release: `restore` may be called */
    bool rolling_back; /* inside rp_savepoint_rollback: recomputes need no reason, no effect runs */
    /* the model's memo */
    long memo[MAX_NODES];
    unsigned long memo_epoch[MAX_NODES];
    unsigned long epoch;
    /* allocation accounting */
    size_t live_bytes, live_blocks;
    size_t size_mismatches;
    /* input */
    const uint8_t *data;
    size_t size, at;
    unsigned long step;
    /* tracing: the effect whose run the tracer announced, the node whose compute last succeeded */
    int traced_run, computed_last;
} h;

static bool tracing;
static int callback_depth; /* computes and runs in progress */

/* ----------------------------------------------------------------- checks */

static void fail(const char *format, ...) __attribute__((format(printf, 1, 2), noreturn));
static void trace(const char *format, ...) __attribute__((format(printf, 1, 2)));

static void fail(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fprintf(stderr, "fuzz_graph: step %lu (%s): ", h.step, h.op ? h.op : "-");
    vfprintf(stderr, format, args);
    fprintf(stderr, "\n");
    va_end(args);
    abort();
}

static void trace(const char *format, ...)
{
    if (!tracing) return;
    va_list args;
    va_start(args, format);
    vfprintf(stderr, format, args);
    va_end(args);
}

#define REQUIRE(cond, ...)              \
    do {                                \
        if (!(cond)) fail(__VA_ARGS__); \
    } while (0)

static void require_status(rp_status_t got, rp_status_t want, const char *call)
{
    if (got != want) fail("%s: %s, want %s", call, rp_status_string(got), rp_status_string(want));
}

/* A call during which a compute failed on purpose may report it. */
static void require_ok_unless_failed(rp_status_t got, unsigned long failures_before, const char *call)
{
    if (got == RP_ENOMEM && h.failures != failures_before) return;
    require_status(got, RP_OK, call);
}

/* -------------------------------------------------------------- allocator */

typedef struct block_header {
    size_t size;
    size_t pad; /* keeps max_align_t alignment for 16-byte types */
} block_header_t;

static void *counting_alloc(void *context, size_t size)
{
    (void)context;
    block_header_t *block = malloc(sizeof(block_header_t) + size);
    if (block == NULL) return NULL;
    block->size = size;
    h.live_bytes += size;
    h.live_blocks++;
    return block + 1;
}

static void counting_free(void *context, void *memory, size_t size)
{
    (void)context;
    block_header_t *block = (block_header_t *)memory - 1;
    if (block->size != size) h.size_mismatches++;
    h.live_bytes -= block->size;
    h.live_blocks--;
    free(block);
}

/* ------------------------------------------------------------------ model */

static long model_value(int id);

/* What a program reads, in order, given the model's values; returns the
 * result. Disposed nodes count as 0 and are not read. */
static long model_program(const model_node_t *n, read_entry_t *reads, int *nreads)
{
    long selector = model_value(n->selector);
    long sum = selector;
    int count = 0;
    const int *set = selector % 2 ? n->odd : n->even;
    int nset = selector % 2 ? n->nodd : n->neven;
    int ids[3] = {n->selector, -1, -1};
    for (int i = 0; i < nset; i++) ids[1 + i] = set[i];
    for (int i = 0; i < 1 + nset; i++) {
        int id = ids[i];
        if (id < 0 || !h.nodes[id].alive) continue;
        if (i > 0) sum += model_value(id);
        bool seen = false;
        for (int j = 0; j < count; j++) seen = seen || reads[j].id == id;
        if (!seen) reads[count++] = (read_entry_t){id, 0, model_value(id)};
    }
    *nreads = count;
    return (sum + n->add + n->salt) % 5;
}

static long model_value(int id)
{
    model_node_t *n = &h.nodes[id];
    if (!n->alive) return 0;
    if (n->kind == RP_KIND_SOURCE) return n->pending;
    /* Every change of `resolved` is a new epoch, so the memo holds. */
    if (n->kind == RP_KIND_ASYNC && !n->resolved) return IN_FLIGHT;
    if (h.memo_epoch[id] == h.epoch) return h.memo[id];
    read_entry_t reads[MAX_READS];
    int nreads;
    long v = model_program(n, reads, &nreads);
    h.memo[id] = v;
    h.memo_epoch[id] = h.epoch;
    return v;
}

/* A commit or compute reported a change. */
static void bump_version(model_node_t *n)
{
    n->version = ++h.clock;
}

/* ------------------------------------------------------------------- host */

/* Reads node `id` on behalf of the run of `reader` (or the top level), and
 * checks the value against the model. A failure (a compute failed on purpose
 * somewhere below) is returned for the reader to pass on. */
static rp_status_t host_read(model_node_t *reader, int id, long *value)
{
    model_node_t *n = &h.nodes[id];
    unsigned long meddling = h.meddling, failures = h.failures;
    bool was_alive = n->alive;
    *value = 0;
    trace("%*sread %d (by %d)\n", 2 * callback_depth, "", id, reader ? reader->id : -1);
    /* Every other read copies the value inside the engine's section
     * (rp_node_read_copy): the same read, so the same checks follow. The copy
     * is the one the section saw; the checks below use the host's value after
     * the call, as for rp_node_read. */
    long copied = 0;
    const long *source = n->kind == RP_KIND_SOURCE ? &n->committed : &n->value;
    rp_status_t status = ((unsigned long)id + h.epoch) % 2 ? rp_node_read_copy(h.graph, n->handle, &copied, source,
                                                                               sizeof copied)
                                                           : rp_node_read(h.graph, n->handle);
    (void)copied;
    if (!was_alive) {
        require_status(status, RP_ESTALE, "read of a disposed node");
        return RP_OK;
    }
    if (!n->alive) {
        /* Disposed by its own compute, which this read ran: the read may say
         * so, or succeed; either way the value is gone. */
        if (status == RP_ENOMEM && h.failures != failures) return status;
        REQUIRE(status == RP_OK || status == RP_ESTALE, "read of node %d, disposed while read: %s", id,
                rp_status_string(status));
        return RP_OK;
    }
    if (status == RP_ENOMEM && h.failures != failures) {
        trace("%*sread %d failed\n", 2 * callback_depth, "", id);
        return status;
    }
    require_status(status, RP_OK, "read");
    long v;
    if (n->kind == RP_KIND_SOURCE) {
        REQUIRE(n->committed == n->pending, "source %d read without its write committed (%ld, written %ld)", id,
                n->committed, n->pending);
        v = n->committed;
    } else {
        /* An effect run by the settle at the end of this read may have
         * recomputed the node and failed: the read still gave the value of
         * the compute before (the header's rp_node_read). */
        bool failed_since = n->failed && h.failures != failures;
        REQUIRE(n->has_value && (!n->failed || failed_since), "computed %d read without a value", id);
        v = n->value;
    }
    /* A side write or a disposal made while this read brought the node up to
     * date may have changed what the node read before it: the node is then
     * left dirty, and only the next read is sure to be current. */
    bool meddled = h.meddling != meddling;
    REQUIRE(v == model_value(id) || meddled, "node %d read as %ld, the model says %ld (reader %d)", id, v,
            model_value(id), reader ? reader->id : -1);
    if (reader != NULL) {
        bool seen = false;
        for (int j = 0; j < reader->ncurrent; j++) seen = seen || reader->current[j].id == id;
        if (!seen) reader->current[reader->ncurrent++] = (read_entry_t){id, n->version, v};
    }
    *value = v;
    return RP_OK;
}

/* A top-level read; a failed one is read again, as the contract says. */
static void top_read(int id)
{
    long value;
    if (host_read(NULL, id, &value) == RP_OK) return;
    h.recovering = true;
    rp_status_t status = host_read(NULL, id, &value);
    h.recovering = false;
    require_status(status, RP_OK, "reading again after a failure");
}

/* A read section of `id` ended twice, in or out of batches: the second end
 * is refused (RP_EINVAL) and changes nothing, so the batches open keep the
 * graph (the checks after the operation see no effect run by a write in
 * them, and their ends succeed). The first read is top_read's, whose values
 * were checked; a read the section's begin or end makes fail on purpose
 * opens no section, or ends it with that status. */
static void read_section_ended_twice(int id)
{
    model_node_t *n = &h.nodes[id];
    if (!n->alive) return;
    trace("read %d in a section ended twice\n", id);
    unsigned long failures = h.failures;
    rp_read_section_t section;
    rp_status_t status = rp_node_read_begin(h.graph, n->handle, &section);
    if (status == RP_ENOMEM && h.failures != failures) return;
    if (status == RP_ESTALE && !n->alive) return; /* disposed by what the begin ran */
    require_status(status, RP_OK, "rp_node_read_begin");
    require_ok_unless_failed(rp_node_read_end(h.graph, &section), failures, "rp_node_read_end");
    require_status(rp_node_read_end(h.graph, &section), RP_EINVAL, "rp_node_read_end of a section ended already");
}

/* A run may happen only when something its previous run read has changed
 * since, or was disposed: checked when the run ends, since a dependency that
 * was only marked is brought up to date by the run's own read. */
static void require_reason_to_run(model_node_t *n, const read_entry_t *before, int count, const char *what)
{
    /* ripple.h: a rollback may leave a node that was stale at the begin (or
     * created since), or that read a node disposed inside, directly or not,
     * to re-validate once more than needed: once, no more. */
    bool may_rerun = n->may_rerun;
    n->may_rerun = false;
    if (may_rerun || h.rolling_back) return;
    for (int i = 0; i < count; i++) {
        const model_node_t *dep = &h.nodes[before[i].id];
        if (!dep->alive || dep->version != before[i].version) return;
    }
    fail("%s %d ran though nothing it read changed", what, n->id);
}

static void dispose_node(int id);
static void write_source(int id, long value);

/* The body of a computed or an effect. `fail_now`: fail after the selector. */
static rp_status_t run_program(model_node_t *n, bool fail_now, long *result)
{
    n->ncurrent = 0;
    long selector, v;
    rp_status_t status = host_read(n, n->selector, &selector);
    if (status != RP_OK) return status;
    if (fail_now) {
        h.failures++;
        trace("%*sfails\n", 2 * callback_depth, "");
        return RP_ENOMEM;
    }
    long sum = selector;
    if (n->dispose_target >= 0) {
        int target = n->dispose_target;
        n->dispose_target = -1;
        if (h.nodes[target].alive) {
            h.meddling++;
            dispose_node(target);
        }
    }
    const int *set = selector % 2 ? n->odd : n->even;
    int nset = selector % 2 ? n->nodd : n->neven;
    for (int i = 0; i < nset; i++) {
        if ((status = host_read(n, set[i], &v)) != RP_OK) return status;
        sum += v;
    }
    *result = (sum + n->add + n->salt) % 5;
    if (n->write_target >= 0 && h.nodes[n->write_target].alive) {
        if (n->kind == RP_KIND_COMPUTED && *result % 4 != h.nodes[n->write_target].pending) h.meddling++;
        write_source(n->write_target, *result % 4);
    }
    return RP_OK;
}

/* The node a callback names: its data must be one of ours, with its handle. */
static model_node_t *callback_node(rp_graph_t *graph, rp_node_t node, void *data, const char *callback)
{
    model_node_t *n = data;
    REQUIRE(graph == h.graph, "%s: another graph", callback);
    REQUIRE(n != NULL && n >= h.nodes && n < h.nodes + h.count, "%s of slot %u: data %p is no node", callback,
            node.slot, data);
    REQUIRE(n->handle.slot == node.slot && n->handle.generation == node.generation,
            "%s of node %d: handle %u/%u, created as %u/%u", callback, n->id, node.slot, node.generation,
            n->handle.slot, n->handle.generation);
    return n;
}

/* The engine names `n` as the node evaluating (rp_graph_evaluating), with
 * the data it was created with, when its body starts and when it ends (after
 * the computes its reads caused). */
static void require_evaluating(const model_node_t *n, const char *what, const char *when)
{
    rp_node_t node = RP_NODE_NONE;
    void *data = NULL;
    require_status(rp_graph_evaluating(h.graph, &node, &data), RP_OK, "rp_graph_evaluating");
    REQUIRE(data == n && node.slot == n->handle.slot && node.generation == n->handle.generation,
            "%s %d %s: rp_graph_evaluating names slot %u, data %p", what, n->id, when, node.slot, data);
}

/* Shared by compute and run: checks, runs the body, keeps what it read. */
static rp_status_t run_node(model_node_t *n, bool fail_now, long *result, const char *what)
{
    REQUIRE(++n->computes == 1 || !h.strict, "%s %d ran twice in one operation", what, n->id);
    read_entry_t before[MAX_READS];
    int nbefore = n->nreads;
    bool must_run = !n->has_value || n->failed || n->invalidated;
    memcpy(before, n->reads, sizeof before);
    trace("%*s%s %d {\n", 2 * callback_depth, "", what, n->id);
    require_evaluating(n, what, "starts");
    callback_depth++;
    rp_status_t status = run_program(n, fail_now, result);
    callback_depth--;
    trace("%*s} %s %d: %s\n", 2 * callback_depth, "", what, n->id, rp_status_string(status));
    require_evaluating(n, what, "ends");
    n->failed = status != RP_OK;
    if (status != RP_OK) return status;
    if (!must_run) {
        require_reason_to_run(n, before, nbefore, what);
    } else {
        n->may_rerun = false;
    }
    n->invalidated = false;
    memcpy(n->reads, n->current, sizeof n->reads);
    n->nreads = n->ncurrent;
    return RP_OK;
}

/* Whether something the current run of async node `n` read changed (by
 * version) or was disposed since. */
static bool run_stale(const model_node_t *n)
{
    for (int i = 0; i < n->ncurrent; i++) {
        const model_node_t *dep = &h.nodes[n->current[i].id];
        if (!dep->alive || dep->version != n->current[i].version) return true;
    }
    return false;
}

/* Operations on async nodes, per mode, for FUZZ_GRAPH_STATS. */
static unsigned long async_ops_per_mode[MODES], superseded_per_mode[MODES];

/* The compute of an async node: starts a run, reads nothing. */
static rp_status_t async_compute(model_node_t *n, rp_graph_t *graph, rp_node_t node, bool *changed)
{
    REQUIRE(++n->computes == 1 || !h.strict, "async %d started two runs in one operation", n->id);
    bool must_run = !n->has_value || n->failed || n->restarting;
    REQUIRE(must_run || run_stale(n), "async %d started a run though nothing its run read changed", n->id);
    uint64_t run = 0;
    require_status(rp_async_run(graph, node, &run), RP_OK, "rp_async_run in a compute");
    REQUIRE(run != 0 && run != n->run, "async %d: compute sees run %llu, its last one was %llu", n->id,
            (unsigned long long)run, (unsigned long long)n->run);
    n->old_run = n->run;
    n->run = run;
    n->ncurrent = n->nreads = 0;
    n->has_result = false;
    if (n->resolved) h.epoch++;
    n->resolved = false;
    n->attempts++;
    trace("%*sasync %d starts run %llu\n", 2 * callback_depth, "", n->id, (unsigned long long)run);
    if (n->fail_period && n->attempts % n->fail_period == 0 && !h.recovering) {
        h.failures++;
        n->failed = true;
        trace("%*sfails\n", 2 * callback_depth, "");
        return RP_ENOMEM;
    }
    n->failed = false;
    *changed = !n->has_value || n->value != IN_FLIGHT;
    if (*changed) bump_version(n);
    n->value = IN_FLIGHT;
    n->has_value = true;
    h.computed_last = n->id;
    return RP_OK;
}

static rp_status_t on_compute(void *host, rp_graph_t *graph, rp_node_t node, void *data, bool *changed)
{
    (void)host;
    model_node_t *n = callback_node(graph, node, data, "compute");
    if (n->kind == RP_KIND_ASYNC && n->alive) return async_compute(n, graph, node, changed);
    REQUIRE(n->kind == RP_KIND_COMPUTED && n->alive, "compute of node %d, not a live computed", n->id);
    n->attempts++;
    bool fail_now = n->fail_period && n->attempts % n->fail_period == 0 && !h.recovering;
    long v = 0;
    rp_status_t status = run_node(n, fail_now, &v, "computed");
    if (status != RP_OK) return status;
    *changed = !n->has_value || v != n->value;
    if (*changed) bump_version(n);
    trace("%*scomputed %d = %ld (was %ld)\n", 2 * callback_depth, "", n->id, v, n->value);
    n->value = v;
    n->has_value = true;
    h.computed_last = n->id;
    return RP_OK;
}

static bool on_commit(void *host, rp_graph_t *graph, rp_node_t node, void *data)
{
    (void)host;
    model_node_t *n = callback_node(graph, node, data, "commit");
    REQUIRE(n->kind == RP_KIND_SOURCE && n->alive, "commit of node %d, not a live source", n->id);
    bool changed = n->committed != n->pending;
    trace("%*scommit %d: %ld -> %ld\n", 2 * callback_depth, "", n->id, n->committed, n->pending);
    n->committed = n->pending;
    /* A write from before a savepoint's begin, committed since: that commit
     * stands after a rollback (it was due). */
    for (int f = 0; f < h.savepoint_depth; f++) {
        if (n->written <= h.frames[f].clock) h.frames[f].pre_committed[n->id] = true;
    }
    if (changed) bump_version(n);
    return changed;
}

static void on_run(void *host, rp_graph_t *graph, rp_node_t node, void *data)
{
    (void)host;
    model_node_t *first = data;
    if (first != NULL && first->handle.generation == 0) first->handle = node; /* its run inside rp_node_create */
    model_node_t *n = callback_node(graph, node, data, "run");
    REQUIRE(n->kind == RP_KIND_EFFECT && n->alive, "run of node %d, not a live effect", n->id);
    REQUIRE(h.traced_run == n->id, "effect %d ran, the tracer was told of %d", n->id, h.traced_run);
    h.traced_run = -1;
    REQUIRE(!h.in_batch_write, "effect %d ran on a write inside a batch", n->id);
    REQUIRE(n->id > h.last_run_id || !h.strict, "effect %d ran after effect %d, created later", n->id,
            h.last_run_id);
    h.last_run_id = n->id;
    long v = 0;
    if (run_node(n, false, &v, "effect") != RP_OK) return; /* n->failed: the host runs it again */
    n->value = v;
    n->has_value = true;
}

/* The tracer, installed in every run: each event names a node of the kind it
 * concerns, a cause that can be read, a run just before it happens and a
 * compute just after it succeeded. */
static void on_trace(void *context, rp_graph_t *graph, const rp_trace_event_t *event)
{
    (void)context;
    model_node_t *first = event->data;
    if (event->kind == RP_TRACE_RUN && first != NULL && first->handle.generation == 0) first->handle = event->node;
    model_node_t *n = callback_node(graph, event->node, event->data, "trace");
    switch (event->kind) {
    case RP_TRACE_WRITE:
    case RP_TRACE_COMMIT:
        REQUIRE(n->kind == RP_KIND_SOURCE, "write or commit traced for node %d, not a source", n->id);
        break;
    case RP_TRACE_COMPUTE:
        REQUIRE(n->kind == RP_KIND_COMPUTED || n->kind == RP_KIND_ASYNC, "compute traced for node %d", n->id);
        REQUIRE(h.computed_last == n->id, "compute of %d traced, %d computed last", n->id, h.computed_last);
        break;
    case RP_TRACE_RUN:
        REQUIRE(n->kind == RP_KIND_EFFECT, "run traced for node %d, not an effect", n->id);
        h.traced_run = n->id;
        break;
    case RP_TRACE_RESOLVE:
        REQUIRE(n->kind == RP_KIND_ASYNC, "result traced for node %d, not an async node", n->id);
        break;
    case RP_TRACE_INVALIDATE:
        REQUIRE(n->kind == RP_KIND_COMPUTED && n->invalidated, "invalidation traced for node %d", n->id);
        break;
    }
    if (event->cause_data != NULL) {
        model_node_t *cause = callback_node(graph, event->cause, event->cause_data, "trace cause");
        REQUIRE(cause->kind != RP_KIND_EFFECT, "node %d traced with effect %d as its cause", n->id, cause->id);
    }
}

static void on_watched(void *host, rp_graph_t *graph, rp_node_t node, void *data)
{
    (void)host;
    callback_node(graph, node, data, "watched")->watched++;
}

static void on_unwatched(void *host, rp_graph_t *graph, rp_node_t node, void *data)
{
    (void)host;
    model_node_t *n = callback_node(graph, node, data, "unwatched");
    REQUIRE(n->alive, "unwatched of disposed node %d", n->id);
    n->unwatched++;
}

static void on_release(void *host, rp_graph_t *graph, rp_node_t node, void *data)
{
    (void)host;
    callback_node(graph, node, data, "release")->released++;
}

/* Savepoints: a write inside one reaches computed `n`, up to date: the host
 * keeps a copy of its value, unless its stack is full or the node is one of
 * those it keeps no copies of (every third: their rollback recomputes). */
static bool on_save(void *host, rp_graph_t *graph, rp_node_t node, void *data)
{
    (void)host;
    model_node_t *n = callback_node(graph, node, data, "save");
    REQUIRE(h.savepoint_depth > 0, "save of node %d with no savepoint open", n->id);
    REQUIRE(n->kind == RP_KIND_COMPUTED && n->alive && n->has_value, "save of node %d, not a live computed with a value",
            n->id);
    REQUIRE(!h.closing, "save of node %d while a savepoint closes", n->id);
    if (h.ncopies == MAX_COPIES || n->id % 3 == 2) return false;
    trace("%*ssave %d = %ld\n", 2 * callback_depth, "", n->id, n->value);
    h.copies[h.ncopies++] = (struct copy){n->id, node, n->value};
    return true;
}

/* Gives back the newest copy: it must be this node's; `apply` stores it. */
static void on_restore(void *host, rp_graph_t *graph, rp_node_t node, void *data, bool apply)
{
    (void)host;
    REQUIRE(graph == h.graph, "restore: another graph");
    REQUIRE(h.closing, "restore of slot %u outside a rollback or release", node.slot);
    REQUIRE(h.ncopies > 0, "restore of slot %u: no copy kept", node.slot);
    struct copy copy = h.copies[--h.ncopies];
    model_node_t *n = &h.nodes[copy.id];
    REQUIRE(node.slot == copy.handle.slot && node.generation == copy.handle.generation,
            "restore of slot %u, the newest copy is node %d's (slot %u)", node.slot, copy.id, copy.handle.slot);
    REQUIRE(data == (n->alive ? n : NULL), "restore of node %d: data %p, the node is %s", copy.id, data,
            n->alive ? "alive" : "freed");
    REQUIRE(!apply || h.rolling_back, "restore of node %d applied by a release", copy.id);
    trace("%*srestore %d = %ld%s\n", 2 * callback_depth, "", copy.id, copy.value, apply ? "" : " (dropped)");
    if (apply && data != NULL) {
        if (!n->has_value || n->value != copy.value) bump_version(n);
        n->value = copy.value;
        n->has_value = true;
    }
}

/* ------------------------------------------------------------ operations */

static unsigned next(void)
{
    return h.at < h.size ? h.data[h.at++] : 0;
}

/* A node chosen by the next byte among those `accept` takes (dead ones too
 * when `dead` is true), or -1. */
static int pick(bool (*accept)(const model_node_t *), bool dead)
{
    int candidates[MAX_NODES], count = 0;
    for (int i = 0; i < h.count; i++) {
        if ((dead || h.nodes[i].alive) && accept(&h.nodes[i])) candidates[count++] = i;
    }
    unsigned byte = next();
    return count ? candidates[byte % (unsigned)count] : -1;
}

static bool any_node(const model_node_t *n) { (void)n; return true; }
static bool is_readable(const model_node_t *n) { return n->kind != RP_KIND_EFFECT; }
static bool is_untargeted_effect(const model_node_t *n) { return n->kind == RP_KIND_EFFECT && n->write_target < 0; }
static bool is_untargeted_computed(const model_node_t *n)
{
    return n->kind == RP_KIND_COMPUTED && n->write_target < 0;
}

/* Sources the operations write: not those a callback writes (their value is
 * the writer's to keep). */
static bool is_free_source(const model_node_t *n)
{
    if (n->kind != RP_KIND_SOURCE) return false;
    for (int i = 0; i < h.count; i++) {
        if (h.nodes[i].write_target == n->id && h.nodes[i].alive) return false;
    }
    return true;
}

/* Which readers read weakly, and which nodes weak reads watch all the same:
 * from the node's number, so that inputs keep their meaning. */
static bool reads_weakly(const model_node_t *n)
{
    return n->kind != RP_KIND_SOURCE && n->id % 4 == 3;
}

static bool watched_by_weak_reads(const model_node_t *n)
{
    return n->kind != RP_KIND_EFFECT && n->id % 5 == 4;
}

static void create(rp_kind_t kind)
{
    if (h.count == MAX_NODES || h.live == MAX_LIVE) return;
    model_node_t *n = &h.nodes[h.count];
    memset(n, 0, sizeof *n);
    n->id = h.count;
    n->kind = kind;
    n->write_target = n->dispose_target = -1;
    if (kind == RP_KIND_SOURCE) {
        n->pending = n->committed = next() % 4;
        /* Maybe the target of an earlier effect's or computed's writes. */
        bool (*writer)(const model_node_t *) = NULL;
        unsigned choice = next();
        if ((h.mode & MODE_EFFECT_WRITES) && choice % 4 == 1) writer = is_untargeted_effect;
        if ((h.mode & MODE_SIDE_WRITES) && choice % 4 == 2) writer = is_untargeted_computed;
        int id = writer ? pick(writer, false) : -1;
        if (id >= 0) {
            h.nodes[id].write_target = n->id;
            trace("node %d writes %d\n", id, n->id);
        }
    } else {
        /* Reads nodes created before it (dead ones too): the graph stays acyclic. */
        n->selector = pick(is_readable, true);
        if (n->selector < 0) return;
        unsigned shape = next();
        n->neven = (int)(shape % 3);
        n->nodd = (int)(shape / 3 % 3);
        for (int i = 0; i < n->neven; i++) n->even[i] = pick(is_readable, true);
        for (int i = 0; i < n->nodd; i++) n->odd[i] = pick(is_readable, true);
        n->add = shape / 9 % 5;
        if ((h.mode & MODE_DISPOSALS) && kind != RP_KIND_ASYNC) {
            unsigned choice = next();
            if (choice % 8 == 1) n->dispose_target = n->id; /* itself */
            if (choice % 8 == 2) n->dispose_target = pick(any_node, false);
        }
        if ((h.mode & MODE_FAILURES) && kind != RP_KIND_EFFECT) {
            unsigned choice = next() % 4;
            n->fail_period = choice >= 2 ? (int)choice : 0;
        }
    }
    n->alive = true; /* before the call: an effect runs inside it */
    h.count++;
    h.live++;
    h.epoch++;
    if (kind == RP_KIND_SOURCE) {
        trace("create %d: source = %ld\n", n->id, n->pending);
    } else {
        trace("create %d: %s reading %d, then %d:{%d,%d} if even, %d:{%d,%d} if odd, + %ld", n->id,
              kind == RP_KIND_EFFECT ? "effect" : kind == RP_KIND_ASYNC ? "async" : "computed", n->selector, n->neven, n->even[0], n->even[1],
              n->nodd, n->odd[0], n->odd[1], n->add);
        if (n->dispose_target >= 0) trace(", disposes %d", n->dispose_target);
        if (n->fail_period) trace(", fails every %d computes", n->fail_period);
        trace("\n");
    }
    rp_node_t out = RP_NODE_NONE;
    n->handle = RP_NODE_NONE;
    unsigned long failures = h.failures;
    uint32_t options = (reads_weakly(n) ? RP_NODE_WEAK_READS : 0) |
                       (watched_by_weak_reads(n) ? RP_NODE_WATCHED_BY_WEAK_READS : 0);
    rp_status_t status = rp_node_create_with(h.graph, kind, options, n, &out);
    require_ok_unless_failed(status, failures, "rp_node_create");
    REQUIRE(out.generation != 0, "rp_node_create of node %d: no handle written", n->id);
    n->handle = out;
    if (kind == RP_KIND_EFFECT) REQUIRE(n->computes >= 1, "effect %d did not run at creation", n->id);
}

static void write_source(int id, long value)
{
    model_node_t *n = &h.nodes[id];
    if (value == n->pending) return; /* hosts skip equal writes */
    n->pending = value;
    n->written = ++h.clock;
    h.epoch++;
    trace("%*swrite %d = %ld\n", 2 * callback_depth, "", id, value);
    /* An operation's write inside a batch runs no effect; a callback's write
     * runs inside the flush or read that ran the callback. */
    bool in_batch_write = h.in_batch_write;
    if (callback_depth == 0) h.in_batch_write = h.batch_depth > 0;
    unsigned long failures = h.failures;
    require_ok_unless_failed(rp_source_set(h.graph, n->handle), failures, "rp_source_set");
    h.in_batch_write = in_batch_write;
}

static void dispose_node(int id)
{
    model_node_t *n = &h.nodes[id];
    trace("%*sdispose %d\n", 2 * callback_depth, "", id);
    n->alive = false;
    h.live--;
    h.epoch++;
    unsigned long failures = h.failures;
    require_ok_unless_failed(rp_node_dispose(h.graph, n->handle), failures, "rp_node_dispose");
    /* A node busy computing (or on a re-validation walk) is freed when done. */
    REQUIRE(n->released == 1 || callback_depth > 0, "node %d released %d times at disposal", id, n->released);
    rp_kind_t kind;
    require_status(rp_node_kind(h.graph, n->handle, &kind), RP_ESTALE, "rp_node_kind of a disposed node");
}

static bool is_async(const model_node_t *n) { return n->kind == RP_KIND_ASYNC; }

/* Runs the program of run `run` of async node `n` in a track section: a
 * superseded run is refused; the current one reads the program's nodes
 * (its dependencies from now on) and keeps the result for a resolve. */
static void async_track(model_node_t *n, uint64_t run)
{
    async_ops_per_mode[h.mode]++;
    trace("track %d, run %llu (current %llu)\n", n->id, (unsigned long long)run, (unsigned long long)n->run);
    rp_status_t status = rp_async_track_begin(h.graph, n->handle, run);
    if (run != n->run) {
        require_status(status, RP_ESUPERSEDED, "rp_async_track_begin of a superseded run");
        superseded_per_mode[h.mode]++;
        return;
    }
    if (status == RP_ESUPERSEDED) {
        /* Only PENDING, a run may still track: refused, it is stale. */
        REQUIRE(n->failed || run_stale(n), "async %d: track of its current run refused, nothing it read changed",
                n->id);
        superseded_per_mode[h.mode]++;
        return;
    }
    require_status(status, RP_OK, "rp_async_track_begin");
    REQUIRE(!n->failed, "async %d: its failed compute's run tracks", n->id);
    /* The section is the run's: like a callback, it may see itself disposed
     * by a compute its reads run. */
    callback_depth++;
    long selector = 0, v = 0;
    unsigned long failures = h.failures;
    status = host_read(n, n->selector, &selector);
    long sum = selector;
    const int *set = selector % 2 ? n->odd : n->even;
    int nset = selector % 2 ? n->nodd : n->neven;
    for (int i = 0; i < nset && status == RP_OK; i++) {
        status = host_read(n, set[i], &v);
        sum += v;
    }
    callback_depth--;
    if (status != RP_OK) REQUIRE(status == RP_ENOMEM && h.failures != failures, "track read: %s", rp_status_string(status));
    failures = h.failures;
    require_ok_unless_failed(rp_async_track_end(h.graph, n->handle), failures, "rp_async_track_end");
    /* The end runs the effects the section's reads made due (a disposal in a
     * compute it ran): one may have disposed the node, or re-validated it and
     * started a new run, which has read nothing and has no result yet. The
     * section's reads and result are only this run's. */
    if (!n->alive || n->run != run) return;
    memcpy(n->reads, n->current, sizeof n->reads);
    n->nreads = n->ncurrent;
    n->has_result = status == RP_OK;
    n->result = (sum + n->add) % 5;
}

/* Delivers the result the current run's last track section computed. */
static void async_resolve(model_node_t *n, uint64_t run)
{
    async_ops_per_mode[h.mode]++;
    trace("resolve %d, run %llu (current %llu): %ld\n", n->id, (unsigned long long)run, (unsigned long long)n->run,
          n->result);
    unsigned long meddling = h.meddling, failures = h.failures;
    rp_status_t status = rp_async_resolve_begin(h.graph, n->handle, run);
    if (run != n->run) {
        require_status(status, RP_ESUPERSEDED, "rp_async_resolve_begin of a superseded run");
        superseded_per_mode[h.mode]++;
        return;
    }
    if (status == RP_ENOMEM && h.failures != failures) return; /* the re-validation met a failing compute */
    /* The begin re-validated what the run read: refused exactly when
     * something changed (or its compute failed). */
    bool stale = n->failed || run_stale(n) || !n->alive;
    if (status == RP_ESUPERSEDED) {
        REQUIRE(stale, "async %d: resolve of its current run refused, nothing it read changed", n->id);
        superseded_per_mode[h.mode]++;
        return;
    }
    require_status(status, RP_OK, "rp_async_resolve_begin");
    REQUIRE(!stale || h.meddling != meddling, "async %d: resolve let in, though what its run read changed", n->id);
    /* So the result is the program's over the current values. */
    read_entry_t reads[MAX_READS];
    int nreads;
    REQUIRE(n->result == model_program(n, reads, &nreads) || h.meddling != meddling,
            "async %d resolves %ld, the model computes %ld", n->id, n->result, model_program(n, reads, &nreads));
    bool changed = !n->resolved || n->value != n->result;
    if (changed) bump_version(n);
    n->value = n->result;
    n->resolved = true;
    h.epoch++;
    bool in_batch_write = h.in_batch_write;
    h.in_batch_write = h.batch_depth > 0;
    failures = h.failures;
    require_ok_unless_failed(rp_async_resolve_end(h.graph, n->handle, changed), failures, "rp_async_resolve_end");
    h.in_batch_write = in_batch_write;
}

static bool is_computed(const model_node_t *n) { return n->kind == RP_KIND_COMPUTED; }

/* Invalidates a live computed, maybe changing its salt first; now and then
 * a node of another kind, or a disposed one, which the call refuses. */
static void invalidate(void)
{
    unsigned choice = next();
    if (choice % 8 == 7) {
        int id = pick(any_node, true);
        if (id < 0) return;
        model_node_t *n = &h.nodes[id];
        rp_status_t want = !n->alive ? RP_ESTALE : n->kind != RP_KIND_COMPUTED ? RP_EKIND : RP_OK;
        if (want == RP_OK) return; /* a live computed: the case below */
        trace("invalidate %d (refused)\n", id);
        require_status(rp_node_invalidate(h.graph, n->handle), want, "rp_node_invalidate of another kind");
        return;
    }
    int id = pick(is_computed, false);
    if (id < 0) return;
    model_node_t *n = &h.nodes[id];
    if (choice % 2) {
        n->salt = (n->salt + 1) % 5;
        h.epoch++;
    }
    trace("invalidate %d, salt %ld\n", id, n->salt);
    n->invalidated = true;
    bool in_batch_write = h.in_batch_write;
    h.in_batch_write = h.batch_depth > 0;
    unsigned long failures = h.failures;
    require_ok_unless_failed(rp_node_invalidate(h.graph, n->handle), failures, "rp_node_invalidate");
    h.in_batch_write = in_batch_write;
}

static void async_operation(unsigned op)
{
    int id;
    switch (op) {
    case 0:
        h.op = "create async";
        create(RP_KIND_ASYNC);
        break;
    case 1:
        h.op = "track";
        if ((id = pick(is_async, false)) >= 0 && h.nodes[id].run != 0) {
            model_node_t *n = &h.nodes[id];
            /* Now and then the run before, which is superseded. */
            async_track(n, n->old_run != 0 && next() % 4 == 0 ? n->old_run : n->run);
        }
        break;
    case 2:
        h.op = "resolve";
        if ((id = pick(is_async, false)) >= 0 && h.nodes[id].run != 0) {
            model_node_t *n = &h.nodes[id];
            if (n->old_run != 0 && next() % 4 == 0) {
                async_resolve(n, n->old_run);
            } else if (n->has_result) {
                async_resolve(n, n->run);
            }
        }
        break;
    case 3:
        h.op = "restart";
        if ((id = pick(is_async, false)) >= 0) {
            model_node_t *n = &h.nodes[id];
            async_ops_per_mode[h.mode]++;
            trace("restart %d\n", id);
            unsigned long failures = h.failures;
            n->restarting = true;
            require_ok_unless_failed(rp_async_restart(h.graph, n->handle), failures, "rp_async_restart");
            n->restarting = false;
            REQUIRE(n->run != n->old_run || n->run == 0, "async %d: restart started no run", id);
        }
        break;
    }
}

/* Savepoint operations, per mode, for FUZZ_GRAPH_STATS: begins, rollbacks, releases, misuses refused. */
static unsigned long savepoint_ops_per_mode[MODES][4];

/* Opens a savepoint, nested in those open, keeping the model as it is; out of
 * a batch, the begin is refused. */
static void savepoint_begin(void)
{
    if (h.savepoint_depth == MAX_SAVEPOINTS) return;
    rp_savepoint_t handle = {0};
    if (h.batch_depth == 0) {
        trace("savepoint begin outside a batch (refused)\n");
        require_status(rp_savepoint_begin(h.graph, &handle), RP_ESTATE, "rp_savepoint_begin outside a batch");
        savepoint_ops_per_mode[h.mode][3]++;
        return;
    }
    struct savepoint_frame *frame = &h.frames[h.savepoint_depth++];
    frame->count = h.count;
    frame->batch_depth = h.batch_depth;
    frame->copies = h.ncopies;
    frame->clock = h.clock;
    memset(frame->pre_committed, 0, sizeof frame->pre_committed);
    memcpy(frame->nodes, h.nodes, sizeof frame->nodes);
    trace("savepoint begin, depth %d\n", h.savepoint_depth);
    require_status(rp_savepoint_begin(h.graph, &frame->handle), RP_OK, "rp_savepoint_begin");
    REQUIRE(frame->handle.depth == (uint32_t)h.savepoint_depth, "savepoint begin: depth %u, %d open",
            frame->handle.depth, h.savepoint_depth);
    savepoint_ops_per_mode[h.mode][0]++;
}

/* The host's part of a rollback (ripple.h): each source it wrote since the
 * begin back to the value it held then, and its computeds' terms from outside
 * the graph (salts) with what they were invalidated for. The engine restores
 * the rest: computed values through `restore` (on_restore), or by
 * recomputing them. What the host did not write (a source a read committed
 * since, a computed a read brought up to date) stays as it is, in the model
 * as in the engine; disposed nodes stay disposed, nodes created since stay. */
static void restore_model(const struct savepoint_frame *frame)
{
    for (int i = 0; i < frame->count; i++) {
        model_node_t *n = &h.nodes[i];
        const model_node_t *was = &frame->nodes[i];
        if (!n->alive) continue;
        if (n->kind == RP_KIND_SOURCE && n->written > frame->clock) {
            /* A commit since the begin committed its write from before, at
             * the latest (the engine does not undo that one: it was due). */
            long committed = frame->pre_committed[i] ? was->pending : was->committed;
            n->pending = was->pending;
            if (n->committed != committed) bump_version(n);
            n->committed = committed;
            n->written = was->written; /* for an enclosing savepoint, this one's writes never were */
        }
        if (n->kind == RP_KIND_COMPUTED) {
            n->salt = was->salt;
            n->invalidated = was->invalidated;
        }
    }
    /* What may re-validate once without a reason: a node stale at the begin,
     * one created since (recomputed from the restored values). */
    for (int i = 0; i < h.count; i++) h.nodes[i].may_rerun = h.nodes[i].kind != RP_KIND_SOURCE;
    h.epoch++;
}

/* Closes the innermost savepoint (rolls it back or releases it); now and
 * then tries one that is not the innermost, or one with none open, which
 * must be refused and change nothing. */
static void savepoint_close(bool rollback)
{
    const char *what = rollback ? "rp_savepoint_rollback" : "rp_savepoint_release";
    unsigned choice = next();
    rp_savepoint_t handle = {(uint32_t)(choice % 3) + 1};
    bool misuse = h.savepoint_depth == 0 || (choice % 4 == 3 && h.savepoint_depth > 1);
    if (misuse) {
        if (h.savepoint_depth > 1) handle = h.frames[choice % (unsigned)(h.savepoint_depth - 1)].handle;
        trace("%s of depth %u, %d open (refused)\n", what, handle.depth, h.savepoint_depth);
        rp_status_t status = rollback ? rp_savepoint_rollback(h.graph, &handle) : rp_savepoint_release(h.graph, &handle);
        require_status(status, RP_ESTATE, h.savepoint_depth ? "closing a savepoint not the innermost" :
                                                                "closing a savepoint with none open");
        savepoint_ops_per_mode[h.mode][3]++;
        return;
    }
    struct savepoint_frame *frame = &h.frames[h.savepoint_depth - 1];
    handle = frame->handle;
    trace("%s, depth %u\n", what, handle.depth);
    if (rollback) restore_model(frame);
    bool in_batch_write = h.in_batch_write;
    h.in_batch_write = true; /* no effect runs */
    h.closing = true;
    h.rolling_back = rollback;
    rp_status_t status = rollback ? rp_savepoint_rollback(h.graph, &handle) : rp_savepoint_release(h.graph, &handle);
    h.closing = h.rolling_back = false;
    h.in_batch_write = in_batch_write;
    require_status(status, RP_OK, what);
    h.savepoint_depth--;
    /* The copies: a rollback gives back its own, the outermost release all. */
    int want = rollback ? frame->copies : h.savepoint_depth == 0 ? 0 : h.ncopies;
    REQUIRE(h.ncopies == want, "%s: %d copies kept, want %d", what, h.ncopies, want);
    /* Closed: the same handle again is refused. */
    status = rp_savepoint_release(h.graph, &handle);
    require_status(status, RP_ESTATE, "rp_savepoint_release of a savepoint closed already");
    savepoint_ops_per_mode[h.mode][rollback ? 1 : 2]++;
}

static void operation(void)
{
    if (h.savepoints) {
        /* One byte in eight: a savepoint operation; else one of the others. */
        unsigned byte = next();
        if (byte % 8 == 7) {
            switch (byte / 8 % 4) {
            case 0:
            case 1:
                h.op = "savepoint begin";
                savepoint_begin();
                break;
            case 2:
                h.op = "savepoint rollback";
                savepoint_close(true);
                break;
            case 3:
                h.op = "savepoint release";
                savepoint_close(false);
                break;
            }
            return;
        }
    }
    unsigned base = h.mode & MODE_ASYNC ? 16 : 12;
    unsigned op = next() % (base + (h.mode & MODE_INVALIDATE ? 2 : 0));
    if (op >= base) {
        h.op = "invalidate";
        invalidate();
        return;
    }
    unsigned long failures;
    int id;
    switch (op) {
    case 0:
    case 1:
        h.op = "write";
        if ((id = pick(is_free_source, false)) >= 0) write_source(id, next() % 4);
        break;
    case 2:
        h.op = "write back";
        if ((id = pick(is_free_source, false)) >= 0) write_source(id, h.nodes[id].committed);
        break;
    case 3:
    case 4:
        h.op = "read";
        if ((id = pick(is_readable, true)) >= 0) top_read(id);
        break;
    case 5:
        h.op = "create source";
        create(RP_KIND_SOURCE);
        break;
    case 6:
        h.op = "create computed";
        create(RP_KIND_COMPUTED);
        break;
    case 7:
        h.op = "create effect";
        create(RP_KIND_EFFECT);
        break;
    case 8:
        h.op = "batch begin";
        if (h.batch_depth < MAX_BATCH) {
            require_status(rp_batch_begin(h.graph), RP_OK, "rp_batch_begin");
            h.batch_depth++;
        }
        break;
    case 9:
        h.op = "batch end";
        if (h.savepoint_depth > 0 && h.frames[h.savepoint_depth - 1].batch_depth == h.batch_depth) {
            /* A savepoint opened in this batch is open: refused, ending nothing. */
            require_status(rp_batch_end(h.graph), RP_ESTATE, "rp_batch_end with a savepoint open");
            savepoint_ops_per_mode[h.mode][3]++;
        } else if (h.batch_depth > 0) {
            h.batch_depth--;
            failures = h.failures;
            require_ok_unless_failed(rp_batch_end(h.graph), failures, "rp_batch_end");
        }
        break;
    case 10:
        h.op = "dispose";
        if ((id = pick(any_node, false)) >= 0) dispose_node(id);
        break;
    case 11:
        h.op = "read three";
        for (int i = 0; i < 3; i++) {
            if ((id = pick(is_readable, true)) >= 0) top_read(id);
        }
        /* The last one again, in a read section ended twice. */
        if (id >= 0) read_section_ended_twice(id);
        break;
    case 12:
    case 13:
    case 14:
    case 15:
        async_operation(op - 12);
        break;
    }
}

/* After an operation in which computes failed: run again the effects whose
 * run met a failure, and flush what the failed flush left queued. */
static void recover(void)
{
    h.recovering = true;
    for (int i = 0; i < h.count; i++) {
        model_node_t *n = &h.nodes[i];
        if (n->alive && n->kind == RP_KIND_EFFECT && n->failed) {
            trace("run %d again\n", i);
            h.last_run_id = -1;
            require_status(rp_effect_run(h.graph, n->handle), RP_OK, "rp_effect_run");
        }
    }
    if (h.batch_depth == 0) {
        trace("flush what is left\n");
        h.last_run_id = -1;
        require_status(rp_batch_begin(h.graph), RP_OK, "rp_batch_begin");
        require_status(rp_batch_end(h.graph), RP_OK, "rp_batch_end");
    }
    h.recovering = false;
}

/* After each operation: the whole graph against the model. */
static void check_all(void)
{
    char message[256] = "";
    rp_status_t status = _rp_graph_check(h.graph, message, sizeof message);
    if (status != RP_OK) fail("_rp_graph_check: %s", message);
    rp_graph_stats_t stats;
    require_status(rp_graph_stats(h.graph, &stats), RP_OK, "rp_graph_stats");
    REQUIRE(stats.live_nodes == (size_t)h.live, "%zu live nodes, the model has %d", stats.live_nodes, h.live);

    for (int i = 0; i < h.count; i++) {
        model_node_t *n = &h.nodes[i];
        n->computes = 0;
        if (!n->alive) {
            REQUIRE(n->released == 1, "disposed node %d released %d times", i, n->released);
            continue;
        }
        REQUIRE(n->released == 0, "live node %d released", i);
        /* Dependencies: what the last run read, without what was disposed
         * since (a failed run keeps its old edges and what it linked). */
        rp_node_t deps[MAX_READS + 1];
        size_t count = 0;
        require_status(rp_node_dependencies(h.graph, n->handle, deps, MAX_READS + 1, &count), RP_OK,
                       "rp_node_dependencies");
        size_t want = 0;
        for (int j = 0; j < n->nreads && !n->failed; j++) {
            model_node_t *dep = &h.nodes[n->reads[j].id];
            if (!dep->alive) continue;
            REQUIRE(want < count && deps[want].slot == dep->handle.slot &&
                        deps[want].generation == dep->handle.generation,
                    "node %d: dependency %zu is not node %d", i, want, dep->id);
            want++;
        }
        REQUIRE(count == want || n->failed, "node %d has %zu dependencies, its last run read %zu live nodes", i,
                count, want);
        /* watched/unwatched follow having watching subscribers. */
        rp_node_t subscribers[MAX_NODES];
        size_t nsubscribers = 0, watching = 0;
        require_status(rp_node_subscribers(h.graph, n->handle, subscribers, MAX_NODES, &nsubscribers), RP_OK,
                       "rp_node_subscribers");
        for (size_t j = 0; j < nsubscribers; j++) {
            void *data = NULL;
            require_status(rp_node_data(h.graph, subscribers[j], &data), RP_OK, "rp_node_data");
            if (!reads_weakly(data) || watched_by_weak_reads(n)) watching++;
        }
        int balance = n->watched - n->unwatched;
        REQUIRE(balance == (watching > 0), "node %d: %d watched, %d unwatched, %zu subscribers, %zu watching", i,
                n->watched, n->unwatched, nsubscribers, watching);
        /* Outside batches, every effect has seen the current values. */
        if (n->kind == RP_KIND_EFFECT && h.batch_depth == 0) {
            read_entry_t now[MAX_READS];
            int nnow = 0;
            model_program(n, now, &nnow);
            bool same = nnow == n->nreads && !n->failed;
            for (int j = 0; same && j < nnow; j++) {
                same = now[j].id == n->reads[j].id && now[j].value == n->reads[j].value;
            }
            REQUIRE(same, "effect %d is out of date: it read %d nodes (first %d = %ld), the model reads %d (%d = %ld)",
                    i, n->nreads, n->nreads ? n->reads[0].id : -1, n->nreads ? n->reads[0].value : 0, nnow,
                    nnow ? now[0].id : -1, nnow ? now[0].value : 0);
        }
    }
    h.last_run_id = -1;
}

/* Inputs run per mode, for FUZZ_GRAPH_STATS: libFuzzer counts executions, but
 * only the harness knows which modes they exercised. */
static unsigned long runs_per_mode[MODES], savepoints_runs_per_mode[MODES];

static void print_runs_per_mode(void)
{
    unsigned long total = 0;
    for (unsigned mode = 0; mode < MODES; mode++) {
        total += runs_per_mode[mode];
        if (runs_per_mode[mode] == 0) continue;
        fprintf(stderr, "fuzz_graph: mode %u: %lu runs", mode, runs_per_mode[mode]);
        if (mode & MODE_ASYNC) {
            fprintf(stderr, ", %lu async operations (%lu superseded)", async_ops_per_mode[mode],
                    superseded_per_mode[mode]);
        }
        if (savepoints_runs_per_mode[mode]) {
            const unsigned long *ops = savepoint_ops_per_mode[mode];
            fprintf(stderr, ", %lu with savepoints (%lu begins, %lu rollbacks, %lu releases, %lu refused)",
                    savepoints_runs_per_mode[mode], ops[0], ops[1], ops[2], ops[3]);
        }
        fprintf(stderr, "\n");
    }
    fprintf(stderr, "fuzz_graph: all modes: %lu runs\n", total);
}

typedef struct graph_creation {
    const rp_graph_config_t *config;
    rp_graph_t *graph;
    rp_status_t status;
} graph_creation_t;

static void *create_graph(void *argument)
{
    graph_creation_t *creation = argument;
    creation->status = rp_graph_create(creation->config, &creation->graph);
    return NULL;
}

/* The graph, created on this thread or (`elsewhere`) on one that then ends. */
static rp_graph_t *new_graph(const rp_graph_config_t *config, bool elsewhere)
{
    graph_creation_t creation = {config, NULL, RP_OK};
    if (elsewhere) {
        pthread_t thread;
        REQUIRE(pthread_create(&thread, NULL, create_graph, &creation) == 0, "pthread_create");
        pthread_join(thread, NULL);
    } else {
        create_graph(&creation);
    }
    require_status(creation.status, RP_OK, "rp_graph_create");
    return creation.graph;
}

static int run_input(const uint8_t *data, size_t size)
{
    static unsigned allowed = MODES;
    if (allowed == MODES) {
        tracing = getenv("FUZZ_GRAPH_TRACE") != NULL;
        const char *modes = getenv("FUZZ_GRAPH_MODES");
        allowed = modes ? (unsigned)strtoul(modes, NULL, 0) % MODES : MODES - 1;
        const char *stats = getenv("FUZZ_GRAPH_STATS");
        if (stats != NULL && strcmp(stats, "0") != 0) atexit(print_runs_per_mode);
    }
    memset(&h, 0, sizeof h);
    callback_depth = 0;
    h.data = data;
    h.size = size;
    h.at = 1;
    h.last_run_id = -1;
    h.epoch = 1;
    h.mode = (size > 0 ? data[0] % MODES : 0) & allowed;
    runs_per_mode[h.mode]++;
    h.strict = (h.mode & (MODE_SIDE_WRITES | MODE_DISPOSALS | MODE_FAILURES)) == 0;
    /* Savepoints: bit 7 of the first byte, in the modes without side writes,
     * disposals from callbacks, failures and async nodes. */
    h.savepoints = size > 0 && data[0] >= 128 &&
                   (h.mode & (MODE_SIDE_WRITES | MODE_DISPOSALS | MODE_FAILURES | MODE_ASYNC)) == 0;
    if (h.savepoints) savepoints_runs_per_mode[h.mode]++;
    rp_allocator_t allocator = {counting_alloc, counting_free, NULL};
    rp_graph_config_t config = {
        .callbacks = {.compute = on_compute,
                      .commit = on_commit,
                      .run = on_run,
                      .watched = on_watched,
                      .unwatched = on_unwatched,
                      .release = on_release,
                      .save = on_save,
                      .restore = on_restore},
        .allocator = &allocator,
    };
    h.graph = new_graph(&config, size > 0 && (data[0] / MODES) % 2 == 1);
    require_status(rp_graph_set_tracer(h.graph, on_trace, NULL), RP_OK, "rp_graph_set_tracer");
    h.traced_run = -1;
    h.computed_last = -1;
    h.op = "setup";
    trace("mode %u\n", h.mode);
    create(RP_KIND_SOURCE);
    create(RP_KIND_SOURCE);
    check_all();
    while (h.at < h.size) {
        h.step++;
        unsigned long failures = h.failures;
        operation();
        trace("-- step %lu: %s\n", h.step, h.op);
        if (h.failures != failures) recover();
        check_all();
    }
    h.op = "teardown";
    while (h.savepoint_depth > 0) {
        unsigned long failures = h.failures;
        savepoint_close(h.savepoint_depth % 2 == 1);
        if (h.failures != failures) recover();
        check_all();
    }
    while (h.batch_depth > 0) {
        h.batch_depth--;
        unsigned long failures = h.failures;
        require_ok_unless_failed(rp_batch_end(h.graph), failures, "rp_batch_end");
        if (h.failures != failures) recover();
        check_all();
    }
    require_status(rp_graph_destroy(h.graph), RP_OK, "rp_graph_destroy");
    for (int i = 0; i < h.count; i++) {
        REQUIRE(h.nodes[i].released == 1, "node %d released %d times", i, h.nodes[i].released);
    }
    REQUIRE(h.live_bytes == 0 && h.live_blocks == 0, "%zu bytes in %zu blocks not freed", h.live_bytes,
            h.live_blocks);
    REQUIRE(h.size_mismatches == 0, "%zu frees with a size other than allocated", h.size_mismatches);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    return run_input(data, size);
}

#ifdef FUZZ_MAIN
/* Replays inputs without libFuzzer (for valgrind, or a compiler without it):
 * each argument is a file or a directory of files. Each input runs in a child
 * process, so that a failing one is named and the others still run. */
#include <dirent.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static unsigned replayed, failed;

static void replay_file(const char *path)
{
    FILE *file = fopen(path, "rb");
    if (file == NULL) {
        perror(path);
        exit(2);
    }
    static uint8_t buffer[1 << 20];
    size_t size = fread(buffer, 1, sizeof buffer, file);
    fclose(file);
    fflush(stdout);
    fflush(stderr);
    pid_t child = fork();
    if (child < 0) {
        perror("fork");
        exit(2);
    }
    if (child == 0) {
        run_input(buffer, size);
        exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    replayed++;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        failed++;
        fprintf(stderr, "fuzz_graph: %s failed\n", path);
    }
}

static void replay(const char *path)
{
    struct stat info;
    if (stat(path, &info) != 0) {
        perror(path);
        exit(2);
    }
    if (!S_ISDIR(info.st_mode)) {
        replay_file(path);
        return;
    }
    struct dirent **entries;
    int count = scandir(path, &entries, NULL, alphasort); /* in name order, every time */
    for (int i = 0; i < count; i++) {
        if (entries[i]->d_name[0] != '.') {
            char child[4096];
            snprintf(child, sizeof child, "%s/%s", path, entries[i]->d_name);
            replay(child);
        }
        free(entries[i]);
    }
    if (count >= 0) free(entries);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) replay(argv[i]);
    printf("%u passed, %u failed\n", replayed - failed, failed);
    return failed != 0;
}
#endif
