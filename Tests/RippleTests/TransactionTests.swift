import Foundation
import Testing
import Ripple

private let transactionHookEvents = Recorder<String>()
private let transactionWatched = declare.atom(
    lifecycle: Lifecycle(updated: { old, new in transactionHookEvents.append("updated \(old) → \(new)") })
) { 0 }

/// `transaction { }`: a body that returns commits like `batch`; one that throws leaves no trace (values, effects,
/// change log, other threads); nested transactions roll back to their own start.
@Suite(.serialized) struct TransactionTests {
    struct Refused: Error {}

    @Test func aReturningTransactionCommitsLikeABatchAndReportsItsChangesInWriteOrder() {
        withIsolatedRuntime {
            let x = atom(1, label: "x")
            let y = atom(2, label: "y")
            let events = Recorder<String>()
            let effect = Effect { events.append("effect \(x.value + y.value)") }
            let hook = Runtime.current.onChange { events.append($0.description) }
            let sum = transaction {
                x.value = 10
                y.value = 20
                x.value = 11
                events.append("body ends")
                return x.value + y.value
            }
            #expect(sum == 31)
            #expect(events.values == [
                "effect 3", "body ends", "x: 1 → 10", "y: 2 → 20", "x: 10 → 11", "effect 31",
            ])
            withExtendedLifetime((effect, hook)) {}
        }
    }

    @Test func aThrowingTransactionRollsBackEveryWriteRunsNoEffectAndLogsNothing() {
        withIsolatedRuntime {
            let x = atom(1, label: "x")
            let y = atom("a", label: "y")
            let effectRuns = RunCount()
            let effect = Effect {
                _ = (x.value, y.value)
                effectRuns.increment()
            }
            let changes = Recorder<String>()
            let hook = Runtime.current.onChange { changes.append($0.description) }
            #expect(throws: Refused.self) {
                try transaction {
                    x.value = 2
                    y.value = "b"
                    x.value = 3
                    throw Refused()
                }
            }
            #expect(x.value == 1)
            #expect(y.value == "a")
            #expect(effectRuns.value == 1)  // its first run only
            #expect(changes.values.isEmpty)
            x.value = 5
            #expect(effectRuns.value == 2)
            #expect(changes.values == ["x: 1 → 5"])
            withExtendedLifetime((effect, hook)) {}
        }
    }

    @Test func aDerivationReadAfterTheThrowShowsTheOldValues() {
        withIsolatedRuntime {
            let price = atom(5)
            let quantity = atom(2)
            let computes = RunCount()
            let total = derive {
                computes.increment()
                return price.value * quantity.value
            }
            #expect(total.value == 10)
            let seen: [Int] = batch {
                var seen: [Int] = []
                do {
                    try transaction {
                        price.value = 7
                        seen.append(total.value)  // inside: the new values
                        throw Refused()
                    }
                } catch {}
                seen.append(total.value)  // after the throw: the old ones
                return seen
            }
            #expect(seen == [14, 10])
            // Once before, once inside; after the throw its value from before came back without a recompute.
            #expect(computes.value == 2)
        }
    }

    @Test func aNestedTransactionThatThrowsRollsBackToItsSavepointOnly() {
        withIsolatedRuntime {
            let a = atom(0, label: "a")
            let b = atom(0, label: "b")
            let changes = Recorder<String>()
            let hook = Runtime.current.onChange { changes.append($0.description) }
            transaction {
                a.value = 1
                do {
                    try transaction {
                        a.value = 2
                        b.value = 2
                        throw Refused()
                    }
                } catch {}
                #expect(a.value == 1)
                #expect(b.value == 0)
                b.value = 3
            }
            #expect(a.value == 1)
            #expect(b.value == 3)
            #expect(changes.values == ["a: 0 → 1", "b: 0 → 3"])
            withExtendedLifetime(hook) {}
        }
    }

    @Test func anOuterTransactionThatThrowsRollsBackTheInnerOnesItCommitted() {
        withIsolatedRuntime {
            let a = atom(0, label: "a")
            let changes = Recorder<String>()
            let hook = Runtime.current.onChange { changes.append($0.description) }
            #expect(throws: Refused.self) {
                try transaction {
                    a.value = 1
                    transaction { a.value = 2 }
                    #expect(a.value == 2)
                    throw Refused()
                }
            }
            #expect(a.value == 0)
            #expect(changes.values.isEmpty)
            withExtendedLifetime(hook) {}
        }
    }

    @Test func aTransactionInsideABatchRollsBackOnlyItsOwnWrites() {
        withIsolatedRuntime {
            let a = atom(0, label: "a")
            let b = atom(0, label: "b")
            let effectRuns = RunCount()
            let effect = Effect {
                _ = (a.value, b.value)
                effectRuns.increment()
            }
            let changes = Recorder<String>()
            let hook = Runtime.current.onChange { changes.append($0.description) }
            batch {
                a.value = 1
                do {
                    try transaction {
                        b.value = 1
                        throw Refused()
                    }
                } catch {}
            }
            #expect((a.value, b.value) == (1, 0))
            #expect(effectRuns.value == 2)
            #expect(changes.values == ["a: 0 → 1"])
            withExtendedLifetime((effect, hook)) {}
        }
    }

    @Test func aRolledBackWriteOfDeclaredStateCallsNoLifecycleHookAndACommittedOneDoes() {
        transactionHookEvents.removeAll()
        withIsolatedRuntime {
            #expect(transactionWatched.value == 0)
            #expect(throws: Refused.self) {
                try transaction {
                    transactionWatched.value = 9
                    throw Refused()
                }
            }
            #expect(transactionWatched.value == 0)
            #expect(transactionHookEvents.values.isEmpty)
            transaction { transactionWatched.value = 4 }
            #expect(transactionHookEvents.values == ["updated 0 → 4"])
        }
    }

    @Test func aRolledBackWriteOfAnAtomPropertyIsUndoneLikeAPlainAtoms() {
        withIsolatedRuntime {
            let box = Box()
            #expect(throws: Refused.self) {
                try transaction {
                    box.count = 9
                    throw Refused()
                }
            }
            #expect(box.count == 1)
        }
    }

    /// A type holding an `@Atom` property.
    final class Box: @unchecked Sendable {
        @Atom var count = 1
    }

    @Test func aReaderOnAnotherThreadNeverSeesTheValuesOfATransactionThatRollsBack() async {
        let runtime = Runtime()
        let value = inRuntime(runtime) { atom(0) }
        let done = Locked(false)
        let reads = Locked(0)
        let bad = Locked(0)
        // A thread of its own: a task spinning here would hold one of the cooperative pool's few threads.
        async let reader: Void = runOnThread(stackSize: StackSize.small) {
            while !done.withLock({ $0 }) {
                let seen = value.value
                if seen < 0 { bad.withLock { $0 += 1 } }
                reads.withLock { $0 += 1 }
            }
        }
        while reads.withLock({ $0 }) == 0 { await Task.yield() }
        for round in 0..<2_000 {
            inRuntime(runtime) {
                do {
                    try transaction {
                        value.value = -1 - round
                        value.value = -2 - round
                        throw Refused()
                    }
                } catch {}
                if round % 100 == 0 { value.value = round }
            }
        }
        done.withLock { $0 = true }
        await reader
        #expect(bad.withLock { $0 } == 0)
        #expect(reads.withLock { $0 } > 0)
    }
}
