import Foundation
import GRDB
import Ripple
import RippleBenchC
import RipplePersistence
import RippleSQLite

// The persistence rows (Swift only): from a write of one small value to durable (flushPersistence returned) on a
// file and on SQLite; the storage writes a burst of 10,000 writes costs and the time until the last is durable; and
// a plain atom's write with persistence off (no persisted atom in its runtime), which must not change with this
// module, against the same write in a runtime that has a persisted atom (whose own write observer, not a change
// hook, reaches its storage: the two must be within noise, and neither may grow the heap).

/// A storage that counts the writes reaching the one it wraps.
private final class CountingStorage: PersistentStorage, @unchecked Sendable {
    // @unchecked: `count` is read and written under `lock`; `inner` is thread-safe.
    let inner: any PersistentStorage
    private let lock = NSLock()
    private var count = 0

    init(_ inner: any PersistentStorage) { self.inner = inner }

    var writes: Int { lock.withLock { count } }
    var identity: String { "counting:" + inner.identity }
    func read(_ key: String) throws -> StoredRecord? { try inner.read(key) }
    func write(_ record: StoredRecord, for key: String) throws {
        lock.withLock { count += 1 }
        try inner.write(record, for: key)
    }
    func remove(_ key: String) throws { try inner.remove(key) }
    func setAside(_ key: String) throws -> String? { try inner.setAside(key) }
    func watch(_ key: String, onChange: @escaping @Sendable () -> Void) -> PersistenceWatch? {
        inner.watch(key, onChange: onChange)
    }
}

private enum PersistenceShapes {
    static let folder: URL = {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("ripple-bench-persistence-\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()
    static let fileCounter = CountingStorage(FileStorage(directory: folder))
    static let fileValue = declare.atom(persisted: PersistenceLocation(storage: fileCounter, key: "value.json")) { 0 }
    static let burstCounter = CountingStorage(FileStorage(directory: folder))
    static let burstValue = declare.atom(persisted: PersistenceLocation(storage: burstCounter, key: "burst.json")) {
        0
    }
    static let database = try! DatabaseQueue(path: folder.appendingPathComponent("bench.sqlite").path)
    static let sqliteValue = declare.atom(persisted: .sqlite(database, key: "value")) { 0 }
    static let plain = declare.atom(keepAlive: true) { 0 }
}

/// The median and the 99th percentile of `samples`, in microseconds.
private func percentiles(_ samples: [Double]) -> (median: Double, p99: Double) {
    let sorted = samples.sorted()
    return (sorted[sorted.count / 2], sorted[min(sorted.count - 1, sorted.count * 99 / 100)])
}

/// Microseconds from a write of `atom` to flushPersistence's return, `count` times.
private func durableLatencies(_ atom: DeclaredAtom<Int>, count: Int) -> [Double] {
    runBlocking {
        await withIsolatedRuntime { () async -> [Double] in
            var samples: [Double] = []
            for value in 1...count {
                let start = ContinuousClock.now
                atom.value = value
                try! await Runtime.current.flushPersistence()
                samples.append(Double((ContinuousClock.now - start).components.attoseconds) / 1e12)
            }
            return samples
        }
    }
}

/// Nanoseconds per write of a plain declared atom's node, and the heap growth over the writes.
private func plainWriteNanoseconds(withPersistedAtom: Bool, withEmptyHook: Bool = false, writes: Int)
    -> (ns: Double, heapDelta: Int)
{
    withIsolatedRuntime {
        if withPersistedAtom { _ = PersistenceShapes.fileValue.value }
        let hook = withEmptyHook ? Runtime.current.onChange { _ in } : nil
        defer { hook?.cancel() }
        let node = PersistenceShapes.plain.node
        for value in 0..<1000 { node.value = value }
        let heap = rb_heap_in_use()
        let start = ContinuousClock.now
        for value in 0..<writes { node.value = value &+ 1 }
        let elapsed = ContinuousClock.now - start
        let delta = Int(rb_heap_in_use()) - Int(heap)
        let ns = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
        return (ns / Double(writes), delta)
    }
}

func persistenceBenchmark() -> Benchmark {
    Benchmark(id: "persistence", group: "persistence", title: "persistence") { row, options in
        row.observationNote = "not applicable"
        guard options.swift else { return }
        let count = options.samples(5) * 40
        let file = percentiles(durableLatencies(PersistenceShapes.fileValue, count: count))
        let sqlite = percentiles(durableLatencies(PersistenceShapes.sqliteValue, count: count))

        let writesBefore = PersistenceShapes.burstCounter.writes
        let burstMicroseconds = runBlocking {
            await withIsolatedRuntime { () async -> Double in
                let start = ContinuousClock.now
                for value in 1...10_000 { PersistenceShapes.burstValue.value = value }
                try! await Runtime.current.flushPersistence()
                return Double((ContinuousClock.now - start).components.attoseconds) / 1e12
                    + Double((ContinuousClock.now - start).components.seconds) * 1e6
            }
        }
        let burstWrites = PersistenceShapes.burstCounter.writes - writesBefore
        if (try? PersistenceShapes.burstCounter.read("burst.json"))??.data != Data("10000".utf8) {
            row.failures.append("the burst's last value did not land")
        }

        let writes = 1_000_000
        let off = plainWriteNanoseconds(withPersistedAtom: false, writes: writes)
        let on = plainWriteNanoseconds(withPersistedAtom: true, writes: writes)
        let emptyHook = plainWriteNanoseconds(withPersistedAtom: false, withEmptyHook: true, writes: writes)
        row.swiftMilliseconds = file.median / 1000
        row.figures["fileDurableMedianMicroseconds"] = file.median
        row.figures["fileDurableP99Microseconds"] = file.p99
        row.figures["sqliteDurableMedianMicroseconds"] = sqlite.median
        row.figures["sqliteDurableP99Microseconds"] = sqlite.p99
        row.figures["burstStorageWrites"] = Double(burstWrites)
        row.figures["burstDurableMicroseconds"] = burstMicroseconds
        row.figures["plainWriteNsPersistenceOff"] = off.ns
        row.figures["plainWriteNsBesideAPersistedAtom"] = on.ns
        row.figures["plainWriteHeapDeltaBytes"] = Double(off.heapDelta)
        row.figures["plainWriteHeapDeltaBytesBesideAPersistedAtom"] = Double(on.heapDelta)
        row.figures["plainWriteNsWithAnEmptyChangeHook"] = emptyHook.ns
        row.notes.append(
            "write→durable: file median \(format(file.median)) µs (p99 \(format(file.p99))),"
                + " SQLite median \(format(sqlite.median)) µs (p99 \(format(sqlite.p99))), \(count) writes each;"
                + " a 10,000-write burst: \(burstWrites) storage writes,"
                + " durable after \(format(burstMicroseconds)) µs;"
                + " a plain atom's write: \(format(off.ns)) ns with persistence off (heap \(off.heapDelta) B over"
                + " \(writes) writes), \(format(on.ns)) ns in a runtime with a persisted atom (heap"
                + " \(on.heapDelta) B; with an empty change"
                + " hook instead: \(format(emptyHook.ns)) ns);"
                + " files in \(PersistenceShapes.folder.path)")
        try? FileManager.default.removeItem(at: PersistenceShapes.folder)
    }
}
