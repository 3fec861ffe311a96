import Foundation
import GRDB
import Ripple
import RipplePersistence
import RippleSQLite
import Testing

/// The SQLite storage: transactions, cross-process read-modify-write, other connections flowing back.
@Suite struct SQLiteTests {
    @Test func twoProcessesIncrementing1000TimesEachEndAtExactly2000() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("counter.sqlite").path
        // Write-ahead logging, set once here: two probes switching the mode together could find the database locked.
        var walDatabase: DatabaseQueue? = try DatabaseQueue(path: path)
        try walDatabase?.writeWithoutTransaction { try $0.execute(sql: "PRAGMA journal_mode = WAL") }
        walDatabase = nil
        let children = (0..<2).map { _ in
            let child = Process()
            child.executableURL = URL(fileURLWithPath: probePath)
            child.arguments = ["increment", path, "1000"]
            child.standardOutput = Pipe()
            child.standardError = Pipe()
            return child
        }
        for child in children { try child.run() }
        for child in children {
            child.waitUntilExit()
            let errors = (child.standardError as? Pipe)?.fileHandleForReading.readDataToEndOfFile() ?? Data()
            #expect(child.terminationStatus == 0, "\(String(decoding: errors, as: UTF8.self))")
        }
        let storage = SQLiteStorage(try DatabaseQueue(path: path))
        #expect(try storage.read("counter") == StoredRecord(version: 1, data: Data("2000".utf8)))
    }

    struct Todo: Codable, Sendable, Equatable {
        var title: String
        var done = false
    }

    static let database = try! DatabaseQueue()
    static let todos = declare.atom(persisted: .sqlite(database, key: "todos")) { [Todo]() }

    @Test func aPersistedAtomIsStoredInATransactionAndLoadedAgain() async throws {
        try await withIsolatedRuntime { () async throws in
            Self.todos.value.append(Todo(title: "Buy milk"))
            try await Runtime.current.flushPersistence()
        }
        let stored = try await Self.database.read { db in
            try String.fetchOne(db, sql: "SELECT CAST(data AS TEXT) FROM ripple_persisted WHERE key = 'todos'")
        }
        #expect(stored == #"[{"done":false,"title":"Buy milk"}]"#)
        withIsolatedRuntime { #expect(Self.todos.value == [Todo(title: "Buy milk")]) }
    }

    static let folder = try! TemporaryFolder()
    static let pool = try! DatabaseQueue(path: folder.file("shared.sqlite").path)
    static let shared = declare.atom(persisted: .sqlite(pool, key: "shared")) { 0 }

    /// A commit another connection makes right after `watch` returned is reported, however late the watch's first
    /// poll runs. Here it runs late for sure: a reader holds the database's queue until the commit is made (or, since
    /// the watch may itself wait for the queue to read the version it compares with, for 200 ms). The watch used to
    /// take that version at its first poll, after the commit, and never reported it.
    @Test(.timeLimit(.minutes(1))) func aCommitRightAfterTheWatchStartsIsReported() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let path = folder.file("watched.sqlite").path
        let storage = SQLiteStorage(try DatabaseQueue(path: path), pollInterval: .milliseconds(5))
        let other = SQLiteStorage(try DatabaseQueue(path: path))
        try other.write(StoredRecord(version: 1, data: Data("1".utf8)), for: "k")
        let held = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            try? storage.database.read { _ in
                held.signal()
                _ = release.wait(timeout: .now() + .milliseconds(200))
            }
        }
        held.wait()
        let changes = AsyncStream<Void>.makeStream()
        let watch = storage.watch("k") { changes.continuation.yield() }
        try other.write(StoredRecord(version: 1, data: Data("2".utf8)), for: "k")
        release.signal()
        var reported = changes.stream.makeAsyncIterator()
        #expect(await reported.next() != nil)
        watch?.cancel()
    }

    @Test func anotherConnectionsCommitFlowsBack() async throws {
        try await withIsolatedRuntime { () async throws in
            let seen = SeenValues<Int>()
            let effect = Effect { seen.append(Self.shared.value) }
            Self.shared.value = 1
            try await Runtime.current.flushPersistence()
            // Another connection (as another process has): seen through PRAGMA data_version.
            let other = SQLiteStorage(try DatabaseQueue(path: Self.folder.file("shared.sqlite").path))
            try other.write(StoredRecord(version: 1, data: Data("41".utf8)), for: "shared")
            await seen.wait(for: 41)
            #expect(seen.all == [0, 1, 41])
            _ = effect
        }
    }
}
