import Foundation
import Ripple
import RipplePersistence
import Testing

/// Writes coalesce in order; values other writers store flow back through normal writes, without echoes.
@Suite struct CoalescingAndFlowBackTests {
    static let burstStorage = RecordingStorage()
    static let burst = declare.atom(persisted: PersistenceLocation(storage: burstStorage, key: "b")) { 0 }

    @Test func aBurstOf10000WritesCostsTwoStorageWritesAndTheLastLands() async throws {
        try await withIsolatedRuntime { () async throws in
            let started = Self.burstStorage.holdNextWrite()
            Self.burst.value = 1
            started.wait()  // the first write is in progress: the 9,999 others pile up behind it
            for value in 2...10_000 { Self.burst.value = value }
            Self.burstStorage.release()
            try await Runtime.current.flushPersistence()
        }
        #expect(Self.burstStorage.operations == ["write b 1", "write b 10000"])
    }

    static let inFlightStorage = RecordingStorage()
    static let inFlight = declare.atom(persisted: PersistenceLocation(storage: inFlightStorage, key: "i")) { 0 }

    @Test func aLoadDuringAWriteInProgressSeesTheValueBeingWritten() async throws {
        let started = Self.inFlightStorage.holdNextWrite()
        try await withIsolatedRuntime { () async throws in
            Self.inFlight.value = 1
            started.wait()  // the write of 1 is in progress, not yet stored
            withIsolatedRuntime { #expect(Self.inFlight.value == 1) }
            Self.inFlightStorage.release()
            try await Runtime.current.flushPersistence()
        }
        #expect(Self.inFlightStorage.operations == ["write i 1"])
    }

    static let orderStorage = RecordingStorage()
    static let ordered = declare.atom(persisted: PersistenceLocation(storage: orderStorage, key: "o")) { 0 }

    @Test func writesNeverReorder() async throws {
        try await withIsolatedRuntime { () async throws in
            for value in 1...10_000 { Self.ordered.value = value }
            try await Runtime.current.flushPersistence()
        }
        let written = Self.orderStorage.operations.map { Int($0.split(separator: " ")[2])! }
        #expect(written.last == 10_000)
        #expect(written == written.sorted())
        #expect(Set(written).count == written.count)
    }

    static let sharedStorage = InMemoryStorage()
    static let shared = declare.atom(persisted: .memory(sharedStorage, key: "s")) { "start" }

    @Test func anotherWriterFlowsBackThroughANormalWriteOncePerChange() async throws {
        try await withIsolatedRuntime { () async throws in
            let seen = SeenValues<String>()
            let effect = Effect { seen.append(Self.shared.value) }
            try Self.sharedStorage.write(record(#""from another process""#), for: "s")
            await seen.wait(for: "from another process")
            Self.shared.value = "mine"
            try await Runtime.current.flushPersistence()
            // The storage told the watch about our own write too: an echo, not a change.
            try Self.sharedStorage.write(record(#""again""#), for: "s")
            await seen.wait(for: "again")
            #expect(seen.all == ["start", "from another process", "mine", "again"])
            _ = effect
        }
    }

    static let twoRuntimesStorage = RecordingStorage()
    static let twoRuntimes = declare.atom(persisted: PersistenceLocation(storage: twoRuntimesStorage, key: "t")) { 0 }

    @Test func anotherRuntimeOfTheProcessFlowsBackWithoutEchoes() async throws {
        let reader = Runtime()
        let seen = SeenValues<Int>()
        let effect = RippleContext.$runtimeOverride.withValue(reader) {
            Effect { seen.append(Self.twoRuntimes.value) }
        }
        try await withIsolatedRuntime { () async throws in
            Self.twoRuntimes.value = 1
            try await Runtime.current.flushPersistence()
            await seen.wait(for: 1)
            Self.twoRuntimes.value = 2
            try await Runtime.current.flushPersistence()
            await seen.wait(for: 2)
        }
        try await reader.flushPersistence()
        #expect(seen.all == [0, 1, 2])
        // The reader's instance took each value without writing it back.
        #expect(Self.twoRuntimesStorage.operations == ["write t 1", "write t 2"])
        _ = effect
    }
}
