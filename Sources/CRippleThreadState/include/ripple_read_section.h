/*
 * ripple_read_section.h: the engine's read section (rp_node_read_begin and
 * rp_node_read_end, include/ripple.h) with the ticket passed by value, for the
 * Swift module's reads outside evaluations.
 *
 * Internal to the Swift module: not part of Ripple's C API. Swift guards every
 * function that passes the address of a local to a call with a stack canary
 * (a thread-local load and a compare on entry and on return); these inline
 * functions keep the section in C, so the read path pays for neither.
 */
#ifndef RIPPLE_READ_SECTION_H
#define RIPPLE_READ_SECTION_H

#include <ripple.h>
#include <stddef.h>
#include <stdint.h>

/* rp_node_read_begin: the status in the low 32 bits, the section's ticket in
 * the high 32 bits (meaningful only when the status is RP_OK). */
static inline uint64_t ripple_read_section_begin(rp_graph_t *graph, rp_node_t node) {
    rp_read_section_t section = {0};
    rp_status_t status = rp_node_read_begin(graph, node, &section);
    return ((uint64_t)section.ticket << 32) | (uint64_t)(uint32_t)status;
}

/* rp_node_read_end of the section whose ticket ripple_read_section_begin
 * returned. */
static inline rp_status_t ripple_read_section_end(rp_graph_t *graph, uint32_t ticket) {
    rp_read_section_t section = {ticket};
    return rp_node_read_end(graph, &section);
}

/* What ripple_read_copy_word returns: in two registers (rax and rdx on
 * x86-64, x0 and x1 on arm64), no memory of the caller's. */
typedef struct ripple_copied_word {
    uint64_t word;
    uint64_t status;
} ripple_copied_word_t;

/* rp_node_read_copy of a value of at most 8 bytes, into the first bytes of a
 * word returned by value (the rest zero): the Swift caller passes no address
 * of a local of its own, so it needs no stack canary. */
static inline ripple_copied_word_t ripple_read_copy_word(rp_graph_t *graph, rp_node_t node, const void *src,
                                                         size_t size) {
    uint64_t word = 0;
    rp_status_t status = rp_node_read_copy(graph, node, &word, src, size);
    ripple_copied_word_t result = {word, (uint64_t)(uint32_t)status};
    return result;
}

#endif
