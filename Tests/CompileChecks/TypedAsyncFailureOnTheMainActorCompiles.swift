// expect-success
// A body declared throws(FetchError) on the main actor: its phase's error is a FetchError?, compared without a
// cast in an effect there; refresh() returns the typed phase; an untyped body keeps AsyncPhase.
import Ripple

enum FetchError: Error { case noData, offline }

@MainActor
final class ShelfModel {
    let query = atom("")
    var message = ""
    private var render: Effect?
    let books: TypedAsyncDerivation<[String], FetchError>
    let covers: AsyncDerivation<[String]>

    init() {
        let query = self.query
        books = derive { () async throws(FetchError) -> [String] in
            if query.value.isEmpty { throw .noData }
            return [query.value]
        }
        covers = derive { () async throws -> [String] in [] }
        let books = books
        render = Effect { [weak self] in
            self?.message = books.phase.error == .noData ? "nothing found" : ""
        }
    }

    func reload() async -> Bool {
        let phase: TypedAsyncPhase<[String], FetchError> = await books.refresh()
        let untyped: AsyncPhase<[String]> = covers.phase
        return phase.error == .offline && untyped.error == nil
    }
}
