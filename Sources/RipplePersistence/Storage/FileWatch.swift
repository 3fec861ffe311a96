import Foundation

#if canImport(Glibc)
import Glibc

/// Watches one file of a folder with inotify: a thread blocks in `read` on the inotify descriptor and calls
/// `onChange` when the file is renamed into place (a ``FileStorage`` write), written and closed (another program),
/// or removed. Cancelling removes the watch, whose `IN_IGNORED` event wakes the thread, which then closes the
/// descriptor and ends.
final class FileWatch: PersistenceWatch, @unchecked Sendable {
    // @unchecked: `descriptor` and `watchID` are set in init and never change; `cancelled` is read and written
    // under `lock`.
    private let descriptor: Int32
    private let watchID: Int32
    private let lock = NSLock()
    private var cancelled = false

    init?(directory: String, name: String, onChange: @escaping @Sendable () -> Void) {
        descriptor = inotify_init1(Int32(IN_CLOEXEC))
        guard descriptor >= 0 else { return nil }
        let mask = UInt32(IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE | IN_MOVED_FROM)
        watchID = inotify_add_watch(descriptor, directory, mask)
        guard watchID >= 0 else {
            close(descriptor)
            return nil
        }
        let descriptor = descriptor
        let thread = Thread {
            Self.run(descriptor: descriptor, name: name, onChange: onChange)
        }
        thread.name = "ripple-persistence-watch"
        thread.start()
    }

    /// Reads events until the watch is removed; calls `onChange` once per read that names the file.
    private static func run(descriptor: Int32, name: String, onChange: @Sendable () -> Void) {
        let capacity = 64 * 1024
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 8)
        defer {
            buffer.deallocate()
            close(descriptor)
        }
        while true {
            let count = read(descriptor, buffer, capacity)
            if count < 0 {
                if errno == EINTR { continue }
                return
            }
            var offset = 0
            var concerned = false
            var ended = false
            while offset < count {
                let event = (buffer + offset).assumingMemoryBound(to: inotify_event.self)
                let length = Int(event.pointee.len)
                if event.pointee.mask & UInt32(IN_IGNORED) != 0 { ended = true }
                if length > 0 {
                    let eventName = String(cString: (buffer + offset + MemoryLayout<inotify_event>.size)
                        .assumingMemoryBound(to: CChar.self))
                    if eventName == name { concerned = true }
                }
                offset += MemoryLayout<inotify_event>.size + length
            }
            if concerned && !ended { onChange() }
            if ended { return }
        }
    }

    func cancel() {
        let first = lock.withLock { () -> Bool in
            defer { cancelled = true }
            return !cancelled
        }
        if first { inotify_rm_watch(descriptor, watchID) }
    }

    deinit { cancel() }
}

#elseif canImport(Darwin)
import Darwin

/// Watches one file of a folder with a Dispatch file-system source on the folder (a rename into it, as a
/// ``FileStorage`` write does, is a write of the folder), calling `onChange` on each event.
final class FileWatch: PersistenceWatch, @unchecked Sendable {
    // @unchecked: `source` is set in init and never changes; a Dispatch source is thread-safe.
    private let source: DispatchSourceFileSystemObject

    init?(directory: String, name: String, onChange: @escaping @Sendable () -> Void) {
        let descriptor = open(directory, O_EVTONLY)
        guard descriptor >= 0 else { return nil }
        source = DispatchSource.makeFileSystemObjectSource(
            fileDescriptor: descriptor, eventMask: [.write, .rename, .delete, .extend],
            queue: DispatchQueue(label: "ripple-persistence-watch"))
        source.setEventHandler { onChange() }
        source.setCancelHandler { close(descriptor) }
        source.resume()
    }

    func cancel() {
        source.cancel()
    }

    deinit { cancel() }
}
#endif
