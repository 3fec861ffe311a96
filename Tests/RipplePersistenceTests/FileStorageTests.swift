import Foundation
import Ripple
import RipplePersistence
import Testing

/// Files: atomic durable replacement, unreadable files kept, other writers seen through the file watch.
@Suite struct FileStorageTests {
    @Test func aWriteReplacesTheFileWithTheHeaderAndLeavesNoTemporaryFile() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let storage = FileStorage(directory: folder.url)
        try storage.write(record("[1,2]", version: 3), for: "v.json")
        try storage.write(record("[1,2,3]", version: 3), for: "v.json")
        #expect(folder.contents == ["v.json"])
        #expect(try Data(contentsOf: folder.file("v.json")) == Data("ripple-persisted 3\n[1,2,3]".utf8))
        #expect(try storage.read("v.json") == record("[1,2,3]", version: 3))
        try storage.remove("v.json")
        #expect(folder.contents == [])
        #expect(try storage.read("v.json") == nil)
    }

    @Test func aFileWithoutTheHeaderIsUnreadableAndSetAsideWhole() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let storage = FileStorage(directory: folder.url)
        try Data("{\"half".utf8).write(to: folder.file("v.json"))
        #expect(throws: PersistenceError.self) { try storage.read("v.json") }
        let keptAt = try #require(try storage.setAside("v.json"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: keptAt)) == Data("{\"half".utf8))
        #expect(folder.contents.count == 1)
        #expect(folder.contents[0].hasPrefix("v.json.unreadable-"))
    }

    static let folder = try! TemporaryFolder()
    static let corrupt = declare.atom(persisted: .file(folder.file("corrupt.json"))) { 0 }

    @Test func aPersistedAtomKeepsACorruptFileAndSetsItAsideBeforeItsFirstWrite() async throws {
        try Data("garbage".utf8).write(to: Self.folder.file("corrupt.json"))
        try await withIsolatedRuntime { () async throws in
            #expect(Self.corrupt.value == 0)
            #expect(Runtime.current.persistenceErrors.count == 1)
            Self.corrupt.value = 5
            try await Runtime.current.flushPersistence()
        }
        let kept = Self.folder.contents.filter { $0.hasPrefix("corrupt.json.unreadable-") }
        #expect(kept.count == 1)
        #expect(try Data(contentsOf: Self.folder.file(kept[0])) == Data("garbage".utf8))
        #expect(try Data(contentsOf: Self.folder.file("corrupt.json")) == Data("ripple-persisted 1\n5".utf8))
    }

    static let watchedFolder = try! TemporaryFolder()
    static let watched = declare.atom(persisted: .file(watchedFolder.file("watched.json"))) { "none" }

    @Test func anotherProcessWritingTheFileFlowsBack() async throws {
        try await withIsolatedRuntime { () async throws in
            let seen = SeenValues<String>()
            let effect = Effect { seen.append(Self.watched.value) }
            Self.watched.value = "mine"
            try await Runtime.current.flushPersistence()
            // What another program does: its own temporary file, renamed over ours.
            let other = Self.watchedFolder.file("other.tmp")
            try Data("ripple-persisted 1\n\"theirs\"".utf8).write(to: other)
            #expect(rename(other.path, Self.watchedFolder.file("watched.json").path) == 0)
            await seen.wait(for: "theirs")
            #expect(seen.all == ["none", "mine", "theirs"])
            _ = effect
        }
    }
}
