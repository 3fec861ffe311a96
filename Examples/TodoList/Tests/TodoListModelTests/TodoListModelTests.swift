import Ripple
import Testing
import TodoListModel

/// The list's behaviour, each test in a runtime of its own: fresh instances of every declaration.
@MainActor
struct TodoListModelTests {
    @Test func addsTrimmedItemsAndIgnoresBlankOnes() {
        withIsolatedRuntime {
            let model = TodoListModel()
            model.add("  Milk ")
            model.add("   ")
            model.add("Tests")
            #expect(todos.value == [Todo(id: 1, text: "Milk"), Todo(id: 2, text: "Tests")])
            #expect(summary.value == "2 items left")
        }
    }

    @Test func filtersFollowTheToggles() {
        withIsolatedRuntime {
            let model = TodoListModel()
            model.add("Milk")
            model.add("Tests")
            model.toggle(2)
            model.show(.done)
            #expect(visibleTodos.value.map(\.text) == ["Tests"])
            model.show(.active)
            #expect(visibleTodos.value.map(\.text) == ["Milk"])
            #expect(summary.value == "1 item left")
        }
    }

    @Test func theSummaryReRendersOnlyWhenItChanges() {
        withIsolatedRuntime {
            let model = TodoListModel()
            var rendered: [String] = []
            let view = Effect { rendered.append(summary.value) }   // stands in for the view's body
            model.add("Milk")
            model.show(.done)                                      // the summary is the same: no run
            model.toggle(1)
            model.clearDone()                                      // 0 left before and after: no run
            #expect(rendered == ["0 items left", "1 item left", "0 items left"])
            #expect(todos.value.isEmpty)
            withExtendedLifetime(view) {}
        }
    }

    @Test func eachTestHasItsOwnList() {
        withIsolatedRuntime {
            #expect(todos.value.isEmpty)
            #expect(filter.value == .all)
        }
    }
}
