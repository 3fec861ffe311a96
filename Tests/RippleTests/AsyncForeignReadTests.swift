import Testing

@testable import Ripple

/// A node of one runtime read inside an async derivation's body of another traps naming both runtimes, as inside a
/// synchronous body, whatever the node's runtime is doing (here: nothing, no async run of its own in flight).
@Suite struct AsyncForeignReadTests {
    /// The `Runtime(0x…)` names in a trap message, in order.
    static func runtimeNames(in message: String) -> [Substring] {
        message.matches(of: /Runtime\(0x[0-9a-f]+\)/).map { message[$0.range] }
    }

    @Test func anAtomOfAnIdleRuntimeReadInAnAsyncBodyTrapsNamingBothRuntimes() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let foreign = withIsolatedRuntime(using: Runtime()) { atom(1, label: "foreign-atom") }
            await withIsolatedRuntime { () async in
                let reader = derive(label: "reader") { () async -> Int in
                    await Task.yield()
                    return foreign.value
                }
                _ = try? await reader.value
            }
        }
        let message = ErrorTrapTests.standardError(result)
        #expect(message.contains("node foreign-atom of Runtime(0x"), "\(message)")
        let names = Self.runtimeNames(in: message)
        #expect(names.count >= 2 && names[0] != names[1], "\(message)")
    }

    @Test func aDerivationOfAnIdleRuntimeReadInAnAsyncBodyTrapsNamingBothRuntimes() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let foreign = withIsolatedRuntime(using: Runtime()) {
                let source = atom(1)
                return derive(label: "foreign-derivation") { source.value * 2 }
            }
            await withIsolatedRuntime { () async in
                let reader = derive(label: "reader") { () async -> Int in
                    await Task.yield()
                    return foreign.value
                }
                _ = try? await reader.value
            }
        }
        let message = ErrorTrapTests.standardError(result)
        #expect(message.contains("node foreign-derivation of Runtime(0x"), "\(message)")
        let names = Self.runtimeNames(in: message)
        #expect(names.count >= 2 && names[0] != names[1], "\(message)")
    }
}
