import Foundation
import GRDB
import RipplePersistence

/// A storage in a SQLite database, through GRDB: one row per key in the table `ripple_persisted` (made on first
/// use), each write a transaction, ``update(_:_:)`` an immediate transaction (so that read-modify-write from several
/// processes never interleaves), and other writers seen by polling SQLite's `PRAGMA data_version` (which changes
/// when another connection commits) every ``pollInterval``.
///
/// ```swift
/// import Foundation
/// import GRDB
/// import RipplePersistence
/// import RippleSQLite
///
/// let storage = SQLiteStorage(try DatabaseQueue())     // in memory
/// try storage.write(StoredRecord(version: 1, data: Data("3".utf8)), for: "count")
/// print(try storage.read("count")?.data.count ?? 0)     // 1
/// ```
///
/// Give the database a busy timeout (`Configuration.busyMode = .timeout(...)`) when several processes write it.
///
/// Threading: from any thread (GRDB serializes the database's use).
public final class SQLiteStorage: PersistentStorage, @unchecked Sendable {
    // @unchecked: `tableReady` is read and written only under `lock`; the rest never changes.
    /// The database.
    public let database: any DatabaseWriter
    /// How often a watch polls `PRAGMA data_version` (50 ms): the delay before another process's write flows back.
    public let pollInterval: Duration
    private let lock = NSLock()
    private var tableReady = false

    /// A storage in `database`.
    ///
    /// ```swift
    /// import GRDB
    /// import RippleSQLite
    ///
    /// let storage = SQLiteStorage(try DatabaseQueue(), pollInterval: .milliseconds(20))
    /// print(storage.pollInterval)     // 0.02 seconds
    /// ```
    ///
    /// - Parameters:
    ///   - database: a `DatabaseQueue` or `DatabasePool`.
    ///   - pollInterval: how often a watch checks for other connections' commits.
    public init(_ database: any DatabaseWriter, pollInterval: Duration = .milliseconds(50)) {
        self.database = database
        self.pollInterval = pollInterval
    }

    /// The database's path: two storages on one file are one place.
    public var identity: String { "sqlite:" + database.path }

    /// The record under `key`, or nil.
    public func read(_ key: String) throws -> StoredRecord? {
        try prepare()
        return try database.read { db in try Self.fetch(key, in: db) }
    }

    /// Replaces the record under `key`, in a transaction.
    public func write(_ record: StoredRecord, for key: String) throws {
        try prepare()
        try database.write { db in try Self.store(record, for: key, in: db) }
    }

    /// Deletes the row of `key`.
    public func remove(_ key: String) throws {
        try prepare()
        try database.write { db in
            try db.execute(sql: "DELETE FROM ripple_persisted WHERE key = ?", arguments: [key])
        }
    }

    /// Moves the row of `key` to the key `"<key>.unreadable-<milliseconds since 1970>"`.
    public func setAside(_ key: String) throws -> String? {
        try prepare()
        let target = "\(key).unreadable-\(Int64(Date().timeIntervalSince1970 * 1000))"
        return try database.write { db in
            guard try Self.fetch(key, in: db) != nil else { return nil }
            try db.execute(sql: "UPDATE ripple_persisted SET key = ? WHERE key = ?", arguments: [target, key])
            return target
        }
    }

    /// Reads, transforms and writes in one immediate transaction: atomic across processes.
    public func update(_ key: String, _ transform: (StoredRecord?) throws -> StoredRecord) throws -> StoredRecord {
        try prepare()
        return try database.writeWithoutTransaction { db in
            var written: StoredRecord?
            try db.inTransaction(.immediate) {
                let record = try transform(try Self.fetch(key, in: db))
                try Self.store(record, for: key, in: db)
                written = record
                return .commit
            }
            return written!
        }
    }

    /// Polls `PRAGMA data_version` every ``pollInterval``; calls `onChange` when it moved.
    public func watch(_ key: String, onChange: @escaping @Sendable () -> Void) -> PersistenceWatch? {
        SQLiteWatch(database: database, interval: pollInterval, onChange: onChange)
    }

    private func prepare() throws {
        try lock.withLock {
            if tableReady { return }
            try database.write { db in
                try db.execute(sql: """
                    CREATE TABLE IF NOT EXISTS ripple_persisted (
                        key TEXT PRIMARY KEY NOT NULL, version INTEGER NOT NULL, data BLOB NOT NULL)
                    """)
            }
            tableReady = true
        }
    }

    private static func fetch(_ key: String, in db: Database) throws -> StoredRecord? {
        guard let row = try Row.fetchOne(
            db, sql: "SELECT version, data FROM ripple_persisted WHERE key = ?", arguments: [key])
        else { return nil }
        return StoredRecord(version: row["version"], data: row["data"])
    }

    private static func store(_ record: StoredRecord, for key: String, in db: Database) throws {
        try db.execute(
            sql: "INSERT OR REPLACE INTO ripple_persisted (key, version, data) VALUES (?, ?, ?)",
            arguments: [key, record.version, record.data])
    }
}

/// A poll of `PRAGMA data_version` on a timer.
private final class SQLiteWatch: PersistenceWatch, @unchecked Sendable {
    // @unchecked: `timer` never changes and a Dispatch source is thread-safe; `version` is set in `init` before the
    // timer is resumed (which orders it before the first event) and afterwards touched only on the timer's serial
    // queue.
    private let timer: DispatchSourceTimer
    private var version: Int?

    init(database: any DatabaseWriter, interval: Duration, onChange: @escaping @Sendable () -> Void) {
        let queue = DispatchQueue(label: "ripple-sqlite-watch")
        timer = DispatchSource.makeTimerSource(queue: queue)
        let nanoseconds = Int(interval.components.seconds) * 1_000_000_000
            + Int(interval.components.attoseconds / 1_000_000_000)
        // The version to compare with is read now, before the watch is returned: taken by the timer's first event, it
        // could already include a commit made after `watch(_:onChange:)` returned, which would then never be seen.
        version = try? database.read { db in try Int.fetchOne(db, sql: "PRAGMA data_version") }
        let period = DispatchTimeInterval.nanoseconds(max(nanoseconds, 1_000_000))
        timer.schedule(deadline: .now() + period, repeating: period)
        timer.setEventHandler { [weak self] in
            guard let self else { return }
            guard let current = try? database.read({ db in try Int.fetchOne(db, sql: "PRAGMA data_version") })
            else { return }
            defer { self.version = current }
            if let previous = self.version, previous != current { onChange() }
        }
        timer.resume()
    }

    func cancel() {
        timer.cancel()
    }

    deinit { cancel() }
}

extension PersistenceLocation {
    /// The row of `key` in `database`'s `ripple_persisted` table, written in transactions and watched through
    /// `PRAGMA data_version`.
    ///
    /// ```swift
    /// import GRDB
    /// import RipplePersistence
    /// import RippleSQLite
    ///
    /// let database = try DatabaseQueue()
    /// let location = PersistenceLocation.sqlite(database, key: "todos")
    /// print(location.key)      // todos
    /// ```
    ///
    /// - Parameters:
    ///   - database: the database (a `DatabaseQueue` or `DatabasePool`).
    ///   - key: the row's key.
    /// - Returns: the location.
    public static func sqlite(_ database: any DatabaseWriter, key: String) -> PersistenceLocation {
        PersistenceLocation(storage: SQLiteStorage(database), key: key)
    }
}
