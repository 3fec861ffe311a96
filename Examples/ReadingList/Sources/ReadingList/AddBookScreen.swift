import Ripple

/// The screen that adds a book: a store for one screen, its state the form, its actions what the user does.
public struct AddBookScreen: Reducer, Sendable {
    /// The form.
    public struct State: Equatable, Sendable {
        /// The ISBN typed so far.
        public var isbn = ""
        /// The title typed so far.
        public var title = ""
        /// Why the form cannot be saved, after a failed save.
        public var problem: String?

        /// An empty form.
        public init() {}
    }

    /// What the user does.
    public enum Action: Equatable, Sendable {
        case isbnChanged(String)
        case titleChanged(String)
        case saveTapped
    }

    /// The reducer of the screen.
    public init() {}

    /// Edits the form; a save adds the book to the list and clears the form, or says what is missing.
    public var body: some Reducer<State, Action> {
        Reduce { state, action in
            switch action {
            case .isbnChanged(let isbn):
                state.isbn = isbn
            case .titleChanged(let title):
                state.title = title
            case .saveTapped:
                guard !state.isbn.isEmpty, !state.title.isEmpty else {
                    state.problem = "A book needs an ISBN and a title"
                    return .none
                }
                guard !books.value.contains(where: { $0.id == state.isbn }) else {
                    state.problem = "This book is already on the list"
                    return .none
                }
                books.value.append(Book(isbn: state.isbn, title: state.title))
                state = State()
            }
            return .none
        }
    }
}
