/*
 * grid.c: the propagation grid, the long chain, creation and teardown, and
 * memory per node and per edge.
 */
#include "host.h"

static rb_value_t plus_one(rb_host_t *h, rb_node_t *self) {
    return rb_int(rb_read(h, self->in[0]).i + 1);
}

static rb_value_t observe(rb_host_t *h, rb_node_t *self) {
    rb_read(h, self->in[0]);
    h->counter++;
    return rb_int(0);
}

/* One source, `width` chains of `height` +1 computeds, an effect per chain.
 * ends[] receives the chain ends (width entries). */
static rb_node_t *build_grid(rb_host_t *h, int width, int height, rb_node_t **ends) {
    rb_node_t *source = rb_source(h, rb_int(0));
    for (int w = 0; w < width; w++) {
        rb_node_t *current = source;
        for (int i = 0; i < height; i++) current = rb_computed(h, plus_one, &current, 1, 0);
        rb_effect(h, observe, &current, 1, 0);
        ends[w] = current;
    }
    return source;
}

/* The grid (and, with width 1 and every write checked, the chain). */
static rb_result_t run_grid(int width, int height, int operations, rb_backend_t backend, int samples,
                            bool check_every_write) {
    rb_result_t result = {0};
    if (width < 1 || height < 1 || operations < 1 || samples < 1) {
        rb_result_fail(&result, "grid %dx%d: invalid arguments", width, height);
        return result;
    }
    rb_host_t host;
    if (rb_host_init(&host, backend, RB_FLOOR_TOPO, false)) {
        rb_node_t **ends = rb_host_alloc(&host, (size_t)width * sizeof *ends);
        rb_node_t *source = build_grid(&host, width, height, ends);
        for (int i = 0; i < 10; i++) rb_set(&host, source, rb_int(source->value.i + 1));
        uint64_t allocations = rb_host_allocations(&host);
        uint64_t best = UINT64_MAX;
        for (int s = 0; s < samples; s++) {
            host.counter = 0;
            uint64_t evaluations = rb_evaluations(&host);
            uint64_t t0 = rb_now_ns();
            for (int op = 0; op < operations; op++) {
                rb_set(&host, source, rb_int(source->value.i + 1));
                if (!check_every_write) continue;
                int64_t end = rb_read(&host, ends[0]).i;
                RB_CHECK(&host, end == source->value.i + height, "chain %d: last == %lld, expected %lld", height,
                         (long long)end, (long long)(source->value.i + height));
            }
            uint64_t elapsed = rb_now_ns() - t0;
            for (int w = 0; w < width; w++) {
                int64_t end = rb_read(&host, ends[w]).i;
                RB_CHECK(&host, end == source->value.i + height, "grid %dx%d: chain %d ends at %lld, expected %lld",
                         width, height, w, (long long)end, (long long)(source->value.i + height));
            }
            RB_CHECK(&host, host.counter == (int64_t)operations * width,
                     "grid %dx%d: effects ran %lld times, expected %lld", width, height, (long long)host.counter,
                     (long long)operations * width);
            if (elapsed < best) {
                best = elapsed;
                result.evaluations = rb_evaluations(&host) - evaluations;
                result.operations = (uint64_t)operations;
                result.count = (uint64_t)host.counter;
                result.value = (double)rb_read(&host, ends[width - 1]).i;
            }
        }
        result.ms = (double)best / 1e6;
        result.allocations = rb_host_allocations(&host) - allocations;
    }
    rb_host_destroy(&host);
    rb_result_take_failures(&result, &host);
    return result;
}

rb_result_t rb_grid_run(int width, int height, int operations, rb_backend_t backend, int samples) {
    return run_grid(width, height, operations, backend, samples, false);
}

rb_result_t rb_chain_run(int length, int writes, rb_backend_t backend, int samples) {
    return run_grid(1, length, writes, backend, samples, true);
}

/* --------------------------------------------------------------- creation */

static void creation_fail(rb_creation_t *result, const rb_host_t *host) {
    if (host->failed && result->failed++ == 0) {
        for (size_t i = 0; i < sizeof result->message; i++) result->message[i] = host->message[i];
    }
}

static rb_value_t identity(rb_host_t *h, rb_node_t *self) {
    return rb_read(h, self->in[0]);
}

rb_creation_t rb_creation_run(int count, int samples) {
    rb_creation_t result = {0};
    double best[4] = {1e300, 1e300, 1e300, 1e300};
    for (int s = 0; s < samples; s++) {
        rb_host_t host;
        rb_host_init(&host, RB_BACKEND_RIPPLE, RB_FLOOR_TOPO, false);
        rb_node_t **nodes = rb_host_alloc(&host, 3 * (size_t)count * sizeof *nodes);
        uint64_t t[5];
        t[0] = rb_now_ns();
        for (int i = 0; i < count; i++) nodes[i] = rb_source(&host, rb_int(i));
        t[1] = rb_now_ns();
        for (int i = 0; i < count; i++) nodes[count + i] = rb_computed(&host, identity, &nodes[i], 1, 0);
        t[2] = rb_now_ns();
        for (int i = 0; i < count; i++) nodes[2 * count + i] = rb_effect(&host, observe, &nodes[i], 1, 0);
        t[3] = rb_now_ns();
        RB_CHECK(&host, host.counter == count, "create: %lld effect runs, expected %d", (long long)host.counter, count);
        rp_graph_stats_t stats = {0};
        rp_graph_stats(host.graph, &stats);
        RB_CHECK(&host, stats.live_nodes == 3 * (size_t)count && stats.live_edges == (size_t)count,
                 "create: %zu nodes and %zu edges, expected %d and %d", stats.live_nodes, stats.live_edges, 3 * count,
                 count);
        uint64_t t_teardown = rb_now_ns();
        for (int i = 3 * count - 1; i >= 0; i--) rb_dispose(&host, nodes[i]);
        rp_graph_stats(host.graph, &stats);
        RB_CHECK(&host, stats.live_nodes == 0 && stats.live_edges == 0,
                 "teardown: %zu nodes and %zu edges left", stats.live_nodes, stats.live_edges);
        rp_graph_t *graph = host.graph;
        host.graph = NULL;
        rp_status_t status = rp_graph_destroy(graph);
        t[4] = rb_now_ns();
        RB_CHECK(&host, status == RP_OK, "rp_graph_destroy: %s", rp_status_string(status));
        double phase[4] = {(double)(t[1] - t[0]), (double)(t[2] - t[1]), (double)(t[3] - t[2]),
                           (double)(t[4] - t_teardown)};
        for (int p = 0; p < 4; p++) {
            if (phase[p] < best[p]) best[p] = phase[p];
        }
        rb_host_destroy(&host);
        creation_fail(&result, &host);
    }
    result.atoms_ms = best[0] / 1e6;
    result.derived_ms = best[1] / 1e6;
    result.effects_ms = best[2] / 1e6;
    result.teardown_ms = best[3] / 1e6;
    return result;
}

/* ----------------------------------------------------------------- memory */

static rp_graph_stats_t stats_of(rb_host_t *h) {
    rp_graph_stats_t stats = {0};
    rp_status_t status = rp_graph_stats(h->graph, &stats);
    RB_CHECK(h, status == RP_OK, "rp_graph_stats: %s", rp_status_string(status));
    return stats;
}

/* The bytes a node record takes, from a graph of sources alone. */
static double bytes_per_bare_node(void) {
    rb_host_t host;
    rb_host_init(&host, RB_BACKEND_RIPPLE, RB_FLOOR_TOPO, false);
    for (int i = 0; i < 1000; i++) rb_source(&host, rb_int(i));
    rp_graph_stats_t stats = stats_of(&host);
    rb_host_destroy(&host);
    return (double)stats.arena_bytes_in_use / (double)stats.live_nodes;
}

static rb_memory_t memory_of(rb_host_t *h) {
    rb_memory_t memory = {0};
    rp_graph_stats_t stats = stats_of(h);
    memory.nodes = stats.live_nodes;
    memory.edges = stats.live_edges;
    memory.bytes_in_use = stats.arena_bytes_in_use;
    memory.bytes_reserved = stats.arena_bytes_reserved;
    memory.bytes_per_node = bytes_per_bare_node();
    double edges_bytes = (double)stats.arena_bytes_in_use - memory.bytes_per_node * (double)stats.live_nodes;
    memory.bytes_per_edge = stats.live_edges ? edges_bytes / (double)stats.live_edges : 0;
    memory.reserved_per_node = (double)stats.arena_bytes_reserved / (double)stats.live_nodes;
    return memory;
}

static void memory_fail(rb_memory_t *memory, const rb_host_t *host) {
    if (host->failed && memory->failed++ == 0) {
        for (size_t i = 0; i < sizeof memory->message; i++) memory->message[i] = host->message[i];
    }
}

rb_memory_t rb_memory_grid(int width, int height) {
    rb_host_t host;
    rb_host_init(&host, RB_BACKEND_RIPPLE, RB_FLOOR_TOPO, false);
    rb_node_t **ends = rb_host_alloc(&host, (size_t)width * sizeof *ends);
    build_grid(&host, width, height, ends);
    rb_memory_t memory = memory_of(&host);
    size_t nodes = 1 + (size_t)width * (size_t)(height + 1), edges = (size_t)width * (size_t)(height + 1);
    RB_CHECK(&host, memory.nodes == nodes && memory.edges == edges, "grid memory: %zu nodes, %zu edges, expected %zu, %zu",
             memory.nodes, memory.edges, nodes, edges);
    rb_host_destroy(&host);
    memory_fail(&memory, &host);
    return memory;
}

rb_memory_t rb_memory_kinds(int count) {
    rb_host_t host;
    rb_host_init(&host, RB_BACKEND_RIPPLE, RB_FLOOR_TOPO, false);
    rb_node_t **sources = rb_host_alloc(&host, (size_t)count * sizeof *sources);
    for (int i = 0; i < count; i++) sources[i] = rb_source(&host, rb_int(i));
    for (int i = 0; i < count; i++) rb_read(&host, rb_computed(&host, identity, &sources[i], 1, 0));
    for (int i = 0; i < count; i++) rb_effect(&host, observe, &sources[i], 1, 0);
    rb_memory_t memory = memory_of(&host);
    RB_CHECK(&host, memory.nodes == 3 * (size_t)count && memory.edges == 2 * (size_t)count,
             "kinds memory: %zu nodes, %zu edges, expected %d, %d", memory.nodes, memory.edges, 3 * count, 2 * count);
    rb_host_destroy(&host);
    memory_fail(&memory, &host);
    return memory;
}
