/*
 * threads.c: one graph shared by threads (the "threads" group).
 *
 * An atom and a derivation of it (2 * atom + 1). Reader threads read one of
 * them through a read section (rp_node_read_begin, a load of the value,
 * rp_node_read_end); a writer thread stores the atom's value and calls
 * rp_source_set inside a batch of its own, so readers see both or neither.
 * The floor (read rows only) keeps the same two values in C11 atomics, which
 * readers load with acquire.
 *
 * The threads of a sample are created afresh, start together (rb_crew_start)
 * and each times its own loop. Readers count what they read and check every
 * value against what can have existed; a failed check is recorded by the
 * thread that saw it and merged into the result after the join, so no two
 * threads write the same memory.
 */
#include "host.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ crew */

/* The crew's barrier, on a mutex and a condition variable: POSIX's
 * pthread_barrier_t is an option Apple's systems do not have. */
struct rb_crew {
    pthread_mutex_t lock;
    pthread_cond_t all_waiting;
    int waiting;        /* threads at the barrier in this round (under lock) */
    unsigned round;     /* rounds the barrier has opened (under lock) */
    int threads;
    _Alignas(64) atomic_uint arrived; /* threads past the barrier, over all samples */
    _Alignas(64) _Atomic int64_t published; /* the writer's finished writes */
};

rb_crew_t *rb_crew_create(int threads) {
    rb_crew_t *crew = aligned_alloc(64, sizeof(rb_crew_t));
    if (crew == NULL || threads < 1 || pthread_mutex_init(&crew->lock, NULL) != 0 ||
        pthread_cond_init(&crew->all_waiting, NULL) != 0) {
        abort();
    }
    crew->waiting = 0;
    crew->round = 0;
    crew->threads = threads;
    atomic_init(&crew->arrived, 0);
    atomic_init(&crew->published, 0);
    return crew;
}

void rb_crew_destroy(rb_crew_t *crew) {
    pthread_cond_destroy(&crew->all_waiting);
    pthread_mutex_destroy(&crew->lock);
    free(crew);
}

/* Waits until all the crew's threads are here; the last to arrive opens the
 * round and wakes the others. */
static void crew_barrier(rb_crew_t *crew) {
    pthread_mutex_lock(&crew->lock);
    unsigned round = crew->round;
    if (++crew->waiting == crew->threads) {
        crew->waiting = 0;
        crew->round++;
        pthread_cond_broadcast(&crew->all_waiting);
    } else {
        while (crew->round == round) pthread_cond_wait(&crew->all_waiting, &crew->lock);
    }
    pthread_mutex_unlock(&crew->lock);
}

uint64_t rb_crew_start(rb_crew_t *crew) {
    crew_barrier(crew);
    /* The barrier wakes the threads one by one: wait until the last one of
     * this sample is awake too, yielding in case threads outnumber processors. */
    unsigned threads = (unsigned)crew->threads;
    unsigned arrived = atomic_fetch_add_explicit(&crew->arrived, 1, memory_order_acq_rel) + 1;
    unsigned everyone = (arrived + threads - 1) / threads * threads;
    unsigned rounds = 0;
    while (atomic_load_explicit(&crew->arrived, memory_order_acquire) < everyone) {
        if (++rounds % 64 == 0) sched_yield();
    }
    return rb_now_ns();
}

/* Release: the writes counted happen before what a reader does after
 * loading the count (its next read section). */
void rb_crew_publish(rb_crew_t *crew, int64_t writes) {
    atomic_store_explicit(&crew->published, writes, memory_order_release);
}

int64_t rb_crew_published(const rb_crew_t *crew) {
    return atomic_load_explicit(&crew->published, memory_order_acquire);
}

void rb_crew_rearm(rb_crew_t *crew) {
    atomic_store_explicit(&crew->published, 0, memory_order_relaxed);
}

/* ------------------------------------------------------------ the sample */

typedef struct shared {
    rb_backend_t backend;
    rb_threads_subject_t subject;
    rb_host_t host;
    rb_node_t *atom, *derived;
    rb_crew_t *crew;
    int reads;        /* per reader, without a writer */
    int writes;       /* the writer's, in one sample */
    int64_t base;     /* the atom's value before the sample */
    int64_t expected; /* without a writer: the value every read must return */
    /* floor: the two values (the atom's, then the derivation's), on a line of their own */
    _Alignas(64) _Atomic int64_t floor_atom;
    _Atomic int64_t floor_derived;
} shared_t;

/* One thread's record, on cache lines of its own. */
typedef struct worker {
    _Alignas(64) shared_t *shared;
    pthread_t thread;
    uint64_t t0, t1, count;
    int failed;
    char message[256];
} worker_t;

__attribute__((format(printf, 2, 3))) static void worker_fail(worker_t *worker, const char *format, ...) {
    if (worker->failed++ == 0) {
        va_list args;
        va_start(args, format);
        vsnprintf(worker->message, sizeof worker->message, format, args);
        va_end(args);
    }
}

static rb_value_t twice_plus_one(rb_host_t *h, rb_node_t *self) {
    return rb_int(2 * rb_read(h, self->in[0]).i + 1);
}

/* A read of a node by a thread that does not hold the graph. */
static inline int64_t section_read(rp_graph_t *graph, const rb_node_t *node, worker_t *worker) {
    rp_read_section_t section;
    rp_status_t status = rp_node_read_begin(graph, node->handle, &section);
    if (__builtin_expect(status != RP_OK, 0)) {
        worker_fail(worker, "rp_node_read_begin: %s", rp_status_string(status));
        return INT64_MIN;
    }
    int64_t value = node->value.i;
    status = rp_node_read_end(graph, &section);
    if (__builtin_expect(status != RP_OK, 0)) worker_fail(worker, "rp_node_read_end: %s", rp_status_string(status));
    return value;
}

/* Reads the subject `reads` times; nothing writes meanwhile. */
static void *read_alone(void *argument) {
    worker_t *worker = argument;
    shared_t *s = worker->shared;
    const int reads = s->reads;
    const int64_t expected = s->expected;
    uint64_t wrong = 0;
    int64_t value = expected;
    worker->t0 = rb_crew_start(s->crew);
    if (s->backend == RB_BACKEND_FLOOR) {
        _Atomic int64_t *cell = s->subject == RB_THREADS_ATOM ? &s->floor_atom : &s->floor_derived;
        for (int i = 0; i < reads; i++) {
            value = atomic_load_explicit(cell, memory_order_acquire);
            wrong += value != expected;
        }
    } else {
        rp_graph_t *graph = s->host.graph;
        const rb_node_t *node = s->subject == RB_THREADS_ATOM ? s->atom : s->derived;
        for (int i = 0; i < reads; i++) {
            value = section_read(graph, node, worker);
            wrong += value != expected;
        }
    }
    worker->t1 = rb_now_ns();
    worker->count = (uint64_t)reads;
    if (wrong != 0) {
        worker_fail(worker, "%llu of %d reads were not %lld (one read %lld)", (unsigned long long)wrong, reads,
                    (long long)expected, (long long)value);
    }
    return NULL;
}

/* Reads the derivation until the writer is done: every value must be 2a + 1
 * for an atom value a of this sample, and at least both the value read
 * before and the one the writes published before the read had made. */
static void *read_while_written(void *argument) {
    worker_t *worker = argument;
    shared_t *s = worker->shared;
    rp_graph_t *graph = s->host.graph;
    const rb_node_t *derived = s->derived;
    const int64_t base = s->base, writes = s->writes;
    const int64_t highest = 2 * (base + writes) + 1;
    int64_t least = 2 * base + 1;
    uint64_t count = 0;
    worker->t0 = rb_crew_start(s->crew);
    for (;;) {
        int64_t published = rb_crew_published(s->crew);
        if (published == writes) break;
        if (least < 2 * (base + published) + 1) least = 2 * (base + published) + 1;
        for (int k = 0; k < RB_THREADS_READS_PER_LOOK; k++) {
            int64_t value = section_read(graph, derived, worker);
            if (__builtin_expect(value < least || value > highest || (value & 1) == 0, 0)) {
                worker_fail(worker, "read %lld, expected %lld ... %lld (odd): the atom went from %lld to %lld",
                            (long long)value, (long long)least, (long long)highest, (long long)base,
                            (long long)(base + writes));
            }
            least = value;
        }
        count += RB_THREADS_READS_PER_LOOK;
    }
    worker->t1 = rb_now_ns();
    worker->count = count;
    return NULL;
}

/* Writes base + 1 ... base + writes into the atom, each in a batch of its
 * own, and publishes its progress. */
static void *write_atom(void *argument) {
    worker_t *worker = argument;
    shared_t *s = worker->shared;
    rp_graph_t *graph = s->host.graph;
    rb_node_t *atom = s->atom;
    const int writes = s->writes;
    const int64_t base = s->base;
    worker->t0 = rb_crew_start(s->crew);
    for (int64_t i = 1; i <= writes; i++) {
        rp_status_t status = rp_batch_begin(graph);
        if (__builtin_expect(status != RP_OK, 0)) {
            worker_fail(worker, "rp_batch_begin: %s", rp_status_string(status));
            continue;
        }
        atom->value = rb_int(base + i);
        status = rp_source_set(graph, atom->handle);
        if (__builtin_expect(status != RP_OK, 0)) worker_fail(worker, "rp_source_set: %s", rp_status_string(status));
        status = rp_batch_end(graph);
        if (__builtin_expect(status != RP_OK, 0)) worker_fail(worker, "rp_batch_end: %s", rp_status_string(status));
        if (i % RB_THREADS_PUBLISH_EVERY == 0) rb_crew_publish(s->crew, i);
    }
    worker->t1 = rb_now_ns();
    worker->count = (uint64_t)writes;
    rb_crew_publish(s->crew, writes);
    return NULL;
}

/* ------------------------------------------------------------ the runs */

static bool setup(shared_t *s, rb_backend_t backend, rb_threads_subject_t subject, int threads,
                  rb_threads_result_t *out) {
    memset(s, 0, sizeof *s);
    s->backend = backend;
    s->subject = subject;
    atomic_init(&s->floor_atom, 0);
    atomic_init(&s->floor_derived, 1);
    s->crew = rb_crew_create(threads);
    /* The floor needs no graph, but the host holds the nodes' records. */
    if (!rb_host_init(&s->host, RB_BACKEND_RIPPLE, RB_FLOOR_TOPO, false)) {
        rb_result_take_failures(&out->result, &s->host);
        return false;
    }
    s->atom = rb_source(&s->host, rb_int(0));
    s->derived = rb_computed(&s->host, twice_plus_one, &s->atom, 1, 0);
    return true;
}


/* The value of a node, read by the calling (main) thread. */
static int64_t main_read(shared_t *s, const rb_node_t *node, worker_t *record) {
    if (s->backend == RB_BACKEND_FLOOR) {
        return atomic_load_explicit(node == s->atom ? &s->floor_atom : &s->floor_derived, memory_order_acquire);
    }
    return section_read(s->host.graph, node, record);
}

/* Stores `value` in the atom from the main thread (outside the timed part). */
static void main_write(shared_t *s, int64_t value) {
    atomic_store_explicit(&s->floor_atom, value, memory_order_relaxed);
    atomic_store_explicit(&s->floor_derived, 2 * value + 1, memory_order_release);
    rb_set(&s->host, s->atom, rb_int(value));
}

/* Adds the threads' failed checks to the result. */
static void take_failures(rb_result_t *result, const worker_t *workers, int count) {
    for (int i = 0; i < count; i++) {
        if (workers[i].failed == 0) continue;
        if (result->failed == 0) memcpy(result->message, workers[i].message, sizeof result->message);
        result->failed += workers[i].failed;
    }
}

/* Allocates a run's shared state and the records of `threads` threads, then
 * the main thread's: the last one, zeroed (the runs' own threads clear theirs
 * at each sample). */
static shared_t *allocate_run(int threads, worker_t **workers) {
    shared_t *s = aligned_alloc(64, sizeof(shared_t));
    *workers = aligned_alloc(64, sizeof(worker_t) * (size_t)(threads + 1));
    if (s == NULL || *workers == NULL) abort();
    memset(&(*workers)[threads], 0, sizeof(worker_t));
    return s;
}

/* Ends a run: the main thread's and the host's failed checks into the result,
 * the graph and the threads torn down, the memory freed. */
static void finish(shared_t *s, worker_t *workers, const worker_t *main_record, rb_threads_result_t *out) {
    take_failures(&out->result, main_record, 1);
    rb_host_destroy(&s->host);
    rb_result_take_failures(&out->result, &s->host);
    rb_crew_destroy(s->crew);
    free(workers);
    free(s);
}

/* Runs one sample: `count` threads on `body`, the last one on `last` when it
 * is not NULL; then joins them and takes their failures. */
static void run_sample(shared_t *s, worker_t *workers, int count, void *(*body)(void *), void *(*last)(void *),
                       rb_result_t *result) {
    for (int i = 0; i < count; i++) {
        memset(&workers[i], 0, sizeof workers[i]);
        workers[i].shared = s;
        void *(*function)(void *) = (last != NULL && i == count - 1) ? last : body;
        int error = pthread_create(&workers[i].thread, NULL, function, &workers[i]);
        if (error != 0) {
            /* The threads already started wait at the barrier for this one. */
            fprintf(stderr, "ripple-bench: pthread_create: %s\n", strerror(error));
            abort();
        }
    }
    for (int i = 0; i < count; i++) pthread_join(workers[i].thread, NULL);
    take_failures(result, workers, count);
}

/* From the first start to the last end of a sample's threads. */
static uint64_t wall_ns(const worker_t *workers, int threads) {
    uint64_t first = UINT64_MAX, end = 0;
    for (int i = 0; i < threads; i++) {
        if (workers[i].t0 < first) first = workers[i].t0;
        if (workers[i].t1 > end) end = workers[i].t1;
    }
    return end - first;
}

/* Copies a sample's figures into the result; readers are workers[0 ..< readers]. */
static void take_sample(rb_threads_result_t *out, const worker_t *workers, int readers, int threads) {
    out->readers = readers;
    for (int i = 0; i < readers; i++) {
        out->reads[i] = workers[i].count;
        out->reader_ms[i] = (double)(workers[i].t1 - workers[i].t0) / 1e6;
    }
    out->wall_ms = (double)wall_ns(workers, threads) / 1e6;
}

rb_threads_result_t rb_threads_read_run(rb_threads_subject_t subject, rb_backend_t backend, int readers, int reads,
                                        int samples) {
    rb_threads_result_t out = {0};
    if (readers < 1 || readers > RB_THREADS_MAX_READERS || reads < 1 || samples < 1) {
        rb_result_fail(&out.result, "threads: invalid arguments (%d readers, %d reads)", readers, reads);
        return out;
    }
    worker_t *workers;
    shared_t *s = allocate_run(readers, &workers);
    worker_t *main_record = &workers[readers];
    if (setup(s, backend, subject, readers, &out)) {
        const rb_node_t *node = subject == RB_THREADS_ATOM ? s->atom : s->derived;
        main_write(s, 20);
        main_write(s, 21);
        s->expected = subject == RB_THREADS_ATOM ? 21 : 43;
        s->reads = reads;
        int64_t value = main_read(s, node, main_record);
        RB_CHECK(&s->host, value == s->expected, "before the readers: read %lld, expected %lld", (long long)value,
                 (long long)s->expected);
        uint64_t allocations = rb_host_allocations(&s->host);
        uint64_t best = UINT64_MAX;
        for (int sample = 0; sample < samples; sample++) {
            uint64_t computes = s->host.computes;
            run_sample(s, workers, readers, read_alone, NULL, &out.result);
            RB_CHECK(&s->host, s->host.computes == computes, "the derivation recomputed %llu times during the reads",
                     (unsigned long long)(s->host.computes - computes));
            value = main_read(s, node, main_record);
            RB_CHECK(&s->host, value == s->expected, "after the readers: read %lld, expected %lld", (long long)value,
                     (long long)s->expected);
            uint64_t elapsed = wall_ns(workers, readers);
            if (elapsed < best) {
                best = elapsed;
                take_sample(&out, workers, readers, readers);
                out.result.operations = (uint64_t)reads * (uint64_t)readers;
                out.result.value = (double)value;
            }
        }
        out.result.allocations = rb_host_allocations(&s->host) - allocations;
        out.result.ms = (double)best / 1e6;
    }
    finish(s, workers, main_record, &out);
    return out;
}

rb_threads_result_t rb_threads_write_run(int readers, int writes, int samples) {
    rb_threads_result_t out = {0};
    if (readers < 0 || readers > RB_THREADS_MAX_READERS || writes < 1 || samples < 1) {
        rb_result_fail(&out.result, "threads: invalid arguments (%d readers, %d writes)", readers, writes);
        return out;
    }
    worker_t *workers;
    shared_t *s = allocate_run(readers + 1, &workers);
    worker_t *main_record = &workers[readers + 1];
    if (setup(s, RB_BACKEND_RIPPLE, RB_THREADS_DERIVED, readers + 1, &out)) {
        int64_t value = main_read(s, s->derived, main_record);
        RB_CHECK(&s->host, value == 1, "before the writes: read %lld, expected 1", (long long)value);
        /* A write, then a read that re-validates: the engine gives its walk
         * stack room the first time a walk goes deeper than any before, and
         * that warm-up belongs before the timed samples, as in the read rows. */
        main_write(s, 1);
        value = main_read(s, s->derived, main_record);
        RB_CHECK(&s->host, value == 3, "after the warm-up write: read %lld, expected 3", (long long)value);
        s->writes = writes;
        uint64_t allocations = rb_host_allocations(&s->host);
        uint64_t best = UINT64_MAX;
        for (int sample = 0; sample < samples; sample++) {
            s->base = main_read(s, s->atom, main_record);
            rb_crew_rearm(s->crew);
            uint64_t computes = s->host.computes;
            run_sample(s, workers, readers + 1, read_while_written, write_atom, &out.result);
            int64_t atom = main_read(s, s->atom, main_record);
            int64_t derived = main_read(s, s->derived, main_record);
            int64_t last = s->base + writes;
            RB_CHECK(&s->host, atom == last && derived == 2 * last + 1,
                     "after %d writes from %lld: atom %lld, derivation %lld; expected %lld and %lld", writes,
                     (long long)s->base, (long long)atom, (long long)derived, (long long)last,
                     (long long)(2 * last + 1));
            uint64_t recomputes = s->host.computes - computes;
            RB_CHECK(&s->host, recomputes >= 1 && recomputes <= (uint64_t)writes,
                     "the derivation computed %llu times for %d writes", (unsigned long long)recomputes, writes);
            uint64_t elapsed = workers[readers].t1 - workers[readers].t0;
            if (elapsed < best) {
                best = elapsed;
                take_sample(&out, workers, readers, readers + 1);
                out.writes = (uint64_t)writes;
                out.writer_ms = (double)elapsed / 1e6;
                out.result.operations = (uint64_t)writes;
                out.result.count = recomputes;
                out.result.value = (double)derived;
            }
        }
        out.result.allocations = rb_host_allocations(&s->host) - allocations;
        out.result.ms = (double)best / 1e6;
    }
    finish(s, workers, main_record, &out);
    return out;
}
