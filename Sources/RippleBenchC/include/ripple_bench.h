/*
 * ripple_bench.h: the C half of ripple-bench (internal to the benchmark, not
 * part of Ripple's API).
 *
 * Every shape of BENCHMARKS.md, run against Ripple's C API (include/ripple.h)
 * and against the floor: the same node bodies evaluated without a framework,
 * as a C function pointer per node in a fixed topological order (static
 * shapes) or by a small hand-written incremental mark-and-pull reference (the
 * dynamic graphs). Each runner builds the shape, warms it up, times `samples`
 * samples and returns the fastest one together with what it verified: a check
 * that fails (a wrong value or counter) is counted in `failed` and described
 * in `message`, and the caller must treat it as a failed run.
 *
 * Ripple graphs get their memory from a counting allocator; `allocations` is
 * the number of calls the engine made to it during the timed samples, which
 * must be zero (steady state allocates nothing).
 *
 * The xmur3a/sfc32 generator and the dynamic-graph layout (which nodes are
 * static, which leaves are read) are exported so that the Swift shapes build
 * exactly the same graphs.
 */
#ifndef RIPPLE_BENCH_H
#define RIPPLE_BENCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a shape is run against. */
typedef enum rb_backend {
    RB_BACKEND_RIPPLE = 0, /* Ripple's C API */
    RB_BACKEND_FLOOR = 1   /* no framework: topological order, or the incremental reference */
} rb_backend_t;

typedef struct rb_result {
    double ms;               /* the fastest sample, in milliseconds */
    uint64_t evaluations;    /* computes plus effect runs in that sample */
    uint64_t operations;     /* measured operations in that sample (writes, iterations) */
    uint64_t allocations;    /* allocator calls by the engine during the timed samples (must be 0) */
    double value;            /* the shape's checked value (a sum, a last value) */
    uint64_t count;          /* the shape's checked counter (computes, effect runs) */
    int failed;              /* checks that failed; 0 for a valid run */
    char message[256];       /* the first failed check */
} rb_result_t;

/* ---------------------------------------------------------------- helpers */

/* CLOCK_MONOTONIC in nanoseconds: the clock every figure is taken with. */
uint64_t rb_clock_ns(void);

/* K8's busy(): a 100-iteration loop the compiler cannot delete; returns 100. */
int64_t rb_busy_loop(void);

/* ------------------------------------------------------------------ kairo */

typedef enum rb_kairo {
    RB_KAIRO_DEEP = 1,
    RB_KAIRO_BROAD = 2,
    RB_KAIRO_DIAMOND = 3,
    RB_KAIRO_TRIANGLE = 4,
    RB_KAIRO_MUX = 5,
    RB_KAIRO_REPEATED = 6,
    RB_KAIRO_UNSTABLE = 7,
    RB_KAIRO_AVOIDABLE = 8
} rb_kairo_t;

/* Builds the shape, makes 3 warm-up calls of iter(), then `samples` samples of
 * `calls` calls each (BENCHMARKS.md: 10 samples of 500). `count` is the effect
 * counter of the last iter() (for K8: re-runs of c3, c4, c5 and the effect,
 * which must be 0). */
rb_result_t rb_kairo_run(rb_kairo_t shape, rb_backend_t backend, int samples, int calls);

/* ------------------------------------------------------------------ cellx */

/* One sample: build `graphs` fresh graphs of `layers` layers (not timed) and
 * time, on each, reading the four end values, batch-writing 4, 3, 2, 1 into
 * the sources, and reading the end values again. `ms` is the sum over the
 * graphs of the fastest sample. */
rb_result_t rb_cellx_run(int layers, rb_backend_t backend, int samples, int graphs);

/* ---------------------------------------------------------- dynamic graphs */

typedef struct rb_dynamic_config {
    const char *name;
    int width, layers, sources;
    double static_fraction, read_fraction;
    int iterations;
    double expected_sum;
    uint64_t expected_count;
} rb_dynamic_config_t;

/* The six configurations of BENCHMARKS.md, then the three small unit-test
 * cases (whose counts include the first build on a fresh graph). */
#define RB_DYNAMIC_CONFIGS 6
#define RB_DYNAMIC_SMALL 3
extern const rb_dynamic_config_t rb_dynamic_configs[RB_DYNAMIC_CONFIGS];
extern const rb_dynamic_config_t rb_dynamic_small[RB_DYNAMIC_SMALL];

/* Builds the graph, runs it once, then times `samples` runs; `value` is the
 * sum and `count` the computes of the fastest run, both checked against the
 * config. With `fresh`, no warm-up: one run on a fresh graph, counting the
 * first build (the small cases). The floor is the incremental reference. */
rb_result_t rb_dynamic_run(const rb_dynamic_config_t *config, rb_backend_t backend, int samples, bool fresh);

/* The seeded generator: xmur3a("seed") feeding sfc32, as BENCHMARKS.md says. */
typedef struct rb_rng {
    uint32_t a, b, c, d;
} rb_rng_t;

rb_rng_t rb_rng_seeded(const char *seed);
double rb_rng_next(rb_rng_t *rng);

/* The layout of a dynamic graph: is_static[width * (layers - 1)] says, row by
 * row, which computeds are static; read_leaves[0 ..< *read_count] are the
 * indices (in the last row) of the leaves read, in read order. read_leaves
 * must hold `width` entries. */
void rb_dynamic_layout(const rb_dynamic_config_t *config, bool *is_static, size_t *read_leaves, size_t *read_count);

/* ---------------------------------------------------- grid, chain, creation */

/* One source, `width` chains of `height` computeds, one effect per chain;
 * each operation is `source = source + 1` (in a batch). */
rb_result_t rb_grid_run(int width, int height, int operations, rb_backend_t backend, int samples);

/* One source, `length` chained +1 computeds, one effect; `writes` writes. */
rb_result_t rb_chain_run(int length, int writes, rb_backend_t backend, int samples);

typedef struct rb_creation {
    double atoms_ms, derived_ms, effects_ms, teardown_ms; /* fastest sample of each phase */
    int failed;
    char message[256];
} rb_creation_t;

/* Creates `count` sources, `count` computeds each reading one source (lazy:
 * created, not evaluated) and `count` effects each reading one source, then
 * disposes of every node (effects, computeds, sources) and the graph. */
rb_creation_t rb_creation_run(int count, int samples);

/* ---------------------------------------------------------------- threads */

/* One graph shared by threads. Reader threads read a node through
 * rp_node_read_begin, a load of the value, rp_node_read_end; the writer
 * stores the atom's value and calls rp_source_set inside a batch of its own.
 * The floor is the same value in a C11 atomic read with acquire: the cheapest
 * thread-safe read there is. The threads of a sample are created for it,
 * start together (rb_crew_start) and each times its own loop. */

/* What the readers read. */
typedef enum rb_threads_subject {
    RB_THREADS_ATOM = 0,   /* the source */
    RB_THREADS_DERIVED = 1 /* a computed reading it: 2 * atom + 1 */
} rb_threads_subject_t;

#define RB_THREADS_MAX_READERS 8
/* The writer publishes its progress every this many writes (and after its
 * last); readers look at it every this many reads. */
#define RB_THREADS_PUBLISH_EVERY 64
#define RB_THREADS_READS_PER_LOOK 16

typedef struct rb_threads_result {
    /* ms: the fastest sample: without a writer, from the first reader's start
     * to the last reader's end; with one, the writer's time. allocations:
     * engine allocator calls during every timed sample (must be 0). count:
     * computes of the derivation in that sample. */
    rb_result_t result;
    int readers;
    uint64_t reads[RB_THREADS_MAX_READERS];   /* each reader's reads in that sample */
    double reader_ms[RB_THREADS_MAX_READERS]; /* each reader's own time */
    uint64_t writes;                          /* the writer's writes (0 without one) */
    double writer_ms;
    double wall_ms; /* first start to last end, over every thread of that sample */
} rb_threads_result_t;

/* `readers` threads (1 ... RB_THREADS_MAX_READERS) read the subject `reads`
 * times each, with no writer: every value read must be the one written before
 * the threads started, and the derivation must not recompute. */
rb_threads_result_t rb_threads_read_run(rb_threads_subject_t subject, rb_backend_t backend, int readers, int reads,
                                        int samples);

/* One writer thread writes the atom `writes` times (base + 1, base + 2, ...,
 * continuing from the last sample's value), each write in a batch of its own,
 * while `readers` threads (0 ... RB_THREADS_MAX_READERS) read the derivation
 * until the writer is done. The writer publishes how many writes it finished
 * every RB_THREADS_PUBLISH_EVERY writes; readers look at it every
 * RB_THREADS_READS_PER_LOOK reads. Checks: every value a reader reads is
 * 2a + 1 for an atom value a of this sample, never smaller than the reader's
 * previous one nor older than the writes published before the read began (a
 * stale read); at the end the atom holds the last write and the derivation
 * 2 * that + 1; the derivation computed at least once and at most once per
 * write. Ripple only: the floor's writes (two stores) are over before its
 * readers start. */
rb_threads_result_t rb_threads_write_run(int readers, int writes, int samples);

/* The threads of one sample (the Swift side uses it too). Opaque. */
typedef struct rb_crew rb_crew_t;

/* For `threads` threads per sample; reusable sample after sample. */
rb_crew_t *rb_crew_create(int threads);
void rb_crew_destroy(rb_crew_t *crew);
/* Each thread calls it first: returns when every thread of the sample is
 * running (they sleep at a barrier, then spin until the last one is awake),
 * with the start time (rb_clock_ns). */
uint64_t rb_crew_start(rb_crew_t *crew);
/* The writer's progress: it publishes how many writes it finished (release),
 * readers load it (acquire) to know what they must see and when to stop.
 * rb_crew_rearm sets it back to 0 before the next sample. */
void rb_crew_publish(rb_crew_t *crew, int64_t writes);
int64_t rb_crew_published(const rb_crew_t *crew);
void rb_crew_rearm(rb_crew_t *crew);

/* ----------------------------------------------------------------- memory */

typedef struct rb_memory {
    size_t nodes, edges;
    size_t bytes_in_use;   /* rp_graph_stats: node records and edge arrays */
    size_t bytes_reserved; /* rp_graph_stats: obtained from the allocator */
    double bytes_per_node; /* node record bytes (in use), from a graph of nodes alone */
    double bytes_per_edge; /* the rest of bytes_in_use, per edge */
    double reserved_per_node; /* bytes_reserved / nodes, edges included */
    int failed;
    char message[256];
} rb_memory_t;

/* A propagate grid (width chains of height computeds, an effect per chain). */
rb_memory_t rb_memory_grid(int width, int height);
/* `count` sources, `count` computeds (each read once, reading one source) and
 * `count` effects each reading one source. */
rb_memory_t rb_memory_kinds(int count);

/* The process: bytes malloc has handed out and not had back (mallinfo2), and
 * the resident set size (/proc/self/statm). */
size_t rb_heap_in_use(void);
size_t rb_resident_bytes(void);
/* The bytes of the heap block malloc handed out at `pointer` (what
 * rb_heap_in_use counts for it: the usable bytes and the block's header). */
size_t rb_heap_block_bytes(const void *pointer);

#ifdef __cplusplus
}
#endif

#endif
