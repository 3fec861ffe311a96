import Foundation
import Ripple

/// What the flush sees of a binding, whatever its value type.
protocol AnyPersistedBinding: AnyObject, Sendable {
    var writer: PersistedLocation { get }
}

/// One persisted instance (a declared atom, or a family member, in one runtime) tied to its location: it loads the
/// value when the instance is made, writes each change of the instance (it is the instance's write observer:
/// ``PersistenceContext/attach(_:to:)``), and writes values that other writers stored into the instance, through a
/// normal Ripple write.
///
/// Echo suppression: ``known`` is the value this binding knows to be stored or on its way there. A change equal to
/// it is not written (it is the instance taking a stored value), and a stored value equal to it is not applied.
final class PersistedBinding<Value: Codable & Sendable & Equatable>: AnyPersistedBinding, LocationSubscriber,
    @unchecked Sendable
{
    // @unchecked: `known` is read and written only under `lock`; the rest never changes after init.
    let writer: PersistedLocation
    let settings: PersistenceSettings<Value>
    private weak var context: PersistenceContext?
    private let findNode: @Sendable () -> AtomObject<Value>?
    private let lock = NSLock()
    private var known: Value?

    init(
        writer: PersistedLocation, settings: PersistenceSettings<Value>, context: PersistenceContext,
        findNode: @escaping @Sendable () -> AtomObject<Value>?
    ) {
        self.writer = writer
        self.settings = settings
        self.context = context
        self.findNode = findNode
    }

    /// Attaches this binding to its instance if that exists already (it was made from an override that was then
    /// removed, and now loads from here); an instance made after this is attached when it is made.
    func attachExistingInstance() {
        guard let node = findNode(), let context else { return }
        context.attach(self, to: node)
    }

    /// The value the instance starts from: a write of this process still on its way, else the stored value
    /// (migrated and written back if it was older), else `makeDefault()`; the default too when what is stored
    /// cannot be read, which is then reported and kept.
    func load(_ makeDefault: () -> Value) -> Value {
        if let pending = writer.pendingValue() {
            let value = (pending as? Value) ?? makeDefault()
            lock.withLock { known = value }
            return value
        }
        let name = writer.location.description
        do {
            guard let record = try writer.read() else {
                let value = makeDefault()
                lock.withLock { known = value }
                return value
            }
            let (value, migrated) = try settings.decode(record, at: name)
            lock.withLock { known = value }
            if migrated { write(value) }
            return value
        } catch {
            writer.markUnreadable()
            persistenceFailed(error as? PersistenceError ?? .unreadable(location: name, reason: "\(error)"))
            let value = makeDefault()
            lock.withLock { known = value }
            return value
        }
    }

    /// The instance changed to `value` by a write in its runtime (its write observer). Called while the graph is
    /// held.
    func localChange(_ value: Value) {
        let isNew = lock.withLock { () -> Bool in
            if known == value { return false }
            known = value
            return true
        }
        if isNew { write(value) }
    }

    private func write(_ value: Value) {
        let settings = settings
        writer.write(value, origin: ObjectIdentifier(self)) { try settings.encode(value) }
    }

    /// Removes the stored value, and sets the instance to `value` (its default) without writing it.
    func remove(settingTo value: Value) {
        lock.withLock { known = value }
        writer.remove(origin: ObjectIdentifier(self))
        findNode()?.value = value
    }

    /// Reads the stored value, applies `body` and stores the result, atomically for every process using the
    /// storage's `update`; then the instance takes the result.
    ///
    /// The instance takes it on the location's queue, inside the same transaction: a value another writer stores
    /// next is read from that queue (and handed to the instance) only after this. Taken after the transaction, a
    /// newer value could flow back first; the instance's write of this older result would then store it over the
    /// newer one, losing an increment (`UpdateStoredRaceTests`).
    func updateStored(_ body: (inout Value) throws -> Void, default makeDefault: () -> Value) throws -> Value {
        let settings = settings
        let name = writer.location.description
        return try writer.transaction {
            var result: Value?
            let record = try writer.location.storage.update(writer.location.key) { stored in
                var value = try stored.map { try settings.decode($0, at: name).0 } ?? makeDefault()
                try body(&value)
                result = value
                return try settings.encode(value)
            }
            guard let value = result else { throw PersistenceError.writeFailed(location: name, reason: "no value") }
            writer.stored(record, by: ObjectIdentifier(self))
            takeStored(value)
            return value
        }
    }

    func storedRecordChanged(_ record: StoredRecord?) {
        // A removal by another writer leaves the instance's value as it is: the next write stores it again.
        guard let record else { return }
        let value: Value
        do {
            value = try settings.decode(record, at: writer.location.description).0
        } catch {
            writer.markUnreadable()
            persistenceFailed(error)
            return
        }
        takeStored(value)
    }

    /// The instance takes `value`, which is stored (another writer's, or this binding's `updateStored`), without
    /// writing it back. Inside the node's update (which holds the graph, as the write observer's call does): a local
    /// write queued before wins, being later.
    private func takeStored(_ value: Value) {
        guard let node = findNode() else {
            lock.withLock { known = value }
            return
        }
        node.update { current in
            if writer.hasPending { return }
            lock.withLock { known = value }
            current = value
        }
    }

    func persistenceFailed(_ error: PersistenceError) {
        settings.onError?(error)
        context?.record(error)
    }
}
