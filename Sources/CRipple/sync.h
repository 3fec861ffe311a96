/*
 * sync.h: every atomic operation the engine makes, in one place.
 *
 * The engine's shared state is guarded by the sections of sections.c; the
 * only words touched by several threads at once are the sections' own (the
 * reader stripes, the ticket words `next` and `turn`, the owner). Two layers
 * implement their operations, with the same orderings:
 *   - Concurrency Kit's ck_pr, each operation with the fence its use needs
 *     (on Linux, where Debian ships it as libck-dev). Header-only: ck_pr is
 *     inline functions and macros, so nothing links libck (Package.swift
 *     says why it has no pkg-config target);
 *   - C11 atomics, the compiler's __atomic builtins on the same plain words
 *     with <stdatomic.h>'s memory orders and fences (on every other system,
 *     Apple's included, which ship no Concurrency Kit, and on any build given
 *     -DRIPPLE_SYNC_C11; scripts/test builds and tests both on Linux).
 *     <stdatomic.h>'s own atomic_load and friends would need every word
 *     declared _Atomic, and so typed differently per layer.
 *
 * ck_pr's read-modify-writes order nothing by themselves on weakly ordered
 * machines (on aarch64 they are plain exclusive pairs or LSE atomics without
 * acquire or release), and its fences order only the kinds of access they
 * name (ck_pr_fence_atomic orders atomics against atomics: on aarch64 it is
 * `dmb ishst`, no barrier for plain loads). So each helper names the fences it
 * needs by what they order, as ck_pr(3) documents them; on x86 (CK_MD_TSO)
 * every one of them is a compiler barrier only, because locked instructions
 * are full barriers and loads are not reordered with older loads. The C11
 * layer states each ordering on the operation itself (acquire loads, release
 * stores and leaving RMWs), and the entering RMW's store->load order with a
 * seq_cst fence, a compiler barrier only on x86 for the same reason.
 *
 * The protocol needs three orderings (sections.c says who pairs with whom):
 *   entering  an RMW that announces the thread (a stripe increment, a ticket),
 *             then loads of the other side's words: store->load (the Dekker
 *             pattern), the one order TSO does not give for free, and
 *             acquire for what the section then reads and writes;
 *   leaving   everything the section read or wrote, then the RMW or store that
 *             lets others in: release;
 *   looking   a load of a word another thread released, then the section's
 *             accesses: acquire.
 *
 * The graph's bias (sections.c) adds a fourth, asymmetric one: its thread
 * announces itself with a plain store then loads the bias state with a plain
 * load, no fence (the common, single-threaded path), and a thread that
 * revokes the bias stores the state, then makes every thread of the
 * process run a full barrier (membarrier(2), MEMBARRIER_CMD_PRIVATE_EXPEDITED:
 * an IPI to each CPU running one of its threads, a barrier at each context
 * switch), then loads the announcement. Each of the bias thread's accesses is
 * then before or after its barrier, so the revoker sees the announcement or
 * the bias thread sees the state: the Dekker pattern with the full barrier
 * paid by the rare side only. Without membarrier (other kernels, seccomp, or
 * RIPPLE_NO_BIAS in the environment) a graph is never biased. (The barrier is
 * a system call, so it lives in sections.c: heavy_barrier_init and
 * heavy_barrier.)
 *
 * Under ThreadSanitizer the ck layer's operations go through the compiler's
 * __atomic builtins instead: ck_pr's loads and stores are volatile accesses
 * and its read-modify-writes inline assembly (or __sync builtins), which the
 * sanitizer cannot see as synchronization. (The C11 layer needs no such
 * stand-in: the sanitizer sees its acquires and releases as they are, and
 * checks that they order every access of a section.) Every RMW and every load there is seq_cst, so
 * the store->load order of the Dekker pattern holds in the C11 model too
 * (seq_cst RMWs with merely acquire loads would not give it): the sanitizer
 * checks the protocol the engine runs, not a weaker one.
 */
#ifndef RP_SYNC_H
#define RP_SYNC_H

#include <stdbool.h>
#include <stdint.h>

/* The layer: ck where the system ships it (Linux), C11 elsewhere or when
 * asked for. */
#if defined(RIPPLE_SYNC_C11) || !defined(__linux__)
#define RP_SYNC_C11 1
#endif

#if defined(RP_SYNC_C11)
#include <stdatomic.h>
#else
#if defined(__has_include)
#if !__has_include(<ck_pr.h>)
#error "Concurrency Kit's <ck_pr.h> is not on the include path: install it (apt-get install libck-dev; elsewhere pass -Xcc -I<its prefix>/include), or build the C11 layer (swift build -Xcc -DRIPPLE_SYNC_C11)"
#endif
#endif
#include <ck_pr.h>
#if defined(__SANITIZE_THREAD__)
#define RP_SYNC_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RP_SYNC_TSAN 1
#endif
#endif
#endif

/* The size that keeps the reader stripes off each other's cache lines
 * (graph.h): ck's for its targets; for C11, 128 bytes on Apple's arm64 cores
 * (their line), 64 elsewhere. */
#if !defined(RP_SYNC_C11)
#define RP_SYNC_CACHELINE CK_MD_CACHELINE
#elif defined(__APPLE__) && defined(__aarch64__)
#define RP_SYNC_CACHELINE 128
#else
#define RP_SYNC_CACHELINE 64
#endif

#if defined(RP_SYNC_C11)

/* The entering RMW's fence: the RMW before every later load (the store->load
 * order of the Dekker pattern) and store. A seq_cst fence in the C11 model;
 * on x86 a locked RMW is already a full barrier (ck's CK_MD_TSO reasoning), so
 * only the compiler must not move accesses across it. */
static inline void rp_sync_enter_fence(void) {
#if defined(__x86_64__) || defined(__i386__)
    atomic_signal_fence(memory_order_seq_cst);
#else
    atomic_thread_fence(memory_order_seq_cst);
#endif
}

/* Looking: an acquire load (ck: the load, then ck_pr_fence_acquire), so what
 * the thread that released the word did is visible to what follows. */
static inline uint32_t rp_sync_load_u32(const uint32_t *target) {
    return __atomic_load_n(target, memory_order_acquire);
}
static inline void *rp_sync_load_ptr(void *const *target) {
    return __atomic_load_n(target, memory_order_acquire);
}
/* A store no other thread orders anything by: `owner` is compared with the
 * loading thread's own identity only, which only that thread ever stores. */
static inline void rp_sync_store_ptr_relaxed(void **target, void *value) {
    __atomic_store_n(target, value, memory_order_relaxed);
}
/* Leaving with a plain store: a release store (ck: ck_pr_fence_release, then
 * the store), paired with the acquire of the thread that looks next. */
static inline void rp_sync_store_u32_release(uint32_t *target, uint32_t value) {
    __atomic_store_n(target, value, memory_order_release);
}
/* Entering: the RMW (acquire, for what the thread that left last did), then
 * rp_sync_enter_fence (ck: ck_pr_fence_atomic_load and
 * ck_pr_fence_atomic_store), which pairs with the other side's entering
 * fence: each side's RMW comes before its load of the other's word. */
static inline uint32_t rp_sync_enter_faa_u32(uint32_t *target, uint32_t delta) {
    uint32_t previous = __atomic_fetch_add(target, delta, memory_order_acquire);
    rp_sync_enter_fence();
    return previous;
}
static inline bool rp_sync_enter_cas_u32(uint32_t *target, uint32_t expected, uint32_t desired) {
    bool swapped = __atomic_compare_exchange_n(target, &expected, desired, false, memory_order_acquire,
                                               memory_order_acquire);
    rp_sync_enter_fence();
    return swapped;
}
/* Leaving with an RMW: a release RMW (ck: ck_pr_fence_load_atomic and
 * ck_pr_fence_store_atomic, then the RMW): every earlier load and store of
 * the section before it, paired with the acquire of the thread that enters
 * or looks next. */
static inline bool rp_sync_leave_cas_u32(uint32_t *target, uint32_t expected, uint32_t desired) {
    return __atomic_compare_exchange_n(target, &expected, desired, false, memory_order_release,
                                       memory_order_relaxed);
}
static inline void rp_sync_leave_dec_u32(uint32_t *target) {
    (void)__atomic_fetch_sub(target, 1, memory_order_release);
}
/* The bias thread's side: a relaxed store, then (the compiler keeps the order,
 * the processor need not) a relaxed load. Pairs with heavy_barrier
 * (sections.c), as in the ck layer. */
static inline void rp_sync_bias_announce(uint32_t *target, uint32_t value) {
    __atomic_store_n(target, value, memory_order_relaxed);
    atomic_signal_fence(memory_order_seq_cst);
}
static inline uint32_t rp_sync_bias_load(const uint32_t *target) {
    return __atomic_load_n(target, memory_order_relaxed);
}

/* Lets the other hyperthread (or, under oversubscription, thread) progress:
 * ck_pr_stall's instruction where there is one. */
static inline void rp_sync_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__) || defined(__arm__)
    __asm__ __volatile__("yield" ::: "memory");
#else
    atomic_signal_fence(memory_order_seq_cst);
#endif
}

#elif defined(RP_SYNC_TSAN)

static inline uint32_t rp_sync_load_u32(const uint32_t *target) {
    return __atomic_load_n(target, __ATOMIC_SEQ_CST);
}
static inline void *rp_sync_load_ptr(void *const *target) {
    return __atomic_load_n(target, __ATOMIC_SEQ_CST);
}
static inline void rp_sync_store_ptr_relaxed(void **target, void *value) {
    __atomic_store_n(target, value, __ATOMIC_RELAXED);
}
static inline void rp_sync_store_u32_release(uint32_t *target, uint32_t value) {
    __atomic_store_n(target, value, __ATOMIC_SEQ_CST);
}
static inline uint32_t rp_sync_enter_faa_u32(uint32_t *target, uint32_t delta) {
    return __atomic_fetch_add(target, delta, __ATOMIC_SEQ_CST);
}
static inline bool rp_sync_enter_cas_u32(uint32_t *target, uint32_t expected, uint32_t desired) {
    return __atomic_compare_exchange_n(target, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}
static inline bool rp_sync_leave_cas_u32(uint32_t *target, uint32_t expected, uint32_t desired) {
    return __atomic_compare_exchange_n(target, &expected, desired, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}
static inline void rp_sync_leave_dec_u32(uint32_t *target) {
    __atomic_fetch_sub(target, 1, __ATOMIC_SEQ_CST);
}
/* The bias, symmetric: seq_cst on both sides gives the Dekker order in the
 * C11 model, which the sanitizer checks; no process-wide barrier is needed. */
static inline void rp_sync_bias_announce(uint32_t *target, uint32_t value) {
    __atomic_store_n(target, value, __ATOMIC_SEQ_CST);
}
static inline uint32_t rp_sync_bias_load(const uint32_t *target) {
    return __atomic_load_n(target, __ATOMIC_SEQ_CST);
}

#else

/* Looking: a load, then ck_pr_fence_acquire (earlier loads before later loads
 * and stores), so what the thread that released the word did is visible to
 * what follows. */
static inline uint32_t rp_sync_load_u32(const uint32_t *target) {
    uint32_t value = ck_pr_load_32(target);
    ck_pr_fence_acquire();
    return value;
}
static inline void *rp_sync_load_ptr(void *const *target) {
    void *value = ck_pr_load_ptr(target);
    ck_pr_fence_acquire();
    return value;
}
/* A store no other thread orders anything by: `owner` is compared with the
 * loading thread's own identity only, which only that thread ever stores. */
static inline void rp_sync_store_ptr_relaxed(void **target, void *value) {
    ck_pr_store_ptr(target, value);
}
/* Leaving with a plain store: ck_pr_fence_release (earlier loads and stores
 * before later stores), then the store. */
static inline void rp_sync_store_u32_release(uint32_t *target, uint32_t value) {
    ck_pr_fence_release();
    ck_pr_store_32(target, value);
}
/* Entering: the RMW, then ck_pr_fence_atomic_load (the RMW before every later
 * load: the store->load order) and ck_pr_fence_atomic_store (before every
 * later store: acquire for the section's writes). */
static inline uint32_t rp_sync_enter_faa_u32(uint32_t *target, uint32_t delta) {
    uint32_t previous = ck_pr_faa_32(target, delta);
    ck_pr_fence_atomic_load();
    ck_pr_fence_atomic_store();
    return previous;
}
static inline bool rp_sync_enter_cas_u32(uint32_t *target, uint32_t expected, uint32_t desired) {
    bool swapped = ck_pr_cas_32(target, expected, desired);
    ck_pr_fence_atomic_load();
    ck_pr_fence_atomic_store();
    return swapped;
}
/* Leaving with an RMW: ck_pr_fence_load_atomic and ck_pr_fence_store_atomic
 * (every earlier load and store before the RMW), then the RMW. Not
 * ck_pr_fence_atomic, which orders only earlier atomics: on aarch64 a plain
 * load of the section could then complete after another thread entered. */
static inline bool rp_sync_leave_cas_u32(uint32_t *target, uint32_t expected, uint32_t desired) {
    ck_pr_fence_load_atomic();
    ck_pr_fence_store_atomic();
    return ck_pr_cas_32(target, expected, desired);
}
static inline void rp_sync_leave_dec_u32(uint32_t *target) {
    ck_pr_fence_load_atomic();
    ck_pr_fence_store_atomic();
    ck_pr_dec_32(target);
}
/* The bias thread's side: a plain store, then (the compiler keeps the order,
 * the processor need not) a plain load. Pairs with heavy_barrier (sections.c). */
static inline void rp_sync_bias_announce(uint32_t *target, uint32_t value) {
    ck_pr_store_32(target, value);
    ck_pr_barrier();
}
static inline uint32_t rp_sync_bias_load(const uint32_t *target) {
    return ck_pr_load_32(target);
}

#endif

#if !defined(RP_SYNC_C11)
/* Lets the other hyperthread (or, under oversubscription, thread) progress. */
static inline void rp_sync_pause(void) {
    ck_pr_stall();
}
#endif

#endif
