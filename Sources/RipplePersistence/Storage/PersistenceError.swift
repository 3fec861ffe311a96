/// What went wrong with a persisted value.
///
/// Reported to the declaration's `onError`, kept in `Runtime.persistenceErrors`, and thrown by
/// `Runtime.flushPersistence()` for failed writes.
///
/// ```swift
/// import RipplePersistence
///
/// let error = PersistenceError.newerVersion(location: "settings.json", stored: 3, known: 2)
/// print(error)     // settings.json: stored by version 3, this code knows up to 2
/// ```
///
/// Threading: a value.
public enum PersistenceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes at the location are not a record, or do not decode; they are kept, set aside before any write.
    case unreadable(location: String, reason: String)
    /// The stored version is newer than the declaration's: the value is kept, set aside before any write.
    case newerVersion(location: String, stored: Int, known: Int)
    /// The migration from the stored version threw; the value is kept, set aside before any write.
    case migrationFailed(location: String, stored: Int, reason: String)
    /// Unreadable bytes were moved aside before a write, to `keptAt`.
    case setAside(location: String, keptAt: String)
    /// A write, removal or set-aside failed; the value stays pending and is tried again on the next change or
    /// flush.
    case writeFailed(location: String, reason: String)

    /// A sentence naming the location and the problem.
    public var description: String {
        switch self {
        case .unreadable(let location, let reason): "\(location): unreadable, kept (\(reason))"
        case .newerVersion(let location, let stored, let known):
            "\(location): stored by version \(stored), this code knows up to \(known)"
        case .migrationFailed(let location, let stored, let reason):
            "\(location): migration from version \(stored) failed (\(reason))"
        case .setAside(let location, let keptAt): "\(location): unreadable value set aside at \(keptAt)"
        case .writeFailed(let location, let reason): "\(location): write failed (\(reason))"
        }
    }
}
