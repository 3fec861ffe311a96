/*
 * model_random.c: random operation sequences checked against a naive model
 * that recomputes everything from scratch.
 *
 * Sources hold small integers; computed node i reads a selector node first and
 * then, depending on the selector's parity, one of two other earlier nodes (so
 * dependencies change from run to run), and reduces modulo 5 (so equal
 * recomputes cut propagation off). Effects read one node. After every step:
 * every value read equals the model's, no node computed twice in one step, an
 * effect ran exactly when the value it reads changed, and _rp_graph_check
 * holds. Usage: model_random [seed] [steps]; prints the seed on failure.
 */
#include "ripple.h"

#include <stdio.h>
#include <stdlib.h>

#ifndef MODEL_NODES
#define MODEL_NODES 40
#endif
#define MODEL_SOURCES 6
#define MODEL_EFFECTS 8

typedef struct model_node {
    rp_kind_t kind;
    int selector, even_input, odd_input; /* computed: indices of earlier nodes */
    int input;                           /* effect: index of the node it reads */
    long value, committed;
    int computes_this_step;
    long seen;     /* effect: value seen by its last run */
    int runs;      /* effect: runs so far */
    rp_node_t handle;
    bool alive;
} model_node_t;

static model_node_t nodes[MODEL_NODES + MODEL_EFFECTS];
static rp_graph_t *graph;
static unsigned long long rng_state;
static int failures, passes;
static unsigned long seed;

static unsigned next_random(void) {
    rng_state = rng_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (unsigned)(rng_state >> 33);
}

#define EXPECT(cond, ...)                                                 \
    do {                                                                  \
        if (cond) {                                                       \
            passes++;                                                     \
        } else {                                                          \
            failures++;                                                   \
            printf("FAIL (seed %lu) %s:%d: ", seed, __FILE__, __LINE__);  \
            printf(__VA_ARGS__);                                          \
            printf("\n");                                                 \
        }                                                                 \
    } while (0)

static long model_value(int index) {
    model_node_t *node = &nodes[index];
    if (node->kind == RP_KIND_SOURCE) return node->value;
    long selector = model_value(node->selector);
    long other = model_value(selector % 2 ? node->odd_input : node->even_input);
    return (selector + other) % 5;
}

static long read_node(int index) {
    rp_status_t status = rp_node_read(graph, nodes[index].handle);
    EXPECT(status == RP_OK, "read of %d: %s", index, rp_status_string(status));
    return nodes[index].value;
}

static rp_status_t compute(void *host, rp_graph_t *g, rp_node_t handle, void *data, bool *changed) {
    (void)host, (void)g, (void)handle;
    model_node_t *node = data;
    node->computes_this_step++;
    long selector = read_node(node->selector);
    long other = read_node(selector % 2 ? node->odd_input : node->even_input);
    long next = (selector + other) % 5;
    *changed = next != node->value;
    node->value = next;
    return RP_OK;
}

static bool commit(void *host, rp_graph_t *g, rp_node_t handle, void *data) {
    (void)host, (void)g, (void)handle;
    model_node_t *node = data;
    bool changed = node->committed != node->value;
    node->committed = node->value;
    return changed;
}

static void run(void *host, rp_graph_t *g, rp_node_t handle, void *data) {
    (void)host, (void)g, (void)handle;
    model_node_t *node = data;
    node->runs++;
    node->seen = read_node(node->input);
}

static void create_effect(int index) {
    model_node_t *effect = &nodes[index];
    effect->kind = RP_KIND_EFFECT;
    effect->input = (int)(next_random() % MODEL_NODES);
    effect->runs = 0;
    effect->alive = true;
    rp_status_t status = rp_node_create(graph, RP_KIND_EFFECT, effect, &effect->handle);
    EXPECT(status == RP_OK, "create effect: %s", rp_status_string(status));
    EXPECT(effect->runs == 1, "effect ran %d times at creation", effect->runs);
}

static void check_step(const long *before) {
    char message[256];
    rp_status_t status = _rp_graph_check(graph, message, sizeof message);
    EXPECT(status == RP_OK, "invariant: %s", message);
    for (int i = 0; i < MODEL_NODES; i++) {
        EXPECT(nodes[i].computes_this_step <= 1, "node %d computed %d times in one step", i, nodes[i].computes_this_step);
        nodes[i].computes_this_step = 0;
    }
    for (int i = MODEL_NODES; i < MODEL_NODES + MODEL_EFFECTS; i++) {
        model_node_t *effect = &nodes[i];
        if (!effect->alive) continue;
        long expected = model_value(effect->input);
        EXPECT(effect->seen == expected, "effect %d saw %ld, model says %ld", i, effect->seen, expected);
        int expected_runs = before[i] == expected ? 0 : 1;
        EXPECT(effect->runs == expected_runs, "effect %d ran %d times, value %ld -> %ld", i, effect->runs,
               before[i], expected);
        effect->runs = 0;
    }
}

int main(int argc, char **argv) {
    seed = argc > 1 ? strtoul(argv[1], NULL, 10) : 1;
    int steps = argc > 2 ? atoi(argv[2]) : 3000;
    for (unsigned long round = 0; round < 20; round++, seed++) {
        rng_state = seed;
        rp_graph_config_t config = {.callbacks = {.compute = compute, .commit = commit, .run = run}};
        if (rp_graph_create(&config, &graph) != RP_OK) return 1;
        for (int i = 0; i < MODEL_NODES; i++) {
            model_node_t *node = &nodes[i];
            *node = (model_node_t){0};
            node->kind = i < MODEL_SOURCES ? RP_KIND_SOURCE : RP_KIND_COMPUTED;
            if (node->kind == RP_KIND_SOURCE) {
                node->value = node->committed = (long)(next_random() % 5);
            } else {
                node->selector = (int)(next_random() % (unsigned)i);
                node->even_input = (int)(next_random() % (unsigned)i);
                node->odd_input = (int)(next_random() % (unsigned)i);
                node->value = -1;
            }
            node->alive = true;
            rp_status_t status = rp_node_create(graph, node->kind, node, &node->handle);
            EXPECT(status == RP_OK, "create: %s", rp_status_string(status));
        }
        for (int i = MODEL_NODES; i < MODEL_NODES + MODEL_EFFECTS; i++) create_effect(i);
        long before[MODEL_NODES + MODEL_EFFECTS];
        for (int i = MODEL_NODES; i < MODEL_NODES + MODEL_EFFECTS; i++) before[i] = nodes[i].seen - 100;
        for (int i = MODEL_NODES; i < MODEL_NODES + MODEL_EFFECTS; i++) nodes[i].runs = 1;
        check_step(before);

        for (int step = 0; step < steps; step++) {
            for (int i = MODEL_NODES; i < MODEL_NODES + MODEL_EFFECTS; i++) before[i] = nodes[i].seen;
            unsigned op = next_random() % 10;
            if (op < 5) {
                bool batched = op < 2;
                if (batched) rp_batch_begin(graph);
                int writes = batched ? 1 + (int)(next_random() % 4) : 1;
                for (int w = 0; w < writes; w++) {
                    model_node_t *source = &nodes[next_random() % MODEL_SOURCES];
                    long value = (long)(next_random() % 5);
                    if (value == source->value) continue;
                    source->value = value;
                    rp_status_t status = rp_source_set(graph, source->handle);
                    EXPECT(status == RP_OK, "set: %s", rp_status_string(status));
                }
                if (batched) {
                    rp_status_t status = rp_batch_end(graph);
                    EXPECT(status == RP_OK, "batch end: %s", rp_status_string(status));
                }
            } else if (op < 9) {
                int index = MODEL_SOURCES + (int)(next_random() % (MODEL_NODES - MODEL_SOURCES));
                long value = read_node(index);
                EXPECT(value == model_value(index), "node %d read %ld, model says %ld", index, value, model_value(index));
            } else {
                int index = MODEL_NODES + (int)(next_random() % MODEL_EFFECTS);
                rp_status_t status = rp_node_dispose(graph, nodes[index].handle);
                EXPECT(status == RP_OK, "dispose: %s", rp_status_string(status));
                create_effect(index);
                nodes[index].runs = 0;
                before[index] = nodes[index].seen;
            }
            check_step(before);
            if (failures > 20) break;
        }
        rp_graph_destroy(graph);
        if (failures) break;
    }
    printf("%d passed, %d failed\n", passes, failures);
    return failures != 0;
}
