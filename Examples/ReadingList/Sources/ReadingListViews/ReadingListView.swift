#if canImport(SwiftUI)
import ReadingList
import Ripple
import SwiftUI

/// The list screen: it reads Ripple's declarations in `body`, which SwiftUI tracks through Observation.
public struct ReadingListView: View {
    @State private var addBook = Store(initialState: AddBookScreen.State(), reducer: AddBookScreen())

    /// The screen of the current runtime's list.
    public init() {}

    public var body: some View {
        NavigationStack {
            List {
                Section(progress.value) {
                    ForEach(visibleBooks.value) { Text($0.title) }
                }
                Section("Add a book") {
                    TextField("ISBN", text: Binding(get: { addBook.isbn }, set: { addBook.send(.isbnChanged($0)) }))
                    TextField("Title", text: Binding(get: { addBook.title }, set: { addBook.send(.titleChanged($0)) }))
                    Button("Add") { addBook.send(.saveTapped) }
                    if let problem = addBook.problem { Text(problem) }
                }
                Section(recommendationsTitle.value) {}
            }
            .toolbar { Toggle("Hide read", isOn: Binding(get: { hidesRead.value }, set: { hidesRead.value = $0 })) }
            .navigationTitle("Reading list")
        }
    }
}
#endif
