import Foundation
import Ripple

/// A runtime's persistence: its bindings (one per persisted instance) and the errors reported. Kept by the runtime
/// as an attachment, so it goes with the runtime.
///
/// No runtime-wide change hook: each persisted instance, when it is made, gets its binding as its own write
/// observer (``PersistedBinding/attach(_:)``, `AtomObject.observeWrites`), so only its own writes reach its
/// writer, and the runtime's other atoms write as in a runtime without persistence.
final class PersistenceContext: @unchecked Sendable {
    // @unchecked: `byKey` and `errors` are read and written under `lock` only.
    private let lock = NSLock()
    private var byKey: [BindingKey: any AnyPersistedBinding] = [:]
    private var errors: [PersistenceError] = []

    /// A binding's identity: the persisted declaration and, for a family member, its key.
    struct BindingKey: Hashable {
        let declaration: ObjectIdentifier
        let member: AnyHashable?
    }

    /// The context of `runtime`, made on first use.
    static func of(_ runtime: Runtime) -> PersistenceContext {
        runtime.attachment(PersistenceContext.self) { _ in PersistenceContext() }
    }

    /// Attaches the binding under `key` to `node`, the instance just made (the declaration's `atomMade` hook): its
    /// writes reach the binding from now on. Nothing when the instance has no binding (an override made it).
    static func attach<Value: Codable & Sendable & Equatable>(_ node: AtomObject<Value>, to key: BindingKey) {
        guard let context = node.runtime.existingAttachment(PersistenceContext.self),
            let binding = context.lock.withLock({ context.byKey[key] }) as? PersistedBinding<Value>
        else { return }
        context.attach(binding, to: node)
    }

    /// Makes `binding` the write observer of `node`, and so the binding ``binding(of:)`` finds for it.
    func attach<Value: Codable & Sendable & Equatable>(_ binding: PersistedBinding<Value>, to node: AtomObject<Value>) {
        node.observeWrites(owner: binding) { value in binding.localChange(value) }
    }

    /// The binding under `key` in `runtime`, made by `make` if there is none.
    func binding<B: AnyPersistedBinding>(_ key: BindingKey, in runtime: Runtime, make: () -> B) -> B {
        if let existing = lock.withLock({ byKey[key] }) { return existing as! B }
        let made = make()
        return lock.withLock { () -> B in
            if let existing = byKey[key] { return existing as! B }
            byKey[key] = made
            return made
        }
    }

    /// The binding of the instance `node`, if it is persisted: the owner of its write observer (``attach(_:to:)``),
    /// kept by the node itself, so that it goes with the node and a node made later at its address has none.
    static func binding<Value: Codable & Sendable & Equatable>(of node: AtomObject<Value>) -> PersistedBinding<Value>? {
        node.writeObserverOwner as? PersistedBinding<Value>
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
