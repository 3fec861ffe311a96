// The same for a local variable: another thread's write would run the body while this function still uses it.
// expect-error: mutation of captured var 'runs' in concurrently-executing code
import Ripple

func countRuns() -> Effect {
    let count = atom(0)
    var runs = 0
    let effect = Effect { _ = count.value; runs += 1 }
    print(runs)
    return effect
}
