/*
 * ripple.h: the whole C API of Ripple's dependency-graph engine.
 *
 * Ripple keeps a graph of three kinds of node:
 *   - a source holds a value the host writes (an atom),
 *   - a computed holds a value the host computes from other nodes (a derivation),
 *   - an effect runs host code that reads other nodes,
 *   - an async node holds a value the host produces later, from a run that may
 *     read other nodes on any thread (an async derivation; see "async nodes").
 * The engine stores no user values. The host keeps each node's value next to the
 * `data` pointer it gave at creation, tells the engine when it reads a node
 * (rp_node_read) and when it wrote a source (rp_source_set), and the engine calls
 * back to compute a node, to commit a written source, to run an effect, and to
 * release a node. The engine records which nodes each computed or effect read,
 * in read order, and keeps every value up to date with push-pull invalidation:
 * a write marks what may have changed, and reads pull, recomputing only what
 * actually changed, each node at most once per change.
 *
 * Conventions, for every function below unless it says otherwise:
 *   - Fallible calls return rp_status_t; out-parameters come last and are written
 *     only on RP_OK (rp_node_create of an effect says when else). A call refused
 *     for its arguments or the graph's state (RP_EINVAL, RP_ESTALE, RP_EFOREIGN,
 *     RP_EKIND, RP_ESTATE, RP_EBUSY) changes nothing, and so does RP_ENOMEM from
 *     rp_graph_create and rp_node_create. A read or write that fails part-way
 *     (RP_ENOMEM, RP_ECYCLE, a compute's own error) keeps what it completed and
 *     leaves the graph consistent, the failed node dirty, so a retry recomputes.
 *   - Pointer parameters must not be NULL (RP_EINVAL if they are).
 *   - Any thread may call into a graph at any time. Calls that read up-to-date
 *     nodes share the graph; every other call holds it exclusively for its
 *     duration, and an explicit batch (or untracked section) holds it from its
 *     begin to its end, so batches are atomic to other threads: every call is
 *     linearizable, and the engine never computes, runs or frees anything on
 *     two threads at once. Callbacks run on the thread of the call that
 *     triggered them, while it holds the graph (so effects never overlap), and
 *     calls they make re-enter freely. A thread that waits inside a callback
 *     (or a batch) for another thread that calls into the same graph deadlocks.
 *     See "threads" below for how a host reads its values safely.
 *   - Callbacks may call back into the same graph (read, write, create, dispose,
 *     batch, untracked), except where a callback's documentation says otherwise.
 *   - Every compute and run happens inside an implicit batch: writes it makes
 *     apply at once, and the effects they trigger run after the outermost call
 *     returns from the host (or when the outermost explicit batch ends).
 *   - Calls that can trigger effects (rp_node_create of an effect, rp_node_read,
 *     rp_source_set, rp_node_dispose, rp_batch_end, rp_effect_update,
 *     rp_node_read_end) run them before returning,
 *     outside batches, and return the flush's status (RP_ELOOP) when the call's
 *     own work succeeded.
 *   - The library never aborts or exits (except where a process breaks the
 *     membarrier rule under "threads"), and keeps no global state.
 */
#ifndef RIPPLE_H
#define RIPPLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__clang__)
#define RP_CLOSED_ENUM __attribute__((enum_extensibility(closed)))
#define RP_NULLABLE _Nullable
#define RP_NONNULL _Nonnull
#pragma clang assume_nonnull begin
#else
#define RP_CLOSED_ENUM
#define RP_NULLABLE
#define RP_NONNULL
#endif

/* ---------------------------------------------------------------- version */

#define RP_VERSION_MAJOR 0
#define RP_VERSION_MINOR 1
#define RP_VERSION_PATCH 0
/* MAJOR * 10000 + MINOR * 100 + PATCH, as rp_version_number() returns it. */
#define RP_VERSION_NUMBER (RP_VERSION_MAJOR * 10000 + RP_VERSION_MINOR * 100 + RP_VERSION_PATCH)

/* The version of the library linked at run time, in the form of RP_VERSION_NUMBER. */
unsigned rp_version_number(void);

/* ----------------------------------------------------------------- status */

typedef enum RP_CLOSED_ENUM rp_status {
    RP_OK = 0,       /* success */
    RP_ENOMEM = 1,   /* an allocation failed; the graph is as it was before the call */
    RP_EINVAL = 2,   /* an argument is invalid: NULL, a kind out of range, a missing callback */
    RP_ESTALE = 3,   /* the node handle names a node that was disposed */
    RP_EFOREIGN = 4, /* the node handle belongs to another graph */
    RP_EKIND = 5,    /* the node's kind does not support the call (writing a computed, reading an effect) */
    RP_ECYCLE = 6,   /* a computed read itself, directly or through others; see rp_graph_diagnostic */
    RP_ELOOP = 7,    /* effects did not settle within the settle bound; see rp_graph_diagnostic */
    RP_ESTATE = 8,   /* the call does not fit the graph's state: an end without a matching begin */
    RP_EBUSY = 9,    /* the call would break an operation in progress (destroying a graph from a callback) */
    RP_ECORRUPT = 10, /* _rp_graph_check found a broken invariant */
    RP_ESUPERSEDED = 11 /* the async run named is not the node's current one, or what it read changed */
} rp_status_t;

/* A static, human-readable name for a status ("RP_OK: success", ...). Never NULL;
 * an unknown value gives "RP_?: unknown status". */
const char *rp_status_string(rp_status_t status);

/* ------------------------------------------------------------------ nodes */

/* The kinds of node. */
typedef enum RP_CLOSED_ENUM rp_kind {
    RP_KIND_SOURCE = 0,   /* a value the host writes */
    RP_KIND_COMPUTED = 1, /* a value the host computes, lazily, from what it reads */
    RP_KIND_EFFECT = 2,   /* host code run eagerly whenever what it read changed */
    /* An effect the host runs when it chooses: when it becomes due, the engine
     * calls `schedule` (once, until the host calls rp_effect_update) instead of
     * running it, and writes made meanwhile coalesce into that one update. */
    RP_KIND_DEFERRED_EFFECT = 3,
    /* A value the host produces asynchronously: to its readers a computed
     * whose compute starts a run (see "async nodes" below). */
    RP_KIND_ASYNC = 4
} rp_kind_t;

/* A node handle: a small value, copied freely. `slot` and `generation` name the
 * node inside its graph; `graph_tag` names the graph. A handle whose node was
 * disposed is reported as RP_ESTALE, a handle of another graph as RP_EFOREIGN,
 * and neither is ever dereferenced. Tags are derived from the graph's address
 * and creation time (the library keeps no global state), so a foreign handle is
 * recognised with high probability, not certainty. The all-zero handle
 * (RP_NODE_NONE) is never a live node: calls given it return RP_EINVAL. */
typedef struct rp_node {
    uint32_t slot;
    uint32_t generation;
    uint32_t graph_tag;
} rp_node_t;

#define RP_NODE_NONE ((rp_node_t){0, 0, 0})

/* ------------------------------------------------------------------ graph */

/* A dependency graph: nodes, their edges, and the arenas that hold them. Opaque. */
typedef struct rp_graph rp_graph_t;

/* Where the engine gets its memory. `free` receives the size that was passed to
 * `alloc` for the same block, as ck_malloc does. `alloc` returns NULL to report
 * failure; the engine then returns RP_ENOMEM and leaves the graph intact. */
typedef struct rp_allocator {
    void *RP_NULLABLE (*RP_NONNULL alloc)(void *RP_NULLABLE context, size_t size);
    void (*RP_NONNULL free)(void *RP_NULLABLE context, void *block, size_t size);
    void *RP_NULLABLE context;
} rp_allocator_t;

/* How the engine reaches the host. Each callback receives `host` (the pointer
 * given here), the graph, the node and the node's `data` pointer. */
typedef struct rp_callbacks {
    void *RP_NULLABLE host;

    /* Compute a computed node: run its body (reading other nodes through
     * rp_node_read, which records them as its dependencies), store the result,
     * and set *changed to false when the result equals the previous value (the
     * engine then stops propagation there), true otherwise; the first compute
     * of a node should report true. A status other than RP_OK is returned as is
     * by the read that triggered the compute, and the node stays dirty.
     * Required for graphs that create computed nodes. For an async node it
     * starts a new run instead (see "async nodes"). */
    rp_status_t (*RP_NULLABLE compute)(void *RP_NULLABLE host, rp_graph_t *graph, rp_node_t node,
                                       void *RP_NULLABLE data, bool *changed);

    /* Commit a written source: make its latest value the one its readers see and
     * return whether it differs from the value committed before. Called once per
     * re-validation that reaches a written source, so a source written and then
     * written back to its committed value is no change. It must not call into
     * the graph. NULL: every write is a change. */
    bool (*RP_NULLABLE commit)(void *RP_NULLABLE host, rp_graph_t *graph, rp_node_t node,
                               void *RP_NULLABLE data);

    /* Run an effect's body (reading through rp_node_read). Runs inside an
     * implicit batch. Required for graphs that create effects. A status its
     * reads return is the host's to handle (the engine cannot see it): a host
     * that wants the run retried calls rp_effect_run again. */
    void (*RP_NULLABLE run)(void *RP_NULLABLE host, rp_graph_t *graph, rp_node_t node,
                            void *RP_NULLABLE data);

    /* A deferred effect became due (at its creation, then when something it
     * read may have changed): arrange for rp_effect_update to be called on it,
     * from any thread. Not called again until that call has started. Runs
     * during a flush, like `run`; it may call into the graph. Required for
     * graphs that create deferred effects. */
    void (*RP_NULLABLE schedule)(void *RP_NULLABLE host, rp_graph_t *graph, rp_node_t node,
                                 void *RP_NULLABLE data);

    /* A node gained its first watching subscriber: one whose reads watch it
     * (every reader, except those created with RP_NODE_WEAK_READS, whose
     * reads watch only nodes created with or given
     * RP_NODE_WATCHED_BY_WEAK_READS). Weak readers that come or go meanwhile
     * change nothing: the calls follow the set of watching readers, whatever
     * the order readers come in. Hosts that tie a node's lifetime to its
     * readers take a reference here. Runs while an edge is being linked: it
     * must not call into the graph. NULL: nothing is called. */
    void (*RP_NULLABLE watched)(void *RP_NULLABLE host, rp_graph_t *graph, rp_node_t node,
                                void *RP_NULLABLE data);

    /* A node lost its last watching subscriber (weak readers may remain). A
     * node that gains one again before delivery is told neither: `watched`
     * and `unwatched` alternate, starting with `watched`. Delivered after the
     * outermost call in progress has finished its work, so it may call into
     * the graph, dispose nodes included. NULL: nothing is called. */
    void (*RP_NULLABLE unwatched)(void *RP_NULLABLE host, rp_graph_t *graph, rp_node_t node,
                                  void *RP_NULLABLE data);

    /* A node was freed (rp_node_dispose or rp_graph_destroy): release the host
     * storage behind `data`. The handle is already stale; the callback must not
     * call into the graph. NULL: nothing is called. */
    void (*RP_NULLABLE release)(void *RP_NULLABLE host, rp_graph_t *graph, rp_node_t node,
                                void *RP_NULLABLE data);

    /* Savepoints (see "savepoints"): a write inside one is about to reach
     * computed `node`, whose value is up to date: keep a copy of that value,
     * on a stack of the host's, and return true; false when the host cannot
     * (the rollback then recomputes the node instead). Must not call into the
     * graph. NULL: no copies; a rollback recomputes what it must restore. */
    bool (*RP_NULLABLE save)(void *RP_NULLABLE host, rp_graph_t *graph, rp_node_t node, void *RP_NULLABLE data);

    /* Gives back the copies `save` kept, newest first, each exactly once: one
     * call per copy, in the reverse order of the `save` calls that returned
     * true, when the savepoint they were kept for rolls back (its own copies)
     * or the outermost one is released (all of them). `apply`: store the copy
     * as the node's value again (the node recomputed inside the savepoint);
     * otherwise drop it. `data` is NULL when the node was freed meanwhile.
     * Must not call into the graph. Required with `save`. */
    void (*RP_NULLABLE restore)(void *RP_NULLABLE host, rp_graph_t *graph, rp_node_t node, void *RP_NULLABLE data,
                                bool apply);
} rp_callbacks_t;

/* How many times one effect may run in a single flush before the flush stops
 * with RP_ELOOP, unless the configuration names another bound. */
#define RP_DEFAULT_SETTLE_BOUND 100u

typedef struct rp_graph_config {
    rp_callbacks_t callbacks;
    /* NULL: the C library's malloc and free. The allocator is copied. */
    const rp_allocator_t *RP_NULLABLE allocator;
    /* Runs of one effect allowed in one flush; 0 means RP_DEFAULT_SETTLE_BOUND. */
    uint32_t settle_bound;
} rp_graph_config_t;

/* Creates an empty graph. The configuration is copied. */
rp_status_t rp_graph_create(const rp_graph_config_t *config, rp_graph_t *RP_NULLABLE *RP_NONNULL out);

/* Frees the graph, calling `release` for every node still alive. NULL does
 * nothing and returns RP_OK. RP_EBUSY, freeing nothing, while any thread is
 * inside a call, a batch or a read section of the graph: from inside a
 * callback, or on another thread, including a thread blocked in a call while
 * it waits for the graph (so a host may retry until RP_OK). A call is seen
 * from the moment it reaches the graph, not earlier: the caller makes sure no
 * thread starts one during or after the destruction. */
rp_status_t rp_graph_destroy(rp_graph_t *RP_NULLABLE graph);

/* What the graph holds, from the engine's own accounting. */
typedef struct rp_graph_stats {
    size_t live_nodes;           /* nodes created and not yet freed */
    size_t live_edges;           /* dependency edges (each is stored once per side) */
    size_t arena_bytes_in_use;   /* bytes of arena blocks handed out to nodes and edge arrays */
    size_t arena_bytes_reserved; /* bytes the arenas obtained from the allocator */
    size_t allocations;          /* calls the engine made to `alloc` since creation */
} rp_graph_stats_t;

rp_status_t rp_graph_stats(const rp_graph_t *graph, rp_graph_stats_t *out);

/* The `graph_tag` every handle of this graph carries, fixed for the graph's
 * life (see rp_node_t). A host that keeps many handles of one graph may store
 * each node's `slot` and `generation` only and rebuild the handle with this
 * tag. Any thread, no lock. */
rp_status_t rp_graph_tag(const rp_graph_t *graph, uint32_t *out);

/* The nodes behind the last RP_ECYCLE (the nodes on the cycle, the node that was
 * read again first, then the others in the order they were reached) or RP_ELOOP
 * (the effects that reached the settle bound, in creation order), on any
 * thread: call it inside the batch that got the status to be sure it is yours.
 * Copies at most
 * `capacity` handles into `nodes` (which may be NULL when capacity is 0) and
 * sets *count to how many there are. */
/* Best effort: when memory for the list cannot be had, *count is 0. */
rp_status_t rp_graph_diagnostic(const rp_graph_t *graph, rp_node_t *RP_NULLABLE nodes, size_t capacity,
                                size_t *count);

/* Test hook: validates every invariant of the graph (edge symmetry, read order,
 * accounting, free lists, flags). RP_OK when all hold; otherwise RP_ECORRUPT and
 * a description of the first broken invariant in `message` (when not NULL). */
rp_status_t _rp_graph_check(const rp_graph_t *graph, char *RP_NULLABLE message, size_t capacity);

/* ---------------------------------------------------------- node lifetime */

/* Creates a node of `kind` carrying the host's `data`.
 * A source starts with a value the host already holds. A computed starts dirty:
 * it computes on its first read. An effect runs once, synchronously, before
 * this call returns (inside an implicit batch: effects its run triggers run
 * before the call returns too, unless a batch is open). For an effect, *out is
 * written whenever the node was created; the status then reports the first run's
 * flush (RP_ELOOP, for instance). An async node starts dirty, like a computed.
 * RP_EINVAL for a kind out of range or a kind whose callback is missing. */
rp_status_t rp_node_create(rp_graph_t *graph, rp_kind_t kind, void *RP_NULLABLE data, rp_node_t *out);

/* Options of a node, for rp_node_create_with and rp_node_add_options (or'ed):
 * how its edges count toward `watched` and `unwatched`. */
enum {
    /* A computed, effect or async node whose reads do not watch what they
     * read: they make a node's dependency as any read does, but `watched`
     * and `unwatched` ignore them, so a host that keeps a node alive while it
     * is watched does not keep it alive for this reader (an observer that
     * must not hold what it observes). */
    RP_NODE_WEAK_READS = 1u << 0,
    /* A source, computed or async node that weak reads watch too (a node
     * nothing else may keep alive for such a reader). */
    RP_NODE_WATCHED_BY_WEAK_READS = 1u << 1
};

/* rp_node_create with `options` (rp_node_create is this with 0). RP_EINVAL
 * for an unknown option or one the kind cannot have (RP_NODE_WEAK_READS on a
 * source, RP_NODE_WATCHED_BY_WEAK_READS on an effect). RP_ENOMEM, from a read,
 * for a node that already has 2^24 - 1 weak readers. */
rp_status_t rp_node_create_with(rp_graph_t *graph, rp_kind_t kind, uint32_t options, void *RP_NULLABLE data,
                                rp_node_t *out);

/* Adds `options` to a node created without them, before the edges they would
 * count differently exist: RP_ESTATE for RP_NODE_WEAK_READS on a node that has
 * read something (an effect has, from its creation: give it the option
 * there), and for RP_NODE_WATCHED_BY_WEAK_READS on a node something reads.
 * RP_EINVAL as rp_node_create_with. */
rp_status_t rp_node_add_options(rp_graph_t *graph, rp_node_t node, uint32_t options);

/* Frees a node: unlinks it from what it read and from what reads it, then calls
 * `release`. Its readers are marked dirty, as if it had changed, and outside a
 * batch the effects among them run before the call returns (their flush's status
 * is returned; the node is freed regardless). A node that is being computed or
 * run (or checked) is freed as soon as that finishes; its handle is stale at
 * once. */
rp_status_t rp_node_dispose(rp_graph_t *graph, rp_node_t node);

/* Runs the effect if it is due: if something it read changed (re-validating
 * derivations first), or it has not run yet. Otherwise does nothing. This is
 * how a host runs a deferred effect after `schedule`; it works on any effect.
 * RP_EKIND for other kinds; RP_EBUSY when the effect is running already. */
rp_status_t rp_effect_update(rp_graph_t *graph, rp_node_t node);

/* Runs an effect now, as at its creation: synchronously, re-recording what it
 * reads, inside an implicit batch (even inside an explicit batch). Its place in
 * the creation order does not change. RP_EKIND for other kinds; RP_EBUSY when
 * the effect is running already. */
rp_status_t rp_effect_run(rp_graph_t *graph, rp_node_t node);

/* The node's kind and data pointer. */
rp_status_t rp_node_kind(const rp_graph_t *graph, rp_node_t node, rp_kind_t *out);
rp_status_t rp_node_data(const rp_graph_t *graph, rp_node_t node, void *RP_NULLABLE *RP_NONNULL out);

/* The node's dependencies (in read order) or subscribers (in no set order).
 * Copies at most `capacity` handles and sets *count to how many there are. */
rp_status_t rp_node_dependencies(const rp_graph_t *graph, rp_node_t node, rp_node_t *RP_NULLABLE nodes,
                                 size_t capacity, size_t *count);
rp_status_t rp_node_subscribers(const rp_graph_t *graph, rp_node_t node, rp_node_t *RP_NULLABLE nodes,
                                size_t capacity, size_t *count);

/* Every live node of the graph, in creation order (a disposed node that is
 * still being computed or run is no longer listed). Copies at most `capacity`
 * handles into `nodes` (which may be NULL when capacity is 0) and sets *count
 * to how many there are: call it with capacity 0 to size the array (with
 * less room than *count, which handles are copied is unspecified). */
rp_status_t rp_graph_nodes(const rp_graph_t *graph, rp_node_t *RP_NULLABLE nodes, size_t capacity, size_t *count);

/* --------------------------------------------------------------- tracing */

/* What a tracer is told. */
typedef enum RP_CLOSED_ENUM rp_trace_kind {
    RP_TRACE_WRITE = 0,   /* rp_source_set marked `node` written (before anything re-validates) */
    RP_TRACE_COMMIT = 1,  /* re-validation committed written source `node`; `changed`: false when it was
                           * written back to its committed value */
    RP_TRACE_COMPUTE = 2, /* computed or async `node` computed (an async node: started a run); `changed`:
                           * false is an equality cut-off, nothing downstream re-runs for it */
    RP_TRACE_RUN = 3,     /* effect `node` is about to run (its writes and what they cause follow) */
    RP_TRACE_RESOLVE = 4, /* a run of async `node` delivered a result (rp_async_resolve_end); `changed` */
    RP_TRACE_INVALIDATE = 5 /* rp_node_invalidate marked computed `node` dirty (before anything re-validates) */
} rp_trace_kind_t;

/* One traced event. `cause` is the dependency whose change made `node`
 * compute or run (the first one re-validation found changed), RP_NODE_NONE
 * when there is none: a first compute or run, an explicit rp_effect_run,
 * rp_async_restart or rp_node_invalidate, a dependency disposed, a write. The data pointers are the
 * nodes' (NULL for RP_NODE_NONE). */
typedef struct rp_trace_event {
    rp_trace_kind_t kind;
    bool changed;
    rp_node_t node;
    rp_node_t cause;
    void *RP_NULLABLE data;
    void *RP_NULLABLE cause_data;
} rp_trace_event_t;

/* A tracer runs synchronously, on the thread holding the graph, in the middle
 * of the engine's walks: it must not call into the graph. */
typedef void (*rp_tracer_t)(void *RP_NULLABLE context, rp_graph_t *graph, const rp_trace_event_t *event);

/* Installs `tracer` (NULL removes it): from the next event on, the graph
 * tells it every write, commit, compute and effect run, in the order they
 * happen. Installed by a compute or an effect run, it is told from the next
 * walk on: a re-validation walk, or a read in a run bringing its dependency
 * up to date, looks for a tracer once as it starts and finishes without
 * telling one installed meanwhile (a removed one is told nothing more at
 * once). Without a tracer the engine keeps no node's cause; installing one
 * makes room for them (RP_ENOMEM, nothing installed, when it cannot). */
rp_status_t rp_graph_set_tracer(rp_graph_t *graph, rp_tracer_t RP_NULLABLE tracer, void *RP_NULLABLE context);

/* ---------------------------------------------------------- reads, writes */

/* Announces that the host is about to read the node's value. A computed is
 * brought up to date first (recomputed if something it read changed); a written
 * source is committed. Inside a computed's compute or an effect's run, and
 * outside untracked sections, the node becomes a dependency of that reader.
 * RP_EKIND for effects, RP_ECYCLE when the node is itself being computed, or
 * reads (directly or through others) a node being computed on this thread:
 * tracked or not, such a read could only give a value computed from what
 * that compute is about to replace.
 * Outside batches and runs, effects that an earlier flush left queued (it
 * stopped with an error) were due before the read: they run first, so the
 * value read includes what they write; if they fail again, the read returns
 * that status, brings nothing up to date, and leaves them queued. Then effects
 * the refresh made due run before the call returns; one may recompute the node
 * again, and a failure there is that effect's read's status, not this call's
 * (the host keeps the value of the node's last successful compute). */
rp_status_t rp_node_read(rp_graph_t *graph, rp_node_t node);

/* ---------------------------------------------------------------- threads */

/* The process around a graph. On Linux, where membarrier(2) is available, a
 * graph is biased to the thread that creates it: that thread takes the graph
 * without atomic operations until another thread first calls into it, which
 * revokes the bias with membarrier. Two rules follow:
 *   - membarrier must stay available for as long as a graph created while it
 *     was lives: a seccomp filter that denies it must be installed before
 *     graphs are created (those are then not biased and work under it). A
 *     revocation that finds it denied cannot keep two threads out of the graph
 *     at once: it writes a message to stderr and aborts the process.
 *   - fork(): the child has only the forking thread, and the graphs as they
 *     were at the fork. It may use a graph only if no thread was inside a
 *     call, batch or read section of it, or waiting for it, at the fork (as
 *     with a mutex held then); otherwise its first call waits forever. */

/* Where a read section stands; filled by rp_node_read_begin. Opaque. */
typedef struct rp_read_section {
    uint32_t ticket;
} rp_read_section_t;

/* rp_node_read, split so that the host loads the node's value inside the
 * section: from a successful begin to its end, no thread writes, computes or
 * frees anything in the graph, so the value loaded is the one the read made
 * current. On a status other than RP_OK no section is open. A thread that
 * does not hold the graph and reads an up-to-date node shares the graph with
 * other such readers (they do not wait for each other); otherwise it holds the
 * graph until the end, which then runs the effects the read made due and
 * returns the flush's status. Between begin and end, make no other call on
 * the graph from the same thread, and keep the section short: writers wait
 * for it. The end takes the section from the begin on the same thread and
 * marks it ended; RP_EINVAL, changing nothing, for a section no begin on this
 * thread filled or one that was ended already, whatever the graph's state (in
 * a batch too: the batch keeps its hold). A copy of a section is not marked
 * when the original ends: ending both is a misuse the engine cannot always
 * tell, with no status promised. */
rp_status_t rp_node_read_begin(rp_graph_t *graph, rp_node_t node, rp_read_section_t *section);
rp_status_t rp_node_read_end(rp_graph_t *graph, rp_read_section_t *section);

/* rp_node_read_begin, a copy of `size` bytes from `src` to `dst`, and
 * rp_node_read_end, in one call, for a host that keeps the node's value in
 * plain memory: the copy is made inside the read section, so it is the value
 * the read made current, and the call returns the end's status. When the read
 * fails, nothing is copied and no section was open (the begin's status).
 * RP_EINVAL for a NULL graph, or a NULL `dst` or `src` with a `size` other
 * than 0. `src` and `dst` must not overlap; `src` must be memory that only the
 * graph's computes and writes change. */
rp_status_t rp_node_read_copy(rp_graph_t *graph, rp_node_t node, void *RP_NULLABLE dst, const void *RP_NULLABLE src,
                              size_t size);

/* Announces that the host stored a new value in a source. Readers are marked;
 * outside a batch, the effects that depend on the change run before the call
 * returns, in creation order (RP_ELOOP if they do not settle). Hosts skip the
 * call when the new value equals the current one. RP_EKIND for other kinds. */
rp_status_t rp_source_set(rp_graph_t *graph, rp_node_t node);

/* Marks computed `node` out of date although nothing it read changed, so its
 * compute runs again: lazily, on the next read, or, when an effect observes
 * it (directly or through others), in the flush before the call returns.
 * Its readers are marked as for a write: they re-run only when the new value
 * differs from the old one (the compute reports *changed false otherwise),
 * each at most once. Inside a batch, nothing computes before the batch ends;
 * several invalidations of one node there compute it once. Also inside a
 * compute or run (of another node): like a write made there. Outside batches,
 * the effects it makes due run before the call returns and the flush's status
 * is returned. RP_EKIND for other kinds than RP_KIND_COMPUTED (a source is
 * written, an effect run with rp_effect_run, an async node restarted with
 * rp_async_restart); RP_EBUSY inside the node's own compute, or while a
 * re-validation walks through it. A tracer sees RP_TRACE_INVALIDATE, then
 * the compute with no cause. */
rp_status_t rp_node_invalidate(rp_graph_t *graph, rp_node_t node);

/* Batches nest. Effects triggered inside run when the outermost batch ends,
 * in creation order. A batch holds the graph exclusively from begin to end,
 * both on the same thread, so a host makes a write atomic by storing the value
 * and calling rp_source_set inside one (other threads see both or neither).
 * rp_batch_end returns the flush's status; RP_ESTATE when no explicit batch is
 * open on the calling thread (the implicit batch of a compute or run cannot be
 * ended), or while a savepoint opened inside this batch is still open. When a flush stops with RP_ELOOP, the effects still queued stay
 * queued: the next flush takes them up again. */
rp_status_t rp_batch_begin(rp_graph_t *graph);
rp_status_t rp_batch_end(rp_graph_t *graph);

/* ------------------------------------------------------------- savepoints */

/* A savepoint marks a point inside a batch that the graph can go back to:
 * a transaction that fails undoes its writes, and the graph forgets what they
 * did to it, even after reads brought nodes up to date from them.
 *
 *   - rp_savepoint_begin opens one inside an explicit batch (RP_ESTATE
 *     otherwise, or on a thread that does not hold the graph). Savepoints
 *     nest; each is closed by rp_savepoint_rollback or rp_savepoint_release,
 *     innermost first, on the thread that opened it, in the same compute or
 *     run (or outside any, as it began), before the batch it began in ends
 *     (rp_batch_end returns RP_ESTATE, ending nothing, while one is open).
 *     A savepoint handle that is not the innermost open one is RP_ESTATE.
 *   - From the begin on, each write (rp_source_set) and invalidation notes,
 *     before it marks anything, the state of every node it reaches: its
 *     marks, whether it is queued, and for a computed whose value is up to
 *     date, a copy of that value, which the host keeps (callbacks.save).
 *   - Rollback: the host first stores back in each source it wrote since the
 *     begin the value the source held then (with rp_source_set or without:
 *     the rollback does not count it as a write). The rollback then puts the
 *     graph back as it was at the begin: each node the savepoint's writes
 *     reached gets its marks back, effects queued since are no longer queued
 *     (they do not run for it), a computed recomputed since gets its value
 *     back from the host's copy (callbacks.restore, with `apply`), or, when
 *     there is no copy, it read other nodes since, or a node was disposed
 *     since the begin (the copies are then dropped), is recomputed from the
 *     restored values; a source written since that was up to date at the
 *     begin is committed (callbacks.commit, its answer ignored: the value
 *     restored is the one its readers saw). Who restores what: the host, the
 *     sources' values and its copies of computed values; the engine, every
 *     mark, the queue and the edges. Neither a tracer nor an effect sees any
 *     of it. Nodes created since the begin stay (their values are recomputed
 *     from the restored values); nodes disposed since stay freed, and what
 *     read them at the begin or since, directly or not, lost them for good:
 *     it is recomputed, or stays marked (each re-validates or runs again, at
 *     worst once more than needed); effects
 *     that ran since (created since, rp_effect_run, rp_effect_update) ran,
 *     and run again when the batch ends, from the values restored. A node that was
 *     already stale at the begin (a write earlier in the batch) keeps its
 *     marks and may re-validate once more than needed; one that a read
 *     inside found up to date is recomputed from the restored values. Asynchronous runs
 *     started or resolved since are not undone.
 *   - Release: keeps everything; the savepoint's journal becomes part of the
 *     enclosing savepoint's, or, for the outermost, is emptied (the host's
 *     copies are dropped through callbacks.restore).
 *
 * Cost: a graph with no savepoint open pays one test of a counter per write
 * and invalidation, and per node a re-validation finds up to date (none per
 * batch end). Inside one, each write walks what it reaches
 * (every node downstream, once per write); the journals grow geometrically
 * and are kept for the next savepoint, so a warm graph allocates nothing
 * (RP_ENOMEM, marking nothing, from a write whose journal cannot grow). */
typedef struct rp_savepoint {
    uint32_t depth; /* 1 for the outermost open savepoint, 2 inside it... */
} rp_savepoint_t;

/* Opens a savepoint inside the calling thread's explicit batch. RP_ESTATE
 * outside one; RP_ENOMEM when the savepoint stack cannot grow. */
rp_status_t rp_savepoint_begin(rp_graph_t *graph, rp_savepoint_t *out);

/* Rolls the graph back to `savepoint` (see above) and closes it. RP_ESTATE,
 * changing nothing, when it is not the innermost savepoint open on this
 * thread's batch (none open, released or rolled back already, another
 * thread's, another compute's). Returns RP_OK, or the first status a
 * recompute it needed returned (the node stays dirty, its readers marked: a
 * later read recomputes it); the savepoint is closed either way. */
rp_status_t rp_savepoint_rollback(rp_graph_t *graph, const rp_savepoint_t *savepoint);

/* Keeps what happened since `savepoint` and closes it. RP_ESTATE as for
 * rp_savepoint_rollback. */
rp_status_t rp_savepoint_release(rp_graph_t *graph, const rp_savepoint_t *savepoint);

/* Reads between begin and end record no dependencies for the reader in
 * progress. A computed brought up to date by such a read still records its own
 * dependencies. They nest; RP_ESTATE for an end without a begin on the same
 * thread. Like a batch, the section holds the graph exclusively. */
rp_status_t rp_untracked_begin(rp_graph_t *graph);
rp_status_t rp_untracked_end(rp_graph_t *graph);

/* The node whose compute or run is in progress on the calling thread (the one
 * its reads are recorded for; an async node inside its track section), or
 * RP_NODE_NONE: *out is RP_NODE_NONE outside any compute, run or track
 * section, on other threads, and inside untracked sections. */
rp_status_t rp_graph_tracking(const rp_graph_t *graph, rp_node_t *out);

/* The node whose compute or run callback is in progress on the calling thread
 * (the innermost one; an async node inside its track section) and the data
 * pointer given at its creation, whatever its reads record: unlike
 * rp_graph_tracking, an untracked section does not hide it. RP_NODE_NONE and
 * NULL outside any compute, run or track section, and on threads that do not
 * hold the graph. `node` may be NULL when only the data is wanted. A host
 * keeps no copy of which of its nodes is evaluating: it asks here, in O(1)
 * and without a lock. */
rp_status_t rp_graph_evaluating(const rp_graph_t *graph, rp_node_t *RP_NULLABLE node,
                                void *RP_NULLABLE *RP_NONNULL data);

/* ------------------------------------------------------------ async nodes */

/* An async node (RP_KIND_ASYNC) is a computed whose value comes from a run
 * that outlives the compute: a task on other threads that reads nodes and
 * produces a result later, or a stream of results. Its readers see the value
 * the host holds for it (a phase: in flight, a result, an error).
 *
 *   - Bringing it up to date (a read, or a re-validation, when it is dirty or
 *     something it read changed) calls `compute`, which starts a run: the host
 *     cancels the run in flight, if any, notes the new run's id
 *     (rp_async_run, which names the new run from the moment `compute` is
 *     called, so the host passes it to the work it starts), starts the work
 *     and sets *changed as for a computed (whether what readers see changed,
 *     typically to "in flight"). Every dependency of the previous run is
 *     dropped when `compute` returns; reads made by `compute` itself are
 *     recorded as usual. A `compute` that fails supersedes the run before it
 *     all the same, and the run it started is not current either (the node
 *     stays dirty: the next re-validation calls `compute` again).
 *   - The run records what it reads, from any thread, inside track sections
 *     (rp_async_track_begin/end), which name the run: a read there is a
 *     dependency of the node, as if made by its compute. A write to one of
 *     them makes the run stale: readers of the node are marked, and the next
 *     re-validation of the node (an effect's flush, a read) starts a new run.
 *     An unobserved node starts nothing until it is read.
 *   - The run delivers a result inside a resolve section
 *     (rp_async_resolve_begin/end): the begin checks that the run is still
 *     current and that nothing it read changed, then holds the graph while
 *     the host stores the result; the end marks the node's readers when the
 *     result changed what they see, and runs the effects that made due.
 *     A run may resolve more than once (a stream) while it is current.
 *     The section is not a batch: a call made inside it (a write, a
 *     disposal) runs its effects before it returns, as anywhere else.
 *   - A superseded or stale run gets RP_ESUPERSEDED from both begins and
 *     changes nothing: the host drops its reads from the graph and its result.
 *
 * Run ids are never 0 and never reused within a graph. */

/* The id of the node's current run, or 0 before its first one. RP_EKIND for
 * other kinds. */
rp_status_t rp_async_run(const rp_graph_t *graph, rp_node_t node, uint64_t *out);

/* Opens a track section for run `run` of async node `node` on the calling
 * thread: until rp_async_track_end, the reads this thread makes (rp_node_read
 * and read sections) are dependencies of the node, and the graph is held
 * exclusively, as in a batch. RP_ESUPERSEDED when `run` is not the node's
 * current run, or is known to be stale (a resolve was refused, a dependency
 * was disposed); when a dependency was only written, the section opens and
 * the resolve decides. RP_ESTATE when the calling thread is inside a
 * compute, a run, an untracked section or another track section, where reads
 * already have a meaning (read without a section there); RP_EBUSY when the
 * node is being re-validated; RP_EKIND for other kinds. A read of the node
 * itself, or of a node that reads it (directly or through others, up to
 * date or not), inside the section is a cycle: the read returns RP_ECYCLE,
 * records nothing and computes nothing, and rp_graph_diagnostic names the
 * node, the node read, then those in between. While the section is open,
 * rp_graph_tracking names the node. No section is open on any status but
 * RP_OK. */
rp_status_t rp_async_track_begin(rp_graph_t *graph, rp_node_t node, uint64_t run);

/* Closes the calling thread's track section of `node` and runs the effects
 * its reads made due (outside batches), returning the flush's status.
 * RP_ESTATE when this thread has no track section of `node` open, or an
 * untracked section opened inside it is still open. */
rp_status_t rp_async_track_end(rp_graph_t *graph, rp_node_t node);

/* Opens a resolve section for run `run` of async node `node`: on RP_OK the
 * calling thread holds the graph (as in a batch) and stores the run's result
 * where readers will load it, then calls rp_async_resolve_end. When the node
 * was only maybe stale (something upstream was written), its dependencies are
 * re-validated first, recomputing derivations as a read would.
 * RP_ESUPERSEDED, with nothing held, when `run` is not the node's current run
 * or something the run read changed (the node is then left dirty: the next
 * re-validation starts a new run, and track sections of the run are
 * refused); RP_EBUSY when the node is in a track section or re-validation in
 * progress; RP_ESTATE when the calling thread has a resolve section open
 * already (one at a time per graph); a status the re-validation met (a
 * compute's error, RP_ECYCLE) is returned as is, with nothing held. */
rp_status_t rp_async_resolve_begin(rp_graph_t *graph, rp_node_t node, uint64_t run);

/* Closes the calling thread's resolve section of `node`. When `changed`, the
 * node's readers must recompute (as after a changed compute); the effects that
 * made due run before the call returns, outside batches, and the flush's
 * status is returned. A node disposed inside the section marks nothing (the
 * disposal marked its readers). RP_ESTATE, changing nothing, when the
 * calling thread has no resolve section of `node` open (holding the graph
 * for a batch, a section or a callback is not one). */
rp_status_t rp_async_resolve_end(rp_graph_t *graph, rp_node_t node, bool changed);

/* Starts a new run of async node `node` now, with the same inputs, observed
 * or not: `compute` is called as for a stale node (the current run is
 * superseded), its readers are marked when it reports a change, and the
 * effects that made due run before the call returns (outside batches).
 * A failing `compute` is returned as is (see above). RP_EBUSY when the node
 * is in a track section or a walk; RP_EKIND for other kinds. */
rp_status_t rp_async_restart(rp_graph_t *graph, rp_node_t node);

#if defined(__clang__)
#pragma clang assume_nonnull end
#endif

#ifdef __cplusplus
}
#endif

#endif /* RIPPLE_H */
