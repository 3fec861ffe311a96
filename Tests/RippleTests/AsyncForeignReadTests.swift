import Testing

@testable import Ripple

/// A node of one runtime read inside an async derivation's body of another traps naming both runtimes, as inside a
/// synchronous body, whatever the node's runtime is doing (here: nothing, no async run of its own in flight).
@Suite struct AsyncForeignReadTests {
    /// In an exit test's child: makes a node in a runtime that stays idle (`makeForeign`), then reads it (`read`)
    /// after an `await` in an async derivation's body of another runtime, which traps.
    static func readAfterAnAwait<Node: Sendable>(
        _ makeForeign: () -> Node, reading read: @escaping @Sendable (Node) -> Int
    ) async {
        let foreign = withIsolatedRuntime(using: Runtime(), makeForeign)
        await withIsolatedRuntime { () async in
            let reader = derive(label: "reader") { () async -> Int in
                await Task.yield()
                return read(foreign)
            }
            _ = try? await reader.value
        }
    }

    /// Checks that the trap named the node `label` and two runtimes, its own first.
    static func expectTrapNamingBothRuntimes(_ result: ExitTest.Result?, node label: String) {
        let message = ErrorTrapTests.standardError(result)
        #expect(message.contains("node \(label) of Runtime(0x"), "\(message)")
        let names = message.matches(of: /Runtime\(0x[0-9a-f]+\)/).map { message[$0.range] }
        #expect(names.count >= 2 && names[0] != names[1], "\(message)")
    }

    @Test func anAtomOfAnIdleRuntimeReadInAnAsyncBodyTrapsNamingBothRuntimes() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            await AsyncForeignReadTests.readAfterAnAwait({ atom(1, label: "foreign-atom") }, reading: { $0.value })
        }
        Self.expectTrapNamingBothRuntimes(result, node: "foreign-atom")
    }

    @Test func aDerivationOfAnIdleRuntimeReadInAnAsyncBodyTrapsNamingBothRuntimes() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            await AsyncForeignReadTests.readAfterAnAwait(
                {
                    let source = atom(1)
                    return derive(label: "foreign-derivation") { source.value * 2 }
                }, reading: { $0.value })
        }
        Self.expectTrapNamingBothRuntimes(result, node: "foreign-derivation")
    }
}
