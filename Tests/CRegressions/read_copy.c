/*
 * read_copy.c: rp_node_read_copy, the read section with the copy inside it in
 * one call.
 *
 *   outside runs  an up-to-date node is copied as it is; a stale one is
 *                 recomputed first, so the copy is the new value; the effects
 *                 the read made due run before the call returns.
 *   in a run      a copy read inside a compute records the dependency, as
 *                 rp_node_read does.
 *   in a batch    a copy read inside a batch sees the batch's writes.
 *   sizes         a word (8 bytes) and other sizes (4, 3, 1, 0) copy exactly
 *                 that many bytes of the value, up to date or stale, and
 *                 leave the rest of the destination as it was.
 *   failures      a cycle and a failed compute copy nothing and leave no
 *                 section open: the graph is usable at once.
 *   threads       3 threads copy a computed while a fourth writes its source
 *                 2000 times: every copy succeeds and is a value the computed
 *                 had (odd, in range), shared or exclusive.
 */
#include "testhost.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

/* Copies n's value with rp_node_read_copy. */
static long copy_read(th_world_t *w, th_node_t *n, rp_status_t *status)
{
    long copied = -77;
    *status = rp_node_read_copy(w->g, n->h, &copied, &n->value, sizeof copied);
    return copied;
}

/* A body that copies its input instead of reading it. */
static long copy_body(th_world_t *w, th_node_t *self)
{
    rp_status_t status;
    long v = copy_read(w, self->in[0], &status);
    th_note_failure(w, status);
    return v + self->arg;
}

static void outside_runs_the_copy_is_the_value_the_read_made_current(void)
{
    harness_begin("outside_runs_the_copy_is_the_value_the_read_made_current");
    th_world_t w;
    th_init(&w, 16, 0);
    th_node_t *s = th_source(&w, "s", 1);
    th_node_t *c = th_computed(&w, "c", th_sum, 10, s, NULL);
    rp_status_t status;
    CHECK_EQ(copy_read(&w, c, &status), 11);
    CHECK_ST(status, RP_OK);
    CHECK_EQ(c->computes, 1);
    CHECK_EQ(copy_read(&w, c, &status), 11);  /* up to date: no compute */
    CHECK_EQ(c->computes, 1);
    CHECK_ST(th_write(&w, s, 5), RP_OK);
    CHECK_EQ(copy_read(&w, c, &status), 15);  /* stale: recomputed first */
    CHECK_ST(status, RP_OK);
    CHECK_EQ(c->computes, 2);
    CHECK_EQ(copy_read(&w, s, &status), 5);
    /* An effect the read made due runs before the call returns. */
    th_node_t *e = th_effect(&w, "e", th_sum, 0, c, NULL);
    CHECK_EQ(e->runs, 1);
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(th_write(&w, s, 7), RP_OK);
    CHECK_EQ(copy_read(&w, c, &status), 17);  /* inside the batch: its write seen */
    CHECK_EQ(e->runs, 1);                     /* the batch is still open */
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    CHECK_EQ(e->runs, 2);
    CHECK_EQ(e->value, 17);
    /* Nothing to copy: only the read. */
    CHECK_ST(th_write(&w, s, 8), RP_OK);
    CHECK_ST(rp_node_read_copy(w.g, c->h, NULL, NULL, 0), RP_OK);
    CHECK_EQ(c->value, 18);
    th_check(&w);
    th_done(&w);
}

static void in_a_run_the_copy_records_the_dependency(void)
{
    harness_begin("in_a_run_the_copy_records_the_dependency");
    th_world_t w;
    th_init(&w, 16, 0);
    th_node_t *s = th_source(&w, "s", 2);
    th_node_t *c = th_computed(&w, "c", copy_body, 100, s, NULL);
    th_node_t *e = th_effect(&w, "e", copy_body, 0, c, NULL);
    CHECK_EQ(e->runs, 1);
    CHECK_EQ(e->value, 102);
    CHECK_ST(th_write(&w, s, 3), RP_OK);
    CHECK_EQ(c->computes, 2);
    CHECK_EQ(e->runs, 2);
    CHECK_EQ(e->value, 103);
    rp_node_t deps[2];
    size_t count = 0;
    CHECK_ST(rp_node_dependencies(w.g, c->h, deps, 2, &count), RP_OK);
    CHECK_EQ(count, 1);
    CHECK(harness_same(deps[0], s->h));
    th_check(&w);
    th_done(&w);
}

static void a_failed_read_copies_nothing_and_leaves_no_section(void)
{
    harness_begin("a_failed_read_copies_nothing_and_leaves_no_section");
    th_world_t w;
    th_init(&w, 16, 0);
    th_node_t *s = th_source(&w, "s", 1);
    th_node_t *c = th_computed(&w, "c", th_sum, 0, s, NULL);
    c->inject = RP_ENOMEM;
    rp_status_t status;
    CHECK_EQ(copy_read(&w, c, &status), -77);
    CHECK_ST(status, RP_ENOMEM);
    c->inject = RP_OK;
    /* No section was left open: a write and a read go through. */
    CHECK_ST(th_write(&w, s, 4), RP_OK);
    CHECK_EQ(copy_read(&w, c, &status), 4);
    CHECK_ST(status, RP_OK);
    /* A node that copies itself: a cycle, nothing copied. */
    th_node_t *self = th_computed(&w, "self", copy_body, 0, NULL, NULL);
    self->in[0] = self;
    CHECK_EQ(copy_read(&w, self, &status), -77);
    CHECK_ST(status, RP_ECYCLE);
    CHECK_ST(rp_batch_begin(w.g), RP_OK);
    CHECK_ST(rp_batch_end(w.g), RP_OK);
    th_check(&w);
    th_done(&w);
}

/* ---------------------------------------------------------------- threads */

#define READERS 3
#define WRITES 2000

typedef struct {
    th_world_t *w;
    th_node_t *c;
    atomic_bool done;
    atomic_uint bad;
    atomic_uint reads;
} shared_t;

static void *reader(void *argument)
{
    shared_t *shared = argument;
    while (!atomic_load(&shared->done)) {
        long copied = -1;
        rp_status_t status =
            rp_node_read_copy(shared->w->g, shared->c->h, &copied, &shared->c->value, sizeof copied);
        /* c = 2 * s + 1, and s only grows: every value copied is odd and in range. */
        if (status != RP_OK || copied < 1 || copied % 2 != 1 || copied > 2 * WRITES + 1) {
            atomic_fetch_add(&shared->bad, 1);
        }
        atomic_fetch_add(&shared->reads, 1);
    }
    return NULL;
}

static long twice_plus_one(th_world_t *w, th_node_t *self)
{
    return 2 * th_read(w, self->in[0]) + 1;
}

static void copies_from_several_threads_are_values_writes_made(void)
{
    harness_begin("copies_from_several_threads_are_values_writes_made");
    th_world_t w;
    th_init(&w, 16, 0);
    th_node_t *s = th_source(&w, "s", 0);
    th_node_t *c = th_computed(&w, "c", twice_plus_one, 0, s, NULL);
    shared_t shared = {.w = &w, .c = c};
    CHECK_ST(rp_node_read(w.g, c->h), RP_OK);
    pthread_t threads[READERS];
    for (int i = 0; i < READERS; i++) CHECK(pthread_create(&threads[i], NULL, reader, &shared) == 0);
    /* The readers are copying before the first write. */
    while (atomic_load(&shared.reads) < READERS) sched_yield();
    /* Each write inside a batch, so that the source's pending value is stored while the graph is held. */
    for (long i = 1; i <= WRITES; i++) {
        CHECK_ST(rp_batch_begin(w.g), RP_OK);
        CHECK_ST(th_write(&w, s, i), RP_OK);
        CHECK_ST(rp_batch_end(w.g), RP_OK);
    }
    atomic_store(&shared.done, true);
    for (int i = 0; i < READERS; i++) CHECK(pthread_join(threads[i], NULL) == 0);
    CHECK_EQ(atomic_load(&shared.bad), 0);
    rp_status_t status;
    CHECK_EQ(copy_read(&w, c, &status), 2 * WRITES + 1);
    th_check(&w);
    th_done(&w);
}

/* Copies the first `size` bytes of n's value into a buffer of 0xAA bytes and
 * checks them against the value's bytes after the read, and that the rest of
 * the buffer is untouched. */
static void check_sized_copy(th_world_t *w, th_node_t *n, size_t size)
{
    unsigned char copied[16];
    memset(copied, 0xAA, sizeof copied);
    CHECK_ST(rp_node_read_copy(w->g, n->h, copied, &n->value, size), RP_OK);
    unsigned char expected[16];
    memset(expected, 0xAA, sizeof expected);
    memcpy(expected, &n->value, size);
    CHECK(memcmp(copied, expected, sizeof copied) == 0);
}

static void sizes_other_than_a_word_copy_exactly_those_bytes(void)
{
    harness_begin("sizes_other_than_a_word_copy_exactly_those_bytes");
    th_world_t w;
    th_init(&w, 16, 0);
    th_node_t *s = th_source(&w, "s", 0x0102030405060708L);
    th_node_t *c = th_computed(&w, "c", th_sum, 0x1010101010101010L, s, NULL);
    static const size_t sizes[] = {8, 4, 3, 1, 0};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        CHECK_ST(th_write(&w, s, 0x0102030405060708L + (long)i), RP_OK);
        check_sized_copy(&w, c, sizes[i]); /* stale: recomputed, then copied */
        CHECK_EQ(c->computes, (long)i + 1);
        check_sized_copy(&w, c, sizes[i]); /* up to date: copied as it is */
        CHECK_EQ(c->computes, (long)i + 1);
        check_sized_copy(&w, s, sizes[i]);
    }
    CHECK_EQ(c->value, 0x1112131415161718L + 4);
    th_check(&w);
    th_done(&w);
}

int main(void)
{
    outside_runs_the_copy_is_the_value_the_read_made_current();
    sizes_other_than_a_word_copy_exactly_those_bytes();
    in_a_run_the_copy_records_the_dependency();
    a_failed_read_copies_nothing_and_leaves_no_section();
    copies_from_several_threads_are_values_writes_made();
    return harness_finish();
}
