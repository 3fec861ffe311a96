/*
 * graph.h: the engine's internal model. Not part of the API.
 *
 * Nodes live in pages of fixed-size records (so a record never moves), named
 * by slot index. Each node keeps two adjacency arrays of edges, allocated from
 * the arena:
 *   deps: what it read in its last run, in read order;
 *   subs: who read it (no set order).
 * An edge is stored once on each side; each copy records where its twin sits
 * (`mirror`), so unlinking is O(1) on the unordered side, and the record of
 * the node at its other end (`rec`), so a walk visits that node without
 * looking its page up.
 *
 * Node states (flags):
 *   DIRTY     a source was written and not yet committed; a computed must
 *             recompute; an effect must run.
 *   PENDING   something upstream may have changed: re-validate the deps in
 *             read order before trusting the cached value.
 *   COMPUTING its compute or run callback is in progress.
 *   CHECKING  it sits on a re-validation walk.
 *   QUEUED    (effects) it is in the flush queue.
 *   DISPOSING disposal was requested while it was busy; the handle is already
 *             stale and the record is freed when the busy flag clears.
 *   UNWATCH   an `unwatched` notification for it is waiting to be delivered.
 *   DEFERRED  (effects) created as RP_KIND_DEFERRED_EFFECT: the host runs it.
 *   SCHEDULED (deferred effects) `schedule` was called and rp_effect_update
 *             has not been yet; the effect stays DIRTY or PENDING meanwhile.
 *   TRACKING  (async nodes) a track section of its current run is open.
 *   WEAK_READS (readers) created with RP_NODE_WEAK_READS: its reads are
 *             weak edges (see "Watching").
 *   WATCHED_BY_WEAK (readable nodes) created with, or given,
 *             RP_NODE_WATCHED_BY_WEAK_READS: weak reads of it are strong.
 *   JOURNALED the innermost open savepoint's journal holds the node's state
 *             from before that savepoint's first change to it (savepoint.c);
 *             never set while no savepoint is open.
 *
 * Watching: a node's edges are strong, or weak when the reader has WEAK_READS
 * and the node read lacks WATCHED_BY_WEAK (rp_edge_is_weak; both flags are
 * fixed while the edges they concern exist). `weak_subs` counts the weak ones
 * among `subs`; `watched` is called when the strong ones go from 0 to 1, and
 * `unwatched` is queued when they go back to 0, whatever the weak ones do.
 *
 * An async node is a computed to every walk: DIRTY means "start a new run",
 * and `update` calls its compute, which starts one (async.c). Its current run
 * keeps recording reads after that compute returned, in track sections, where
 * it is the active reader and COMPUTING, its cursor at the end of its deps (a
 * run only adds dependencies), and each section has a fresh run stamp (so that
 * cycle reports order it correctly): its entry in `async_runs` names the run
 * instead. A compute sets that entry before it calls the host, so that the
 * host can name the run it starts. Unlike a compute, a track section starts with the
 * node's readers up to date, so reading one of them there is a cycle that no
 * check walk meets: a new dependency of a section is checked for one
 * (rp_async_check_cycle). The one resolve section open, if any, is
 * `resolving`: it holds the graph, so it is the holding thread's.
 *
 * Invariants (checked by _rp_graph_check):
 *   - deps[i] of S names D and D.subs[deps[i].mirror] names S at mirror i,
 *     and the other way round; a node appears at most once in any deps array.
 *   - sources have no deps; effects have no subs.
 *   - if a node is DIRTY or PENDING, everything downstream of it is DIRTY or
 *     PENDING (or is being computed): so propagation stops at marked nodes.
 *   - the edges form a DAG: reading a node that is being computed is refused.
 *   - outside any call, no node is COMPUTING or CHECKING.
 *   - outside any call, a stale effect is QUEUED, or SCHEDULED if deferred.
 *
 * Threads: everything in a graph is read and written inside a section
 * (sections.c). Reads of up-to-date nodes share the graph; every other call
 * holds it exclusively, so the algorithms below are single-threaded.
 */
#ifndef RP_GRAPH_H
#define RP_GRAPH_H

#include "arena.h"
#include "ripple.h"
#include "sync.h"

#include <pthread.h>

enum {
    RP_F_LIVE = 1u << 0,
    RP_F_DIRTY = 1u << 1,
    RP_F_PENDING = 1u << 2,
    RP_F_COMPUTING = 1u << 3,
    RP_F_CHECKING = 1u << 4,
    RP_F_QUEUED = 1u << 5,
    RP_F_DISPOSING = 1u << 6,
    RP_F_UNWATCH = 1u << 7,
    RP_F_SEEN = 1u << 8, /* scratch mark, clear outside the function that sets it */
    RP_F_DEFERRED = 1u << 9,
    RP_F_SCHEDULED = 1u << 10,
    RP_F_TRACKING = 1u << 11,
    RP_F_WEAK_READS = 1u << 12,
    RP_F_WATCHED_BY_WEAK = 1u << 13,
    RP_F_JOURNALED = 1u << 14, /* its state is in the innermost savepoint's journal (savepoint.c) */
    /* A node it read was disposed while a savepoint was open, or a rollback's
     * recompute found a node it reads disposed (RP_ESTALE): a rollback keeps
     * the marks that disposal gave it, and marks what it reaches (savepoint.c).
     * Cleared when the outermost savepoint closes. */
    RP_F_LOST_DEP = 1u << 15,
};

#define RP_F_BUSY (RP_F_COMPUTING | RP_F_CHECKING)
#define RP_F_STALE (RP_F_DIRTY | RP_F_PENDING)

#define RP_NO_SLOT UINT32_MAX
#define RP_PAGE_SHIFT 8u
#define RP_PAGE_NODES (1u << RP_PAGE_SHIFT)

typedef struct rp_node_rec rp_node_rec_t;

/* Records never move, so an edge can hold its other end's record. */
typedef struct rp_edge {
    uint32_t node;       /* the node at the other end */
    uint32_t mirror;     /* index of this edge's twin in the other node's array */
    rp_node_rec_t *rec;  /* the record of `node` */
} rp_edge_t;

/* Edge arrays come from the arena in blocks of 8-byte items. */
#define RP_EDGE_ITEMS ((uint32_t)(sizeof(rp_edge_t) / 8))
_Static_assert(sizeof(rp_edge_t) % 8 == 0, "an edge is a whole number of arena items");

/* The size class of an edge array of `capacity` edges, and the capacity of one of class `size_class`. */
static inline unsigned rp_edge_class_for(uint32_t capacity) {
    return rp_arena_class_for(capacity * RP_EDGE_ITEMS);
}
static inline uint32_t rp_edge_class_capacity(unsigned size_class) {
    return ((uint32_t)1 << size_class) / RP_EDGE_ITEMS;
}

/* A node's record: what walks, runs and reads touch, in one 64-byte block,
 * its creation order included. What only some nodes need lives elsewhere: in
 * per-slot arrays of the graph that exist only once needed, an async node's
 * run stamp and, while a tracer is installed, each node's cause.
 *
 * A run's cursor has no room of its own: it is only meaningful while the
 * node computes, when the word it shares (`between_runs`: a readable node's
 * read stamp, an effect's flush counts) is unused: nothing reads a node
 * during its own run (that is a cycle), and the flush counts an effect's run
 * before it starts it. An effect's run keeps its counts and gives them back
 * when it ends; a readable node's run leaves RP_READ_STAMP_UNKNOWN
 * (rp_run_tracked_known); an async node's track section, which opens and
 * closes outside runs, 0 (async.c). */
struct rp_node_rec {
    union {
        rp_edge_t *deps;     /* live nodes */
        uint32_t next_free;  /* free list link when not live (a free record has no deps) */
    };
    union {
        rp_edge_t *subs;       /* sources, computed and async nodes */
        uint64_t effect_order; /* effects, which have no readers (nsubs and subs_class stay 0): their order
                                * among effects, for the flush queue */
    };
    uint32_t ndeps, nsubs;
    uint32_t generation;
    uint16_t flags;
    uint8_t kind;
    uint8_t deps_class;      /* the arena size class of `deps`, 0 when it has none */
    uint8_t subs_class;      /* the same for `subs` */
    unsigned weak_subs : 24; /* the weak edges among `subs` (see "Watching"), up to RP_WEAK_SUBS_MAX */
    uint32_t order;          /* creation order (rp_order), 0 once freed */
    uint64_t run_stamp;      /* stamp of its current or last run */
    union {
        uint64_t read_stamp;     /* readable nodes, between runs: stamp of the last run that read it,
                                  * or RP_READ_STAMP_UNKNOWN */
        struct {                 /* effects, which nothing reads, between runs */
            uint32_t flush_id;   /* the flush of `flush_runs`, 0 before the first */
            uint32_t flush_runs; /* runs in flush `flush_id` */
        };
        uint32_t cursor;         /* while computing: deps confirmed by this run */
        uint64_t between_runs;   /* the word as a whole, as a run keeps it */
    };
    void *data;
};
_Static_assert(sizeof(rp_node_rec_t) == 64, "a record fills one cache line");
/* A read stamp after the node's own run: a run still in progress may have
 * read the node before (its run began earlier), and the stamp that said so
 * was the cursor's room. Later than every run stamp, so that such a run,
 * reading it again, looks for it among the reads it has confirmed
 * (tracking.c) instead of taking it as unread; no run stamp equals it. */
#define RP_READ_STAMP_UNKNOWN UINT64_MAX
#define RP_WEAK_SUBS_MAX ((1u << 24) - 1)

/* Whether the edge from reader `sub` to `dep` is weak: it does not watch `dep`. */
static inline bool rp_edge_is_weak(const rp_node_rec_t *dep, const rp_node_rec_t *sub) {
    return (sub->flags & RP_F_WEAK_READS) && !(dep->flags & RP_F_WATCHED_BY_WEAK);
}

/* The edges an array of size class `size_class` holds (0: no array). */
static inline uint32_t rp_edge_capacity(uint8_t size_class) {
    return size_class ? rp_edge_class_capacity(size_class) : 0;
}

/* A frame of the explicit stack used by propagation and re-validation. */
typedef struct rp_frame {
    uint32_t node;
    uint32_t position;
    union {
        uint64_t stamp;            /* run stamp when the frame was pushed: orders a cycle's nodes */
        const rp_edge_t *next;     /* propagation's frames instead: the next edge of a node's subs */
    };
    union {
        rp_node_rec_t *rec;        /* the record of `node`, where the walk keeps it at hand */
        const rp_edge_t *end;      /* propagation's frames instead: the end of those subs */
    };
} rp_frame_t;

/* A flush queue entry: effects run in creation order. */
typedef struct rp_queued {
    uint64_t order;
    uint32_t slot;
    uint32_t generation; /* of the effect queued: a freed one's entry no longer matches */
} rp_queued_t;

/* Savepoints (savepoint.c). A journal entry: a node's state when a savepoint
 * first saw a write reach it (or saw it created). */
typedef struct rp_journal_entry {
    uint32_t slot, generation;
    uint16_t flags;   /* the node's flags then (RP_F_JOURNALED apart) */
    uint16_t what;    /* RP_JOURNAL_* */
    uint32_t ndeps;   /* RP_JOURNAL_SAVED: how many deps it had, */
    size_t deps_at;   /* and where their slots start in `journal_deps` */
    uint64_t run_stamp; /* its run stamp then */
} rp_journal_entry_t;

enum {
    RP_JOURNAL_SAVED = 1u << 0,    /* the host kept its value (callbacks.save) */
    RP_JOURNAL_CREATED = 1u << 1,  /* created inside the savepoint */
    RP_JOURNAL_LATE = 1u << 2,     /* recomputed inside the savepoint before a write reached it */
    RP_JOURNAL_RESTORED = 1u << 3, /* the rollback gave the host's copy back */
    RP_JOURNAL_RECOMPUTE = 1u << 4, /* the rollback recomputes it from the values restored */
    RP_JOURNAL_FAILED = 1u << 5,   /* that recompute failed: it stays dirty */
    RP_JOURNAL_FIRST = 1u << 6,    /* the rollback's oldest entry of its node: its state at the begin */
};

/* An open savepoint: where its part of the journals starts, and the graph's
 * counters when it began. */
typedef struct rp_savepoint_frame {
    size_t journal_start, written_start, deps_start;
    uint64_t stamp;         /* graph->stamp at the begin: later runs are the savepoint's */
    uint64_t order;         /* graph->next_order at the begin: later nodes are its own */
    uint32_t batch_depth;   /* the explicit batches open at the begin */
    uint32_t active;        /* the node in progress at the begin (RP_NO_SLOT: none) */
    bool disposed;          /* a node was freed since the begin (here or in a savepoint nested in it) */
} rp_savepoint_frame_t;

typedef struct rp_unwatch {
    uint32_t slot;
    uint32_t generation;
} rp_unwatch_t;

/* Readers of up-to-date nodes count themselves in one of these counters, each
 * on its own cache line, picked by thread: readers on different threads then
 * write different lines and do not slow each other down. */
#define RP_READER_STRIPES 16u

typedef struct rp_reader_stripe {
    uint32_t readers;
    char padding[RP_SYNC_CACHELINE - sizeof(uint32_t)];
} rp_reader_stripe_t;

/* Tickets count in twos, so that `turn` keeps its low bit for this flag: a
 * thread sleeps on `released` waiting for its turn, so the thread passing the
 * turn on must wake it. Both words wrap around together. */
#define RP_TICKET_STEP 2u
#define RP_TURN_SLEEPERS 1u

/* The bias states (sections.c), in the only order they change in. */
enum {
    RP_BIAS_ON = 0,       /* `bias` takes the graph with plain accesses; nobody else is inside */
    RP_BIAS_REVOKING = 1, /* revoked: `bias` no longer takes the fast path, but may still be inside */
    RP_BIAS_OFF = 2,      /* every thread uses the turns and stripes */
};

/* The graph's reader/writer protocol (sections.c). */
typedef struct rp_sections {
    rp_reader_stripe_t stripes[RP_READER_STRIPES];
    uint32_t next;     /* tickets handed out: the next one to take */
    uint32_t turn;     /* the ticket whose holder may go, | RP_TURN_SLEEPERS */
    void *owner;       /* the thread holding the graph exclusively, NULL when none */
    uint32_t depth;    /* the owner's nesting: calls from callbacks, open batches */
    bool fast;         /* the owner took the graph through the bias (holder only) */
    void *bias;        /* the thread the graph is biased to (set at creation), or NULL */
    uint32_t biased;   /* RP_BIAS_ON, RP_BIAS_REVOKING or RP_BIAS_OFF */
    uint32_t inside;   /* 1 while `bias` is inside through the bias (its announcement) */
    pthread_mutex_t sleep;
    pthread_cond_t released;
} rp_sections_t;

struct rp_graph {
    rp_sections_t sections;
    rp_arena_t arena;
    rp_callbacks_t callbacks;
    uint32_t settle_bound;
    uint32_t tag;

    rp_node_rec_t **pages;
    uint32_t npages, pages_capacity;
    uint32_t nslots;    /* slots ever handed out */
    uint32_t free_head; /* first free slot, RP_NO_SLOT if none */
    size_t live_nodes;
    size_t live_effects;
    size_t live_edges;

    /* Explicit stack shared by nested walks. Outside a propagation it keeps
     * room above `stack_top` for one frame per node read by two nodes or
     * more (a propagation pushes a frame only when it leaves such a node for
     * one of its readers, and then has that node on its path once:
     * rp_stack_room), so that propagation never allocates; the room grows
     * when a node gets its second reader (rp_link_slow, which can fail).
     * Re-validation walks push below `stack_limit` (capacity minus that
     * room), growing the stack when they first go deeper, which they can
     * report as failed. */
    rp_frame_t *stack;
    size_t stack_top, stack_capacity, stack_limit;
    size_t shared_nodes; /* live nodes with two readers or more */

    /* The flush queue, in two parts: effects usually arrive in creation order
     * and append to `ordered` (a sorted FIFO); the others go to `heap`. Outside
     * a flush `heap` is in arrival order (appending is all a propagation pays);
     * a flush starts by sorting it (in the walk stack's free room) and
     * merging it into `ordered`, or by making it a heap when that room is too
     * small, and keeps it a binary min-heap on `order` for the effects that
     * arrive while it runs. The next effect is the smaller of the two heads.
     * Both parts share one array of `queue_capacity` entries, one per live
     * effect (reserved at creation; an effect is queued at most once): `heap`
     * from its front, `ordered` from its back (rp_ordered). */
    rp_queued_t *heap;
    rp_queued_t *ordered_first; /* the array's last entry, where `ordered` starts */
    size_t heap_count;
    size_t ordered_head, ordered_count;
    size_t queue_capacity;

    /* The `unwatched` notifications waiting to be delivered, in the order
     * their nodes lost their last strong reader. A node may lose it where
     * nothing may allocate (a run's end), so the queue cannot always grow
     * then: a node that finds it full waits with RP_F_UNWATCH alone, counted
     * in `unwatch_count` past the capacity, and the delivery finds such
     * nodes by their flag, in slot order, after the queue's, then grows the
     * queue for the next time (best effort: without memory, the flags keep
     * working). The queue is made with room for RP_UNWATCH_FIRST when the
     * graph first links a strong reader (which can fail): a graph whose
     * nodes nobody watches keeps none, and small episodes never overflow. */
    rp_unwatch_t *unwatch;
    size_t unwatch_head, unwatch_count, unwatch_capacity;

    rp_node_t *diagnostic;
    size_t diagnostic_count, diagnostic_capacity;

    rp_node_rec_t *active_rec;  /* the record of `active`, NULL when none */
    /* A run saves both of these and restores them as one word (run.h). */
    union {
        struct {
            uint32_t active;          /* node whose compute or run is in progress */
            uint32_t untracked_depth; /* untracked sections open in it */
        };
        uint64_t active_and_untracked;
    };
    rp_node_t resolving;        /* the async node of the open resolve section; generation 0: none */
    /* Explicit batches. A run in progress (active_rec != NULL) is an implicit
     * batch, and a host callback in progress, without a counter of its own. */
    uint32_t batch_depth;
    /* The batch depth the innermost open savepoint began at, 0 when none: a
     * batch ends only above it (rp_batch_end's one test for both). */
    uint32_t batch_floor;
    bool flushing;
    bool draining;

    rp_tracer_t tracer; /* NULL: nothing is traced (one branch at each traced point) */
    void *tracer_context;

    /* Creation orders: of every node (rp_order, 32 bits, numbered again
     * before they would wrap: rp_orders_renumber), and of effects alone
     * (effect_order, which nothing renumbers: the flush queue holds it). */
    uint32_t next_order;
    uint64_t next_effect_order;
    uint64_t stamp;
    uint64_t write_epoch;
    uint32_t flush_id;  /* never 0 once a flush started: effects store it (rp_flush) */

    /* Per-slot arrays that exist only once needed, then cover every slot:
     * `causes` while a tracer is installed (live nodes: the dependency whose
     * change made the node DIRTY, RP_NO_SLOT if none), `async_runs` once an
     * async node was created (async nodes: the run stamp of their current run,
     * 0 before the first). */
    uint32_t *causes;
    size_t causes_capacity;
    uint64_t *async_runs;
    size_t async_runs_capacity;

    /* Savepoints (savepoint.c), all empty until the first one: the open
     * ones, innermost last; the journal of node states; the sources written
     * and the nodes invalidated since the outermost began (slot, generation); the dependency slots of
     * the nodes whose value the host kept. Each grows geometrically and is
     * kept for the next savepoint. `savepoint_count` is the one word a graph
     * without savepoints tests (in a write and an invalidation). */
    uint32_t savepoint_count;
    size_t savepoints_capacity;
    rp_savepoint_frame_t *savepoints;
    rp_journal_entry_t *journal;
    size_t journal_count, journal_capacity;
    rp_unwatch_t *written;
    size_t written_count, written_capacity;
    uint32_t *journal_deps;
    size_t journal_deps_count, journal_deps_capacity;
    uint32_t *journal_walk;       /* the journal's walks' queue of slots */
    size_t journal_walk_capacity;
    bool savepoint_lost_deps;     /* some node has RP_F_LOST_DEP */
    /* A rollback after a disposal is recomputing: a read of a freed node marks
     * its reader RP_F_LOST_DEP (rp_savepoint_note_stale_read). */
    bool savepoint_recomputing;
};

static inline rp_node_rec_t *rp_rec(const rp_graph_t *graph, uint32_t slot) {
    return &graph->pages[slot >> RP_PAGE_SHIFT][slot & (RP_PAGE_NODES - 1)];
}

/* A page holds RP_PAGE_NODES records. */
#define RP_PAGE_BYTES (sizeof(rp_node_rec_t) * RP_PAGE_NODES)
/* Pages start on a cache line, so that each record fills exactly one: the
 * allocator's block is larger by up to a line, and the page keeps where that
 * block starts after its records (node.c, graph.c). */
#define RP_PAGE_ALIGN ((uintptr_t)64)
#define RP_PAGE_BLOCK_BYTES (RP_PAGE_BYTES + sizeof(void *) + RP_PAGE_ALIGN)

/* The creation order of `slot` (0 once freed), which listings and savepoints read. */
static inline uint32_t *rp_order(const rp_graph_t *graph, uint32_t slot) {
    return &rp_rec(graph, slot)->order;
}
/* The last creation order handed out before the live nodes are numbered again. */
#define RP_ORDER_MAX UINT32_MAX

static inline rp_node_t rp_handle(const rp_graph_t *graph, uint32_t slot) {
    return (rp_node_t){slot, rp_rec(graph, slot)->generation, graph->tag};
}

/* Validates a handle. RP_EINVAL for the none handle or a slot never handed out. */
static inline rp_status_t rp_resolve(const rp_graph_t *graph, rp_node_t node, uint32_t *slot) {
    if (node.graph_tag != graph->tag) return node.generation == 0 ? RP_EINVAL : RP_EFOREIGN;
    if (node.generation == 0 || node.slot >= graph->nslots) return RP_EINVAL;
    const rp_node_rec_t *rec = rp_rec(graph, node.slot);
    if (rec->generation != node.generation || !(rec->flags & RP_F_LIVE) ||
        (rec->flags & RP_F_DISPOSING)) {
        return RP_ESTALE;
    }
    *slot = node.slot;
    return RP_OK;
}

/* graph.c */
void rp_trace_slow(rp_graph_t *graph, rp_trace_kind_t kind, uint32_t slot, uint32_t cause, bool changed);

/* Tells the tracer, if there is one. `cause` is a slot or RP_NO_SLOT. */
static inline void rp_trace(rp_graph_t *graph, rp_trace_kind_t kind, uint32_t slot, uint32_t cause, bool changed) {
    if (__builtin_expect(graph->tracer != NULL, 0)) rp_trace_slow(graph, kind, slot, cause, changed);
}

/* node.c */
void rp_node_free(rp_graph_t *graph, uint32_t slot);
/* Numbers the live nodes' creation orders again from 1, keeping their order
 * and where each open savepoint's begin falls among them (RP_ENOMEM, nothing
 * changed, when it cannot have room for the sort). */
rp_status_t rp_orders_renumber(rp_graph_t *graph);
/* Grows the walk stack by at least `frames` frames above `stack_top` and the
 * room a propagation needs (RP_ENOMEM, nothing changed, when it cannot). */
rp_status_t rp_stack_reserve(rp_graph_t *graph, size_t frames);
/* Room in `unwatch` for `entries` entries (RP_ENOMEM, nothing changed, when
 * it cannot). */
rp_status_t rp_unwatch_reserve(rp_graph_t *graph, size_t entries);
#define RP_UNWATCH_FIRST 16u
/* Makes the tracer's per-slot `causes` cover `slots` slots (node.c). */
rp_status_t rp_causes_reserve(rp_graph_t *graph, size_t slots);
/* The frames a propagation may push: one per node read by two or more. */
static inline size_t rp_stack_room(const rp_graph_t *graph) {
    return graph->shared_nodes;
}
/* After `shared_nodes` or the capacity changed. */
static inline void rp_stack_limit_update(rp_graph_t *graph) {
    graph->stack_limit = graph->stack_capacity - rp_stack_room(graph);
}
/* A node gained its second reader, or lost it: the room a propagation needs
 * changes with `shared_nodes`. */
static inline void rp_shared_nodes_change(rp_graph_t *graph, bool gained) {
    if (gained) {
        graph->shared_nodes++;
    } else {
        graph->shared_nodes--;
    }
    rp_stack_limit_update(graph);
}
/* Live nodes that can have readers (all but effects). */
static inline size_t rp_readable_nodes(const rp_graph_t *graph) {
    return graph->live_nodes - graph->live_effects;
}

/* Frees a node whose disposal waited for it to stop being busy. */
static inline void rp_node_finish_if_disposing(rp_graph_t *graph, uint32_t slot) {
    uint16_t flags = rp_rec(graph, slot)->flags;
    if ((flags & RP_F_DISPOSING) && !(flags & RP_F_BUSY)) rp_node_free(graph, slot);
}

/* tracking.c */
/* Records that the active reader read `dep`, when the read is not the next one
 * its previous run made (rp_node_read confirms that case inline). */
rp_status_t rp_link_slow(rp_graph_t *graph, uint32_t dep, uint32_t sub);
void rp_unlink_deps_from(rp_graph_t *graph, uint32_t sub, uint32_t first);
void rp_remove_sub_edge(rp_graph_t *graph, uint32_t dep, uint32_t position);
void rp_deliver_unwatched(rp_graph_t *graph);
rp_status_t rp_reserve_for_node(rp_graph_t *graph, rp_kind_t kind);

/* propagation.c */
void rp_propagate(rp_graph_t *graph, uint32_t root);
/* `slot` changed (a compute or a resolved async run reported so): its readers
 * must recompute, everything below them re-validate. */
void rp_mark_readers_changed(rp_graph_t *graph, uint32_t slot);
/* What a re-validation found: whether the node must recompute (never with a
 * status other than RP_OK), and a status. Two words, returned in two
 * registers, rather than one of them through memory. */
typedef struct rp_check {
    size_t dirty;
    rp_status_t status;
} rp_check_t;

/* Re-validates the dependencies of PENDING `root`, whose record is `rec`. */
rp_check_t rp_check_dirty_pair(rp_graph_t *graph, uint32_t root, rp_node_rec_t *rec);

/* The flush's walk of the effects at the head of its queue, after one it
 * found clean: each, in turn, that the flush would walk next (rp_check_dirty
 * for it), popped with its QUEUED mark cleared, while they come out clean.
 * The answer is about the last: `rec` is its record with bit 0 set when it
 * must run, and `entry` its slot, with its generation in the high half. No
 * record: `entry` is a status, RP_OK when the walk took none, otherwise the
 * failure of the last effect's walk (which is queued again, as the flush does
 * with one whose walk fails). Records are 8-byte aligned: bit 0 is free. */
typedef struct rp_chained {
    uintptr_t rec;
    uint64_t entry;
} rp_chained_t;
rp_chained_t rp_check_queued(rp_graph_t *graph);

/* The same, with *dirty: it must recompute. */
static inline rp_status_t rp_check_dirty(rp_graph_t *graph, uint32_t root, rp_node_rec_t *rec, bool *dirty) {
    rp_check_t check = rp_check_dirty_pair(graph, root, rec);
    *dirty = check.dirty != 0;
    return check.status;
}
void rp_mark_dirty(rp_graph_t *graph, uint32_t slot);
rp_status_t rp_refresh(rp_graph_t *graph, uint32_t slot);
/* Runs effect `slot`, whose record is `rec` (callers have it at hand). */
void rp_run_effect(rp_graph_t *graph, uint32_t slot, rp_node_rec_t *rec);

/* scheduler.c */
/* Entry `index` of `ordered`, which fills the queue's array from its back. */
static inline rp_queued_t *rp_ordered(const rp_graph_t *graph, size_t index) {
    return graph->ordered_first - index;
}
void rp_enqueue(rp_graph_t *graph, uint32_t slot);
/* rp_enqueue's common cases inline, when the array has room and so nothing
 * to drop or move first: an effect `rec` (at `slot`) arriving in an empty
 * `ordered` or after the last one queued there in creation order appends to
 * it; outside a flush, any other appends to `heap`. `flags`: what its flags
 * become, RP_F_QUEUED added here (a caller that marks it stores them once). */
static inline void rp_enqueue_marked(rp_graph_t *graph, uint32_t slot, rp_node_rec_t *rec, uint16_t flags) {
    size_t count = graph->ordered_count;
    size_t later = graph->heap_count;
    if (count + later < graph->queue_capacity) {
        if (count == graph->ordered_head) graph->ordered_head = count = 0;
        uint64_t order = rec->effect_order;
        /* The entry it takes, and after it (one past the array's end when
         * `ordered` is empty) the last one queued. */
        rp_queued_t *entry = rp_ordered(graph, count);
        if (count == 0 || entry[1].order < order) {
            rec->flags = flags | RP_F_QUEUED;
            *entry = (rp_queued_t){order, slot, rec->generation};
            graph->ordered_count = count + 1;
            return;
        }
        if (!graph->flushing) {
            rec->flags = flags | RP_F_QUEUED;
            graph->heap[later] = (rp_queued_t){order, slot, rec->generation};
            graph->heap_count = later + 1;
            return;
        }
    }
    rec->flags = flags;
    rp_enqueue(graph, slot);
}
static inline void rp_enqueue_record(rp_graph_t *graph, uint32_t slot, rp_node_rec_t *rec) {
    rp_enqueue_marked(graph, slot, rec, rec->flags);
}
/* Hands a due deferred effect to its host's `schedule` (it stays stale until
 * the host's rp_effect_update). */
void rp_schedule_deferred(rp_graph_t *graph, uint32_t slot);

static inline bool rp_queue_empty(const rp_graph_t *graph) {
    return graph->ordered_head == graph->ordered_count && graph->heap_count == 0;
}
/* Nothing for the end of a call outside runs to do (rp_settle): no effect
 * queued, no `unwatched` waiting to be delivered. */
static inline bool rp_settled(const rp_graph_t *graph) {
    return rp_queue_empty(graph) && graph->unwatch_head == graph->unwatch_count;
}
rp_status_t rp_flush(rp_graph_t *graph);
rp_status_t rp_settle_slow(rp_graph_t *graph);

/* The end of every public call that may have queued work: flush effects
 * (outside batches and runs) and deliver `unwatched` (outside runs). Inline
 * because almost every call has nothing to do here. rp_settle_needed tests
 * the common cases first, in branches: nobody waits for `unwatched`, then a
 * batch or a run is open (a write in a batch stops there), then the queue.
 * rp_settle_slow sorts out the rest (a delivery a run defers among them). */
static inline bool rp_settle_needed(const rp_graph_t *graph) {
    return __builtin_expect(graph->unwatch_head != graph->unwatch_count, 0) ||
           (graph->batch_depth == 0 && graph->active_rec == NULL && !rp_queue_empty(graph));
}
static inline rp_status_t rp_settle(rp_graph_t *graph) {
    return rp_settle_needed(graph) ? rp_settle_slow(graph) : RP_OK;
}

/* sections.c */
rp_status_t rp_sections_init(rp_sections_t *sections);
void rp_sections_destroy(rp_sections_t *sections);
/* This thread's identity, never NULL, unique among live threads: its thread
 * pointer where the compiler reads it inline (one register move on x86-64 and
 * aarch64, where pthread_self is a call into the C library), else
 * pthread_self. With glibc on x86-64 the two are the same value. */
#if defined(__has_builtin) && defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
#if __has_builtin(__builtin_thread_pointer)
#define RP_THREAD_POINTER 1
#endif
#endif
static inline void *rp_thread_self(void) {
#if defined(RP_THREAD_POINTER)
    return __builtin_thread_pointer();
#else
    return (void *)(uintptr_t)pthread_self();
#endif
}
/* The slow paths of rp_exclusive_enter and rp_exclusive_exit: taking the graph
 * when this thread does not hold it (waiting for its turn), and giving it back
 * (passing the turn on). rp_exclusive_acquire finds the graph already held when
 * a failed rp_try_shared_read took it on this thread's behalf. */
void rp_exclusive_acquire(rp_graph_t *graph, void *self);
void rp_exclusive_release(rp_graph_t *graph);
/* The bias thread's way back when the bias was revoked between its check and
 * its announcement: queues, then withdraws the announcement, then takes the
 * graph on its turn. */
void rp_bias_back_off(rp_graph_t *graph, void *self);
/* What rp_exclusive_try_enter did. */
typedef enum rp_entry {
    RP_ENTRY_HELD,     /* the calling thread holds the graph */
    RP_ENTRY_NONE,     /* nothing done: the caller must wait for its turn */
    RP_ENTRY_BACK_OFF, /* announced, then found the bias revoked: the caller
                        * must call rp_bias_back_off, which takes the graph */
} rp_entry_t;
/* Takes the graph exclusively without waiting when the calling thread holds it
 * already (it only counts) or the graph is biased to it (plain stores and
 * loads), and says what is left to do otherwise. Inline: every call of a
 * graph used by one thread, and every call from a callback, takes this path.
 * Callers whose common case makes no call take the two others out of line, so
 * that it saves no registers. */
static inline rp_entry_t rp_exclusive_try_enter(rp_graph_t *graph, void *self) {
    rp_sections_t *sections = &graph->sections;
    if (rp_sync_load_ptr(&sections->owner) == self) {
        sections->depth++;
        return RP_ENTRY_HELD;
    }
    /* `bias` is written once, before the graph is shared; the state moves
     * only away from RP_BIAS_ON, so a stale RP_BIAS_ON is the one stale value
     * possible, and the announcement's check below catches it. */
    if (sections->bias != self || rp_sync_bias_load(&sections->biased) != RP_BIAS_ON) return RP_ENTRY_NONE;
    /* The announcement, then the state again: pairs with the revoker's store
     * of the state, heavy_barrier, then load of `inside` (sections.c, sync.h). */
    rp_sync_bias_announce(&sections->inside, 1);
    if (__builtin_expect(rp_sync_bias_load(&sections->biased) != RP_BIAS_ON, 0)) return RP_ENTRY_BACK_OFF;
    rp_sync_store_ptr_relaxed(&sections->owner, self);
    sections->depth = 1;
    sections->fast = true;
    return RP_ENTRY_HELD;
}
/* rp_exclusive_try_enter, then rp_bias_back_off in the rare race with a
 * revocation: true, holding the graph, or false, having done nothing. */
static inline bool rp_exclusive_enter_owned(rp_graph_t *graph, void *self) {
    rp_entry_t entry = rp_exclusive_try_enter(graph, self);
    if (__builtin_expect(entry == RP_ENTRY_BACK_OFF, 0)) {
        rp_bias_back_off(graph, self);
        return true;
    }
    return entry == RP_ENTRY_HELD;
}
/* Takes the graph when rp_exclusive_try_enter did not (`entry`, not
 * RP_ENTRY_HELD): backs off from the bias, or waits for a turn. */
static inline void rp_exclusive_enter_rest(rp_graph_t *graph, void *self, rp_entry_t entry) {
    if (entry == RP_ENTRY_BACK_OFF) {
        rp_bias_back_off(graph, self);
    } else {
        rp_exclusive_acquire(graph, self);
    }
}
/* Takes the graph exclusively; reentrant on the owning thread. */
static inline void rp_exclusive_enter(rp_graph_t *graph) {
    void *self = rp_thread_self();
    rp_entry_t entry = rp_exclusive_try_enter(graph, self);
    if (entry != RP_ENTRY_HELD) rp_exclusive_enter_rest(graph, self, entry);
}
static inline void rp_exclusive_exit(rp_graph_t *graph) {
    rp_sections_t *sections = &graph->sections;
    if (--sections->depth != 0) return;
    if (!sections->fast) {
        rp_exclusive_release(graph);
        return;
    }
    rp_sync_store_ptr_relaxed(&sections->owner, NULL);
    /* Leaving: the last access of the call, a release (pairs with the
     * revoker's acquiring load of `inside`). */
    rp_sync_store_u32_release(&sections->inside, 0);
}
/* Whether the calling thread holds the graph exclusively. */
static inline bool rp_exclusive_held(const rp_graph_t *graph) {
    return rp_sync_load_ptr(&graph->sections.owner) == rp_thread_self();
}
/* A ticket is 1 + the stripe a reader counted itself in (0 is never one), or
 * this: the section is (a nesting of) the calling thread's exclusive section, */
#define RP_TICKET_EXCLUSIVE UINT32_MAX
/* or this: a read by the compute or run in progress on the thread holding the
 * graph (no nesting: the run holds it). */
#define RP_TICKET_IN_RUN (UINT32_MAX - 2)
/* A section's ticket once rp_node_read_end has ended it: no begin gives 0. */
#define RP_TICKET_ENDED 0u
/* The stripe a thread's readers count in. Thread identities are addresses
 * of thread control blocks a fixed stride apart, with the same low bits
 * (glibc: 8 MiB and a guard page apart), so a partial mix spreads them
 * unevenly: the previous mix put two such threads on one stripe one time in
 * eight, and readers sharing a stripe write one cache line (reads on two
 * threads ran 5x slower). This finalizer (MurmurHash3's) makes every bit of
 * the address count: two threads share a stripe one time in sixteen, as with
 * a uniform hash (Tests/CRegressions/sections.c measures the spread). */
static inline uint32_t rp_stripe_for(void *thread) {
    uint64_t bits = (uint64_t)(uintptr_t)thread;
    bits ^= bits >> 33;
    bits *= 0xff51afd7ed558ccdULL;
    bits ^= bits >> 33;
    bits *= 0xc4ceb9fe1a85ec53ULL;
    bits ^= bits >> 33;
    return (uint32_t)bits & (RP_READER_STRIPES - 1);
}
/* Shares the graph with other readers (or, on the owning thread, nests in its
 * exclusive section). Queries take the graph as const: the sections are
 * bookkeeping, not contents, so they cast it. */
uint32_t rp_shared_enter(rp_graph_t *graph);
void rp_shared_exit(rp_graph_t *graph, uint32_t ticket);
/* Enters a shared section if no thread holds or waits for the graph and
 * `node` is a live, idle, up-to-date readable node of it (true, *ticket set).
 * Otherwise takes the graph exclusively for the caller (false): a thread
 * that counted itself as a reader queues before it stops counting, so that
 * rp_sections_try_close sees it at every moment of its call. */
bool rp_try_shared_read(rp_graph_t *graph, rp_node_t node, void *self, uint32_t *ticket);
/* The shape of every public call on one node that may change the graph: run
 * `call` holding the graph exclusively. Inline, so `call` is a direct call. */
static inline rp_status_t rp_call_exclusive(rp_graph_t *graph, rp_node_t node,
                                            rp_status_t (*call)(rp_graph_t *, rp_node_t)) {
    if (graph == NULL) return RP_EINVAL;
    rp_exclusive_enter(graph);
    rp_status_t status = call(graph, node);
    rp_exclusive_exit(graph);
    return status;
}
/* For rp_graph_destroy: takes the graph for good when no thread is inside a
 * section or waiting for one (true); otherwise changes nothing (false). After
 * true, no thread of the protocol touches the graph again. */
bool rp_sections_try_close(rp_graph_t *graph);

/* async.c */
/* RP_ECYCLE, with the diagnostic, when `target` reads async node `slot`,
 * directly or through others (so `slot` reading it closes a cycle); RP_ENOMEM
 * when the walk stack could not grow for the search. */
rp_status_t rp_async_check_cycle(rp_graph_t *graph, uint32_t slot, uint32_t target);

/* savepoint.c */
/* A write or an invalidation of `slot` inside a savepoint: journals what the
 * change may reach, before it is marked. RP_ENOMEM, nothing marked, when the
 * journal cannot grow. */
rp_status_t rp_savepoint_note_change(rp_graph_t *graph, uint32_t slot, bool written);
/* A read found its node freed (RP_ESTALE): while a rollback recomputes, the
 * reader lost a node it read at the savepoint's begin (savepoint.c). Cold: a
 * read of a freed node is a failure already. */
static inline void rp_savepoint_note_stale_read(rp_graph_t *graph) {
    if (__builtin_expect(graph->savepoint_recomputing, 0) && graph->active_rec != NULL && !graph->untracked_depth) {
        graph->active_rec->flags |= RP_F_LOST_DEP;
        graph->savepoint_lost_deps = true;
    }
}
/* Frees the savepoints' buffers (rp_graph_destroy). */
void rp_savepoint_free(rp_graph_t *graph);
/* scheduler.c: drops the queue's entries of effects no longer QUEUED. */
void rp_queue_drop_unqueued(rp_graph_t *graph);

/* graph.c */
/* Room for `count` diagnostic handles (the caller fills them), or NULL. */
rp_node_t *rp_diagnostic_reserve(rp_graph_t *graph, size_t count);

#endif
