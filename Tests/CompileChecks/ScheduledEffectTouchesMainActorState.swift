// An effect given its own scheduler runs wherever that scheduler puts it: its body is Sendable and cannot touch
// main-actor state (Effect(on: .mainActor) or a plain Effect created on the main actor can).
// expect-error: main actor-isolated property 'text' can not be mutated from a Sendable closure
import Ripple

@MainActor final class Label { var text = "" }

struct Immediately: EffectScheduler {
    func schedule(_ job: @escaping @Sendable () -> Void) { job() }
}

@MainActor func bind(_ label: Label, to count: AtomObject<Int>) -> Effect {
    Effect(on: Immediately()) { label.text = "\(count.value)" }
}
