// An effect created outside any actor may run on any thread that writes what it read, so its body must be
// Sendable: capturing a non-Sendable object is rejected.
// expect-error: capture of 'tally' with non-Sendable type 'Tally' in a '@Sendable' closure
import Ripple

final class Tally { var count = 0 }

func track() -> Effect {
    let count = atom(0)
    let tally = Tally()
    return Effect { tally.count = count.value }
}
