/// What a ``Lifecycle`` hook gets to reach its own instance: the runtime, the value, a write (for an atom), and
/// cleanups to run when the instance stops being watched or is released.
///
/// A hook given a context needs no global, no `existingNode` look-up and no `[weak node]`: keep the context (in a
/// timer, a subscription, a task) and write through it from any thread.
///
/// ```swift
/// let seconds = atom(0, lifecycle: Lifecycle(watched: { context in
///     let timer = Timer.scheduledTimer(withTimeInterval: 1, repeats: true) { _ in
///         try? context.update { $0 += 1 }          // the instance, in its own runtime
///     }
///     context.onUnwatched { timer.invalidate() }   // its last reader went
/// }))
/// ```
///
/// ## Lifetime
/// The context does not keep the instance alive: it holds a record the instance owns, which knows the instance's
/// address until the instance goes (a context kept by a timer that is never stopped costs that record, not the
/// node and its value). Once the instance is released, ``value`` is nil and writes throw
/// ``LifecycleContextError/released(label:)``: a late write is reported, never applied to a new instance or lost
/// silently. The context keeps the instance's ``runtime`` alive.
///
/// ## Threading
/// From any thread: a write through the context is a write of the instance (effects it triggers run on the writing
/// thread, as for any write); cleanups run on the thread that runs the hook of the event that ends them.
public struct LifecycleContext<Value>: Sendable {
    /// The record of the instance's hooks, which the instance owns.
    let instance: InstanceLifecycle

    init(_ instance: InstanceLifecycle) {
        self.instance = instance
    }

    /// The runtime the instance belongs to.
    ///
    /// ```swift
    /// Lifecycle<Int>(watched: { context in print(context.runtime === Runtime.shared) })
    /// ```
    ///
    /// Threading: from any thread. Lifetime: the context keeps the runtime alive.
    public var runtime: Runtime { instance.runtime }

    /// The instance's name in messages: its node's ``RippleNode/label``.
    ///
    /// ```swift
    /// Lifecycle<Int>(watched: { context in print("\(context.label) is watched") })
    /// ```
    ///
    /// Threading: from any thread; immutable.
    public var label: String { instance.label }

    /// Whether the instance has been released (or is being released): its value is gone, and writes throw.
    ///
    /// ```swift
    /// Lifecycle<Int>(initialized: { context in assert(!context.isReleased) })
    /// ```
    ///
    /// Threading: from any thread.
    public var isReleased: Bool { instance.isNodeGone }

    /// Registers `cleanup` to run when the instance loses its last reader, before the `unwatched` hook; or at its
    /// release, if that comes first. Registered while the instance is not watched (the hook that registers it ran
    /// after the readers went), `cleanup` runs at once.
    ///
    /// ```swift
    /// Lifecycle<Int>(watched: { context in
    ///     let task = Task { for await _ in ticks { try? context.update { $0 += 1 } } }
    ///     context.onUnwatched { task.cancel() }
    /// })
    /// ```
    ///
    /// - Parameter cleanup: the code that stops what the hook started.
    ///
    /// Threading: from any thread; the cleanup runs on the thread that runs the `unwatched` (or `released`) hook.
    public func onUnwatched(_ cleanup: @escaping @Sendable () -> Void) {
        instance.register(cleanup, untilRelease: false)
    }

    /// Registers `cleanup` to run when the instance is released, before the `released` hook. Registered after the
    /// release, it runs at once.
    ///
    /// ```swift
    /// Lifecycle<Int>(initialized: { context in
    ///     let subscription = feed.subscribe { value in try? context.set(value) }
    ///     context.onRelease { subscription.cancel() }
    /// })
    /// ```
    ///
    /// - Parameter cleanup: the code that stops what the hook started.
    ///
    /// Threading: from any thread; the cleanup runs on the thread that runs the `released` hook.
    public func onRelease(_ cleanup: @escaping @Sendable () -> Void) {
        instance.register(cleanup, untilRelease: true)
    }
}

extension LifecycleContext where Value: Sendable {
    /// The instance's current value (a derivation's brought up to date, an async derivation's last success), or nil
    /// once it is released. Not a tracked read, even inside an effect or a derivation.
    ///
    /// ```swift
    /// Lifecycle<Int>(unwatched: { context in print("left at", context.value ?? 0) })
    /// ```
    ///
    /// Threading: from any thread.
    public var value: Value? {
        guard let node = instance.liveNode() else { return nil }
        return node.runtime.untracked {
            if let atom = node as? AtomObject<Value> { return atom.value }
            if let derivation = node as? Derivation<Value> { return derivation.value }
            if let async = node as? AsyncDerivation<Value> { return async.phase.value }
            return nil
        }
    }

    /// Writes `newValue` to the instance, an atom, as setting its `value` does (an equal value is no write).
    ///
    /// ```swift
    /// Lifecycle<Date>(watched: { context in try? context.set(Date()) })
    /// ```
    ///
    /// - Parameter newValue: the value to store.
    /// - Throws: ``LifecycleContextError/released(label:)`` once the instance is released (nothing is written);
    ///   ``LifecycleContextError/notAnAtom(label:)`` for a derivation's context.
    ///
    /// Threading: from any thread, like any write.
    public func set(_ newValue: Value) throws(LifecycleContextError) {
        try update { $0 = newValue }
    }

    /// Changes the instance, an atom, in place, as ``AtomObject/update(_:)`` does: no other write slips between
    /// the read and the write.
    ///
    /// ```swift
    /// Lifecycle<Int>(watched: { context in try? context.update { $0 += 1 } })
    /// ```
    ///
    /// - Parameter body: changes the value; what it returns is returned.
    /// - Throws: ``LifecycleContextError/released(label:)`` once the instance is released (`body` does not run);
    ///   ``LifecycleContextError/notAnAtom(label:)`` for a derivation's context.
    ///
    /// Threading: from any thread, like any write.
    @discardableResult
    public func update<Result>(_ body: (inout Value) -> Result) throws(LifecycleContextError) -> Result {
        guard let node = instance.liveNode() else { throw .released(label: instance.label) }
        guard let atom = node as? AtomObject<Value> else { throw .notAnAtom(label: instance.label) }
        return atom.update(body)
    }
}

/// Why a write through a ``LifecycleContext`` was not made.
///
/// ```swift
/// do { try context.update { $0 += 1 } } catch { print(error) }
/// ```
///
/// Threading: a value; `Sendable`.
public enum LifecycleContextError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The instance named `label` was released before the write: nothing was written. Stop the work that writes
    /// (register its cleanup with ``LifecycleContext/onUnwatched(_:)`` or ``LifecycleContext/onRelease(_:)``).
    case released(label: String)
    /// The instance named `label` is a derivation, which computes its value: only an atom's context writes.
    case notAnAtom(label: String)

    /// What happened, why, and what to do.
    ///
    /// ```swift
    /// print(LifecycleContextError.released(label: "seconds"))
    /// ```
    public var description: String {
        switch self {
        case .released(let label):
            "Ripple: a write through the lifecycle context of \(label) came after \(label) was released, so it was "
                + "not applied. Stop the work that writes when the instance goes: register its cleanup with "
                + "context.onUnwatched { } or context.onRelease { }."
        case .notAnAtom(let label):
            "Ripple: \(label) is a derivation, which computes its value: a lifecycle context writes atoms only. "
                + "Write the atoms the derivation reads instead."
        }
    }
}
