/// One item of the list.
public struct Todo: Identifiable, Equatable, Sendable {
    /// Unique within a list, in the order items were added.
    public let id: Int
    /// What there is to do.
    public var text: String
    /// Whether it is done.
    public var isDone: Bool

    /// An item that is not done yet, unless `isDone` says so.
    public init(id: Int, text: String, isDone: Bool = false) {
        self.id = id
        self.text = text
        self.isDone = isDone
    }
}
