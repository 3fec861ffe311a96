import Foundation
import Testing
import Ripple

/// `UndoHistory`: one step per outermost batch, transaction, store action or group; undo and redo in one batch;
/// tracked state; labels; coalescing; opt-out atoms; freed atoms; the memory bound.
@Suite struct UndoHistoryTests {
    struct Refused: Error {}

    @Test func eachOutermostBatchIsOneStepAndAnUndoRestoresItInOneBatch() {
        withIsolatedRuntime {
            let x = atom(0, label: "x")
            let y = atom(0, label: "y")
            let computes = RunCount()
            let sum = derive {
                computes.increment()
                return x.value + y.value
            }
            let seen = Recorder<Int>()
            let effect = Effect { seen.append(sum.value) }
            let history = UndoHistory()
            batch {
                x.value = 1
                y.value = 2
                batch { x.value = 3 }
            }
            y.value = 5
            #expect(history.undoCount == 2)
            #expect(seen.values == [0, 5, 8])
            let computesBefore = computes.value
            let report = history.undo()
            #expect(report.applied)
            #expect((x.value, y.value) == (3, 2))
            #expect(history.undo().applied)
            #expect((x.value, y.value) == (0, 0))
            #expect(seen.values == [0, 5, 8, 5, 0])
            #expect(computes.value - computesBefore == 2)  // once per undo
            #expect(!history.undo().applied)
            #expect(history.redoCount == 2)
            withExtendedLifetime((effect, history)) {}
        }
    }

    @Test func redoMakesTheStepAgainAndANewChangeClearsTheRedoStack() {
        withIsolatedRuntime {
            let text = atom("", label: "text")
            let history = UndoHistory()
            text.value = "a"
            text.value = "ab"
            history.undo()
            history.undo()
            #expect(text.value == "")
            history.redo()
            #expect(text.value == "a")
            #expect((history.undoCount, history.redoCount) == (1, 1))
            text.value = "x"
            #expect((history.undoCount, history.redoCount) == (2, 0))
            #expect(!history.redo().applied)
            history.undo()
            #expect(text.value == "a")
        }
    }

    @Test func canUndoAndCanRedoAreTrackedReads() {
        withIsolatedRuntime {
            let count = atom(0)
            let history = UndoHistory()
            let states = Recorder<String>()
            let menu = Effect { states.append("\(history.canUndo) \(history.canRedo)") }
            count.value = 1
            count.value = 2  // canUndo stays true: no run
            history.undo()
            history.undo()
            history.redo()
            #expect(states.values == ["false false", "true false", "true true", "false true", "true true"])
            withExtendedLifetime(menu) {}
        }
    }

    @Test func groupsLabelTheirStepAndTheLabelsFollowTheStacks() {
        withIsolatedRuntime {
            let name = atom("", label: "name")
            let history = UndoHistory()
            let labels = Recorder<String>()
            let menu = Effect { labels.append("\(history.undoLabel ?? "-") / \(history.redoLabel ?? "-")") }
            history.group("Rename") { name.value = "Ada" }
            name.value = "Grace"  // a step without a label
            history.group("Clear") {
                batch { history.group("Inner") { name.value = "" } }
            }
            history.undo()
            history.undo()
            #expect(name.value == "Ada")
            #expect(labels.values == ["- / -", "Rename / -", "- / -", "Clear / -", "- / Clear", "Rename / -"])
            #expect(history.undo().label == "Rename")
            withExtendedLifetime(menu) {}
        }
    }

    @Test func aCommittedTransactionIsOneStepAndARolledBackOneIsNone() {
        withIsolatedRuntime {
            let a = atom(0), b = atom(0)
            let history = UndoHistory()
            transaction {
                a.value = 1
                b.value = 1
            }
            #expect(throws: Refused.self) {
                try transaction {
                    a.value = 7
                    throw Refused()
                }
            }
            #expect(history.undoCount == 1)
            history.undo()
            #expect((a.value, b.value) == (0, 0))
        }
    }

    @Test func eachStoreActionIsOneStep() {
        withIsolatedRuntime {
            let store = Store(initialState: Counter.State(), reducer: Counter(fetchScore: { 1 }))
            let history = UndoHistory()
            store.send(.increase)
            store.send(.increase)
            #expect(store.state.count == 2)
            #expect(history.undoCount == 2)
            history.undo()
            #expect(store.state.count == 1)
            history.redo()
            #expect(store.state.count == 2)
        }
    }

    @Test func coalescingMergesGroupsWithOneKeyWithinTheWindowOnly() {
        withIsolatedRuntime {
            let text = atom("")
            let other = atom(0)
            let history = UndoHistory(coalescingWindow: .seconds(3600))
            for letter in ["a", "b", "c"] { history.group("Typing", coalescing: 1) { text.value += letter } }
            #expect(history.undoCount == 1)
            history.group("Typing", coalescing: 2) { text.value += "d" }  // another key
            other.value = 1  // no key: stands alone
            history.group("Typing", coalescing: 2) { text.value += "e" }  // after another step: no merge
            #expect(history.undoCount == 4)
            history.undo()
            history.undo()
            history.undo()
            #expect(text.value == "abc")
            history.group("Typing", coalescing: 1) { text.value += "x" }  // after an undo: no merge
            #expect(history.undoCount == 2)
            history.undo()
            history.undo()
            #expect(text.value == "")

            let strict = UndoHistory(coalescingWindow: .zero)
            for letter in ["a", "b"] { strict.group("Typing", coalescing: 1) { text.value += letter } }
            #expect(strict.undoCount == 2)
        }
    }

    @Test func atomsThatOptedOutAreNeitherRecordedNorRestored() {
        withIsolatedRuntime {
            let kept = atom(0)
            let secret = atom("a")
            secret.isRestorable = false
            let history = UndoHistory()
            secret.value = "b"
            #expect(history.undoCount == 0)
            batch {
                kept.value = 1
                secret.value = "c"
            }
            let later = atom(0)
            later.value = 1
            later.isRestorable = false
            history.undo()  // later's step: opted out since, not restored
            #expect(later.value == 1)
            history.undo()
            #expect((kept.value, secret.value) == (0, "c"))
        }
    }

    @Test func aStepWhoseAtomsWereAllFreedIsSkippedAndReported() {
        withIsolatedRuntime {
            let kept = atom(0, label: "kept")
            var gone: AtomObject<Int>? = atom(0, label: "gone")
            let history = UndoHistory()
            kept.value = 1
            gone?.value = 1
            batch {
                kept.value = 2
                gone?.value = 2
            }
            release(&gone)
            let first = history.undo()  // kept 2 → 1; gone is reported
            #expect(first.applied)
            #expect(first.skippedSteps == 0)
            #expect(first.freed.map(\.label) == ["gone"])
            #expect(kept.value == 1)
            let second = history.undo()  // gone's own step is skipped; kept's is undone
            #expect(second.applied)
            #expect(second.skippedSteps == 1)
            #expect(second.freed.map(\.label) == ["gone"])
            #expect(kept.value == 0)
            #expect(!history.undo().applied)
        }
    }

    @Test func theOldestStepsGoFirstBeyondTheStepAndByteBounds() {
        withIsolatedRuntime {
            let count = atom(0)
            let history = UndoHistory(limit: UndoHistory.Limit(steps: 3))
            for value in 1...5 { count.value = value }
            #expect(history.undoCount == 3)
            while history.undo().applied {}
            #expect(count.value == 2)

            let text = atom("")
            let small = UndoHistory(limit: UndoHistory.Limit(steps: 100, bytes: 2_000))
            for _ in 0..<10 { text.value += String(repeating: "x", count: 100) }
            #expect(small.estimatedBytes <= 2_000)
            #expect(small.undoCount < 10)
            #expect(small.undoCount >= 1)
            let kept = small.undoCount
            while small.undo().applied {}
            #expect(text.value.count == (10 - kept) * 100)
        }
    }

    @Test func writesThatEffectsMakeInReactionBelongToTheStepThatTriggeredThem() {
        withIsolatedRuntime {
            let celsius = atom(0, label: "celsius")
            let fahrenheit = atom(32, label: "fahrenheit")
            let mirror = Effect { fahrenheit.value = celsius.value * 9 / 5 + 32 }
            let history = UndoHistory()
            celsius.value = 100
            #expect(fahrenheit.value == 212)
            #expect(history.undoCount == 1)
            history.undo()
            #expect((celsius.value, fahrenheit.value) == (0, 32))
            #expect((history.undoCount, history.redoCount) == (0, 1))
            history.redo()
            #expect((celsius.value, fahrenheit.value) == (100, 212))
            #expect((history.undoCount, history.redoCount) == (1, 0))
            withExtendedLifetime(mirror) {}
        }
    }

    @Test func releasingTheHistoryStopsTheRecording() {
        withIsolatedRuntime {
            let count = atom(0)
            var history: UndoHistory? = UndoHistory()
            let weak = WeakBox(history)
            count.value = 1
            release(&history)
            #expect(weak.object == nil)
            count.value = 2  // no history: nothing to record, nothing open
            #expect(count.value == 2)
        }
    }

    @Test func writersOnSeveralThreadsWhileOneThreadUndoesAndRedoes() async {
        let runtime = Runtime()
        let writers = 3
        let writesPerWriter = 300
        let (counters, history) = inRuntime(runtime) {
            ((0..<writers).map { atom(0, label: "counter \($0)") }, UndoHistory(runtime: runtime, limit: .init(steps: 100_000)))
        }
        let stop = Locked(false)
        // A thread of its own, not a task: a task spinning here would hold one of the cooperative pool's few
        // threads while other tests wait for them.
        async let undone = runOnThread(stackSize: StackSize.small) {
            var undos = 0
            while !stop.withLock({ $0 }) {
                if history.undo().applied { undos += 1 }
                if history.redo().applied { undos -= 1 }
            }
            return undos
        }
        await runOnThreads(writers) { index in
            for _ in 0..<writesPerWriter {
                inRuntime(runtime) { counters[index].update { $0 += 1 } }
            }
        }
        stop.withLock { $0 = true }
        let netUndone = await undone
        // Each step is one increment of one counter: undoing the remaining steps brings every counter to 0, and
        // redoing all of them brings back exactly what the writers and the redos left.
        #expect(netUndone >= 0)
        let final = counters.map(\.value)
        while history.undo().applied {}
        #expect(counters.map(\.value) == Array(repeating: 0, count: writers))
        while history.redo().applied {}
        #expect(counters.map(\.value) == final)
        #expect(final.reduce(0, +) == writers * writesPerWriter - netUndone)
    }
}

#if canImport(Foundation) && canImport(Darwin)  // UndoManager: Apple's Foundation only
import RippleUndoManager

/// The Foundation bridge: each step is an action of the manager, named by its label, and the manager's undo and
/// redo drive the history.
@Suite struct UndoManagerBridgeTests {
    @Test func theManagersUndoAndRedoDriveTheHistory() {
        withIsolatedRuntime {
            let text = atom("", label: "text")
            let history = UndoHistory()
            let manager = UndoManager()
            let bridge = UndoManagerBridge(history: history, manager: manager)
            history.group("Type") { text.value = "Hello" }
            history.group("Clear") { text.value = "" }
            #expect(manager.canUndo)
            #expect(manager.undoActionName == "Clear")
            manager.undo()
            #expect(text.value == "Hello")
            #expect(manager.undoActionName == "Type")
            #expect(manager.redoActionName == "Clear")
            manager.undo()
            #expect(text.value == "")
            #expect(!manager.canUndo)
            manager.redo()
            #expect(text.value == "Hello")
            manager.redo()
            #expect(text.value == "")
            #expect((history.undoCount, history.redoCount) == (2, 0))
            manager.undo()
            text.value = "new"  // a new step: the redo stacks of both are cleared
            #expect(!manager.canRedo)
            #expect(history.redoCount == 0)
            withExtendedLifetime(bridge) {}
        }
    }
}
#endif
