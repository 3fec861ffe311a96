/*
 * cellx.c: the cellx layers of BENCHMARKS.md.
 */
#include "host.h"

#include <string.h>

static rb_value_t same(rb_host_t *h, rb_node_t *self) {
    return rb_read(h, self->in[0]);
}

static rb_value_t difference(rb_host_t *h, rb_node_t *self) {
    return rb_int(rb_read(h, self->in[0]).i - rb_read(h, self->in[1]).i);
}

static rb_value_t sum(rb_host_t *h, rb_node_t *self) {
    return rb_int(rb_read(h, self->in[0]).i + rb_read(h, self->in[1]).i);
}

static rb_value_t observe(rb_host_t *h, rb_node_t *self) {
    rb_read(h, self->in[0]);
    return rb_int(0);
}

static void read_end(rb_host_t *h, rb_node_t *const *end, int64_t *values) {
    for (int i = 0; i < 4; i++) values[i] = rb_read(h, end[i]).i;
}

/* The timed part (a function of its own, so that a profiler can single it
 * out: valgrind --tool=callgrind --toggle-collect=update). */
static __attribute__((noinline)) void update(rb_host_t *h, rb_node_t *const *start, rb_node_t *const *end,
                                             int64_t *before, int64_t *after) {
    read_end(h, end, before);
    rb_batch_begin(h);
    for (int i = 0; i < 4; i++) rb_write(h, start[i], rb_int(4 - i));
    rb_batch_end(h);
    read_end(h, end, after);
}

/* Builds, times and checks one graph; returns the timed nanoseconds. */
static uint64_t run_graph(int layers, rb_backend_t backend, rb_result_t *result, uint64_t *evaluations,
                          uint64_t *allocations) {
    rb_host_t host;
    uint64_t elapsed = 0;
    if (rb_host_init(&host, backend, RB_FLOOR_TOPO, false)) {
        rb_node_t *start[4];
        for (int i = 0; i < 4; i++) start[i] = rb_source(&host, rb_int(i + 1));
        rb_node_t *layer[4] = {start[0], start[1], start[2], start[3]};
        for (int l = 0; l < layers; l++) {
            rb_node_t *in13[2] = {layer[0], layer[2]};
            rb_node_t *in24[2] = {layer[1], layer[3]};
            rb_node_t *next[4] = {
                rb_computed(&host, same, &layer[1], 1, 0),
                rb_computed(&host, difference, in13, 2, 0),
                rb_computed(&host, sum, in24, 2, 0),
                rb_computed(&host, same, &layer[2], 1, 0),
            };
            for (int i = 0; i < 4; i++) rb_effect(&host, observe, &next[i], 1, 0);
            for (int i = 0; i < 4; i++) rb_read(&host, next[i]);
            memcpy(layer, next, sizeof layer);
        }
        uint64_t before_evaluations = rb_evaluations(&host);
        uint64_t before_allocations = rb_host_allocations(&host);
        int64_t before[4], after[4];
        uint64_t t0 = rb_now_ns();
        update(&host, start, layer, before, after);
        elapsed = rb_now_ns() - t0;
        *evaluations += rb_evaluations(&host) - before_evaluations;
        *allocations += rb_host_allocations(&host) - before_allocations;

        static const int64_t expected_small[2][4] = {{-3, -6, -2, 2}, {-2, -4, 2, 3}};
        static const int64_t expected_5000[2][4] = {{2, 4, -1, -6}, {-2, 1, -4, -4}};
        const int64_t(*expected)[4] = layers == 5000 ? expected_5000 : expected_small;
        if (layers == 1000 || layers == 2500 || layers == 5000) {
            for (int i = 0; i < 4; i++) {
                RB_CHECK(&host, before[i] == expected[0][i], "cellx %d: before[%d] == %lld, expected %lld", layers, i,
                         (long long)before[i], (long long)expected[0][i]);
                RB_CHECK(&host, after[i] == expected[1][i], "cellx %d: after[%d] == %lld, expected %lld", layers, i,
                         (long long)after[i], (long long)expected[1][i]);
            }
        }
        result->value = (double)after[0];
    }
    rb_host_destroy(&host);
    rb_result_take_failures(result, &host);
    return elapsed;
}

rb_result_t rb_cellx_run(int layers, rb_backend_t backend, int samples, int graphs) {
    rb_result_t result = {0};
    if (layers < 1 || samples < 1 || graphs < 1) {
        rb_result_fail(&result, "rb_cellx_run: invalid arguments");
        return result;
    }
    uint64_t best = UINT64_MAX;
    for (int s = 0; s < samples; s++) {
        uint64_t total = 0, evaluations = 0, allocations = 0;
        for (int g = 0; g < graphs; g++) total += run_graph(layers, backend, &result, &evaluations, &allocations);
        result.allocations += allocations;
        if (total < best) {
            best = total;
            result.evaluations = evaluations;
            result.operations = (uint64_t)graphs;
        }
    }
    result.ms = (double)best / 1e6;
    result.count = result.evaluations;
    return result;
}
