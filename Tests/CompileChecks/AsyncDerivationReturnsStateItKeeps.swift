// An async body hands its result to the derivation's readers on other threads: it must return a value nothing else
// holds (`sending`), not one its actor keeps.
// expect-error: returning main actor-isolated 'self.current' as a 'sending' result risks causing data races
import Ripple

final class Profile { var name = "" }

@MainActor
final class ProfileCache {
    let current = Profile()

    func profile(id: AtomObject<Int>) -> AsyncDerivation<Profile> {
        derive { () async -> Profile in
            _ = id.value
            return self.current
        }
    }
}
