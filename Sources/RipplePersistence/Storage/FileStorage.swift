import Foundation

/// A storage of one file per key in a folder, written so that a crash never leaves a partial file: each write goes
/// to a temporary file in the same folder, which is synced (`fsync`), renamed over the key's file, and the folder
/// is synced so that the rename itself is durable.
///
/// A file holds a header line `ripple-persisted <version>` and the encoded value. A file without that header
/// (corrupt, truncated by another program) is unreadable: it is never overwritten before ``setAside(_:)`` moved it
/// to `<name>.unreadable-<milliseconds since 1970>`.
///
/// ```swift
/// import Foundation
/// import RipplePersistence
///
/// let folder = FileManager.default.temporaryDirectory.appendingPathComponent("ripple-doc-\(getpid())")
/// try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
/// let storage = FileStorage(directory: folder)
/// try storage.write(StoredRecord(version: 1, data: Data("5".utf8)), for: "count.json")
/// print(String(decoding: try storage.read("count.json")!.data, as: UTF8.self))     // 5
/// try FileManager.default.removeItem(at: folder)
/// ```
///
/// Threading: from any thread. ``update(_:_:)`` takes an exclusive `flock` on `.<name>.lock` in the folder, so it
/// is atomic across processes.
public final class FileStorage: PersistentStorage {
    /// The folder of the files.
    public let directory: URL

    /// A storage in `directory` (which must exist).
    ///
    /// ```swift
    /// import Foundation
    /// import RipplePersistence
    ///
    /// print(FileStorage(directory: URL(fileURLWithPath: "/tmp")).directory.path)     // /tmp
    /// ```
    ///
    /// - Parameter directory: the folder.
    public init(directory: URL) {
        self.directory = directory.standardizedFileURL
    }

    /// The folder's path: two storages on one folder are one place.
    public var identity: String { "file:" + directory.path }

    /// The header's prefix; the version follows, then a newline.
    static let header = "ripple-persisted "

    func path(_ key: String) -> String { directory.appendingPathComponent(key).path }

    /// The record in the key's file, or nil if there is no file.
    ///
    /// - Throws: ``PersistenceError/unreadable(location:reason:)`` for a file without the header.
    public func read(_ key: String) throws -> StoredRecord? {
        let path = path(key)
        guard let bytes = FileManager.default.contents(atPath: path) else {
            if FileManager.default.fileExists(atPath: path) {
                throw PersistenceError.unreadable(location: path, reason: "cannot read the file")
            }
            return nil
        }
        guard let record = Self.decode(bytes) else {
            throw PersistenceError.unreadable(location: path, reason: "no \"\(Self.header)<version>\" header")
        }
        return record
    }

    /// The record in a file's bytes, or nil if they are not one.
    static func decode(_ bytes: Data) -> StoredRecord? {
        guard let newline = bytes.firstIndex(of: UInt8(ascii: "\n")) else { return nil }
        let line = String(decoding: bytes[bytes.startIndex..<newline], as: UTF8.self)
        guard line.hasPrefix(header), let version = Int(line.dropFirst(header.count)) else { return nil }
        return StoredRecord(version: version, data: Data(bytes[(newline + 1)...]))
    }

    /// A file's bytes for `record`.
    static func encode(_ record: StoredRecord) -> Data {
        var bytes = Data("\(header)\(record.version)\n".utf8)
        bytes.append(record.data)
        return bytes
    }

    /// Writes the file durably: temporary file, fsync, rename, fsync of the folder.
    public func write(_ record: StoredRecord, for key: String) throws {
        let path = path(key)
        let unique = "\(getpid()).\(UInt64.random(in: 0...UInt64.max))"
        let temporary = directory.appendingPathComponent(".\(key).\(unique).tmp").path
        let bytes = Self.encode(record)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Self.failure("open \(temporary)") }
        var written = 0
        let status: Int32 = bytes.withUnsafeBytes { buffer in
            while written < buffer.count {
                let n = Foundation.write(fd, buffer.baseAddress! + written, buffer.count - written)
                if n < 0 {
                    if errno == EINTR { continue }
                    return -1
                }
                written += n
            }
            return fsync(fd)
        }
        let closed = close(fd)
        guard status == 0, closed == 0 else {
            let error = Self.failure("write \(temporary)")
            unlink(temporary)
            throw error
        }
        guard rename(temporary, path) == 0 else {
            let error = Self.failure("rename \(temporary)")
            unlink(temporary)
            throw error
        }
        try syncDirectory()
    }

    /// Removes the key's file, and syncs the folder.
    public func remove(_ key: String) throws {
        guard unlink(path(key)) == 0 || errno == ENOENT else { throw Self.failure("unlink \(path(key))") }
        try syncDirectory()
    }

    /// Renames the key's file to `<name>.unreadable-<milliseconds since 1970>`.
    public func setAside(_ key: String) throws -> String? {
        let path = path(key)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let milliseconds = Int64(Date().timeIntervalSince1970 * 1000)
        var target = "\(path).unreadable-\(milliseconds)"
        var suffix = 1
        while FileManager.default.fileExists(atPath: target) {
            suffix += 1
            target = "\(path).unreadable-\(milliseconds)-\(suffix)"
        }
        guard rename(path, target) == 0 else { throw Self.failure("rename \(path)") }
        try syncDirectory()
        return target
    }

    /// Reads, transforms and writes under an exclusive `flock` of `.<name>.lock`: atomic across processes.
    public func update(_ key: String, _ transform: (StoredRecord?) throws -> StoredRecord) throws -> StoredRecord {
        let lockPath = directory.appendingPathComponent(".\(key).lock").path
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Self.failure("open \(lockPath)") }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw Self.failure("flock \(lockPath)") }
        }
        defer { flock(fd, LOCK_UN) }
        let record = try transform(try read(key))
        try write(record, for: key)
        return record
    }

    /// Watches the folder for the key's file being replaced or written (inotify on Linux, a Dispatch source on
    /// Apple platforms).
    public func watch(_ key: String, onChange: @escaping @Sendable () -> Void) -> PersistenceWatch? {
        FileWatch(directory: directory.path, name: key, onChange: onChange)
    }

    private func syncDirectory() throws {
        let fd = open(directory.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Self.failure("open \(directory.path)") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw Self.failure("fsync \(directory.path)") }
    }

    private static func failure(_ what: String) -> PersistenceError {
        .writeFailed(location: what, reason: String(cString: strerror(errno)))
    }
}
