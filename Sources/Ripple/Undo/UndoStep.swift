// One step of an undo history: the changes of one outermost batch (a transaction, a store action, a group), kept
// as the atoms' engine handles with their values before and after, so that a step keeps no atom alive and finds a
// freed one reported, as a snapshot does (Snapshot.swift).
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Darwin)
internal import Darwin
#endif

/// A change of one atom within a step.
struct UndoEntry {
    let atom: Snapshot.AtomRecord
    /// The value to write back to apply the step (its value before the change).
    let before: Any
    /// The value the change stored.
    let after: Any

    /// The estimate of what the entry holds, for the history's bound: a fixed cost, and both values.
    var estimatedBytes: Int { 48 + estimatedValueBytes(before) + estimatedValueBytes(after) }
}

/// A closed step: applied by writing each entry's `before` back, newest first. A class, so that a stack of steps
/// is an array of references: dropping the oldest step beyond the limit (`UndoHistory.trim`, at each new step once
/// the limit is reached) moves one word a step kept, where moving the struct cost about 90 instructions a step
/// (9,400 a new step at the default limit of 100, callgrind). Held by one stack at a time, and mutated only under
/// the history's lock.
final class UndoStep {
    var entries: [UndoEntry]
    var label: String?
    /// The key of a coalescing group (``UndoHistory/group(_:coalescing:_:)``), nil for a step that stands alone.
    var coalescingKey: AnyHashable?
    /// When the step was last added to: a later step with the same key merges into it within the window.
    var finished: ContinuousClock.Instant
    /// The estimate of the memory it holds (``UndoHistory/estimatedBytes``).
    var bytes: Int

    init(
        entries: [UndoEntry], label: String?, coalescingKey: AnyHashable? = nil, finished: ContinuousClock.Instant,
        bytes: Int
    ) {
        self.entries = entries
        self.label = label
        self.coalescingKey = coalescingKey
        self.finished = finished
        self.bytes = bytes
    }
}

struct OpenUndoStep {
    enum Kind {
        /// New changes: closed onto the undo stack, clearing the redo stack.
        case record
        /// The changes an undo made: closed onto the redo stack.
        case undo
        /// The changes a redo made: closed onto the undo stack, the redo stack kept.
        case redo
    }

    var kind: Kind
    var owner: pthread_t
    var label: String?
    var coalescingKey: AnyHashable?
    var entries: [UndoEntry] = []

    init(kind: Kind, label: String?, coalescingKey: AnyHashable? = nil) {
        self.kind = kind
        self.owner = pthread_self()
        self.label = label
        self.coalescingKey = coalescingKey
    }

    /// Whether the calling thread opened the step.
    var isOwnedByThisThread: Bool { pthread_equal(owner, pthread_self()) != 0 }
}

/// An estimate of the heap a recorded value holds: the value's inline size, plus a string's bytes or a
/// collection's elements at their inline size. An estimate for the history's bound, not a measurement.
func estimatedValueBytes(_ value: Any) -> Int {
    func inlineSize<T>(_ value: T) -> Int { MemoryLayout<T>.size }
    let inline = inlineSize(value)
    if let string = value as? String { return inline + string.utf8.count }
    if let collection = value as? any Collection { return inline + collectionBytes(collection) }
    return inline
}

private func collectionBytes<C: Collection>(_ collection: C) -> Int {
    collection.count * MemoryLayout<C.Element>.stride
}
