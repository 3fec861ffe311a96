import Foundation
import Testing

@testable import Ripple

// The examples of the Atoms README that make sense without SwiftUI, written with declarations.

// MARK: The todo tutorial

private struct Todo: Equatable, Sendable {
    var id: Int
    var text: String
    var isCompleted: Bool
}

private enum Filter: CaseIterable, Hashable, Sendable {
    case all, completed, uncompleted
}

private struct Stats: Equatable, Sendable {
    var total: Int
    var completed: Int
    var uncompleted: Int
    var percentCompleted: Double
}

private let todos = declare.atom(label: "todos") { [Todo]() }
private let filter = declare.atom(label: "filter") { Filter.all }
private let filteredTodos = declare.derived(label: "filteredTodos") { () -> [Todo] in
    let todos = todos.value
    switch filter.value {
    case .all: return todos
    case .completed: return todos.filter(\.isCompleted)
    case .uncompleted: return todos.filter { !$0.isCompleted }
    }
}
private let stats = declare.derived(label: "stats") { () -> Stats in
    let todos = todos.value
    let completed = todos.filter(\.isCompleted).count
    return Stats(
        total: todos.count, completed: completed, uncompleted: todos.count - completed,
        percentCompleted: todos.isEmpty ? 0 : Double(completed) / Double(todos.count))
}

// MARK: An API client overridden by a mock

private struct Book: Equatable, Sendable {
    var title: String
    var isbn: String
}

private protocol APIClientProtocol: Sendable {
    func fetchBook(isbn: String) async throws -> Book
}

private struct APIClient: APIClientProtocol {
    func fetchBook(isbn: String) async throws -> Book {
        throw URLError(.notConnectedToInternet)  // the network is not for tests
    }
}

private final class MockAPIClient: APIClientProtocol {
    let response: Book?

    init(response: Book?) {
        self.response = response
    }

    func fetchBook(isbn: String) async throws -> Book {
        guard let response else { throw URLError(.unknown) }
        return response
    }
}

private let apiClient = declare.atom(equals: { _, _ in false }) { APIClient() as any APIClientProtocol }
private let isbn = declare.atom { "ISBN000-0-0000-0000-0" }
private let fetchBook = declare.derived { () async throws -> Book in
    try await apiClient.value.fetchBook(isbn: isbn.value)
}

// MARK: A family of users by id

private struct User: Equatable, Sendable {
    var id: Int
    var name: String
}

private let userNames = declare.atom { [1: "Ada", 2: "Grace", 3: "Linus"] }
private let user = declare.derivedFamily { (id: Int) in User(id: id, name: userNames.value[id] ?? "unknown") }

// MARK: A persisted counter with an update hook

private final class Defaults: @unchecked Sendable {
    // Guarded by `lock`: hooks run on whatever thread caused them.
    private let lock = NSLock()
    private var values: [String: Int] = [:]

    subscript(key: String) -> Int {
        get { lock.withLock { values[key] ?? 0 } }
        set { lock.withLock { values[key] = newValue } }
    }
}

private let defaults = Defaults()
private let persistedCounter = declare.atom(
    lifecycle: Lifecycle(updated: { _, new in defaults["persistence_key"] = new })
) { defaults["persistence_key"] }

@Suite(.serialized) struct AtomsExamplesTests {
    @Test func theTodoListFiltersAndCounts() {
        withIsolatedRuntime {
            let list = todos.node  // the list view holds it, as a watching view would
            let picker = filter.node
            let rendered = RunLog<[String]>()
            let render = Effect { rendered.values.append(filteredTodos.value.map(\.text)) }
            list.value.append(Todo(id: 1, text: "Buy milk", isCompleted: false))
            list.value.append(Todo(id: 2, text: "Write tests", isCompleted: true))
            list.value.append(Todo(id: 3, text: "Ship", isCompleted: false))
            #expect(stats.value == Stats(total: 3, completed: 1, uncompleted: 2, percentCompleted: 1.0 / 3.0))
            picker.value = .completed
            picker.value = .uncompleted
            list.value[0].isCompleted = true
            #expect(rendered.values == [
                [], ["Buy milk"], ["Buy milk", "Write tests"], ["Buy milk", "Write tests", "Ship"],
                ["Write tests"], ["Buy milk", "Ship"], ["Ship"],
            ])
            #expect(stats.value == Stats(total: 3, completed: 2, uncompleted: 1, percentCompleted: 2.0 / 3.0))
            _ = render
        }
    }

    @Test func fetchingABookWithAMockClient() async throws {
        let expected = Book(title: "A book", isbn: "ISBN000-0-0000-0000-0")
        try await withIsolatedRuntime(overriding: apiClient.overridden(with: MockAPIClient(response: expected))) {
            () async throws in
            #expect(try await fetchBook.node.value == expected)
        }
    }

    @Test func swappingTheMockAfterFirstUseFetchesAgain() async throws {
        let first = Book(title: "First", isbn: "1")
        let second = Book(title: "Second", isbn: "2")
        try await withIsolatedRuntime(overriding: apiClient.overridden(with: MockAPIClient(response: first))) {
            () async throws in
            let phases = fetchBook.recordChanges()
            let book = fetchBook.node
            #expect(book.phase == .suspending)
            #expect(try await phases.next() == .success(first))
            Runtime.current.override(apiClient.overridden(with: MockAPIClient(response: second)))
            #expect(try await phases.next() == .suspending)
            #expect(try await phases.next() == .success(second))
        }
    }

    @Test func withoutAMockTheRealClientFails() async throws {
        await withIsolatedRuntime { () async -> Void in
            await #expect(throws: URLError.self) { try await fetchBook.node.value }
        }
    }

    @Test func usersByID() {
        withIsolatedRuntime {
            let ada = user(1)
            let grace = user(2)
            #expect(ada.value == User(id: 1, name: "Ada"))
            #expect(grace.value == User(id: 2, name: "Grace"))
            #expect(user(9).value == User(id: 9, name: "unknown"))
            let renders = RunLog<String>()
            let show = Effect { renders.values.append(ada.value.name) }
            userNames.node.value[2] = "Grace Hopper"  // another user: Ada's view does not run
            userNames.node.value[1] = "Ada Lovelace"
            #expect(renders.values == ["Ada", "Ada Lovelace"])
            #expect(user.instanceCount == 2)
            _ = show
        }
    }

    @Test func aPersistedCounterWritesThroughItsUpdateHookAndStartsFromTheStore() {
        defaults["persistence_key"] = 0
        withIsolatedRuntime {
            let counter = persistedCounter.node
            counter.value += 1
            counter.value += 1
            #expect(defaults["persistence_key"] == 2)
        }
        withIsolatedRuntime {
            #expect(persistedCounter.value == 2)  // a new runtime reads the persisted value
        }
    }
}
