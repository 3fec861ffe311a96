// A write observer: one atom's own changes handed to a callback, without the runtime-wide change hook that every
// atom's write of the runtime would pay for (Runtime+Changes.swift). A persisted atom's binding is one
// (RipplePersistence): a runtime holding a persisted atom leaves its other atoms' writes on their fast path.
//
// The atom keeps the observer out of line (`NodeExtras.writeObserver`) and says it has one with a bit in the flags
// byte it already has (`AtomFlags.observed`), so an atom without one pays that byte's test and no memory. The
// observer sees exactly what a change hook sees of this atom: each change, in write order, after it is applied,
// while the graph is held; inside a transaction only once it commits (the journal hands the change over then, and
// a rollback's writes are never reported), so restore, undo and a commit reach it as any write does.

/// The flags in an atom's `flags` byte.
@usableFromInline enum AtomFlags {
    /// ``AtomObject/isRestorable`` is false.
    @inlinable static var notRestorable: UInt8 { 1 }
    /// A write observer is attached (`AtomObject.observeWrites(_:)`).
    @inlinable static var observed: UInt8 { 2 }
}

/// An atom's write observer, whatever its value type: what the change log's path hands a change's new value to
/// (`Runtime.reportChange`).
class AtomWriteObserver {
    /// Who attached the observer (``AtomObject/observeWrites(owner:_:)``): what ``AtomObject/writeObserverOwner``
    /// answers, so that the owner is found from the atom itself and needs no table of its own keyed by the atom.
    let owner: AnyObject?

    init(owner: AnyObject?) {
        self.owner = owner
    }

    /// Hands `value`, the atom's new value as `Any`, to the observer.
    func notify(_ value: Any) {}
}

/// An atom's write observer for its value type: what the atom's own write path calls, with the value unboxed.
final class TypedAtomWriteObserver<Value>: AtomWriteObserver {
    let body: @Sendable (Value) -> Void

    init(owner: AnyObject?, _ body: @escaping @Sendable (Value) -> Void) {
        self.body = body
        super.init(owner: owner)
    }

    override func notify(_ value: Any) {
        // The change came from this observer's atom, whose value is a `Value`.
        body(value as! Value)
    }
}

extension AtomObject {
    /// Attaches `body` as this atom's write observer, replacing the one attached before: it receives each change
    /// of the atom's value, as a change hook would (``Runtime/onChange(_:)``), while the runtime's other atoms keep
    /// writing without any hook. Not API: the persistence module's way to a persisted atom's storage.
    ///
    /// - Parameters:
    ///   - owner: what ``writeObserverOwner`` answers from now on (the persisted atom's binding), held strongly by
    ///     the observer, as `body` may hold it too.
    ///   - body: receives each change's new value.
    ///
    /// Threading: from any thread. `body` runs on the writing thread while it holds the graph: it must be short
    /// and must not wait for another thread that uses the runtime.
    package func observeWrites(owner: AnyObject? = nil, _ body: @escaping @Sendable (Value) -> Void) {
        exclusively {
            writeObserver = TypedAtomWriteObserver(owner: owner, body)
            flags |= AtomFlags.observed
        }
    }

    /// The owner given with the attached write observer (``observeWrites(owner:_:)``); nil when none is attached.
    /// Found on the atom itself, so it goes with the atom: an atom made later at a freed one's address never finds
    /// the freed one's owner.
    ///
    /// Threading: from any thread.
    package var writeObserverOwner: AnyObject? {
        exclusively { writeObserver?.owner }
    }

    /// `store` for an atom with a write observer and no change hook installed: the write, then the observer, while
    /// the graph is still held. Out of line: no other atom takes it.
    @usableFromInline @inline(never)
    func storeNotifyingObserver(_ next: Value) {
        latest = next
        announceSourceWrite()
        notifyWriteObserver(next)
    }

    /// Hands `value` to the attached write observer. Called while the graph is held.
    func notifyWriteObserver(_ value: Value) {
        // Attached by `observeWrites`, for this atom's `Value`.
        guard let observer = writeObserver else { return }
        unsafeDowncast(observer, to: TypedAtomWriteObserver<Value>.self).body(value)
    }
}
