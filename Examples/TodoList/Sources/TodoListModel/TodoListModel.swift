import Foundation
import Ripple

/// What the list screen does: the writes. Reads go straight to the declarations (`visibleTodos.value`,
/// `summary.value`), which a SwiftUI view observes through Observation.
@MainActor
public final class TodoListModel {
    private var nextID = 1

    /// A model of the current runtime's list.
    public init() {}

    /// Adds an item with `text`, trimmed of spaces; blank text adds nothing.
    public func add(_ text: String) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return }
        todos.value.append(Todo(id: nextID, text: trimmed))
        nextID += 1
    }

    /// Marks the item done, or not done again.
    public func toggle(_ id: Todo.ID) {
        todos.update { list in
            if let index = list.firstIndex(where: { $0.id == id }) { list[index].isDone.toggle() }
        }
    }

    /// Removes the items that are done, in one write.
    public func clearDone() {
        todos.update { $0.removeAll(where: \.isDone) }
    }

    /// Shows the items `filter` includes.
    public func show(_ choice: Filter) {
        filter.value = choice
    }
}
