import ReadingList
import Ripple
import Testing

/// A catalog that answers each request when the test says so, and tells the test what it was asked.
actor GatedCatalog: BookCatalog {
    private var asked: [[String]] = []
    private var askedWaiters: [CheckedContinuation<[String], Never>] = []
    private var pending: [CheckedContinuation<[Book], any Error>] = []

    func recommendations(after isbns: [String]) async throws -> [Book] {
        if askedWaiters.isEmpty { asked.append(isbns) } else { askedWaiters.removeFirst().resume(returning: isbns) }
        return try await withCheckedThrowingContinuation { pending.append($0) }
    }

    /// The ISBNs of the next request, in order.
    func nextRequest() async -> [String] {
        if !asked.isEmpty { return asked.removeFirst() }
        return await withCheckedContinuation { askedWaiters.append($0) }
    }

    /// Answers the oldest request still waiting.
    func answer(_ books: [Book]) { pending.removeFirst().resume(returning: books) }
}

/// The async load: phases in order, with the catalog overridden for each test.
@MainActor
struct RecommendationsTests {
    @Test func loadsWithPhases() async throws {
        let gate = GatedCatalog()
        try await withIsolatedRuntime(overriding: catalog.overridden(with: gate)) { () async throws in
            books.value = [Book(isbn: "1", title: "Dune")]
            var titles: [String] = []
            let screen = Effect { titles.append(recommendationsTitle.value) }
            #expect(await gate.nextRequest() == ["1"])
            await gate.answer([Book(isbn: "9", title: "Hyperion")])
            #expect(try await recommendations.node.value.map(\.title) == ["Hyperion"])
            #expect(titles == ["Finding books for you…", "Recommended: Hyperion"])
            withExtendedLifetime(screen) {}
        }
    }

    @Test func anEmptyCatalogRecommendsNothing() async throws {
        try await withIsolatedRuntime { () async throws in
            let loaded = recommendations.node                  // holds this runtime's instance while we look
            #expect(try await loaded.value == [])
            #expect(recommendationsTitle.value == "No recommendations")
        }
    }
}
