#include "ripple_object_lifetime.h"

#include <stddef.h>

/* From the Swift runtime (libswiftCore, linked into every Swift program):
 * returns `object` retained, or NULL when its deinit has begun. */
extern void *swift_tryRetain(void *object);

bool ripple_object_try_retain(void *object) {
    return swift_tryRetain(object) != NULL;
}
