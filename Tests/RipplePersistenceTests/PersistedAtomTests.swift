import Foundation
import Ripple
import RipplePersistence
import Testing

/// Persisted declared atoms on in-memory storage: loading, writing back, versions, unreadable data, overrides.
@Suite struct PersistedAtomTests {
    static let loadStorage = InMemoryStorage()
    static let loaded = declare.atom(persisted: .memory(loadStorage, key: "count")) { 0 }

    @Test func theFirstReadSeesTheStoredValueNeverTheDefault() throws {
        try Self.loadStorage.write(record("42"), for: "count")
        withIsolatedRuntime {
            let seen = SeenValues<Int>()
            let effect = Effect { seen.append(Self.loaded.value) }
            #expect(seen.all == [42])
            _ = effect
        }
    }

    struct Settings: Codable, Sendable, Equatable {
        var volume = 5
        var theme = "light"
    }

    static let settingsStorage = InMemoryStorage()
    static let settings = declare.atom(persisted: .memory(settingsStorage, key: "settings")) { Settings() }

    @Test func aChangeIsStoredByTheFlushAndLoadedByTheNextRuntime() async throws {
        try await withIsolatedRuntime { () async throws in
            #expect(Self.settings.value == Settings())
            #expect(Self.settingsStorage.keys == [])  // the default is not written
            Self.settings.value.volume = 9
            try await Runtime.current.flushPersistence()
        }
        #expect(try Self.settingsStorage.read("settings") == record(#"{"theme":"light","volume":9}"#))
        withIsolatedRuntime {
            #expect(Self.settings.value == Settings(volume: 9, theme: "light"))
        }
    }

    static let overriddenStorage = InMemoryStorage()
    static let overridden = declare.atom(persisted: .memory(overriddenStorage, key: "name")) { "default" }

    @Test func anOverrideKeepsTheRuntimeOffTheStorage() async throws {
        try Self.overriddenStorage.write(record(#""stored""#), for: "name")
        try await withIsolatedRuntime(overriding: Self.overridden.overridden(with: "test")) { () async throws in
            #expect(Self.overridden.value == "test")
            Self.overridden.value = "written in the test"
            try await Runtime.current.flushPersistence()
            #expect(Runtime.current.persistenceErrors == [])
        }
        #expect(try Self.overriddenStorage.read("name") == record(#""stored""#))
        #expect(Self.overriddenStorage.keys == ["name"])
    }

    struct ProfileV2: Codable, Sendable, Equatable {
        var first: String
        var last: String
    }

    static let migrationStorage = InMemoryStorage()
    static let migrations = SeenValues<Int>()
    static let profile = declare.atom(
        persisted: .memory(migrationStorage, key: "profile"), version: 2,
        migrate: { storedVersion, data in
            migrations.append(storedVersion)
            let name = try JSONDecoder().decode(String.self, from: data).split(separator: " ")
            return ProfileV2(first: String(name[0]), last: String(name[1]))
        }
    ) { ProfileV2(first: "", last: "") }

    @Test func aValueOfVersion1IsMigratedOnLoadAndWrittenBackAsVersion2() async throws {
        try Self.migrationStorage.write(record(#""Ada Lovelace""#, version: 1), for: "profile")
        try await withIsolatedRuntime { () async throws in
            #expect(Self.profile.value == ProfileV2(first: "Ada", last: "Lovelace"))
            try await Runtime.current.flushPersistence()
        }
        #expect(Self.migrations.all == [1])
        #expect(
            try Self.migrationStorage.read("profile") == record(#"{"first":"Ada","last":"Lovelace"}"#, version: 2))
        withIsolatedRuntime { #expect(Self.profile.value.first == "Ada") }
        #expect(Self.migrations.all == [1])  // version 2 now: not migrated again
    }

    static let corruptStorage = InMemoryStorage()
    static let corruptErrors = SeenValues<String>()
    static let corrupt = declare.atom(
        persisted: .memory(corruptStorage, key: "k"), onError: { corruptErrors.append("\($0)") }
    ) { 1 }

    @Test func unreadableBytesAreReportedKeptAndSetAsideBeforeAWrite() async throws {
        Self.corruptStorage.storeUnreadable(Data([0xde, 0xad]), for: "k")
        try await withIsolatedRuntime { () async throws in
            #expect(Self.corrupt.value == 1)
            #expect(Runtime.current.persistenceErrors == [.unreadable(location: "k", reason: "not a record")])
            try await Runtime.current.flushPersistence()
            #expect(Self.corruptStorage.rawBytes("k") == Data([0xde, 0xad]))  // loading wrote nothing
            Self.corrupt.value = 2
            try await Runtime.current.flushPersistence()
            #expect(Runtime.current.persistenceErrors.count == 2)
            #expect(
                Runtime.current.persistenceErrors.last
                    == .setAside(location: Self.corruptStorage.identity + "#k", keptAt: "k.unreadable-1"))
        }
        #expect(Self.corruptStorage.keys == ["k", "k.unreadable-1"])
        #expect(Self.corruptStorage.rawBytes("k.unreadable-1") == Data([0xde, 0xad]))
        #expect(try Self.corruptStorage.read("k") == record("2"))
        #expect(Self.corruptErrors.all.count == 2)
    }

    static let newerStorage = InMemoryStorage()
    static let newer = declare.atom(persisted: .memory(newerStorage, key: "n"), version: 2) { 0 }

    @Test func aNewerVersionIsKeptAndReported() async throws {
        try Self.newerStorage.write(record("7", version: 3), for: "n")
        try await withIsolatedRuntime { () async throws in
            #expect(Self.newer.value == 0)
            #expect(
                Runtime.current.persistenceErrors == [
                    .newerVersion(location: Self.newerStorage.identity + "#n", stored: 3, known: 2)
                ])
            Self.newer.value = 1
            try await Runtime.current.flushPersistence()
        }
        #expect(try Self.newerStorage.read("n.unreadable-1") == record("7", version: 3))
        #expect(try Self.newerStorage.read("n") == record("1", version: 2))
    }

    struct Failure: Error {}
    static let failingMigrationStorage = InMemoryStorage()
    static let failingMigration = declare.atom(
        persisted: .memory(failingMigrationStorage, key: "m"), version: 2, migrate: { _, _ in throw Failure() }
    ) { "default" }

    @Test func aFailingMigrationKeepsTheStoredValue() async throws {
        try Self.failingMigrationStorage.write(record(#""old""#, version: 1), for: "m")
        try await withIsolatedRuntime { () async throws in
            #expect(Self.failingMigration.value == "default")
            try await Runtime.current.flushPersistence()
            #expect(
                Runtime.current.persistenceErrors == [
                    .migrationFailed(
                        location: Self.failingMigrationStorage.identity + "#m", stored: 1, reason: "Failure()")
                ])
        }
        #expect(try Self.failingMigrationStorage.read("m") == record(#""old""#, version: 1))
    }

    static let failingStorage = RecordingStorage()
    static let failing = declare.atom(persisted: PersistenceLocation(storage: failingStorage, key: "f")) { 0 }

    @Test func aFailedWriteIsThrownByTheFlushKeptPendingAndRetried() async throws {
        try await withIsolatedRuntime { () async throws in
            Self.failingStorage.setFailing(true)
            Self.failing.value = 5
            await #expect(throws: PersistenceError.writeFailed(location: "f", reason: "disk full (test)")) {
                try await Runtime.current.flushPersistence()
            }
            #expect(Self.failingStorage.operations == [])
            Self.failingStorage.setFailing(false)
            try await Runtime.current.flushPersistence()
            #expect(Self.failingStorage.operations == ["write f 5"])
        }
    }
}

/// Restoring a snapshot writes the restored values back like any change.
@Suite struct PersistedSnapshotTests {
    static let storage = RecordingStorage()
    static let name = declare.atom(persisted: PersistenceLocation(storage: storage, key: "n")) { "first" }

    @Test func restoringASnapshotStoresTheRestoredValue() async throws {
        try await withIsolatedRuntime { () async throws in
            _ = Self.name.value
            let before = Runtime.current.snapshot()
            Self.name.value = "second"
            try await Runtime.current.flushPersistence()
            _ = Runtime.current.restore(before)
            #expect(Self.name.value == "first")
            try await Runtime.current.flushPersistence()
        }
        #expect(Self.storage.operations == [#"write n "second""#, #"write n "first""#])
    }
}
