// A derivation created outside any actor is computed on whichever thread reads it: its body must be Sendable.
// expect-error: capture of 'cache' with non-Sendable type 'Cache' in a '@Sendable' closure
import Ripple

final class Cache { var hits = 0 }

func cachedDouble(_ base: AtomObject<Int>) -> Derivation<Int> {
    let cache = Cache()
    return derive {
        cache.hits += 1
        return base.value * 2
    }
}
