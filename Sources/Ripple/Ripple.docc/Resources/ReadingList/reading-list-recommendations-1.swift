import Ripple

/// The service that recommends books. The app uses `NoCatalog` until it has a real one; tests override it.
public protocol BookCatalog: Sendable {
    /// Books to read after the ones whose ISBNs are given.
    func recommendations(after isbns: [String]) async throws -> [Book]
}

/// A catalog with nothing to recommend.
public struct NoCatalog: BookCatalog {
    /// A catalog with nothing to recommend.
    public init() {}

    /// No books.
    public func recommendations(after isbns: [String]) async throws -> [Book] { [] }
}

/// The catalog in use: a declaration, so a test or a preview replaces it with an override.
public let catalog = declare.atom(equals: { _, _ in false }) { NoCatalog() as any BookCatalog }

/// Recommendations for the books on the list, loaded again (the stale request cancelled) when the list changes.
/// Readers see its phase: `.suspending`, then `.success` or `.failure`.
public let recommendations = declare.derived { () async throws -> [Book] in
    let isbns = books.value.map(\.id)
    return try await catalog.value.recommendations(after: isbns)
}
