import ReadingList
import Ripple
import RippleTesting
import Testing

/// The add-book screen through TestStore: every state change asserted exactly.
@MainActor
struct AddBookScreenTests {
    @Test func savingAddsTheBookAndClearsTheForm() async {
        await withIsolatedRuntime {
            let store = TestStore(initialState: AddBookScreen.State(), reducer: AddBookScreen())
            store.send(.isbnChanged("1")) { $0.isbn = "1" }
            store.send(.titleChanged("Dune")) { $0.title = "Dune" }
            store.send(.saveTapped) { $0 = AddBookScreen.State() }
            #expect(books.value == [Book(isbn: "1", title: "Dune")])
            await store.finish()
        }
    }

    @Test func aBookIsAddedOnce() async {
        await withIsolatedRuntime {
            books.value = [Book(isbn: "1", title: "Dune")]
            let store = TestStore(initialState: AddBookScreen.State(), reducer: AddBookScreen())
            store.send(.isbnChanged("1")) { $0.isbn = "1" }
            store.send(.titleChanged("Dune")) { $0.title = "Dune" }
            store.send(.saveTapped) { $0.problem = "This book is already on the list" }
            #expect(books.value.count == 1)
            await store.finish()
        }
    }
}
