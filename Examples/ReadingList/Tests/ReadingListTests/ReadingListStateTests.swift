import ReadingList
import Ripple
import Testing

/// The list, each test in a runtime of its own: every declaration starts from its default.
@MainActor
struct ReadingListStateTests {
    @Test func hidingReadBooks() {
        withIsolatedRuntime {
            books.value = [Book(isbn: "1", title: "Dune", isRead: true), Book(isbn: "2", title: "Emma")]
            #expect(visibleBooks.value.map(\.title) == ["Dune", "Emma"])
            hidesRead.value = true
            #expect(visibleBooks.value.map(\.title) == ["Emma"])
            #expect(progress.value == "1 of 2 read")
        }
    }

    @Test func progressRendersOnlyWhenItChanges() {
        withIsolatedRuntime {
            var shown: [String] = []
            let label = Effect { shown.append(progress.value) }
            books.value = [Book(isbn: "1", title: "Dune")]
            hidesRead.value = true                                   // progress does not read it: no run
            books.value[0].title = "Dune (1965)"                     // "0 of 1 read" again: no run
            books.value[0].isRead = true
            #expect(shown == ["0 of 0 read", "0 of 1 read", "1 of 1 read"])
            withExtendedLifetime(label) {}
        }
    }
}
