import Foundation

/// Where a persisted atom keeps its value: a storage and a key in it.
///
/// ```swift
/// import Foundation
/// import RipplePersistence
///
/// let file = PersistenceLocation.file(URL(fileURLWithPath: "/tmp/settings.json"))
/// let memory = PersistenceLocation.memory(InMemoryStorage(), key: "settings")
/// print(file.key, memory.key)      // settings.json settings
/// ```
///
/// Threading: a value.
public struct PersistenceLocation: Sendable {
    /// The storage.
    public let storage: any PersistentStorage
    /// The key in the storage.
    public let key: String

    /// A location in `storage` under `key`.
    ///
    /// ```swift
    /// import RipplePersistence
    ///
    /// let location = PersistenceLocation(storage: InMemoryStorage(), key: "theme")
    /// print(location.key)      // theme
    /// ```
    ///
    /// - Parameters:
    ///   - storage: the storage.
    ///   - key: the key.
    public init(storage: any PersistentStorage, key: String) {
        self.storage = storage
        self.key = key
    }

    /// The file at `url`: written to a temporary file in its folder, synced, renamed over it and the folder synced;
    /// watched for other writers (inotify on Linux, a Dispatch file-system source on Apple platforms).
    ///
    /// ```swift
    /// import Foundation
    /// import RipplePersistence
    ///
    /// print(PersistenceLocation.file(URL(fileURLWithPath: "/tmp/a/b.json")).key)     // b.json
    /// ```
    ///
    /// - Parameter url: a file URL; its folder must exist.
    /// - Returns: the location.
    public static func file(_ url: URL) -> PersistenceLocation {
        PersistenceLocation(
            storage: FileStorage(directory: url.deletingLastPathComponent()), key: url.lastPathComponent)
    }

    /// The key `key` of an in-memory storage: for tests and previews, off the disk.
    ///
    /// ```swift
    /// import RipplePersistence
    ///
    /// print(PersistenceLocation.memory(InMemoryStorage(), key: "k").key)     // k
    /// ```
    ///
    /// - Parameters:
    ///   - storage: the storage; share it between runtimes to share the value.
    ///   - key: the key.
    /// - Returns: the location.
    public static func memory(_ storage: InMemoryStorage, key: String) -> PersistenceLocation {
        PersistenceLocation(storage: storage, key: key)
    }

    /// A readable name for reports: the storage's identity and the key.
    var description: String { "\(storage.identity)#\(key)" }
}
