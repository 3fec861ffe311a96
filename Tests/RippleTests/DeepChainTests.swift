import Testing
@_spi(Testing) import Ripple

/// A 10,000-deep chain of derivations is updated without recursion on the
/// machine stack: the update runs on a thread with a 512 KiB stack. The chain is
/// built and torn down on a thread with a large stack, because the first
/// evaluation of a chain and Swift's release of a long chain of closures both
/// nest one frame group per link.
@Suite struct DeepChainTests {
    static let depth = 10_000

    /// The chain, handed from one thread to the next. Only one thread uses it at
    /// a time: each `runOnThread` returns before the next one starts.
    final class Chain: @unchecked Sendable {
        let runtime = Runtime()
        var source: AtomObject<Int>?
        var links: [Derivation<Int>] = []
        var effect: Effect?
        let log = RunLog<Int>()
    }

    /// Builds `depth` derivations, each reading the one before, reading each as it
    /// is created so that no evaluation nests deeper than one link.
    static func build(_ chain: Chain, observed: Bool) async {
        await runOnThread(stackSize: StackSize.large) {
            withIsolatedRuntime(using: chain.runtime) {
                let source = atom(0, label: "source")
                chain.source = source
                var previous = derive(label: "link 1") { source.value + 1 }
                _ = previous.value
                chain.links.append(previous)
                for index in 2...depth {
                    let upstream = previous
                    previous = derive(label: "link \(index)") { upstream.value + 1 }
                    _ = previous.value
                    chain.links.append(previous)
                }
                if observed {
                    let tail = previous
                    let log = chain.log
                    chain.effect = Effect(label: "tail observer") { log.values.append(tail.value) }
                }
            }
        }
    }

    /// Drops every reference on a thread with a large stack and reports what the
    /// engine still holds.
    static func tearDown(_ chain: Chain) async -> (nodes: Int, edges: Int) {
        await runOnThread(stackSize: StackSize.large) {
            withIsolatedRuntime(using: chain.runtime) {
                chain.effect?.cancel()
                chain.effect = nil
                chain.links = []
                chain.source = nil
                return (chain.runtime.liveNodeCount, chain.runtime.liveEdgeCount)
            }
        }
    }

    @Test func observedChainUpdatesOnASmallStack() async {
        let chain = Chain()
        await Self.build(chain, observed: true)
        #expect(chain.log.values == [Self.depth])
        #expect(chain.runtime.liveNodeCount == Self.depth + 2)
        #expect(chain.runtime.liveEdgeCount == Self.depth + 1)

        let tail = await runOnThread(stackSize: StackSize.small) {
            withIsolatedRuntime(using: chain.runtime) {
                chain.source!.value = 5
                chain.source!.value = 6
                batch {
                    chain.source!.value = 7
                    chain.source!.value = 8
                }
                return chain.links.last!.value
            }
        }
        #expect(tail == Self.depth + 8)
        #expect(chain.log.values == [Self.depth, Self.depth + 5, Self.depth + 6, Self.depth + 8])

        let middle = await runOnThread(stackSize: StackSize.small) {
            withIsolatedRuntime(using: chain.runtime) { chain.links[Self.depth / 2 - 1].value }
        }
        #expect(middle == Self.depth / 2 + 8)

        let invariants = await runOnThread(stackSize: StackSize.large) { chain.runtime.checkInvariants() }
        #expect(invariants == nil)

        let remaining = await Self.tearDown(chain)
        #expect(remaining.nodes == 0)
        #expect(remaining.edges == 0)
    }

    @Test func unobservedChainPullsOnASmallStack() async {
        let chain = Chain()
        await Self.build(chain, observed: false)
        #expect(chain.runtime.liveNodeCount == Self.depth + 1)

        let values = await runOnThread(stackSize: StackSize.small) {
            withIsolatedRuntime(using: chain.runtime) {
                chain.source!.value = 3
                let afterFirstWrite = chain.links.last!.value
                chain.source!.value = 9
                let middle = chain.links[Self.depth / 2 - 1].value
                let tail = chain.links.last!.value
                return [afterFirstWrite, middle, tail]
            }
        }
        #expect(values == [Self.depth + 3, Self.depth / 2 + 9, Self.depth + 9])

        let remaining = await Self.tearDown(chain)
        #expect(remaining.nodes == 0)
        #expect(remaining.edges == 0)
    }

    @Test func effectCancelledOnAChainStopsFollowingIt() async {
        let chain = Chain()
        await Self.build(chain, observed: true)

        let tail = await runOnThread(stackSize: StackSize.large) {
            withIsolatedRuntime(using: chain.runtime) {
                chain.effect!.cancel()
                return chain.links.last!.value
            }
        }
        #expect(tail == Self.depth)

        let updated = await runOnThread(stackSize: StackSize.small) {
            withIsolatedRuntime(using: chain.runtime) {
                chain.source!.value = 1
                return chain.links.last!.value
            }
        }
        #expect(updated == Self.depth + 1)
        #expect(chain.log.values == [Self.depth])

        let remaining = await Self.tearDown(chain)
        #expect(remaining.nodes == 0)
        #expect(remaining.edges == 0)
    }
}
