import Testing

@testable import Ripple

private struct Offline: Error, Equatable {}

private let attempts = declare.atom { 0 }
private let flaky = declare.derived { () async throws -> Int in
    let attempt = untracked { attempts.value }
    if attempt == 0 { throw Offline() }
    return attempt * 10
}

/// `refresh()` returns the phase its run produced, so a caller reads the result where it asked for it.
@Suite struct AsyncRefreshResultTests {
    @Test func refreshReturnsTheSuccessOfTheNewRun() async throws {
        try await withIsolatedRuntime { () async throws in
            let runs = RunCount()
            let number = derive { () async -> Int in
                runs.increment()
                return runs.value * 100
            }
            #expect(try await number.value == 100)
            let phase = await number.refresh()
            #expect(phase == .success(200))
            #expect(runs.value == 2)
            #expect(number.phase == .success(200))
        }
    }

    @Test func refreshReturnsTheFailureOfTheNewRun() async throws {
        try await withIsolatedRuntime { () async throws in
            let fails = atom(false)
            let number = derive { () async throws -> Int in
                if untracked({ fails.value }) { throw Offline() }
                return 1
            }
            #expect(try await number.value == 1)
            fails.value = true
            let phase = await number.refresh()
            #expect(phase.error as? Offline == Offline())
            #expect(phase.value == nil)
            #expect(number.lastValue == 1)
        }
    }

    @Test func aDeclaredRefreshReturnsNilWithoutAnInstanceAndThePhaseWithOne() async throws {
        try await withIsolatedRuntime { () async throws in
            #expect(await flaky.refresh() == nil)
            #expect(flaky.existingNode == nil)
            let node = flaky.node
            let heldAttempts = attempts.node
            await #expect(throws: Offline.self) { try await node.value }
            attempts.value = 4
            let phase = await flaky.refresh()
            #expect(phase == .success(40))
            withExtendedLifetime((node, heldAttempts)) {}
        }
    }
}
