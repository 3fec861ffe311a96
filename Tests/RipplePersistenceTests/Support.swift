import Foundation
import Ripple
import RipplePersistence

/// A fresh folder for one test (never shared between tests), removed by `remove()`.
struct TemporaryFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("ripple-persistence-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    var contents: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
    }

    func remove() { try? FileManager.default.removeItem(at: url) }
}

/// A storage over an in-memory one that records every write and removal in order, can hold writes until released
/// (to make a burst pile up behind the first write), and can fail writes.
final class RecordingStorage: PersistentStorage, @unchecked Sendable {
    // @unchecked: the vars are read and written under `lock`; `inner` is thread-safe.
    let inner = InMemoryStorage()
    private let lock = NSLock()
    private var log: [String] = []
    private var holding: DispatchSemaphore?
    private var heldOne: DispatchSemaphore?
    private var failing = false

    var identity: String { "recording:" + inner.identity }
    var operations: [String] { lock.withLock { log } }

    /// Makes the next write wait, after signalling `started`, until `release()`.
    func holdNextWrite() -> DispatchSemaphore {
        let started = DispatchSemaphore(value: 0)
        lock.withLock {
            holding = DispatchSemaphore(value: 0)
            heldOne = started
        }
        return started
    }

    func release() {
        lock.withLock { holding }?.signal()
    }

    func setFailing(_ fails: Bool) { lock.withLock { failing = fails } }

    func read(_ key: String) throws -> StoredRecord? { try inner.read(key) }

    func write(_ record: StoredRecord, for key: String) throws {
        let (hold, started, fails) = lock.withLock { () -> (DispatchSemaphore?, DispatchSemaphore?, Bool) in
            defer { heldOne = nil }
            return (heldOne == nil ? nil : holding, heldOne, failing)
        }
        if let hold, let started {
            started.signal()
            hold.wait()
        }
        if fails { throw PersistenceError.writeFailed(location: key, reason: "disk full (test)") }
        lock.withLock { log.append("write \(key) \(String(decoding: record.data, as: UTF8.self))") }
        try inner.write(record, for: key)
    }

    func remove(_ key: String) throws {
        lock.withLock { log.append("remove \(key)") }
        try inner.remove(key)
    }

    func setAside(_ key: String) throws -> String? { try inner.setAside(key) }

    func watch(_ key: String, onChange: @escaping @Sendable () -> Void) -> PersistenceWatch? {
        inner.watch(key, onChange: onChange)
    }
}

/// Values an effect saw, and a wait for a value to arrive (a continuation, not a sleep).
final class SeenValues<Value: Equatable & Sendable>: @unchecked Sendable {
    // @unchecked: every var is read and written under `lock`.
    private let lock = NSLock()
    private var values: [Value] = []
    private var waiters: [(Value, CheckedContinuation<Void, Never>)] = []

    var all: [Value] { lock.withLock { values } }

    func append(_ value: Value) {
        let ready = lock.withLock { () -> [CheckedContinuation<Void, Never>] in
            values.append(value)
            let ready = waiters.filter { $0.0 == value }.map(\.1)
            waiters.removeAll { $0.0 == value }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }

    /// Returns once `value` was seen.
    func wait(for value: Value) async {
        await withCheckedContinuation { continuation in
            let seen = lock.withLock { () -> Bool in
                if values.contains(value) { return true }
                waiters.append((value, continuation))
                return false
            }
            if seen { continuation.resume() }
        }
    }
}

/// The record of `text` in version `version`.
func record(_ text: String, version: Int = 1) -> StoredRecord {
    StoredRecord(version: version, data: Data(text.utf8))
}

/// The path of the persistence tests' child process, built beside the test bundle.
var probePath: String {
    let folder = Bundle.main.executableURL?.deletingLastPathComponent()
        ?? URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    return folder.appendingPathComponent("RipplePersistenceProbe").path
}
