/*
 * process_rules.c: the rules ripple.h states for the process around a graph
 * ("threads"), each checked in a child process (fork) so that the program
 * survives what the child meets.
 *
 *   membarrier  a graph is created biased to its thread, then the child
 *               forbids membarrier(2) with a seccomp filter and another
 *               thread calls in: the revocation cannot be made safe, so the
 *               child aborts (SIGABRT) with a message naming membarrier,
 *               instead of letting two threads hold the graph at once. A graph
 *               created after the filter is not biased, and works.
 *   fork        a child forked while no thread was inside a graph uses it:
 *               from the forking thread, which holds the bias, and from a
 *               thread of its own, which revokes it (the registration for
 *               membarrier is inherited), with the values of the fork.
 *
 * Linux only (membarrier, seccomp); elsewhere the program says so and checks
 * nothing. Where membarrier is unavailable graphs are not biased: the
 * membarrier scenario says so and checks only that the child is unharmed.
 */
#define _GNU_SOURCE

#include "harness.h"

/* White box: whether a graph is biased. */
#include "../../Sources/CRipple/graph.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#if defined(__linux__)
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

/* What a child reports through its exit status. */
enum {
    CHILD_OK = 0,
    CHILD_FAILED = 1,       /* a call or a value was not what the rule promises */
    CHILD_HUNG = 2,         /* its alarm went off */
    CHILD_NOT_BIASED = 77,  /* no membarrier here: nothing to revoke */
};

static void child_alarm(int signal)
{
    (void)signal;
    _exit(CHILD_HUNG);
}

/* Runs `body` in a child process with its stderr captured into `output`;
 * returns the wait status. */
static int in_child(int (*body)(void *), void *argument, char *output, size_t capacity)
{
    int pipe_ends[2];
    if (pipe(pipe_ends) != 0) return -1;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        close(pipe_ends[0]);
        dup2(pipe_ends[1], STDERR_FILENO);
        signal(SIGALRM, child_alarm);
        alarm(30);
        _exit(body(argument));
    }
    close(pipe_ends[1]);
    size_t length = 0;
    ssize_t got;
    while (length + 1 < capacity && (got = read(pipe_ends[0], output + length, capacity - 1 - length)) > 0) {
        length += (size_t)got;
    }
    output[length] = '\0';
    close(pipe_ends[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
}

/* ---------------------------------------------------------- membarrier */

static void deny_membarrier(void)
{
    struct sock_filter filter[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_membarrier, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog program = {.len = sizeof filter / sizeof filter[0], .filter = filter};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0) {
        fprintf(stderr, "could not install the seccomp filter\n");
        _exit(CHILD_FAILED);
    }
}

typedef struct call {
    rp_graph_t *graph;
    rp_node_t source;
    rp_status_t status;
} call_t;

static void *write_from_another_thread(void *argument)
{
    call_t *call = argument;
    call->status = rp_source_set(call->graph, call->source);
    return NULL;
}

static rp_status_t write_on_a_new_thread(rp_graph_t *graph, rp_node_t source)
{
    call_t call = {graph, source, RP_EINVAL};
    pthread_t thread;
    pthread_create(&thread, NULL, write_from_another_thread, &call);
    pthread_join(thread, NULL);
    return call.status;
}

/* The filter comes after the graph: the revocation by a new thread (which
 * inherits the filter) must abort. */
static int revoke_under_a_filter(void *argument)
{
    (void)argument;
    rp_graph_config_t config = {0};
    rp_graph_t *graph;
    rp_node_t source;
    if (rp_graph_create(&config, &graph) != RP_OK) return CHILD_FAILED;
    if (rp_node_create(graph, RP_KIND_SOURCE, NULL, &source) != RP_OK) return CHILD_FAILED;
    if (graph->sections.bias == NULL) return CHILD_NOT_BIASED;
    deny_membarrier();
    /* The bias thread itself goes on without a barrier. */
    if (rp_source_set(graph, source) != RP_OK) return CHILD_FAILED;
    rp_status_t status = write_on_a_new_thread(graph, source);
    fprintf(stderr, "the write on another thread returned %s\n", rp_status_string(status));
    return CHILD_OK; /* not reached when the engine keeps its rule */
}

/* The filter comes first: graphs created under it are not biased, and work. */
static int create_under_a_filter(void *argument)
{
    (void)argument;
    deny_membarrier();
    rp_graph_config_t config = {0};
    rp_graph_t *graph;
    rp_node_t source;
    if (rp_graph_create(&config, &graph) != RP_OK) return CHILD_FAILED;
    if (rp_node_create(graph, RP_KIND_SOURCE, NULL, &source) != RP_OK) return CHILD_FAILED;
    if (graph->sections.bias != NULL) return CHILD_FAILED;
    if (write_on_a_new_thread(graph, source) != RP_OK) return CHILD_FAILED;
    if (rp_source_set(graph, source) != RP_OK) return CHILD_FAILED;
    return rp_graph_destroy(graph) == RP_OK ? CHILD_OK : CHILD_FAILED;
}

static void a_denied_membarrier_stops_the_process(void)
{
    harness_begin("membarrier: denied after the graph's creation, the revocation aborts");
    char output[1024];
    int status = in_child(revoke_under_a_filter, NULL, output, sizeof output);
    if (WIFEXITED(status) && WEXITSTATUS(status) == CHILD_NOT_BIASED) {
        printf("membarrier: not available here: graphs are not biased, nothing to revoke\n");
    } else {
        if (!CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT)) {
            fprintf(stderr, "    child status %#x, its stderr: %s\n", (unsigned)status, output);
        }
        CHECK(strstr(output, "ripple: membarrier(2) failed") != NULL);
    }
    harness_begin("membarrier: denied before the graph's creation, the graph works");
    status = in_child(create_under_a_filter, NULL, output, sizeof output);
    if (!CHECK(WIFEXITED(status) && WEXITSTATUS(status) == CHILD_OK)) {
        fprintf(stderr, "    child status %#x, its stderr: %s\n", (unsigned)status, output);
    }
}

/* ---------------------------------------------------------------- fork */

typedef struct forked {
    rp_graph_t *graph;
    rp_node_t source, doubled;
    long value, twice;
} forked_t;

static forked_t shared;

static rp_status_t compute_double(void *host, rp_graph_t *graph, rp_node_t node, void *data, bool *changed)
{
    (void)host, (void)node, (void)data;
    long value;
    rp_status_t status = rp_node_read_copy(graph, shared.source, &value, &shared.value, sizeof value);
    if (status != RP_OK) return status;
    *changed = 2 * value != shared.twice;
    shared.twice = 2 * value;
    return RP_OK;
}

/* Writes `value` and reads the double back, from this thread. */
static bool write_and_read(long value)
{
    shared.value = value;
    if (rp_source_set(shared.graph, shared.source) != RP_OK) return false;
    long twice = 0;
    return rp_node_read_copy(shared.graph, shared.doubled, &twice, &shared.twice, sizeof twice) == RP_OK &&
           twice == 2 * value;
}

static void *write_and_read_on_a_thread(void *argument)
{
    *(bool *)argument = write_and_read(21);
    return NULL;
}

/* In the child: the values of the fork, then writes from the forking thread
 * and from a new one. */
static int use_the_graph_after_fork(void *argument)
{
    long at_fork = *(long *)argument;
    long twice = 0;
    if (rp_node_read_copy(shared.graph, shared.doubled, &twice, &shared.twice, sizeof twice) != RP_OK) {
        return CHILD_FAILED;
    }
    if (twice != 2 * at_fork) return CHILD_FAILED;
    if (!write_and_read(at_fork + 1)) return CHILD_FAILED;
    bool ok = false;
    pthread_t thread;
    pthread_create(&thread, NULL, write_and_read_on_a_thread, &ok);
    pthread_join(thread, NULL);
    if (!ok || !write_and_read(5)) return CHILD_FAILED;
    return rp_graph_destroy(shared.graph) == RP_OK ? CHILD_OK : CHILD_FAILED;
}

static void *create_shared_graph(void *argument)
{
    (void)argument;
    rp_graph_config_t config = {0};
    config.callbacks.compute = compute_double;
    shared = (forked_t){0};
    if (rp_graph_create(&config, &shared.graph) != RP_OK) return NULL;
    rp_node_create(shared.graph, RP_KIND_SOURCE, &shared.value, &shared.source);
    rp_node_create(shared.graph, RP_KIND_COMPUTED, NULL, &shared.doubled);
    return NULL;
}

static void a_child_uses_a_graph_nobody_was_inside(bool created_here)
{
    harness_begin(created_here ? "fork: the bias thread forks, outside any call"
                               : "fork: a graph biased to a thread that ended");
    if (created_here) {
        create_shared_graph(NULL);
    } else {
        pthread_t creator;
        pthread_create(&creator, NULL, create_shared_graph, NULL);
        pthread_join(creator, NULL);
    }
    if (!CHECK(shared.graph != NULL)) return;
    long at_fork = 8;
    CHECK(write_and_read(at_fork));
    char output[1024];
    int status = in_child(use_the_graph_after_fork, &at_fork, output, sizeof output);
    if (!CHECK(WIFEXITED(status) && WEXITSTATUS(status) == CHILD_OK)) {
        fprintf(stderr, "    child status %#x, its stderr: %s\n", (unsigned)status, output);
    }
    /* The parent's graph is its own: as it was. */
    long twice = 0;
    CHECK_ST(rp_node_read_copy(shared.graph, shared.doubled, &twice, &shared.twice, sizeof twice), RP_OK);
    CHECK_EQ(twice, 2 * at_fork);
    CHECK_ST(rp_graph_destroy(shared.graph), RP_OK);
}

/* Usage: process_rules [membarrier|fork]: one group, or (default) both. */
int main(int argc, char **argv)
{
    const char *only = argc > 1 ? argv[1] : NULL;
    if (only == NULL || strcmp(only, "membarrier") == 0) a_denied_membarrier_stops_the_process();
    if (only == NULL || strcmp(only, "fork") == 0) {
        a_child_uses_a_graph_nobody_was_inside(true);
        a_child_uses_a_graph_nobody_was_inside(false);
    }
    return harness_finish();
}
#else
int main(void)
{
    printf("process_rules: not Linux: membarrier and seccomp are Linux's; nothing checked\n");
    return harness_finish();
}
#endif
