/*
 * object_lifetime.c: the start-up check of ripple_object_lifetime.h's inline
 * reference counting, and the switch it sets.
 */
#include "ripple_object_lifetime.h"

#include <stdlib.h>
#include <string.h>

int ripple_object_layout = RIPPLE_OBJECT_LAYOUT_UNCHECKED;

bool ripple_object_layout_forced_off(void) {
    const char *value = getenv("RIPPLE_NO_INLINE_REFCOUNT");
    return value != NULL && value[0] != '\0' && strcmp(value, "0") != 0;
}

#ifdef RIPPLE_OBJECT_INLINE_REFCOUNT
static uint64_t load_word(void *object) {
    return __atomic_load_n(ripple_object_refcount(object), __ATOMIC_RELAXED);
}
#endif

bool ripple_object_layout_check_alive(void *probe) {
#ifdef RIPPLE_OBJECT_INLINE_REFCOUNT
    uint64_t before = load_word(probe);
    if ((before & (RIPPLE_RC_IS_DEINITING | RIPPLE_RC_USE_SLOW_RC)) != 0) return false;
    size_t count = swift_retainCount(probe);
    if (((before & RIPPLE_RC_STRONG_MASK) >> RIPPLE_RC_STRONG_SHIFT) + 1 != count) return false;
    /* The runtime's own steps, one strong reference each way. */
    swift_retain(probe);
    if (load_word(probe) != before + RIPPLE_RC_STRONG_ONE) return false;
    swift_release(probe);
    if (load_word(probe) != before) return false;
    /* The inline steps, which the runtime must count as its own. */
    if (ripple_object_try_retain_inline(probe) != 1) return false;
    if (load_word(probe) != before + RIPPLE_RC_STRONG_ONE || swift_retainCount(probe) != count + 1) return false;
    if (!ripple_object_release_inline(probe)) return false;
    return load_word(probe) == before && swift_retainCount(probe) == count;
#else
    (void)probe;
    return false;
#endif
}

bool ripple_object_layout_check_deiniting(void *probe) {
#ifdef RIPPLE_OBJECT_INLINE_REFCOUNT
    uint64_t word = load_word(probe);
    return (word & (RIPPLE_RC_IS_DEINITING | RIPPLE_RC_USE_SLOW_RC)) == RIPPLE_RC_IS_DEINITING &&
           swift_tryRetain(probe) == NULL && ripple_object_try_retain_inline(probe) == 0;
#else
    (void)probe;
    return false;
#endif
}

void ripple_object_layout_publish(bool verified) {
    __atomic_store_n(&ripple_object_layout, verified ? RIPPLE_OBJECT_LAYOUT_INLINE : RIPPLE_OBJECT_LAYOUT_RUNTIME,
                     __ATOMIC_RELAXED);
}
