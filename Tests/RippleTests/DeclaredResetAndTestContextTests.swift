import Testing

@testable import Ripple

private let seed = declare.atom { 1 }
private let draft = declare.atom { "draft \(seed.value)" }
private let reads = RunCount()
private let snapshot = declare.derived { () -> Int in
    reads.increment()
    return seed.value
}
private let perKey = declare.atomFamily { (key: Int) in key * 10 }
private let clicks = declare.atom { 0 }
private let clicksTimesTwo = declare.derived { clicks.value * 2 }

/// Reset of declared atoms (to their default, evaluated again) and refresh of declared derivations, and the test
/// context on declarations: recording every change, waiting for a condition.
@Suite struct DeclaredResetAndTestContextTests {
    @Test func resetEvaluatesTheDefaultAgain() {
        withIsolatedRuntime {
            let held = draft.node
            let seedHeld = seed.node
            held.value = "edited"
            seedHeld.value = 2
            #expect(held.value == "edited")
            draft.reset()
            #expect(held.value == "draft 2")
        }
    }

    @Test func resetUsesTheRuntimesOverride() {
        withIsolatedRuntime(overriding: draft.overridden { "fake" }) {
            let held = draft.node
            held.value = "edited"
            draft.reset()
            #expect(held.value == "fake")
        }
    }

    @Test func resetOfAFamilyMemberAndOfNothing() {
        withIsolatedRuntime {
            let held = perKey(3)
            held.value = 1
            perKey.reset(3)
            #expect(held.value == 30)
            perKey.reset(4)  // no member: nothing created
            #expect(perKey.existingNode(for: 4) == nil)
            seed.reset()
            #expect(seed.existingNode == nil)
        }
    }

    @Test func refreshRecomputesADerivationWhoseInputsDidNotChange() {
        withIsolatedRuntime {
            let log = RunLog<Int>()
            let show = Effect { log.values.append(snapshot.value) }
            let before = reads.value
            snapshot.refresh()
            #expect(reads.value == before + 1)
            #expect(log.values == [1])  // an equal value: the effect does not run again
            _ = show
        }
    }

    @Test func recordingADeclarationMissesNoIntermediateValue() async throws {
        try await withIsolatedRuntime { () async throws in
            let changes = clicks.recordChanges()
            let doubled = clicksTimesTwo.recordChanges()
            clicks.value = 1
            clicks.value = 2
            clicks.value = 3
            #expect(try await changes.next() == 1)
            #expect(try await changes.next() == 2)
            #expect(try await changes.next() == 3)
            #expect(try await doubled.next() == 2)
            #expect(try await doubled.next() == 4)
            #expect(try await doubled.next() == 6)
        }
    }

    @Test func waitingUntilADeclarationSatisfiesACondition() async throws {
        try await withIsolatedRuntime { () async throws in
            let held = clicks.node
            let runtime = Runtime.current
            let writer = Task.detached {
                withIsolatedRuntime(using: runtime) {
                    for _ in 0..<5 { held.update { $0 += 1 } }
                }
            }
            try await waitUntil { clicksTimesTwo.value == 10 }
            #expect(held.value == 5)
            await writer.value
        }
    }
}
