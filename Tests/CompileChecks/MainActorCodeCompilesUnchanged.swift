// Main-actor code (a view model, the README's examples) keeps capturing and mutating its own state: its bodies
// are isolated to the main actor, and Ripple runs them there.
// expect-success
import Ripple

@MainActor final class CounterViewModel {
    var text = ""
    var renders = 0
    @Atom var count = 0
    private var bag: [Effect] = []

    func bind() {
        bag.append(Effect { self.text = "Count: \(self.count)"; self.renders += 1 })
    }
}

@MainActor func example() {
    withIsolatedRuntime {
        @Atom var x = 1
        @Atom var y = 2
        var result: Int?
        @Derived var sum = x + y
        let effect = Effect { result = sum }
        x = 10
        print(result ?? 0)
        _ = effect
    }
}
