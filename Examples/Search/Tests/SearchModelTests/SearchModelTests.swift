import Ripple
import SearchModel
import Testing

/// The search screen's behaviour, each test in a runtime of its own, the service a fake the test answers.
@MainActor
struct SearchModelTests {
    let swift = [SearchResult(id: 1, title: "Swift"), SearchResult(id: 2, title: "Swift Testing")]

    @Test func anEmptyQueryAsksNothing() async throws {
        try await withIsolatedRuntime { () async throws in
            let model = SearchModel(client: FakeSearchClient())
            #expect(model.status.value == "Type to search")
            #expect(try await model.results.value == [])
        }
    }

    @Test func showsSearchingThenTheResults() async throws {
        try await withIsolatedRuntime { () async throws in
            let client = FakeSearchClient()
            let model = SearchModel(client: client)
            var lines: [String] = []
            let screen = Effect { lines.append(model.status.value) }   // observes: searches start at once
            model.query.value = "swift"
            #expect(await client.nextRequest() == "swift")
            await client.respond(to: "swift", with: swift)
            #expect(try await model.results.value == swift)
            #expect(model.visibleResults == swift)
            #expect(lines == ["Type to search", "Searching…", "2 results"])
            withExtendedLifetime(screen) {}
        }
    }

    @Test func typingAgainCancelsTheSearchInFlight() async throws {
        try await withIsolatedRuntime { () async throws in
            let client = FakeSearchClient()
            let model = SearchModel(client: client)
            let screen = Effect { _ = model.status.value }
            model.query.value = "sw"
            #expect(await client.nextRequest() == "sw")
            model.query.value = "swift"                                   // supersedes "sw"
            #expect(await client.nextCancellation() == "sw")
            #expect(await client.nextRequest() == "swift")
            await client.respond(to: "swift", with: swift)
            #expect(try await model.results.value == swift)
            #expect(model.status.value == "2 results")
            withExtendedLifetime(screen) {}
        }
    }

    @Test func theLastResultsStayWhileTheNextLoad() async throws {
        try await withIsolatedRuntime { () async throws in
            let client = FakeSearchClient()
            let model = SearchModel(client: client)
            let screen = Effect { _ = model.status.value }
            model.query.value = "swift"
            #expect(await client.nextRequest() == "swift")
            await client.respond(to: "swift", with: swift)
            #expect(try await model.results.value == swift)
            model.query.value = "swift t"
            #expect(await client.nextRequest() == "swift t")
            #expect(model.status.value == "Searching…")
            #expect(model.visibleResults == swift)                      // not an empty flash
            await client.respond(to: "swift t", with: [swift[1]])
            #expect(try await model.results.value == [swift[1]])
            #expect(model.status.value == "1 result")
            withExtendedLifetime(screen) {}
        }
    }
}
