/*
 * ripple_object_lifetime.h: the Swift module's way to tell whether a node
 * object's deinit has begun, from an engine callback on another thread.
 *
 * Internal to the Swift module: not part of Ripple's C API (include/ripple.h)
 * and never installed. The standard library has no "retain unless it is being
 * deinitialized"; the Swift runtime has it (swift_tryRetain, which weak
 * references use), and Swift 6.3 refuses to name runtime symbols from Swift,
 * so this header reaches it from C.
 *
 * The common case, an object without a side table, is done inline here: one
 * compare-and-swap on the object's reference count word, where a call to
 * swift_tryRetain and one to swift_release cost about 25 instructions each
 * (an effect's run takes and drops a reference every time). The word is the
 * second of every native Swift object (HeapObject: metadata, then
 * InlineRefCounts), laid out on 64-bit targets as the Swift runtime's
 * RefCount.h (RefCountBitOffsets<8>) defines it, unchanged since Swift 5 but
 * private to the runtime (no ABI guarantee names it: hence the check below):
 *
 *   bit 0       PureSwiftDealloc
 *   bits 1-31   unowned reference count
 *   bit 32      IsDeiniting: the strong count reached zero, the deinit runs
 *   bits 33-62  strong reference count minus one ("extra")
 *   bit 63      UseSlowRC: the word points to a side table (the object has
 *               weak references), or the object is immortal
 *
 * The inline paths handle only a word with UseSlowRC clear and change only the
 * strong count, with the same atomic operations as the runtime's own fast
 * paths (RefCounts::tryIncrement, RefCounts::doDecrement): a compare-and-swap
 * that fails when any other thread changed the word meanwhile, so an inline
 * step and the runtime's steps on the same object are ordered by the word
 * itself. Everything else (a side table, a count that would overflow into
 * bit 63, a release that would reach zero and must run the deinit) goes to the
 * runtime's functions. Other targets always call them.
 *
 * The layout is private to the runtime, which ships with the OS on Apple
 * platforms and may change there: a wrong guess would corrupt memory instead
 * of failing. So the inline paths are used only once a start-up check has
 * seen this process's runtime lay the word out as above
 * (ripple_object_layout_check_alive and ..._deiniting on a probe object,
 * run once per process by the first Runtime: ObjectLayoutCheck.swift), and
 * never when RIPPLE_NO_INLINE_REFCOUNT is set in the environment. Until then,
 * and when the check fails, every step calls the runtime.
 */
#ifndef RIPPLE_OBJECT_LIFETIME_H
#define RIPPLE_OBJECT_LIFETIME_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

/* From the Swift runtime (libswiftCore, linked into every Swift program):
 * exported entry points of the runtime (SWIFT_RUNTIME_EXPORT in its
 * HeapObject.h / RuntimeFunctions), whose names and C signatures are part of
 * the stable ABI on Apple platforms since Swift 5.0: swift_retain and
 * swift_release are called by every compiled Swift program, swift_retainCount
 * by the standard library's _getRetainCount, which is emitted into its
 * callers (@_alwaysEmitIntoClient), and swift_tryRetain is exported beside
 * them in the same stable dylib. swift_tryRetain returns `object` retained,
 * or NULL when its deinit has begun; swift_release drops a strong reference,
 * running the deinit at zero; swift_retainCount is the strong count. */
extern void *swift_tryRetain(void *object);
extern void *swift_retain(void *object);
extern void swift_release(void *object);
extern size_t swift_retainCount(void *object);

/* What the start-up check found: RIPPLE_OBJECT_LAYOUT_UNCHECKED until it
 * runs, then INLINE (the inline paths are used) or RUNTIME (never). Written
 * once by ripple_object_layout_publish; read relaxed, since either answer is
 * safe to act on: the runtime's functions are always right, and INLINE is
 * stored only after the check passed. */
enum {
    RIPPLE_OBJECT_LAYOUT_UNCHECKED = 0,
    RIPPLE_OBJECT_LAYOUT_INLINE = 1,
    RIPPLE_OBJECT_LAYOUT_RUNTIME = 2,
};
extern int ripple_object_layout;

static inline int ripple_object_layout_state(void) {
    return __atomic_load_n(&ripple_object_layout, __ATOMIC_RELAXED);
}

/* Whether RIPPLE_NO_INLINE_REFCOUNT (anything but "" or "0") forces the
 * runtime's functions. */
bool ripple_object_layout_forced_off(void);

/* The check, on `probe`: a native Swift object of a class without weak
 * references, held once by the caller. Alive: its word has neither flag set,
 * the strong count the runtime reports is the word's extra count plus one,
 * swift_retain and swift_release move the word by exactly one strong
 * reference each way, and so do the inline steps, as swift_retainCount sees
 * them. False at the first mismatch (the probe then leaks rather than risk a
 * wrong release). */
bool ripple_object_layout_check_alive(void *probe);
/* Called from the probe's deinit: IsDeiniting is set, UseSlowRC is not, and
 * both swift_tryRetain and the inline try-retain refuse it. */
bool ripple_object_layout_check_deiniting(void *probe);
/* Stores the outcome (INLINE when `verified`, RUNTIME otherwise). */
void ripple_object_layout_publish(bool verified);

#if (defined(__x86_64__) || defined(__aarch64__)) && __SIZEOF_POINTER__ == 8
#define RIPPLE_OBJECT_INLINE_REFCOUNT 1
#define RIPPLE_RC_IS_DEINITING (UINT64_C(1) << 32)
#define RIPPLE_RC_STRONG_SHIFT 33
#define RIPPLE_RC_STRONG_ONE (UINT64_C(1) << RIPPLE_RC_STRONG_SHIFT)
#define RIPPLE_RC_STRONG_MASK (UINT64_C(0x3FFFFFFF) << RIPPLE_RC_STRONG_SHIFT)
#define RIPPLE_RC_USE_SLOW_RC (UINT64_C(1) << 63)

/* The reference count word of the native Swift object `object`. */
static inline uint64_t *ripple_object_refcount(void *object) {
    return (uint64_t *)object + 1;
}

/* The inline try-retain: 1 (a strong reference taken), 0 (deinit begun, none
 * taken) or -1 (not handled here: ask the runtime). */
static inline int ripple_object_try_retain_inline(void *object) {
    uint64_t *word = ripple_object_refcount(object);
    uint64_t old = __atomic_load_n(word, __ATOMIC_RELAXED);
    /* Deiniting: no reference (the runtime's answer too, without a side
     * table). Relaxed, as the runtime's tryIncrement: taking a reference
     * orders nothing; dropping it does (below). */
    if ((old & (RIPPLE_RC_IS_DEINITING | RIPPLE_RC_USE_SLOW_RC)) == RIPPLE_RC_IS_DEINITING) return 0;
    uint64_t next = old + RIPPLE_RC_STRONG_ONE;
    /* A carry out of the strong count lands in bit 63: the runtime moves such
     * a count to a side table. */
    if (((old | next) & RIPPLE_RC_USE_SLOW_RC) == 0 &&
        __atomic_compare_exchange_n(word, &old, next, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
        return 1;
    }
    return -1;
}

/* The inline release: true when done, false when the runtime must do it. */
static inline bool ripple_object_release_inline(void *object) {
    uint64_t *word = ripple_object_refcount(object);
    uint64_t old = __atomic_load_n(word, __ATOMIC_RELAXED);
    /* Release ordering, as the runtime's decrement: this thread's writes to the
     * object happen before the deinit that another thread's last release runs
     * (the runtime fences with acquire before it deinitializes). */
    return (old & RIPPLE_RC_USE_SLOW_RC) == 0 && (old & RIPPLE_RC_STRONG_MASK) != 0 &&
           __atomic_compare_exchange_n(word, &old, old - RIPPLE_RC_STRONG_ONE, false, __ATOMIC_RELEASE,
                                       __ATOMIC_RELAXED);
}
#endif

/* Takes a strong reference to the native Swift object `object` and returns
 * true, or returns false (taking none) once the object's deinit has begun. */
static inline bool ripple_object_try_retain(void *object) {
#ifdef RIPPLE_OBJECT_INLINE_REFCOUNT
    if (ripple_object_layout_state() == RIPPLE_OBJECT_LAYOUT_INLINE) {
        int outcome = ripple_object_try_retain_inline(object);
        if (outcome >= 0) return outcome == 1;
    }
#endif
    return swift_tryRetain(object) != NULL;
}

/* Drops a strong reference to the native Swift object `object` taken by
 * ripple_object_try_retain; at zero, the runtime runs its deinit. */
static inline void ripple_object_release(void *object) {
#ifdef RIPPLE_OBJECT_INLINE_REFCOUNT
    if (ripple_object_layout_state() == RIPPLE_OBJECT_LAYOUT_INLINE && ripple_object_release_inline(object)) return;
#endif
    swift_release(object);
}

#endif
