import Foundation

/// What a storage keeps under a key: the bytes of a value and the version of the code that wrote them.
///
/// ```swift
/// import Foundation
/// import RipplePersistence
///
/// let record = StoredRecord(version: 2, data: Data("42".utf8))
/// print(record.version)     // 2
/// ```
///
/// Threading: a value.
public struct StoredRecord: Sendable, Equatable {
    /// The version of the value's format (the `version:` of the declaration that wrote it).
    public var version: Int
    /// The encoded value.
    public var data: Data

    /// A record of `data` in format `version`.
    ///
    /// ```swift
    /// import Foundation
    /// import RipplePersistence
    ///
    /// print(StoredRecord(version: 1, data: Data()).data.count)    // 0
    /// ```
    ///
    /// - Parameters:
    ///   - version: the version of the format.
    ///   - data: the encoded value.
    public init(version: Int, data: Data) {
        self.version = version
        self.data = data
    }
}

/// Where persisted atoms keep their values: files (``FileStorage``), memory (``InMemoryStorage``), SQLite
/// (`RippleSQLite`), or your own (UserDefaults, the Keychain, a server).
///
/// A storage stores ``StoredRecord``s by key. Ripple calls it from one writer per location at a time (writes to one
/// key never overlap within a process) and from the first read of an instance (``read(_:)``, synchronously).
///
/// ```swift
/// import Foundation
/// import RipplePersistence
///
/// let storage = InMemoryStorage()
/// try storage.write(StoredRecord(version: 1, data: Data("7".utf8)), for: "count")
/// print(try storage.read("count")?.version ?? 0)     // 1
/// ```
///
/// Threading: every method may be called from any thread. Lifetime: locations keep their storage.
public protocol PersistentStorage: AnyObject, Sendable {
    /// Names the place the storage keeps its values: two storage objects with the same identity are one place, and
    /// their writers for a key are one, so that writes from two runtimes of a process never reorder.
    var identity: String { get }

    /// The record under `key`, or nil if there is none.
    ///
    /// - Throws: ``PersistenceError/unreadable(location:reason:)`` when the bytes are there but are not a record
    ///   (they are then kept: see ``setAside(_:)``), or the storage's error.
    func read(_ key: String) throws -> StoredRecord?

    /// Replaces the record under `key`, durably and atomically: when it returns, a crash leaves the new record, and
    /// a crash before leaves the old one; never a mix.
    func write(_ record: StoredRecord, for key: String) throws

    /// Removes the record under `key`, durably (nothing if there is none).
    func remove(_ key: String) throws

    /// Keeps what is under `key` somewhere else, because it could not be read, so that a write does not destroy it.
    ///
    /// - Returns: where it is now, for the report; nil if there was nothing to keep.
    func setAside(_ key: String) throws -> String?

    /// Reads the record under `key`, gives it to `transform` and writes the result, as one atomic step for every
    /// process that uses the storage through this method.
    ///
    /// - Returns: the record written.
    func update(_ key: String, _ transform: (StoredRecord?) throws -> StoredRecord) throws -> StoredRecord

    /// Calls `onChange` (on any thread) when something may have changed the record under `key`, until the returned
    /// watch is cancelled; nil when the storage cannot watch. Spurious calls are fine: the caller reads and
    /// compares.
    func watch(_ key: String, onChange: @escaping @Sendable () -> Void) -> PersistenceWatch?
}

/// A running watch of a storage location; ``cancel()`` (or releasing it) stops it.
///
/// ```swift
/// import RipplePersistence
///
/// let storage = InMemoryStorage()
/// let watch = storage.watch("count") { print("changed") }
/// try storage.remove("count")      // prints "changed"
/// watch?.cancel()
/// try storage.remove("count")      // cancelled: prints nothing
/// ```
///
/// Threading: cancel from any thread.
public protocol PersistenceWatch: AnyObject, Sendable {
    /// Stops calling the watch's closure. Idempotent.
    func cancel()
}

/// The atomicity of `update` within a process, for storages with no cross-process lock of their own.
private let fallbackUpdateLock = NSLock()

extension PersistentStorage {
    /// Reads and writes under a lock of this process: atomic within the process only. Storages that more than one
    /// process writes implement it with their own lock or transaction (``FileStorage`` with `flock`, SQLite with a
    /// transaction).
    ///
    /// ```swift
    /// import Foundation
    /// import RipplePersistence
    ///
    /// let storage = InMemoryStorage()
    /// let written = try storage.update("n") { _ in StoredRecord(version: 1, data: Data("1".utf8)) }
    /// print(written.data.count)     // 1
    /// ```
    ///
    /// - Parameters:
    ///   - key: the record's key.
    ///   - transform: computes the new record from the old one.
    /// - Returns: the record written.
    public func update(_ key: String, _ transform: (StoredRecord?) throws -> StoredRecord) throws -> StoredRecord {
        fallbackUpdateLock.lock()
        defer { fallbackUpdateLock.unlock() }
        let record = try transform(try read(key))
        try write(record, for: key)
        return record
    }
}
