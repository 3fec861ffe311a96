import Foundation
@_spi(Testing) import Ripple
import RipplePersistence
import Testing

/// A persisted atom's writes reach its storage through its own write observer: the runtime's other atoms keep the
/// write path of a runtime without persistence, and undo, redo and transactions reach the storage as any write does.
@Suite struct PersistedWritePathTests {
    @Test func aPersistedAtomInstallsNoChangeHookAndItsNeighboursWritesStayOffTheStorage() async throws {
        let storage = RecordingStorage()
        let level = declare.atom(persisted: PersistenceLocation(storage: storage, key: "level")) { 1 }
        try await withIsolatedRuntime { () async throws in
            let plain = atom(0, label: "plain")
            _ = level.value
            #expect(Runtime.current.changeHookCount == 0)
            plain.value = 1
            level.value = 2
            plain.value = 2
            #expect(Runtime.current.changeHookCount == 0)
            try await Runtime.current.flushPersistence()
        }
        #expect(storage.operations == ["write level 2"])
    }

    @Test func aFamilyMemberInstallsNoChangeHookAndStoresItsOwnWrites() async throws {
        let storage = RecordingStorage()
        let score = declare.atomFamily(persisted: { (player: String) in
            PersistenceLocation(storage: storage, key: player)
        }) { _ in 0 }
        try await withIsolatedRuntime { () async throws in
            score("ada").value = 3
            score("bob").value = 4
            #expect(Runtime.current.changeHookCount == 0)
            try await Runtime.current.flushPersistence()
        }
        #expect(storage.operations.sorted() == ["write ada 3", "write bob 4"])
    }

    @Test func undoAndRedoStoreTheRestoredValueAndARolledBackTransactionStoresNothing() async throws {
        let storage = RecordingStorage()
        let volume = declare.atom(persisted: PersistenceLocation(storage: storage, key: "volume")) { 5 }
        try await withIsolatedRuntime { () async throws in
            _ = volume.value
            let history = UndoHistory()
            volume.value = 7
            try await Runtime.current.flushPersistence()
            #expect(storage.operations == ["write volume 7"])

            _ = history.undo()
            #expect(volume.value == 5)
            try await Runtime.current.flushPersistence()
            #expect(storage.operations == ["write volume 7", "write volume 5"])
            #expect(try storage.read("volume")?.data == Data("5".utf8))

            _ = history.redo()
            #expect(volume.value == 7)
            try await Runtime.current.flushPersistence()
            #expect(storage.operations == ["write volume 7", "write volume 5", "write volume 7"])

            struct Invalid: Error {}
            #expect(throws: Invalid.self) {
                try transaction {
                    volume.value = 9
                    volume.value = 10
                    throw Invalid()
                }
            }
            #expect(volume.value == 7)
            try await Runtime.current.flushPersistence()
            #expect(storage.operations == ["write volume 7", "write volume 5", "write volume 7"])
            #expect(history.undoCount == 1)

            transaction { volume.value = 11 }
            try await Runtime.current.flushPersistence()
            #expect(storage.operations == ["write volume 7", "write volume 5", "write volume 7", "write volume 11"])
            _ = history
        }
        #expect(try storage.read("volume")?.data == Data("11".utf8))
    }
}
