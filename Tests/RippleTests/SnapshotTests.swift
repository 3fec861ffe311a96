import Testing
import Ripple

/// `Runtime.snapshot()` and `restore(_:)`: every atom's value captured and written back in one batch; snapshots
/// compared atom by atom; opted-out and freed atoms skipped and listed; an undo history over 1,000 steps.
@Suite struct SnapshotTests {
    @Test func restoreRunsEachEffectOnceAndEachDerivationOnce() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            let a = atom(1, label: "a"), b = atom(2, label: "b"), c = atom(3, label: "c")
            let sumRuns = RunCount()
            let sum = derive(label: "sum") { () -> Int in sumRuns.increment(); return a.value + b.value + c.value }
            let seen = Recorder<String>()
            let effect = Effect { seen.append("sum=\(sum.value) a=\(a.value)") }
            let snapshot = runtime.snapshot()
            a.value = 10
            b.value = 20
            c.value = 30
            #expect(seen.values == ["sum=6 a=1", "sum=15 a=10", "sum=33 a=10", "sum=60 a=10"])
            #expect(sumRuns.value == 4)
            seen.removeAll()

            let report = runtime.restore(snapshot)
            #expect(report.restored == 3)
            #expect(report.freed == [])
            #expect(seen.values == ["sum=6 a=1"])
            #expect(sumRuns.value == 5)
            #expect([a.value, b.value, c.value] == [1, 2, 3])

            // Restoring the values the atoms already have writes nothing.
            runtime.restore(snapshot)
            #expect(seen.values == ["sum=6 a=1"])
            #expect(sumRuns.value == 5)
            withExtendedLifetime(effect) {}
        }
    }

    @Test func aSnapshotHoldsTheValuesOfItsMomentInCreationOrder() {
        withIsolatedRuntime {
            let count = atom(1, label: "count")
            let name = atom("Ada", label: "name")
            let doubled = derive { count.value * 2 }
            let effect = Effect { _ = doubled.value }
            let snapshot = Runtime.current.snapshot()
            count.value = 2
            name.value = "Grace"
            #expect(snapshot.entries.map(\.atom.label) == ["count", "name"])
            #expect(snapshot.entries[0].value(as: Int.self) == 1)
            #expect(snapshot.entries[1].value(as: String.self) == "Ada")
            #expect(snapshot.entries[1].value(as: Int.self) == nil)
            #expect(snapshot.entries.map { String(describing: $0.value) } == ["1", "Ada"])
            #expect(snapshot.value(of: count) == 1)
            #expect(snapshot.value(of: name) == "Ada")
            #expect(snapshot.skipped == [])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func capturingSharesCopyOnWriteStorage() {
        withIsolatedRuntime {
            let items = atom(Array(0..<10_000), label: "items")
            let snapshot = Runtime.current.snapshot()
            let captured = snapshot.value(of: items)!
            let shared = captured.withUnsafeBufferPointer { capturedBuffer in
                items.value.withUnsafeBufferPointer { $0.baseAddress == capturedBuffer.baseAddress }
            }
            #expect(shared)
            items.update { $0[0] = -1 }        // the atom's copy is made now, the snapshot keeps the old storage
            #expect(snapshot.value(of: items)?[0] == 0)
            #expect(items.value[0] == -1)
        }
    }

    @Test func changesSinceListsEveryAtomThatDiffersAndOnlyThose() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            let quantity = atom(4, label: "quantity")
            let price = atom(5, label: "price")
            var gone: AtomObject<String>? = atom("soon freed", label: "gone")
            let tolerant = atom(20.0, equals: { abs($0 - $1) < 0.5 }, label: "tolerant")
            let before = runtime.snapshot()
            quantity.value = 5
            price.value = 6
            price.value = 5                           // back to its captured value
            tolerant.value = 20.4                     // equal by the atom's own equality
            gone = nil
            let created = atom(true, label: "created")
            let after = runtime.snapshot()
            #expect(after.changes(since: before).map(\.description) == [
                "quantity: 4 → 5",
                "created: (none) → true",
                "gone: soon freed → (none)",
            ])
            #expect(before.changes(since: after).map(\.description) == [
                "quantity: 5 → 4",
                "gone: (none) → soon freed",
                "created: true → (none)",
            ])
            #expect(after.changes(since: after).isEmpty)
            let change = after.changes(since: before)[0]
            #expect(change.atom == after.entries[0].atom)
            #expect(change.oldValue as? Int == 4)
            #expect(change.newValue as? Int == 5)
            #expect(gone == nil)
            withExtendedLifetime((price, tolerant, created)) {}
        }
    }

    @Test func atomsThatOptOutAreSkippedListedAndLeftAlone() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            let token = atom("s3cr3t", label: "token")
            let count = atom(1, label: "count")
            #expect(token.isRestorable)
            token.isRestorable = false
            #expect(!token.isRestorable)
            let snapshot = runtime.snapshot()
            #expect(snapshot.entries.map(\.atom.label) == ["count"])
            #expect(snapshot.skipped.map(\.label) == ["token"])
            #expect(snapshot.skipped.map(\.creationSite) == [token.creationSite])
            #expect(snapshot.value(of: token) == nil)
            token.value = "rotated"
            count.value = 2
            let report = runtime.restore(snapshot)
            #expect(report.restored == 1)
            #expect(token.value == "rotated")
            #expect(count.value == 1)
        }
    }

    @Test func declaredAtomsAreCapturedAndOptOutThroughTheirProjectedValue() {
        withIsolatedRuntime {
            @Atom(label: "visible") var visible = 1
            @Atom(label: "secret") var secret = "key"
            $secret.isRestorable = false
            let snapshot = Runtime.current.snapshot()
            visible = 2
            Runtime.current.restore(snapshot)
            #expect(visible == 1)
            #expect(snapshot.skipped.map(\.label) == ["secret"])
            #expect(secret == "key")
        }
    }

    @Test func atomsFreedSinceTheCaptureAreSkippedAndReported() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            let kept = atom(1, label: "kept")
            var freed: AtomObject<Int>? = atom(2, label: "freed")
            let snapshot = runtime.snapshot()
            kept.value = 10
            freed = nil
            // A new atom may take the freed atom's slot: the snapshot must not write into it.
            let newcomer = atom(3, label: "newcomer")
            let report = runtime.restore(snapshot)
            #expect(report.restored == 1)
            #expect(report.freed.map(\.label) == ["freed"])
            #expect(kept.value == 1)
            #expect(newcomer.value == 3)
            #expect(freed == nil)
        }
    }

    @Test func aRestoreIsReportedToTheChangeLogAsItsWrites() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            let a = atom(1, label: "a"), b = atom(2, label: "b")
            let snapshot = runtime.snapshot()
            a.value = 10
            let changes = Recorder<String>()
            let hook = runtime.onChange { changes.append($0.description) }
            runtime.restore(snapshot)
            #expect(changes.values == ["a: 10 → 1"])
            withExtendedLifetime((b, hook)) {}
        }
    }

    /// Undo and redo over 1,000 steps of three atoms: exact values at every step, and each restore runs the
    /// effect exactly once and the derivation exactly once.
    @Test func anUndoHistoryGoesBackAndForthThroughAThousandStepsExactly() {
        struct Model: Equatable {
            var count: Int
            var name: String
            var items: [Int]
        }
        /// The undo history: one snapshot per step, and where we stand.
        struct History {
            var steps: [Snapshot] = []
            var position = -1

            mutating func record(_ snapshot: Snapshot) {
                steps.removeSubrange((position + 1)...)
                steps.append(snapshot)
                position = steps.count - 1
            }

            mutating func undo(in runtime: Runtime) {
                position -= 1
                runtime.restore(steps[position])
            }

            mutating func redo(in runtime: Runtime) {
                position += 1
                runtime.restore(steps[position])
            }
        }

        withIsolatedRuntime {
            let runtime = Runtime.current
            let count = atom(0, label: "count")
            let name = atom("step 0", label: "name")
            let items = atom([Int](), label: "items")
            let summaryRuns = RunCount()
            let summary = derive(label: "summary") { () -> String in
                summaryRuns.increment()
                return "\(count.value) \(name.value) \(items.value.count)"
            }
            let effectRuns = RunCount()
            let seen = RunLog<String>()
            let effect = Effect {
                effectRuns.increment()
                seen.values.append(summary.value)
            }
            var model = [Model(count: 0, name: "step 0", items: [])]
            var history = History()
            history.record(runtime.snapshot())

            let steps = 1_000
            for step in 1...steps {
                batch {
                    count.value = step * 7 % 1_013           // differs from the previous step's value
                    if step % 3 == 0 { name.value = "step \(step)" }
                    if step % 5 == 0 { items.update { $0.append(step) } }
                }
                model.append(Model(count: count.value, name: name.value, items: items.value))
                history.record(runtime.snapshot())
            }
            #expect(history.steps.count == steps + 1)

            func expectStep(_ index: Int, effectRunsBefore: Int, summaryRunsBefore: Int) {
                let values = Model(count: count.value, name: name.value, items: items.value)
                #expect(values == model[index], "step \(index)")
                #expect(effectRuns.value == effectRunsBefore + 1, "step \(index)")
                #expect(summaryRuns.value == summaryRunsBefore + 1, "step \(index)")
                let expected = model[index]
                #expect(seen.values.last == "\(expected.count) \(expected.name) \(expected.items.count)")
            }

            for index in stride(from: steps - 1, through: 0, by: -1) {
                let effectBefore = effectRuns.value, summaryBefore = summaryRuns.value
                history.undo(in: runtime)
                expectStep(index, effectRunsBefore: effectBefore, summaryRunsBefore: summaryBefore)
            }
            #expect(history.position == 0)
            for index in 1...steps {
                let effectBefore = effectRuns.value, summaryBefore = summaryRuns.value
                history.redo(in: runtime)
                expectStep(index, effectRunsBefore: effectBefore, summaryRunsBefore: summaryBefore)
            }
            #expect(history.position == steps)
            #expect(effectRuns.value == 1 + steps + 2 * steps)
            withExtendedLifetime(effect) {}
        }
    }
}
