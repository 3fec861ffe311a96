import Dispatch
import Testing

@testable import Ripple

private let racedCreations = RunCount()
private let raced = declare.atom(lifecycle: Lifecycle(initialized: { racedCreations.increment() })) { 5 }
private let racedTwice = declare.derived { raced.value * 2 }
private let racedMember = declare.atomFamily { (key: Int) in key }
private let steady = declare.atom { 5 }
private let steadyTwice = declare.derived { steady.value * 2 }

/// Declarations used from many threads at once in one runtime: the first uses race to create one instance, and
/// lock-free reads race with releases (run under TSan by scripts/test). Serialized, and the second test reads
/// declarations of its own: `racedCreations` counts the creations of `raced` in every runtime of the process.
@Suite(.serialized) struct DeclaredThreadTests {
    @Test(arguments: [1, 2, 4, 8])
    func threadsRacingForTheFirstUseShareOneInstance(threads: Int) {
        let runtime = Runtime()
        let before = racedCreations.value
        let nodes = Recorder<ObjectIdentifier>()
        withIsolatedRuntime(using: runtime) {
            let effect = Effect { _ = racedTwice.value }  // keeps the instance once created
            DispatchQueue.concurrentPerform(iterations: threads) { _ in
                withIsolatedRuntime(using: runtime) {
                    let node = raced.node
                    nodes.append(ObjectIdentifier(node))
                    #expect(racedTwice.value == 10)
                }
            }
            #expect(nodes.values.count == threads)
            #expect(Set(nodes.values).count == 1)
            #expect(racedCreations.value == before + 1)
            _ = effect
        }
    }

    @Test(arguments: [2, 4, 8])
    func readsRaceWithReleasesAndSeeOnlyDefaultsOrWrites(threads: Int) {
        let runtime = Runtime()
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            withIsolatedRuntime(using: runtime) {
                for round in 0..<500 {
                    let key = round % 7
                    if thread % 2 == 0 {
                        let held = racedMember(key)  // created, written, released as `held` goes
                        held.value = key + 1_000
                        #expect(held.value == key + 1_000 || held.value == key)
                    } else {
                        let value = racedMember(key).value
                        #expect(value == key || value == key + 1_000)
                        #expect(steadyTwice.value == 10)
                    }
                }
            }
        }
        #expect(withIsolatedRuntime(using: runtime) { racedMember.instanceCount } == 0)
        #expect(runtime.declaredInstanceCount == 0)
    }
}

