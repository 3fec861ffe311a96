/*
 * dynamic.c: the dynamic graphs of BENCHMARKS.md (`nSources-W×L`), with the
 * xmur3a/sfc32 generator that lays them out.
 */
#include "host.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const rb_dynamic_config_t rb_dynamic_configs[RB_DYNAMIC_CONFIGS] = {
    {"2-10x5 lazy80%", 10, 5, 2, 1.0, 0.2, 600000, 19199968.0, 3480000},
    {"6-10x10 dyn25% lazy80%", 10, 10, 6, 0.75, 0.2, 15000, 302310782860.0, 1155000},
    {"4-1000x12 dyn5%", 1000, 12, 4, 0.95, 1.0, 7000, 29355933696000.0, 1463000},
    {"25-1000x5", 1000, 5, 25, 1.0, 1.0, 3000, 1171484375000.0, 732000},
    {"3-5x500", 5, 500, 3, 1.0, 1.0, 500, 3.0239642676898464e241, 1246500},
    {"6-100x15 dyn50%", 100, 15, 6, 0.5, 1.0, 2000, 15664996402790400.0, 1078000},
};

const rb_dynamic_config_t rb_dynamic_small[RB_DYNAMIC_SMALL] = {
    {"2-3x3", 3, 3, 2, 1.0, 1.0, 2, 16.0, 11},
    {"2-3x3 read 2 of 3", 3, 3, 2, 1.0, 2.0 / 3.0, 10, 72.0, 41},
    {"2-4x2 static 50%", 4, 2, 2, 0.5, 1.0, 10, 72.0, 22},
};

/* ------------------------------------------------------------- generator */

static inline uint32_t rotl(uint32_t x, unsigned k) {
    return (x << k) | (x >> (32 - k));
}

rb_rng_t rb_rng_seeded(const char *seed) {
    uint32_t h = 2166136261u;
    size_t length = strlen(seed);
    for (size_t i = 0; i < length; i++) {
        uint32_t k = (uint32_t)(unsigned char)seed[i] * 3432918353u;
        k = rotl(k, 15);
        h ^= k * 461845907u;
        h = rotl(h, 13);
        h = h * 5u + 3864292196u;
    }
    h ^= (uint32_t)length;
    uint32_t out[4];
    for (int i = 0; i < 4; i++) {
        h ^= h >> 16;
        h *= 2246822507u;
        h ^= h >> 13;
        h *= 3266489909u;
        h ^= h >> 16;
        out[i] = h;
    }
    return (rb_rng_t){out[0], out[1], out[2], out[3]};
}

double rb_rng_next(rb_rng_t *r) {
    uint32_t t = r->a + r->b;
    r->a = r->b ^ (r->b >> 9);
    r->b = r->c + (r->c << 3);
    r->c = rotl(r->c, 21);
    r->d = r->d + 1;
    t = t + r->d;
    r->c = r->c + t;
    return (double)t / 4294967296.0;
}

void rb_dynamic_layout(const rb_dynamic_config_t *config, bool *is_static, size_t *read_leaves, size_t *read_count) {
    rb_rng_t rng = rb_rng_seeded("seed");
    size_t computeds = (size_t)config->width * (size_t)(config->layers - 1);
    for (size_t i = 0; i < computeds; i++) is_static[i] = rb_rng_next(&rng) < config->static_fraction;

    rb_rng_t leaves_rng = rb_rng_seeded("seed");
    size_t count = (size_t)config->width;
    for (size_t i = 0; i < count; i++) read_leaves[i] = i;
    size_t removals = (size_t)floor((double)config->width * (1.0 - config->read_fraction) + 0.5);
    for (size_t r = 0; r < removals && count > 0; r++) {
        size_t index = (size_t)floor(rb_rng_next(&leaves_rng) * (double)count);
        memmove(&read_leaves[index], &read_leaves[index + 1], (count - index - 1) * sizeof *read_leaves);
        count--;
    }
    *read_count = count;
}

/* ------------------------------------------------------------ node bodies */

static rb_value_t static_sum(rb_host_t *h, rb_node_t *self) {
    double sum = 0;
    for (uint32_t k = 0; k < self->nin; k++) sum += rb_read(h, self->in[k]).d;
    return rb_double(sum);
}

static rb_value_t dynamic_sum(rb_host_t *h, rb_node_t *self) {
    double sum = rb_read_input(h, self, 0).d;
    uint32_t tail = self->nin - 1;
    bool drop = ((int64_t)sum & 1) != 0;
    double drop_index = fmod(sum, (double)tail);
    for (uint32_t i = 0; i < tail; i++) {
        if (drop && (double)i == drop_index) continue;
        sum += rb_read_input(h, self, i + 1).d;
    }
    return rb_double(sum);
}

static rb_value_t read_leaves(rb_host_t *h, rb_node_t *self) {
    for (uint32_t k = 0; k < self->nin; k++) rb_read(h, self->in[k]);
    return rb_double(0);
}

/* ------------------------------------------------------------------ graph */

typedef struct dynamic_graph {
    rb_node_t **sources;
    rb_node_t **leaves; /* the leaves read, in read order */
    size_t nleaves;
} dynamic_graph_t;

static void build(rb_host_t *h, const rb_dynamic_config_t *config, dynamic_graph_t *graph) {
    size_t width = (size_t)config->width;
    size_t computeds = width * (size_t)(config->layers - 1);
    bool *is_static = malloc(computeds + 1);
    size_t *leaf_indices = malloc(width * sizeof *leaf_indices);
    size_t nleaves = 0;
    rb_node_t **in = malloc((size_t)config->sources * sizeof *in);
    if (is_static == NULL || leaf_indices == NULL || in == NULL) abort();
    rb_dynamic_layout(config, is_static, leaf_indices, &nleaves);

    graph->sources = rb_host_alloc(h, width * sizeof *graph->sources);
    for (size_t j = 0; j < width; j++) graph->sources[j] = rb_source(h, rb_double((double)j));
    rb_node_t **previous = graph->sources;
    for (int row = 1; row < config->layers; row++) {
        rb_node_t **current = rb_host_alloc(h, width * sizeof *current);
        for (size_t j = 0; j < width; j++) {
            for (int k = 0; k < config->sources; k++) in[k] = previous[(j + (size_t)k) % width];
            bool fixed = is_static[(size_t)(row - 1) * width + j];
            current[j] = rb_computed(h, fixed ? static_sum : dynamic_sum, in, (uint32_t)config->sources, 0);
            current[j]->dynamic = !fixed;
        }
        previous = current;
    }
    graph->leaves = rb_host_alloc(h, nleaves * sizeof *graph->leaves);
    for (size_t i = 0; i < nleaves; i++) graph->leaves[i] = previous[leaf_indices[i]];
    graph->nleaves = nleaves;
    rb_effect(h, read_leaves, graph->leaves, (uint32_t)nleaves, 0);
    free(is_static);
    free(leaf_indices);
    free(in);
}

/* One run (noinline, so that a profiler can single it out:
 * valgrind --tool=callgrind --toggle-collect=run). */
static __attribute__((noinline)) double run(rb_host_t *h, const rb_dynamic_config_t *config,
                                            const dynamic_graph_t *graph) {
    int width = config->width;
    for (int i = 0; i < config->iterations; i++) {
        int index = i % width;
        rb_set(h, graph->sources[index], rb_double((double)(i + index)));
        for (size_t l = 0; l < graph->nleaves; l++) rb_read(h, graph->leaves[l]);
    }
    double total = 0;
    for (size_t l = 0; l < graph->nleaves; l++) total = rb_read(h, graph->leaves[l]).d + total;
    return total;
}

static void check(rb_host_t *h, const rb_dynamic_config_t *config, double sum, uint64_t count) {
    RB_CHECK(h, sum == config->expected_sum, "%s: sum == %.17g, expected %.17g", config->name, sum,
             config->expected_sum);
    RB_CHECK(h, count == config->expected_count, "%s: count == %llu, expected %llu", config->name,
             (unsigned long long)count, (unsigned long long)config->expected_count);
}

rb_result_t rb_dynamic_run(const rb_dynamic_config_t *config, rb_backend_t backend, int samples, bool fresh) {
    rb_result_t result = {0};
    if (config == NULL || samples < 1 || config->width < 1 || config->layers < 2 || config->sources < 1 ||
        config->sources > 32) {
        rb_result_fail(&result, "rb_dynamic_run: invalid arguments");
        return result;
    }
    rb_host_t host;
    if (rb_host_init(&host, backend, RB_FLOOR_REFERENCE, true)) {
        dynamic_graph_t graph;
        uint64_t start = rb_now_ns();
        build(&host, config, &graph);
        if (fresh) {
            result.value = run(&host, config, &graph);
            result.ms = (double)(rb_now_ns() - start) / 1e6;
            result.count = host.computes;
            result.evaluations = rb_evaluations(&host);
            result.operations = (uint64_t)config->iterations;
            check(&host, config, result.value, result.count);
        } else {
            (void)run(&host, config, &graph);
            uint64_t allocations = rb_host_allocations(&host);
            uint64_t best = UINT64_MAX;
            for (int s = 0; s < samples; s++) {
                uint64_t computes = host.computes, evaluations = rb_evaluations(&host);
                uint64_t t0 = rb_now_ns();
                double sum = run(&host, config, &graph);
                uint64_t elapsed = rb_now_ns() - t0;
                uint64_t count = host.computes - computes;
                check(&host, config, sum, count);
                if (elapsed < best) {
                    best = elapsed;
                    result.value = sum;
                    result.count = count;
                    result.evaluations = rb_evaluations(&host) - evaluations;
                    result.operations = (uint64_t)config->iterations;
                }
            }
            result.ms = (double)best / 1e6;
            result.allocations = rb_host_allocations(&host) - allocations;
        }
    }
    rb_host_destroy(&host);
    rb_result_take_failures(&result, &host);
    return result;
}
