import Foundation

/// A storage in memory: for tests and previews, hermetic (each instance is its own place) and watchable.
///
/// Writing to it directly (``write(_:for:)``) is what another process writing the same file looks like to a
/// persisted atom: it flows back to the atom. ``storeUnreadable(_:for:)`` puts bytes that are not a record, to test
/// what happens to data the code cannot read.
///
/// ```swift
/// import Foundation
/// import RipplePersistence
///
/// let storage = InMemoryStorage()
/// try storage.write(StoredRecord(version: 1, data: Data("1".utf8)), for: "k")
/// print(storage.keys)      // ["k"]
/// ```
///
/// Threading: from any thread (a lock guards it). Watch closures run on the writing thread.
public final class InMemoryStorage: PersistentStorage, @unchecked Sendable {
    // @unchecked: every stored var is read and written only under `lock`.
    private let lock = NSLock()
    private var records: [String: Entry] = [:]
    private var watchers: [String: [ObjectIdentifier: @Sendable () -> Void]] = [:]
    private var setAsideCount = 0

    private enum Entry {
        case record(StoredRecord)
        case unreadable(Data)
    }

    /// An empty storage.
    ///
    /// ```swift
    /// import RipplePersistence
    ///
    /// print(InMemoryStorage().keys.isEmpty)     // true
    /// ```
    public init() {}

    /// This object's identity: each in-memory storage is a place of its own.
    public var identity: String { "memory:\(ObjectIdentifier(self).hashValue)" }

    /// The keys that hold something, sorted.
    public var keys: [String] { lock.withLock { records.keys.sorted() } }

    /// The record under `key`, or nil.
    ///
    /// - Throws: ``PersistenceError/unreadable(location:reason:)`` for bytes stored with
    ///   ``storeUnreadable(_:for:)``.
    public func read(_ key: String) throws -> StoredRecord? {
        switch lock.withLock({ records[key] }) {
        case nil: return nil
        case .record(let record): return record
        case .unreadable: throw PersistenceError.unreadable(location: key, reason: "not a record")
        }
    }

    /// The bytes under `key` as they are (a record's data, or unreadable bytes), or nil.
    ///
    /// - Parameter key: the key.
    /// - Returns: the bytes.
    public func rawBytes(_ key: String) -> Data? {
        switch lock.withLock({ records[key] }) {
        case nil: return nil
        case .record(let record): return record.data
        case .unreadable(let data): return data
        }
    }

    /// Stores `record` under `key` and tells the watchers of `key`.
    public func write(_ record: StoredRecord, for key: String) throws {
        store(.record(record), for: key)
    }

    /// Stores bytes that are not a record under `key` (what a corrupt file is to ``FileStorage``).
    ///
    /// - Parameters:
    ///   - bytes: the bytes.
    ///   - key: the key.
    public func storeUnreadable(_ bytes: Data, for key: String) {
        store(.unreadable(bytes), for: key)
    }

    /// Removes what is under `key` and tells its watchers.
    public func remove(_ key: String) throws {
        store(nil, for: key)
    }

    /// Moves what is under `key` to `"<key>.unreadable-<n>"`.
    public func setAside(_ key: String) throws -> String? {
        let moved = lock.withLock { () -> String? in
            guard let entry = records.removeValue(forKey: key) else { return nil }
            setAsideCount += 1
            let name = "\(key).unreadable-\(setAsideCount)"
            records[name] = entry
            return name
        }
        if moved != nil { notify(key) }
        return moved
    }

    /// Calls `onChange` after each write, removal or set-aside of `key`.
    public func watch(_ key: String, onChange: @escaping @Sendable () -> Void) -> PersistenceWatch? {
        let watch = MemoryWatch(storage: self, key: key)
        lock.withLock { watchers[key, default: [:]][ObjectIdentifier(watch)] = onChange }
        return watch
    }

    fileprivate func unwatch(_ key: String, _ id: ObjectIdentifier) {
        lock.withLock { _ = watchers[key]?.removeValue(forKey: id) }
    }

    private func store(_ entry: Entry?, for key: String) {
        lock.withLock { records[key] = entry }
        notify(key)
    }

    private func notify(_ key: String) {
        let calls = lock.withLock { watchers[key].map { Array($0.values) } ?? [] }
        for call in calls { call() }
    }
}

/// A watch of an ``InMemoryStorage`` key.
private final class MemoryWatch: PersistenceWatch, @unchecked Sendable {
    // @unchecked: `storage` is set once, and cleared only under the storage's lock by `unwatch` (weak is atomic).
    private weak var storage: InMemoryStorage?
    private let key: String

    init(storage: InMemoryStorage, key: String) {
        self.storage = storage
        self.key = key
    }

    func cancel() {
        storage?.unwatch(key, ObjectIdentifier(self))
    }

    deinit { cancel() }
}
