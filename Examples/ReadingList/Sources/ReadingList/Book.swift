/// A book on the reading list.
public struct Book: Identifiable, Equatable, Sendable {
    /// The book's ISBN: its identity.
    public let id: String
    /// The title.
    public var title: String
    /// Whether it has been read.
    public var isRead: Bool

    /// A book not read yet, unless `isRead` says so.
    public init(isbn: String, title: String, isRead: Bool = false) {
        self.id = isbn
        self.title = title
        self.isRead = isRead
    }
}
