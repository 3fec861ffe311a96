/*
 * harness.h: checks for the C regression programs.
 *
 * Each program runs its scenarios, then returns harness_finish(), which prints
 * "N passed, N failed" on its own line and gives a non-zero exit status when
 * any check failed. A failed check prints where it is, the scenario it is in,
 * and the values involved; the program goes on with the next check.
 */
#ifndef RIPPLE_HARNESS_H
#define RIPPLE_HARNESS_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "ripple.h"

static unsigned harness_passed;
static unsigned harness_failed;
static const char *harness_scenario = "(none)";

/* Names the scenario that the following checks belong to. */
static inline void harness_begin(const char *scenario)
{
    harness_scenario = scenario;
}

static inline bool harness_report(bool ok, const char *file, int line, const char *what)
{
    if (ok) {
        harness_passed++;
    } else {
        harness_failed++;
        fprintf(stderr, "%s:%d: [%s] CHECK failed: %s\n", file, line, harness_scenario, what);
    }
    return ok;
}

#define CHECK(cond) harness_report((cond), __FILE__, __LINE__, #cond)

/* Integers of any width, printed as long long. */
#define CHECK_EQ(got, want)                                                                   \
    do {                                                                                      \
        long long check_got_ = (long long)(got), check_want_ = (long long)(want);             \
        if (!harness_report(check_got_ == check_want_, __FILE__, __LINE__, #got " == " #want)) \
            fprintf(stderr, "    got %lld, want %lld\n", check_got_, check_want_);            \
    } while (0)

/* Status codes, printed by name. */
#define CHECK_ST(got, want)                                                                   \
    do {                                                                                      \
        rp_status_t check_got_ = (got), check_want_ = (want);                                 \
        if (!harness_report(check_got_ == check_want_, __FILE__, __LINE__, #got " == " #want)) \
            fprintf(stderr, "    got %s, want %s\n", rp_status_string(check_got_),          \
                    rp_status_string(check_want_));                                           \
    } while (0)

#define CHECK_STR(got, want)                                                                  \
    do {                                                                                      \
        const char *check_got_ = (got), *check_want_ = (want);                                \
        if (!harness_report(check_got_ != NULL && strcmp(check_got_, check_want_) == 0,       \
                            __FILE__, __LINE__, #got " == " #want))                           \
            fprintf(stderr, "    got \"%s\", want \"%s\"\n", check_got_ ? check_got_ : "(null)", \
                    check_want_);                                                             \
    } while (0)

/* Two node handles name the same node. */
static inline bool harness_same(rp_node_t a, rp_node_t b)
{
    return a.slot == b.slot && a.generation == b.generation && a.graph_tag == b.graph_tag;
}

#define CHECK_NODE(got, want) CHECK(harness_same((got), (want)))

/* Prints the closing line and gives the program's exit status. */
static inline int harness_finish(void)
{
    printf("%u passed, %u failed\n", harness_passed, harness_failed);
    fflush(stdout);
    return harness_failed == 0 ? 0 : 1;
}

#endif /* RIPPLE_HARNESS_H */
