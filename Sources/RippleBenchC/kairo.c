/*
 * kairo.c: the eight Kairo shapes (K1-K8 of BENCHMARKS.md), written once
 * against the benchmark host and run against Ripple or the floor.
 */
#include "host.h"

#include <math.h>

#define MUX_WIDTH 100

typedef struct kairo {
    rb_node_t *head;
    rb_node_t *last;               /* the node whose value the iteration checks */
    rb_node_t *heads[MUX_WIDTH];   /* K5 */
    rb_node_t *split[MUX_WIDTH];   /* K5 */
    int64_t value;                 /* last value checked */
} kairo_t;

/* ------------------------------------------------------------ node bodies */

static rb_value_t plus(rb_host_t *h, rb_node_t *self) {
    return rb_int(rb_read(h, self->in[0]).i + self->param);
}

static rb_value_t sum_inputs(rb_host_t *h, rb_node_t *self) {
    int64_t sum = 0;
    for (uint32_t k = 0; k < self->nin; k++) sum += rb_read(h, self->in[k]).i;
    return rb_int(sum);
}

static rb_value_t read_and_count(rb_host_t *h, rb_node_t *self) {
    rb_read(h, self->in[0]);
    h->counter++;
    return rb_int(0);
}

/* K5: the mux builds a new array; its version number makes every recompute a
 * change, as a new array is in JavaScript. */
static rb_value_t mux(rb_host_t *h, rb_node_t *self) {
    int64_t *values = self->extra;
    for (uint32_t k = 0; k < self->nin; k++) values[k] = rb_read(h, self->in[k]).i;
    return rb_int(++self->param);
}

static rb_value_t pick(rb_host_t *h, rb_node_t *self) {
    rb_read(h, self->in[0]);
    return rb_int(((const int64_t *)self->in[0]->extra)[self->param]);
}

/* K6 */
static rb_value_t repeated(rb_host_t *h, rb_node_t *self) {
    int64_t sum = 0;
    for (int i = 0; i < 30; i++) sum += rb_read(h, self->in[0]).i;
    return rb_int(sum);
}

/* K7: in = {head, double, inverse} */
static rb_value_t times(rb_host_t *h, rb_node_t *self) {
    return rb_int(rb_read(h, self->in[0]).i * self->param);
}

static rb_value_t unstable(rb_host_t *h, rb_node_t *self) {
    int64_t sum = 0;
    for (int i = 0; i < 20; i++) {
        sum += rb_read(h, self->in[0]).i % 2 ? rb_read(h, self->in[1]).i : rb_read(h, self->in[2]).i;
    }
    return rb_int(sum);
}

/* K8 */
static rb_value_t zero(rb_host_t *h, rb_node_t *self) {
    rb_read(h, self->in[0]);
    return rb_int(0);
}

static rb_value_t busy_plus(rb_host_t *h, rb_node_t *self) {
    h->counter++;
    int64_t busy = rb_busy();
    return rb_int(rb_read(h, self->in[0]).i + self->param + (busy - 100));
}

static rb_value_t counted_plus(rb_host_t *h, rb_node_t *self) {
    h->counter++;
    return rb_int(rb_read(h, self->in[0]).i + self->param);
}

static rb_value_t read_and_busy(rb_host_t *h, rb_node_t *self) {
    h->counter++;
    rb_read(h, self->in[0]);
    return rb_int(rb_busy());
}

/* ---------------------------------------------------------------- helpers */

static rb_node_t *computed1(rb_host_t *h, rb_fn_t fn, rb_node_t *in, int64_t param) {
    return rb_computed(h, fn, &in, 1, param);
}

static rb_node_t *effect1(rb_host_t *h, rb_fn_t fn, rb_node_t *in) {
    return rb_effect(h, fn, &in, 1, 0);
}

static int64_t get(rb_host_t *h, rb_node_t *node) {
    return rb_read(h, node).i;
}

/* ------------------------------------------------------------ the shapes */

static void build(rb_host_t *h, kairo_t *k, rb_kairo_t shape) {
    k->head = rb_source(h, rb_int(0));
    switch (shape) {
    case RB_KAIRO_DEEP: {
        rb_node_t *current = k->head;
        for (int i = 0; i < 50; i++) current = computed1(h, plus, current, 1);
        effect1(h, read_and_count, current);
        k->last = current;
        break;
    }
    case RB_KAIRO_BROAD:
        for (int i = 0; i < 50; i++) {
            rb_node_t *c1 = computed1(h, plus, k->head, i);
            rb_node_t *c2 = computed1(h, plus, c1, 1);
            effect1(h, read_and_count, c2);
            k->last = c2;
        }
        break;
    case RB_KAIRO_DIAMOND: {
        rb_node_t *branches[5];
        for (int i = 0; i < 5; i++) branches[i] = computed1(h, plus, k->head, 1);
        k->last = rb_computed(h, sum_inputs, branches, 5, 0);
        effect1(h, read_and_count, k->last);
        break;
    }
    case RB_KAIRO_TRIANGLE: {
        rb_node_t *list[10];
        rb_node_t *current = k->head;
        for (int i = 0; i < 10; i++) {
            list[i] = current;
            current = computed1(h, plus, current, 1);
        }
        k->last = rb_computed(h, sum_inputs, list, 10, 0);
        effect1(h, read_and_count, k->last);
        break;
    }
    case RB_KAIRO_MUX: {
        for (int i = 0; i < MUX_WIDTH; i++) k->heads[i] = rb_source(h, rb_int(0));
        rb_node_t *m = rb_computed_extra(h, mux, k->heads, MUX_WIDTH, 0, rb_host_alloc(h, MUX_WIDTH * sizeof(int64_t)));
        rb_node_t *picks[MUX_WIDTH];
        for (int i = 0; i < MUX_WIDTH; i++) picks[i] = computed1(h, pick, m, i);
        for (int i = 0; i < MUX_WIDTH; i++) k->split[i] = computed1(h, plus, picks[i], 1);
        for (int i = 0; i < MUX_WIDTH; i++) effect1(h, read_and_count, k->split[i]);
        break;
    }
    case RB_KAIRO_REPEATED:
        k->last = computed1(h, repeated, k->head, 0);
        effect1(h, read_and_count, k->last);
        break;
    case RB_KAIRO_UNSTABLE: {
        rb_node_t *in[3] = {k->head, computed1(h, times, k->head, 2), computed1(h, times, k->head, -1)};
        k->last = rb_computed(h, unstable, in, 3, 0);
        effect1(h, read_and_count, k->last);
        break;
    }
    case RB_KAIRO_AVOIDABLE: {
        rb_node_t *c1 = computed1(h, plus, k->head, 0);
        rb_node_t *c2 = computed1(h, zero, c1, 0);
        rb_node_t *c3 = computed1(h, busy_plus, c2, 1);
        rb_node_t *c4 = computed1(h, counted_plus, c3, 2);
        k->last = computed1(h, counted_plus, c4, 3);
        effect1(h, read_and_busy, k->last);
        break;
    }
    }
}

/* One iter() of BENCHMARKS.md; returns the writes it made. Not inlined, so
 * that a profiler can single it out (callgrind --toggle-collect=iter). */
static __attribute__((noinline)) int iter(rb_host_t *h, kairo_t *k, rb_kairo_t shape) {
    switch (shape) {
    case RB_KAIRO_DEEP:
        rb_set(h, k->head, rb_int(1));
        h->counter = 0;
        for (int i = 0; i < 50; i++) {
            rb_set(h, k->head, rb_int(i));
            k->value = get(h, k->last);
            RB_CHECK(h, k->value == 50 + i, "K1: last == %lld, expected %d", (long long)k->value, 50 + i);
        }
        RB_CHECK(h, h->counter == 50, "K1: effect ran %lld times, expected 50", (long long)h->counter);
        return 51;
    case RB_KAIRO_BROAD:
        rb_set(h, k->head, rb_int(1));
        h->counter = 0;
        for (int i = 0; i < 50; i++) {
            rb_set(h, k->head, rb_int(i));
            k->value = get(h, k->last);
            RB_CHECK(h, k->value == i + 50, "K2: c2 of branch 49 == %lld, expected %d", (long long)k->value, i + 50);
        }
        RB_CHECK(h, h->counter == 2500, "K2: effects ran %lld times, expected 2500", (long long)h->counter);
        return 51;
    case RB_KAIRO_DIAMOND:
        rb_set(h, k->head, rb_int(1));
        RB_CHECK(h, get(h, k->last) == 10, "K3: sum == %lld after head = 1, expected 10", (long long)get(h, k->last));
        h->counter = 0;
        for (int i = 0; i < 500; i++) {
            rb_set(h, k->head, rb_int(i));
            k->value = get(h, k->last);
            RB_CHECK(h, k->value == 5 * (i + 1), "K3: sum == %lld, expected %d", (long long)k->value, 5 * (i + 1));
        }
        RB_CHECK(h, h->counter == 500, "K3: effect ran %lld times, expected 500", (long long)h->counter);
        return 501;
    case RB_KAIRO_TRIANGLE:
        rb_set(h, k->head, rb_int(1));
        RB_CHECK(h, get(h, k->last) == 55, "K4: sum == %lld after head = 1, expected 55", (long long)get(h, k->last));
        h->counter = 0;
        for (int i = 0; i < 100; i++) {
            rb_set(h, k->head, rb_int(i));
            k->value = get(h, k->last);
            RB_CHECK(h, k->value == 45 + 10 * i, "K4: sum == %lld, expected %d", (long long)k->value, 45 + 10 * i);
        }
        RB_CHECK(h, h->counter == 100, "K4: effect ran %lld times, expected 100", (long long)h->counter);
        return 101;
    case RB_KAIRO_MUX:
        h->counter = 0;
        for (int i = 0; i < 10; i++) {
            rb_set(h, k->heads[i], rb_int(i));
            k->value = get(h, k->split[i]);
            RB_CHECK(h, k->value == i + 1, "K5: split[%d] == %lld, expected %d", i, (long long)k->value, i + 1);
            rb_set(h, k->heads[i], rb_int(2 * i));
            k->value = get(h, k->split[i]);
            RB_CHECK(h, k->value == 2 * i + 1, "K5: split[%d] == %lld, expected %d", i, (long long)k->value, 2 * i + 1);
        }
        /* heads[0] is written 0 twice (no change); every other write changes
         * one head, and so exactly one split and its effect. */
        RB_CHECK(h, h->counter == 18, "K5: effects ran %lld times, expected 18", (long long)h->counter);
        return 20;
    case RB_KAIRO_REPEATED:
        rb_set(h, k->head, rb_int(1));
        RB_CHECK(h, get(h, k->last) == 30, "K6: value == %lld after head = 1, expected 30", (long long)get(h, k->last));
        h->counter = 0;
        for (int i = 0; i < 100; i++) {
            rb_set(h, k->head, rb_int(i));
            k->value = get(h, k->last);
            RB_CHECK(h, k->value == 30 * i, "K6: value == %lld, expected %d", (long long)k->value, 30 * i);
        }
        RB_CHECK(h, h->counter == 100, "K6: effect ran %lld times, expected 100", (long long)h->counter);
        return 101;
    case RB_KAIRO_UNSTABLE:
        rb_set(h, k->head, rb_int(1));
        RB_CHECK(h, get(h, k->last) == 40, "K7: value == %lld after head = 1, expected 40", (long long)get(h, k->last));
        h->counter = 0;
        for (int i = 0; i < 100; i++) {
            rb_set(h, k->head, rb_int(i));
            k->value = get(h, k->last);
            int64_t expected = i % 2 ? 40 * i : -20 * i;
            RB_CHECK(h, k->value == expected, "K7: value == %lld, expected %lld", (long long)k->value,
                     (long long)expected);
        }
        RB_CHECK(h, h->counter == 100, "K7: effect ran %lld times, expected 100", (long long)h->counter);
        return 101;
    case RB_KAIRO_AVOIDABLE:
        h->counter = 0;
        rb_set(h, k->head, rb_int(1));
        RB_CHECK(h, get(h, k->last) == 6, "K8: c5 == %lld, expected 6", (long long)get(h, k->last));
        for (int i = 0; i < 1000; i++) {
            rb_set(h, k->head, rb_int(i));
            k->value = get(h, k->last);
            RB_CHECK(h, k->value == 6, "K8: c5 == %lld, expected 6", (long long)k->value);
        }
        RB_CHECK(h, h->counter == 0, "K8: c3, c4, c5 or the effect re-ran %lld times, expected 0",
                 (long long)h->counter);
        return 1001;
    }
    return 0;
}

rb_result_t rb_kairo_run(rb_kairo_t shape, rb_backend_t backend, int samples, int calls) {
    rb_result_t result = {0};
    if (shape < RB_KAIRO_DEEP || shape > RB_KAIRO_AVOIDABLE || samples < 1 || calls < 1) {
        rb_result_fail(&result, "rb_kairo_run: invalid arguments");
        return result;
    }
    rb_host_t host;
    if (rb_host_init(&host, backend, RB_FLOOR_TOPO, false)) {
        kairo_t k = {0};
        build(&host, &k, shape);
        for (int i = 0; i < 3; i++) iter(&host, &k, shape);
        uint64_t allocations = rb_host_allocations(&host);
        uint64_t best = UINT64_MAX;
        for (int s = 0; s < samples; s++) {
            uint64_t evaluations = rb_evaluations(&host);
            uint64_t writes = 0;
            uint64_t start = rb_now_ns();
            for (int c = 0; c < calls; c++) writes += (uint64_t)iter(&host, &k, shape);
            uint64_t elapsed = rb_now_ns() - start;
            if (elapsed < best) {
                best = elapsed;
                result.evaluations = rb_evaluations(&host) - evaluations;
                result.operations = writes;
            }
        }
        result.ms = (double)best / 1e6;
        result.allocations = rb_host_allocations(&host) - allocations;
        result.value = (double)k.value;
        result.count = (uint64_t)host.counter;
    }
    rb_host_destroy(&host);
    rb_result_take_failures(&result, &host);
    return result;
}
