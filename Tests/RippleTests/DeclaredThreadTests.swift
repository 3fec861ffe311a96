import Dispatch
import Testing

@testable import Ripple

private let racedCreations = RunCount()
private let raced = declare.atom(lifecycle: Lifecycle(initialized: { racedCreations.increment() })) { 5 }
private let racedTwice = declare.derived { raced.value * 2 }
private let racedMember = declare.atomFamily { (key: Int) in key }
private let steady = declare.atom { 5 }
private let steadyTwice = declare.derived { steady.value * 2 }
private let churned = declare.atom { 5 }
private let churnedPlusOne = declare.derived { churned.value + 1 }

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
        writersAndReaders(threads: threads, in: runtime) { writes, round in
            let key = round % 7
            if writes {
                let held = racedMember(key)  // created, written, reset, released as `held` goes
                held.value = key + 1_000
                #expect(held.value == key + 1_000 || held.value == key)
                racedMember.reset(key)  // a written member is kept until then
            } else {
                let value = racedMember(key).value
                #expect(value == key || value == key + 1_000)
                #expect(steadyTwice.value == 10)
            }
        }
        #expect(withIsolatedRuntime(using: runtime) { racedMember.instanceCount } == 0)
        #expect(runtime.declaredInstanceCount == 0)
    }

    /// The lock-free slot look-up of a read inside a body, against instances installed, written and taken out
    /// by other threads: a body sees the default or the write, never another instance's node or a freed one.
    @Test(arguments: [2, 4, 8])
    func readsInBodiesRaceWithInstancesComingAndGoing(threads: Int) {
        let runtime = Runtime()
        writersAndReaders(threads: threads, in: runtime) { writes, _ in
            if writes {
                let held = churned.node  // found or created, written, reset, released as `held` goes
                held.value = 1_000
                churned.reset()  // a written instance is kept until then
            } else {
                let body = derive { churned.value }
                let value = body.value
                #expect(value == 5 || value == 1_000)
                let plusOne = churnedPlusOne.value
                #expect(plusOne == 6 || plusOne == 1_001)
            }
        }
        #expect(runtime.declaredInstanceCount == 0)
    }

    /// Reads inside a body while another thread installs instances of new declarations, which grows the runtime's
    /// table by copy: a reader that loaded the old array still finds the instance there.
    @Test func readsInBodiesRaceWithTheTableGrowing() {
        let runtime = Runtime()
        let many = (0..<2_000).map { index in declare.atom { index } }
        withIsolatedRuntime(using: runtime) {
            let held = churned.node
            let tripled = derive { churned.value * 3 }
            DispatchQueue.concurrentPerform(iterations: 2) { thread in
                withIsolatedRuntime(using: runtime) {
                    if thread == 0 {
                        let nodes = many.map(\.node)  // installed one by one: the table grows several times
                        #expect(nodes.enumerated().allSatisfy { $0.element.value == $0.offset })
                        #expect(runtime.declaredInstanceCount == 2_001)
                    } else {
                        for _ in 0..<2_000 {
                            tripled.refresh()
                            #expect(tripled.value == 15)
                        }
                    }
                }
            }
            #expect(runtime.declaredInstanceCount == 1)  // the others went with `nodes`
            withExtendedLifetime(held) {}
        }
    }
}

/// Runs 500 rounds on each of `threads` threads at once, all in `runtime`: `round(writes, index)`, where `writes` is
/// true on the even-numbered threads (the writers) and false on the others (the readers).
private func writersAndReaders(
    threads: Int, in runtime: Runtime, _ round: @Sendable (_ writes: Bool, _ index: Int) -> Void
) {
    DispatchQueue.concurrentPerform(iterations: threads) { thread in
        withIsolatedRuntime(using: runtime) {
            for index in 0..<500 { round(thread % 2 == 0, index) }
        }
    }
}
