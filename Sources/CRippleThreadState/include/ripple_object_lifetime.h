/*
 * ripple_object_lifetime.h: the Swift module's way to tell whether a node
 * object's deinit has begun, from an engine callback on another thread.
 *
 * Internal to the Swift module: not part of Ripple's C API (include/ripple.h)
 * and never installed. The standard library has no "retain unless it is being
 * deinitialized"; the Swift runtime has it (swift_tryRetain, which weak
 * references use), and Swift 6.3 refuses to name runtime symbols from Swift,
 * so this C function forwards to it.
 */
#ifndef RIPPLE_OBJECT_LIFETIME_H
#define RIPPLE_OBJECT_LIFETIME_H

#include <stdbool.h>

/* Takes a strong reference to the native Swift object `object` and returns
 * true, or returns false (taking none) once the object's deinit has begun. */
bool ripple_object_try_retain(void *object);

#endif
