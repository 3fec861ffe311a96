import Foundation

/// What a location tells the instances bound to it: a value stored by someone else, or a failure.
protocol LocationSubscriber: AnyObject, Sendable {
    /// Another writer (another runtime of this process, or another process) stored `record` (nil: removed).
    /// Called on the location's queue.
    func storedRecordChanged(_ record: StoredRecord?)
    /// A write, removal or set-aside failed, or what is stored could not be read.
    func persistenceFailed(_ error: PersistenceError)
}

/// The writer of one location in this process: every instance bound to the location, in any runtime, writes
/// through it, so that writes to one place never reorder.
///
/// Writes coalesce: a change replaces the operation waiting to start (``pending``), and one queue performs one
/// operation at a time, so a burst costs at most two storage writes once the first started: the one in progress and
/// the latest value. Each operation gets a generation; ``waitUntilDurable(_:)`` returns when an operation of that
/// generation or later completed. The queue also reads the location when a watch says it changed, and hands a value
/// that is not this process's own last write to the subscribers (the echo of one's own write is not a change).
final class PersistedLocation: @unchecked Sendable {
    // @unchecked: every stored var is read and written under `lock`; `location` and `queue` never change.
    let location: PersistenceLocation
    private let queue: DispatchQueue
    private let lock = NSLock()

    /// An operation not yet started: a write (its value for synchronous loads, and how to encode it) or a removal.
    struct Operation {
        let generation: UInt64
        let value: Any?
        let encode: (@Sendable () throws -> StoredRecord)?
        let origin: ObjectIdentifier?
    }

    private var pending: Operation?
    /// The operation the queue is performing: a load must see its value until it is durable.
    private var inFlight: Operation?
    private var requested: UInt64 = 0
    private var durable: UInt64 = 0
    private var draining = false
    private var failure: PersistenceError?
    private var waiters: [(generation: UInt64, continuation: CheckedContinuation<Void, any Error>)] = []
    /// The data this process last knows to be stored (written, read or seen): a watched change equal to it is an
    /// echo.
    private var storedData: Data?
    /// Whether what is stored could not be read: the next write sets it aside first.
    private var mustSetAside = false
    private var subscribers: [ObjectIdentifier: WeakSubscriber] = [:]
    private var watch: PersistenceWatch?
    private var writes = 0

    private struct WeakSubscriber {
        weak var subscriber: (any LocationSubscriber)?
    }

    init(_ location: PersistenceLocation) {
        self.location = location
        queue = DispatchQueue(label: "ripple-persistence \(location.description)")
    }

    deinit {
        watch?.cancel()
    }

    /// How many writes (and removals) reached the storage.
    var storageWrites: Int { lock.withLock { writes } }

    /// The generation of the latest operation requested.
    var requestedGeneration: UInt64 { lock.withLock { requested } }

    /// Whether an operation waits to start: a watched change then loses to it.
    var hasPending: Bool { lock.withLock { pending != nil } }

    /// Adds `subscriber`, and starts watching the location with the first one.
    func subscribe(_ subscriber: any LocationSubscriber) {
        let startWatch = lock.withLock { () -> Bool in
            subscribers[ObjectIdentifier(subscriber)] = WeakSubscriber(subscriber: subscriber)
            return watch == nil
        }
        guard startWatch else { return }
        let made = location.storage.watch(location.key) { [weak self] in
            guard let self else { return }
            self.queue.async { self.readWatchedChange() }
        }
        let extra = lock.withLock { () -> PersistenceWatch? in
            if watch == nil {
                watch = made
                return nil
            }
            return made
        }
        extra?.cancel()
    }

    /// The value of the latest write waiting or in progress, if any: a load must see it, not the older stored
    /// one. `.some(nil)` is a removal.
    func pendingValue() -> Any?? {
        lock.withLock { (pending ?? inFlight).map { $0.value } }
    }

    /// Reads the stored record (synchronously, for a first read), remembering its data as the stored one.
    func read() throws -> StoredRecord? {
        do {
            let record = try location.storage.read(location.key)
            lock.withLock { storedData = record?.data }
            return record
        } catch {
            markUnreadable()
            throw error
        }
    }

    /// What is stored could not be read or decoded: set it aside before the next write.
    func markUnreadable() {
        lock.withLock { mustSetAside = true }
    }

    /// Queues a write of `value`, replacing the one waiting; returns its generation.
    @discardableResult
    func write(_ value: Any, origin: ObjectIdentifier?, encode: @escaping @Sendable () throws -> StoredRecord)
        -> UInt64
    {
        enqueue(value: value, encode: encode, origin: origin)
    }

    /// Queues a removal, replacing the write waiting; returns its generation.
    @discardableResult
    func remove(origin: ObjectIdentifier?) -> UInt64 {
        enqueue(value: nil, encode: nil, origin: origin)
    }

    private func enqueue(value: Any?, encode: (@Sendable () throws -> StoredRecord)?, origin: ObjectIdentifier?)
        -> UInt64
    {
        let (generation, start) = lock.withLock { () -> (UInt64, Bool) in
            requested += 1
            pending = Operation(generation: requested, value: value, encode: encode, origin: origin)
            defer { draining = true }
            return (requested, !draining)
        }
        if start { queue.async { self.drain() } }
        return generation
    }

    /// Performs the waiting operations, one at a time, until none waits; on a failure, keeps the operation waiting
    /// (it is tried again on the next change or flush) and fails the waiters.
    private func drain() {
        while let operation = lock.withLock({ () -> Operation? in
            if pending == nil { draining = false }
            defer { pending = nil }
            inFlight = pending
            return pending
        }) {
            do {
                try perform(operation)
            } catch {
                let failure = error as? PersistenceError
                    ?? .writeFailed(location: location.description, reason: "\(error)")
                let failed = lock.withLock { () -> [CheckedContinuation<Void, any Error>] in
                    if pending == nil { pending = operation }
                    inFlight = nil
                    self.failure = failure
                    draining = false
                    defer { waiters = [] }
                    return waiters.map(\.continuation)
                }
                for continuation in failed { continuation.resume(throwing: failure) }
                tell { $0.persistenceFailed(failure) }
                return
            }
        }
    }

    /// Sets unreadable data aside if needed, then writes or removes; then tells the other subscribers.
    private func perform(_ operation: Operation) throws {
        if lock.withLock({ mustSetAside }) {
            if let keptAt = try location.storage.setAside(location.key) {
                tell { $0.persistenceFailed(.setAside(location: self.location.description, keptAt: keptAt)) }
            }
            lock.withLock { mustSetAside = false }
        }
        let record = try operation.encode?()
        if let record {
            try location.storage.write(record, for: location.key)
        } else {
            try location.storage.remove(location.key)
        }
        let done = lock.withLock { () -> [CheckedContinuation<Void, any Error>] in
            writes += 1
            storedData = record?.data
            durable = operation.generation
            if inFlight?.generation == operation.generation { inFlight = nil }
            failure = nil
            let ready = waiters.filter { $0.generation <= durable }
            waiters.removeAll { $0.generation <= durable }
            return ready.map(\.continuation)
        }
        for continuation in done { continuation.resume() }
        tell(except: operation.origin) { $0.storedRecordChanged(record) }
    }

    /// Performs the waiting operation now, then `body`, on the location's queue: a transaction that must see every
    /// earlier write of this process.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        try queue.sync {
            if let operation = lock.withLock({ () -> Operation? in
                defer { pending = nil }
                inFlight = pending
                return pending
            }) {
                do {
                    try perform(operation)
                } catch {
                    lock.withLock {
                        if pending == nil { pending = operation }
                        inFlight = nil
                    }
                    throw error
                }
            }
            return try body()
        }
    }

    /// Records `record` as stored by this process (after a transaction) and tells the other subscribers.
    func stored(_ record: StoredRecord, by origin: ObjectIdentifier) {
        lock.withLock {
            storedData = record.data
            writes += 1
        }
        queue.async { self.tell(except: origin) { $0.storedRecordChanged(record) } }
    }

    /// Returns when the operation of `generation` (or a later one) is durable; throws the failure of the operation
    /// that should have made it so. Starts the writer again if a failed operation waits.
    func waitUntilDurable(_ generation: UInt64) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let (ready, restart) = lock.withLock { () -> (Bool, Bool) in
                if durable >= generation { return (true, false) }
                waiters.append((generation, continuation))
                if !draining && pending != nil {
                    draining = true
                    return (false, true)
                }
                return (false, false)
            }
            if ready { continuation.resume() }
            if restart { queue.async { self.drain() } }
        }
    }

    /// A watch said the location changed: read it, and hand a value that is not this process's last write to every
    /// subscriber. A change while a write of ours waits loses to that write (it is later).
    private func readWatchedChange() {
        if hasPending { return }
        let record: StoredRecord?
        do {
            record = try location.storage.read(location.key)
        } catch {
            let changed = lock.withLock { () -> Bool in
                defer { mustSetAside = true }
                return !mustSetAside
            }
            if changed {
                let failure = (error as? PersistenceError)
                    ?? .unreadable(location: location.description, reason: "\(error)")
                tell { $0.persistenceFailed(failure) }
            }
            return
        }
        let isEcho = lock.withLock { () -> Bool in
            if record?.data == storedData { return true }
            storedData = record?.data
            mustSetAside = false
            return false
        }
        if !isEcho { tell { $0.storedRecordChanged(record) } }
    }

    private func tell(except origin: ObjectIdentifier? = nil, _ body: (any LocationSubscriber) -> Void) {
        let targets = lock.withLock { () -> [any LocationSubscriber] in
            subscribers = subscribers.filter { $0.value.subscriber != nil }
            return subscribers.compactMap { $0.key == origin ? nil : $0.value.subscriber }
        }
        for target in targets { body(target) }
    }
}

/// The writers of this process, one per location (storage identity and key), while something uses them.
///
/// Process-wide on purpose: two runtimes that persist to one file must share its writer, or their writes could
/// land out of order. Entries are weak: a location no instance uses goes away (after its last write: the queue
/// holds it until then).
enum LocationRegistry {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var locations: [String: WeakLocation] = [:]

    private struct WeakLocation {
        weak var location: PersistedLocation?
    }

    /// The writer of `location`, made on first use.
    static func writer(for location: PersistenceLocation) -> PersistedLocation {
        let name = location.description
        return lock.withLock {
            if let existing = locations[name]?.location { return existing }
            if locations.count > 64 { locations = locations.filter { $0.value.location != nil } }
            let made = PersistedLocation(location)
            locations[name] = WeakLocation(location: made)
            return made
        }
    }
}
