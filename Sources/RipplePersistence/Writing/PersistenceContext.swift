import Foundation
import Ripple

/// A runtime's persistence: its bindings (one per persisted instance), the change hook that hands their changes to
/// their writers, and the errors reported. Kept by the runtime as an attachment, so it goes with the runtime; the
/// hook does not keep the runtime alive.
///
/// A runtime without persisted instances has no context and no hook: its writes pay nothing for persistence. In a
/// runtime with some, each write of an atom calls the hook, which looks the atom up (``ChangeRouter``: one
/// dictionary probe, no lock).
final class PersistenceContext: @unchecked Sendable {
    // @unchecked: `byKey` and `errors` are read and written under `lock`; `hook` and `router` never change after
    // `of(_:)` made the context; the router's own state is guarded by the runtime's graph.
    private let lock = NSLock()
    private var hook: ChangeHook?
    private let router = ChangeRouter()
    private var byKey: [BindingKey: any AnyPersistedBinding] = [:]
    private var errors: [PersistenceError] = []

    /// A binding's identity: the persisted declaration and, for a family member, its key.
    struct BindingKey: Hashable {
        let declaration: ObjectIdentifier
        let member: AnyHashable?
    }

    /// The context of `runtime`, made (with its change hook) on first use.
    static func of(_ runtime: Runtime) -> PersistenceContext {
        runtime.attachment(PersistenceContext.self) { runtime in
            let context = PersistenceContext()
            let router = context.router
            context.hook = runtime.onChange(retainingRuntime: false) { change in
                router.binding(of: change.atom)?.localChange(change.newValue)
            }
            return context
        }
    }

    /// The binding under `key` in `runtime`, made by `make` if there is none.
    func binding<B: AnyPersistedBinding>(_ key: BindingKey, in runtime: Runtime, make: () -> B) -> B {
        if let existing = lock.withLock({ byKey[key] }) { return existing as! B }
        let made = make()
        let (binding, isNew) = lock.withLock { () -> (B, Bool) in
            if let existing = byKey[key] { return (existing as! B, false) }
            byKey[key] = made
            return (made, true)
        }
        if isNew { runtime.batch { router.unresolved.append(binding) } }
        return binding
    }

    /// The binding of the instance `node`, if it is persisted. Called while the runtime's graph is held.
    func binding(of node: RippleNode) -> (any AnyPersistedBinding)? {
        router.binding(of: node)
    }

    /// The writers of this runtime's bindings.
    var writers: [PersistedLocation] {
        lock.withLock { Array(byKey.values.map(\.writer)) }
    }

    /// The errors reported so far, oldest first.
    var reported: [PersistenceError] { lock.withLock { errors } }

    func record(_ error: PersistenceError) {
        lock.withLock { errors.append(error) }
    }
}

/// What the change hook consults on every write of an atom of the runtime: the persisted instances by node. Its
/// state is read and written only while the runtime's graph is held (the hook runs then; the rest goes through
/// `Runtime.batch`), so the look-up takes no lock: a write of an atom that is not persisted pays one dictionary
/// probe and one test.
private final class ChangeRouter: @unchecked Sendable {
    // @unchecked: both vars are read and written only while the runtime's graph is held.
    var byNode: [ObjectIdentifier: any AnyPersistedBinding] = [:]
    /// Bindings made before their instance's node could be looked up.
    var unresolved: [any AnyPersistedBinding] = []

    func binding(of node: RippleNode) -> (any AnyPersistedBinding)? {
        let id = ObjectIdentifier(node)
        if let found = byNode[id] { return found }
        if unresolved.isEmpty { return nil }
        var waiting: [any AnyPersistedBinding] = []
        for binding in unresolved {
            if let resolved = binding.resolveNode() {
                byNode[ObjectIdentifier(resolved)] = binding
            } else {
                waiting.append(binding)
            }
        }
        unresolved = waiting
        return byNode[id]
    }
}

extension Runtime {
    /// Returns when every change made in this runtime before the call to a persisted atom is durable (written and
    /// synced to its storage); throws the error of a write that failed (the value stays pending and is tried
    /// again on the next change or flush).
    ///
    /// ```swift
    /// import Foundation
    /// import Ripple
    /// import RipplePersistence
    ///
    /// enum Settings {
    ///     static let storage = InMemoryStorage()
    ///     static let volume = declare.atom(persisted: .memory(storage, key: "volume")) { 5 }
    /// }
    ///
    /// Settings.volume.value = 7
    /// try await Runtime.current.flushPersistence()
    /// print(Settings.storage.keys)      // ["volume"]
    /// ```
    ///
    /// Threading: from any task. A write queued during the wait may or may not be waited for.
    public func flushPersistence() async throws {
        guard let context = existingAttachment(PersistenceContext.self) else { return }
        var firstError: (any Error)?
        for writer in context.writers {
            do {
                try await writer.waitUntilDurable(writer.requestedGeneration)
            } catch {
                if firstError == nil { firstError = error }
            }
        }
        if let firstError { throw firstError }
    }

    /// The persistence errors reported in this runtime, oldest first: values that could not be read (kept, and set
    /// aside before a write), unknown versions, failed migrations, failed writes, and where unreadable data was
    /// set aside.
    ///
    /// ```swift
    /// import Foundation
    /// import Ripple
    /// import RipplePersistence
    ///
    /// let storage = InMemoryStorage()
    /// storage.storeUnreadable(Data("garbage".utf8), for: "name")
    /// let name = declare.atom(persisted: .memory(storage, key: "name")) { "Ripple" }
    /// withIsolatedRuntime {
    ///     print(name.value)                                    // Ripple
    ///     print(Runtime.current.persistenceErrors.count)       // 1
    /// }
    /// ```
    ///
    /// Threading: from any thread.
    public var persistenceErrors: [PersistenceError] {
        existingAttachment(PersistenceContext.self)?.reported ?? []
    }
}
