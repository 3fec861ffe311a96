import Ripple

/// Every book on the list, in the order they were added.
public let books = declare.atom(keepAlive: true) { [Book]() }

/// Whether the list hides the books already read.
public let hidesRead = declare.atom(keepAlive: true) { false }

