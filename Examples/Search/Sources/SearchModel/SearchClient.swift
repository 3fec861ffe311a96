/// One hit of a search.
public struct SearchResult: Identifiable, Equatable, Sendable {
    /// The hit's identity at the service.
    public let id: Int
    /// What the list shows.
    public let title: String

    /// A hit.
    public init(id: Int, title: String) {
        self.id = id
        self.title = title
    }
}

/// The search service. The app passes a live client; tests pass a fake that answers when they say so.
public protocol SearchClient: Sendable {
    /// The hits for `query`. Throws `CancellationError` when the task is cancelled (a newer query superseded it).
    func search(_ query: String) async throws -> [SearchResult]
}
