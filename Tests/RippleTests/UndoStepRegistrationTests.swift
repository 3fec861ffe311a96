import Ripple
import RippleUndoManager
import Testing

/// The UndoManager bridge's logic (`UndoStepRegistration`, what `UndoManagerBridge` runs on Apple platforms) against
/// ``StandInUndoManager``, which follows Apple's documented `UndoManager`: Linux's Foundation has none.
@Suite struct UndoStepRegistrationTests {
    @Test func theManagersMenuTitlesUndoAndRedoDriveTheHistory() {
        withIsolatedRuntime {
            let text = atom("", label: "text")
            let history = UndoHistory()
            let manager = StandInUndoManager()
            let registration = UndoStepRegistration(history: history, manager: manager)
            #expect(!manager.groupsByEvent)
            #expect(manager.levelsOfUndo == history.limit.steps)
            history.group("Type") { text.value = "Hello" }
            history.group("Clear") { text.value = "" }
            #expect(manager.canUndo)
            #expect(manager.undoMenuItemTitle == "Undo Clear")
            #expect(manager.redoMenuItemTitle == "Redo")
            manager.undo()
            #expect(text.value == "Hello")
            #expect((manager.undoMenuItemTitle, manager.redoMenuItemTitle) == ("Undo Type", "Redo Clear"))
            #expect((history.undoLabel, history.redoLabel) == ("Type", "Clear"))
            manager.undo()
            #expect(text.value == "")
            #expect(!manager.canUndo)
            #expect(manager.redoMenuItemTitle == "Redo Type")
            manager.redo()
            #expect(text.value == "Hello")
            manager.redo()
            #expect(text.value == "")
            #expect((history.undoCount, history.redoCount) == (2, 0))
            #expect((manager.undoMenuItemTitle, manager.canRedo) == ("Undo Clear", false))
            #expect(manager.violations == [])
            withExtendedLifetime(registration) {}
        }
    }

    @Test func aNewChangeAfterAnUndoClearsBothRedoStacks() {
        withIsolatedRuntime {
            let count = atom(0, label: "count")
            let history = UndoHistory()
            let manager = StandInUndoManager()
            let registration = UndoStepRegistration(history: history, manager: manager)
            count.value = 1
            count.value = 2
            manager.undo()
            #expect(count.value == 1)
            #expect(manager.canRedo && history.canRedo)
            count.value = 5  // a step of its own, outside the manager's undo: the redo stacks go
            #expect(!manager.canRedo)
            #expect(history.redoCount == 0)
            #expect(manager.undoMenuItemTitle == "Undo")  // no label: the title alone
            manager.undo()
            #expect(count.value == 1)
            manager.undo()
            #expect(count.value == 0)
            #expect(manager.violations == [])
            withExtendedLifetime(registration) {}
        }
    }

    @Test func theManagerKeepsAsManyGroupsAsTheHistoryKeepsSteps() {
        withIsolatedRuntime {
            let count = atom(0, label: "count")
            let history = UndoHistory(limit: .init(steps: 2))
            let manager = StandInUndoManager()
            let registration = UndoStepRegistration(history: history, manager: manager)
            #expect(manager.levelsOfUndo == 2)
            for value in 1...4 { count.value = value }
            #expect((manager.undoCount, history.undoCount) == (2, 2))
            manager.undo()
            manager.undo()
            manager.undo()  // nothing left in either
            #expect(count.value == 2)
            #expect(!manager.canUndo && !history.canUndo)
            #expect(manager.violations == [])
            withExtendedLifetime(registration) {}
        }
    }
}
