#if canImport(SwiftUI)
import Ripple
import SwiftUI
import TodoListModel

/// The list screen. It reads Ripple's declarations in `body`: SwiftUI tracks those reads through Observation and
/// renders again after each change that matters (an equal `summary` renders nothing).
public struct TodoListView: View {
    @State private var model = TodoListModel()
    @State private var draft = ""

    /// The screen of the current runtime's list.
    public init() {}

    public var body: some View {
        NavigationStack {
            List {
                TextField("What needs doing?", text: $draft)
                    .onSubmit { model.add(draft); draft = "" }
                ForEach(visibleTodos.value) { todo in
                    Button { model.toggle(todo.id) } label: {
                        Label(todo.text, systemImage: todo.isDone ? "checkmark.circle.fill" : "circle")
                    }
                }
            }
            .navigationTitle("Todos")
            .toolbar {
                Picker("Show", selection: Binding(get: { filter.value }, set: { model.show($0) })) {
                    ForEach(Filter.allCases, id: \.self) { Text($0.rawValue.capitalized) }
                }
                Button("Clear done") { model.clearDone() }
            }
            .safeAreaInset(edge: .bottom) { Text(summary.value).padding() }
        }
    }
}
#endif
