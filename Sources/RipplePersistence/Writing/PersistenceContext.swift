import Foundation
import Ripple

/// A runtime's persistence: its bindings (one per persisted instance), the change hook that hands their changes to
/// their writers, and the errors reported. Kept by the runtime as an attachment, so it goes with the runtime; the
/// hook does not keep the runtime alive.
///
/// A runtime without persisted instances has no context and no hook: its writes pay nothing for persistence. In a
/// runtime with some, each write of an atom calls the hook, which looks the atom up (one lock, one dictionary
/// probe).
final class PersistenceContext: @unchecked Sendable {
    // @unchecked: every stored var is read and written under `lock`.
    private let lock = NSLock()
    private var hook: ChangeHook?
    private var byKey: [BindingKey: any AnyPersistedBinding] = [:]
    private var byNode: [ObjectIdentifier: any AnyPersistedBinding] = [:]
    private var unresolved: [any AnyPersistedBinding] = []
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
            context.hook = runtime.onChange(retainingRuntime: false) { [weak context] change in
                context?.changed(change)
            }
            return context
        }
    }

    /// The binding under `key`, made by `make` if there is none.
    func binding<B: AnyPersistedBinding>(_ key: BindingKey, make: () -> B) -> B {
        if let existing = lock.withLock({ byKey[key] }) { return existing as! B }
        let made = make()
        return lock.withLock {
            if let existing = byKey[key] { return existing as! B }
            byKey[key] = made
            unresolved.append(made)
            return made
        }
    }

    /// The binding of the instance `node`, if it is persisted.
    func binding(of node: RippleNode) -> (any AnyPersistedBinding)? {
        let id = ObjectIdentifier(node)
        if let found = lock.withLock({ byNode[id] }) { return found }
        resolve()
        return lock.withLock { byNode[id] }
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

    /// A change of an atom of the runtime: if it is a persisted instance's, its binding writes it.
    private func changed(_ change: AtomChange) {
        binding(of: change.atom)?.localChange(change.newValue)
    }

    /// Finds the nodes of bindings made before their instance was installed.
    private func resolve() {
        let waiting = lock.withLock { unresolved }
        guard !waiting.isEmpty else { return }
        var found: [(ObjectIdentifier, any AnyPersistedBinding)] = []
        for binding in waiting {
            if let node = binding.resolveNode() { found.append((ObjectIdentifier(node), binding)) }
        }
        lock.withLock {
            for (id, binding) in found {
                byNode[id] = binding
                unresolved.removeAll { $0 === binding }
            }
        }
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
