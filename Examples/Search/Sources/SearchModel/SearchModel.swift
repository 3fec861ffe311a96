import Ripple

/// The search screen's state: the query the user types, the results loaded for it, and the line the screen shows.
///
/// `results` is an async derivation: it runs the search for the current query in a task. Typing again while a
/// search is in flight cancels that search (its task is cancelled and its answer, if it still comes, is ignored)
/// and starts one for the new query. The previous results stay readable in `results.lastValue` meanwhile.
@MainActor
public final class SearchModel {
    /// What the user typed.
    public let query = atom("")
    /// The hits for the current query: `.suspending` while they load.
    public let results: AsyncDerivation<[SearchResult]>
    /// "Type to search", "Searching…", "3 results", "No results", or the error.
    public let status: Derivation<String>

    /// A screen that searches with `client`.
    public init(client: some SearchClient) {
        let query = self.query
        let results = derive { () async throws -> [SearchResult] in
            let text = query.value.trimmedOfSpaces
            if text.isEmpty { return [] }                      // nothing to ask the service
            return try await client.search(text)
        }
        self.results = results
        status = derive { () -> String in
            guard !query.value.trimmedOfSpaces.isEmpty else { return "Type to search" }
            switch results.phase {
            case .suspending: return "Searching…"
            case .success(let hits) where hits.isEmpty: return "No results"
            case .success(let hits): return hits.count == 1 ? "1 result" : "\(hits.count) results"
            case .failure(let error): return "Search failed: \(error)"
            }
        }
    }

    /// The results to list: the latest ones, kept while a newer search loads.
    public var visibleResults: [SearchResult] { results.lastValue ?? [] }
}

extension String {
    /// The string without spaces at either end.
    fileprivate var trimmedOfSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
