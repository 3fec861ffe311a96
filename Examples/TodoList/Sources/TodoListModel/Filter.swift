/// Which items the list shows.
public enum Filter: String, CaseIterable, Sendable {
    case all, active, done

    /// Whether the list shows `todo` under this filter.
    public func includes(_ todo: Todo) -> Bool {
        switch self {
        case .all: true
        case .active: !todo.isDone
        case .done: todo.isDone
        }
    }
}
