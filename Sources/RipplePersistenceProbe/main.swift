// ripple-persistence-probe: the child process of the persistence tests and of the benchmark.
//
//   grow <file>                  loads the [Int] persisted at <file> (0..<n), then writes ever longer values
//                                (0..<n+97, 0..<n+194, ...) as fast as it can, until it is killed
//   increment <database> <count> adds 1 to the Int persisted in the SQLite <database> under "counter", <count>
//                                times, each a read-modify-write transaction, then prints the last value it stored
import Foundation
import GRDB
import Ripple
import RipplePersistence
import RippleSQLite

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: ripple-persistence-probe grow <file> | increment <db> <n>\n".utf8))
    exit(2)
}

switch arguments[1] {
case "grow":
    let values = declare.atom(persisted: .file(URL(fileURLWithPath: arguments[2]))) { [Int]() }
    var count = values.value.count
    FileHandle.standardOutput.write(Data("loaded \(count)\n".utf8))
    while true {
        count += 97
        values.value = Array(0..<count)
        if count % (97 * 16) == 0 { try await Runtime.current.flushPersistence() }
    }
case "increment":
    guard arguments.count == 4, let times = Int(arguments[3]) else { exit(2) }
    var configuration = Configuration()
    configuration.busyMode = .timeout(30)
    // Write-ahead logging: one fsync per commit instead of the rollback journal's several (durable: synchronous
    // stays FULL). The mode is kept in the database file: the test sets it before it starts two probes, because
    // switching it needs the database to itself, and SQLite reports "database is locked" at once, without waiting,
    // to the second of two processes that switch it together.
    configuration.prepareDatabase { db in
        if try String.fetchOne(db, sql: "PRAGMA journal_mode") != "wal" {
            try db.execute(sql: "PRAGMA journal_mode = WAL")
        }
        try db.execute(sql: "PRAGMA synchronous = FULL")
    }
    let database = try DatabaseQueue(path: arguments[2], configuration: configuration)
    let counter = declare.atom(persisted: .sqlite(database, key: "counter")) { 0 }
    var last = 0
    for _ in 0..<times {
        last = try counter.updateStored { $0 += 1 }
    }
    try await Runtime.current.flushPersistence()
    print("stored \(last)")
default:
    exit(2)
}
