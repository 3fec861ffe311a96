internal import CRippleThreadState

// Per-runtime state of libraries built on Ripple (RipplePersistence keeps its writers and change hook there): one
// object per type, created on first use and released with the runtime, so that such a library needs no global table
// keyed by runtimes and its state cannot outlive the runtime or leak into another.

/// The objects a runtime keeps for libraries built on Ripple, one per type.
final class RuntimeAttachments {
    private let lock = ParkingLock()
    private var objects: [ObjectIdentifier: AnyObject] = [:]

    deinit {
        lock.deallocate()
    }

    /// The object of type `T`, made by `make` if there is none. `make` runs outside the lock (it may use the
    /// runtime); if two threads race, the first object stored wins and the other is dropped.
    func object<T: AnyObject>(_ type: T.Type, make: () -> T) -> T {
        let key = ObjectIdentifier(type)
        if let existing = lock.withLock({ objects[key] }) { return unsafeDowncast(existing, to: T.self) }
        let made = make()
        let stored = lock.withLock { () -> AnyObject in
            if let existing = objects[key] { return existing }
            objects[key] = made
            return made
        }
        return unsafeDowncast(stored, to: T.self)
    }

    /// The object of type `T` if one was made.
    func existing<T: AnyObject>(_ type: T.Type) -> T? {
        lock.withLock { objects[ObjectIdentifier(type)] }.map { unsafeDowncast($0, to: T.self) }
    }
}

// `objects` is read and written only under `lock`; the objects themselves are `Sendable` (`attachment(_:make:)`).
extension RuntimeAttachments: @unchecked Sendable {}

extension Runtime {
    /// This runtime's object of type `Attachment`, made by `make` on first use: per-runtime state for a library
    /// built on Ripple, released with the runtime.
    ///
    /// ```swift
    /// final class Counter: Sendable { let created = ContinuousClock.now }
    /// let runtime = Runtime()
    /// let first = runtime.attachment(Counter.self) { _ in Counter() }
    /// let again = runtime.attachment(Counter.self) { _ in Counter() }
    /// print(first === again)     // true
    /// ```
    ///
    /// - Parameters:
    ///   - type: the attachment's type: one object per type and runtime.
    ///   - make: makes it, given this runtime; it should not keep the runtime strongly (a cycle: neither would go).
    ///     If two threads make it at once, one object is kept and the other dropped.
    /// - Returns: the attachment.
    ///
    /// Threading: from any thread. Lifetime: the runtime holds the attachment until it is freed.
    public func attachment<Attachment: AnyObject & Sendable>(
        _ type: Attachment.Type, make: (Runtime) -> Attachment
    ) -> Attachment {
        attachments.object(type) { make(self) }
    }

    /// This runtime's object of type `Attachment` if one was made, else nil.
    ///
    /// ```swift
    /// final class Counter: Sendable {}
    /// print(Runtime().existingAttachment(Counter.self) == nil)   // true
    /// ```
    ///
    /// - Parameter type: the attachment's type.
    /// - Returns: the attachment, or nil.
    ///
    /// Threading: from any thread.
    public func existingAttachment<Attachment: AnyObject & Sendable>(_ type: Attachment.Type) -> Attachment? {
        attachments.existing(type)
    }
}
