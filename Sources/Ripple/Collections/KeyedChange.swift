/// One edit of a keyed collection, linked to the edit before it: the log that its incremental views read to learn
/// which elements changed since their last evaluation (`KeyedView`). Immutable: the collection's change-log atom
/// holds the newest entry, and a view keeps the entry it saw last; a view that walks back from the newest entry
/// without meeting its own (a chain cut, or a snapshot restored) computes itself again from the whole collection.
/// What an edit did to an element (`KeyedChange`).
@usableFromInline
enum KeyedChangeKind: Sendable {
    case changed, inserted, removed, moved
    /// The start of the log, when the first view was made: a view that saw it applies every change after it.
    case started
}

@usableFromInline
final class KeyedChange<ID: Hashable & Sendable>: Sendable {
    /// How many entries a chain holds at most: the next one starts a new chain, so that the log stays bounded
    /// (and releasing it recurses at most this deep). A view this far behind computes itself again.
    static var chainLimit: Int { 1024 }

    @usableFromInline let kind: KeyedChangeKind
    /// The element changed; nil for `started`.
    @usableFromInline let id: ID?
    /// The entry before this one in the chain, nil at the start of a chain.
    @usableFromInline let previous: KeyedChange?
    /// How many entries precede this one in its chain.
    @usableFromInline let depth: Int

    init(_ kind: KeyedChangeKind, _ id: ID?, after previous: KeyedChange?) {
        self.kind = kind
        self.id = id
        if let previous, previous.depth + 1 < Self.chainLimit {
            self.previous = previous
            depth = previous.depth + 1
        } else {
            self.previous = nil
            depth = 0
        }
    }

    /// The entries after `seen`, oldest first, or nil when `seen` is not in this entry's chain (the view must
    /// compute itself again).
    @inlinable
    func since(_ seen: KeyedChange?) -> [KeyedChange]? {
        var entries: [KeyedChange] = []
        var entry: KeyedChange? = self
        while let current = entry, current !== seen {
            entries.append(current)
            entry = current.previous
        }
        guard entry === seen, seen != nil else { return nil }
        return entries.reversed()
    }
}
