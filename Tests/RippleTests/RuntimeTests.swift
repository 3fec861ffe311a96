import Testing
@_spi(Testing) import Ripple

/// A runtime is one graph; nodes belong to the runtime that was current when
/// they were created, whichever runtime is current when they are used later.
@Suite @MainActor struct RuntimeTests {
    @Test func nodesBelongToTheRuntimeCurrentAtCreation() {
        let home = Runtime()
        let away = Runtime()
        let (count, doubled) = withIsolatedRuntime(using: home) {
            let count = atom(1)
            return (count, derive { count.value * 2 })
        }
        withIsolatedRuntime(using: away) {
            #expect(count.runtime === home)
            #expect(doubled.runtime === home)
            #expect(doubled.value == 2)
            #expect(away.liveNodeCount == 0)
        }
        #expect(home.liveNodeCount == 2)
    }

    /// `Runtime.current` reads the task-local binding itself: the innermost binding wins, whoever made it, child
    /// tasks inherit it, a detached task does not, and without one it is the shared runtime.
    @Test func currentIsTheInnermostTaskLocalBinding() async {
        let outer = Runtime()
        let inner = Runtime()
        #expect(Runtime.current === Runtime.shared)
        await withIsolatedRuntime(using: outer) { () async in
            #expect(Runtime.current === outer)
            #expect(atom(1).runtime === outer)
            RippleContext.$runtimeOverride.withValue(inner) {
                #expect(Runtime.current === inner)
                #expect(derive { 2 }.runtime === inner)
            }
            #expect(Runtime.current === outer)
            let inherited = await Task { Runtime.current === outer }.value
            #expect(inherited)
            let detached = await Task.detached { Runtime.current === Runtime.shared }.value
            #expect(detached)
            RippleContext.$runtimeOverride.withValue(nil) {
                #expect(Runtime.current === Runtime.shared)
            }
        }
        #expect(outer.liveNodeCount == 0)
        #expect(inner.liveNodeCount == 0)
    }

    @Test func writeMadeWhileAnotherRuntimeIsCurrentReachesTheNodesOwnRuntime() {
        let home = Runtime()
        let away = Runtime()
        withIsolatedRuntime(using: home) {
            let count = atom(0)
            var seen: [Int] = []
            let effect = Effect { seen.append(count.value) }
            withIsolatedRuntime(using: away) {
                count.value = 1
            }
            #expect(seen == [0, 1])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func batchesOfOneRuntimeDoNotDeferAnothersEffects() {
        let first = Runtime()
        let second = Runtime()
        withIsolatedRuntime(using: first) {
            let a = atom(0)
            var seenA: [Int] = []
            let effectA = Effect { seenA.append(a.value) }
            let (b, effectB, seenB) = withIsolatedRuntime(using: second) {
                let b = atom(0)
                let log = RunLog<Int>()
                let effect = Effect { log.values.append(b.value) }
                return (b, effect, log)
            }
            first.batch {
                a.value = 1
                b.value = 1
                #expect(seenB.values == [0, 1])
                #expect(seenA == [0])
            }
            #expect(seenA == [0, 1])
            withExtendedLifetime((effectA, effectB)) {}
        }
    }

    @Test func runtimesOnSeparateThreadsRunIndependently() async {
        let results = await withTaskGroup(of: [Int].self) { group in
            for base in 1...4 {
                group.addTask {
                    await runOnThread(stackSize: StackSize.small) {
                        withIsolatedRuntime {
                            let a = atom(0)
                            let scaled = derive { a.value * base }
                            let seen = Recorder<Int>()
                            let effect = Effect { seen.append(scaled.value) }
                            for value in 1...200 {
                                a.value = value
                            }
                            withExtendedLifetime(effect) {}
                            return seen.values
                        }
                    }
                }
            }
            var all: [[Int]] = []
            for await seen in group {
                all.append(seen)
            }
            return all
        }
        let expected = (1...4).map { base in (0...200).map { $0 * base } }
        #expect(results.sorted { $0[1] < $1[1] } == expected)
    }

    @Test func effectMayRunExactlyTheSettleBoundTimesInOneFlush() {
        withIsolatedRuntime(using: Runtime(settleBound: 3)) {
            let a = atom(10)
            var seen: [Int] = []
            let effect = Effect {
                let value = a.value
                seen.append(value)
                if value < 3 {
                    a.value = value + 1
                }
            }
            // One write, then three runs in its flush: 1, 2, 3.
            a.value = 1
            #expect(seen == [10, 1, 2, 3])
            withExtendedLifetime(effect) {}
        }
    }
}
