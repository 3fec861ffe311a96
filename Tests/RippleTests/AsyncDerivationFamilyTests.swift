import Testing

@testable import Ripple

/// What the family's bodies wait on and record, one per runtime (a declared atom), so each test has its own.
private final class FamilyFixture: Sendable {
    /// A run for version `v` waits until `gates[v]` opens.
    let gates = [Gate<Void>(), Gate<Void>()]
    /// "key/version" for each run that read its version and waits at its gate.
    let started = AwaitableLog<String>()
    /// "key/version cancelled?" for each run that got past its gate.
    let finished = AwaitableLog<String>()
}

private let fixture = declare.atom(equals: { $0 === $1 }) { FamilyFixture() }
private let version = declare.atom { 0 }
private let scaled = declare.derivedFamily { (key: Int) async throws -> Int in
    let current = version.value
    let setup = untracked { fixture.value }
    setup.started.append("\(key)/\(current)")
    await setup.gates[current].wait()
    setup.finished.append("\(key)/\(current) \(Task.isCancelled ? "cancelled" : "current")")
    return key * 100 + current
}

private struct Missing: Error, Equatable { let key: String }
private let titles = declare.atom { ["a": "Alpha", "b": "Beta"] }
private let title = declare.derivedFamily { (key: String) async throws -> String in
    guard let title = titles.value[key] else { throw Missing(key: key) }
    return title
}

private let runCount = declare.atom(equals: { $0 === $1 }) { RunCount() }
private let counted = declare.derivedFamily { (key: Int) async -> Int in
    let runs = untracked { runCount.value }
    runs.increment()
    return key * 10 + runs.value
}

/// `declare.derivedFamily { (key: Key) async throws -> Value in ... }`: one `AsyncDerivation` per key, with
/// phases, stale-run cancellation, refresh and overrides, like a declared async derivation.
@Suite struct AsyncDerivationFamilyTests {
    @Test func eachKeyHasItsOwnAsyncDerivation() async throws {
        try await withIsolatedRuntime { () async throws in
            let alpha = title("a")
            #expect(alpha.phase == .suspending)
            #expect(try await alpha.value == "Alpha")
            #expect(title("a") === alpha)
            let beta = title("b")
            #expect(beta !== alpha)
            #expect(try await beta.value == "Beta")
            #expect(title.instanceCount == 2)
            let missing = title("c")
            await #expect(throws: Missing(key: "c")) { try await missing.value }
            #expect(missing.phase.error as? Missing == Missing(key: "c"))
            withExtendedLifetime((alpha, beta, missing)) {}
        }
    }

    @Test func aStaleRunIsCancelledAndOnlyTheCurrentRunsResultCounts() async {
        await withIsolatedRuntime { () async in
            let held = (fixture.node, version.node)
            let member = scaled(7)
            let phases = AwaitableLog<AsyncPhase<Int>>()
            let render = Effect { phases.append(member.phase) }
            await held.0.value.started.waitUntil(count: 1)  // the run for version 0 read it
            version.value = 1  // the run for version 0 is stale: cancelled, and a run for 1 starts
            held.0.value.gates[1].open()
            await phases.waitUntil(count: 2)
            held.0.value.gates[0].open()  // the stale run finishes last: its result is refused
            await held.0.value.finished.waitUntil(count: 2)
            #expect(held.0.value.started.values == ["7/0", "7/1"])
            #expect(held.0.value.finished.values == ["7/1 current", "7/0 cancelled"])
            #expect(phases.values == [.suspending, .success(701)])
            #expect(member.phase == .success(701))
            withExtendedLifetime((held, render)) {}
        }
    }

    @Test func refreshRunsAMemberAgainAndReturnsItsPhase() async throws {
        try await withIsolatedRuntime { () async throws in
            let runs = runCount.node
            #expect(await counted.refresh(1) == nil)  // no member: nothing refreshed, none created
            #expect(counted.instanceCount == 0)
            let one = counted(1)
            #expect(try await one.value == 11)
            let phase = await counted.refresh(1)
            #expect(phase == .success(12))
            #expect(runs.value.value == 2)
            withExtendedLifetime((runs, one)) {}
        }
    }

    @Test func overridesOfOneKeyAndOfTheWholeFamily() async throws {
        try await withIsolatedRuntime(overriding: title.overridden("a", with: "Fake")) { () async throws in
            #expect(try await title("a").value == "Fake")
            #expect(try await title("b").value == "Beta")
        }
        try await withIsolatedRuntime(overriding: title.overridden { key in "Title \(key)" }) { () async throws in
            #expect(try await title("a").value == "Title a")
            #expect(try await title("z").value == "Title z")
        }
    }
}
