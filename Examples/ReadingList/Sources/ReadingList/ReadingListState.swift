import Ripple

/// Every book on the list, in the order they were added.
public let books = declare.atom(keepAlive: true) { [Book]() }

/// Whether the list hides the books already read.
public let hidesRead = declare.atom(keepAlive: true) { false }

/// The books the list shows.
public let visibleBooks = declare.derived {
    hidesRead.value ? books.value.filter { !$0.isRead } : books.value
}

/// "2 of 3 read": recomputed when `books` changes; an equal text stops there.
public let progress = declare.derived { () -> String in
    "\(books.value.count { $0.isRead }) of \(books.value.count) read"
}
