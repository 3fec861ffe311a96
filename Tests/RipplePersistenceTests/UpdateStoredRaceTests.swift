import Foundation
import Ripple
import RipplePersistence
import Testing

/// `updateStored` against a value another writer stores at the same moment: the increment is never lost.
@Suite struct UpdateStoredRaceTests {
    static let storage = InMemoryStorage()
    static let counter = declare.atom(persisted: .memory(storage, key: "counter")) { 0 }

    /// Two runtimes of one process, each on its own thread, increment the same stored counter: each increment's value
    /// flows back to the other runtime's instance while that runtime is between its storage update and its instance
    /// taking the result. Before the fix the instance then took its own, older result after the newer one had flowed
    /// back, and that write stored the older counter over the newer one (it ended below 2,000 most runs).
    @Test func twoRuntimesIncrementing1000TimesEachEndAtExactly2000() throws {
        let rounds = 1_000
        let failures = SeenValues<String>()
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            withIsolatedRuntime {
                for _ in 0..<rounds {
                    do { try Self.counter.updateStored { $0 += 1 } } catch { failures.append("\(error)") }
                }
            }
        }
        #expect(failures.all == [])
        // A transaction performs every write still waiting first, then reads what is stored.
        let stored = try withIsolatedRuntime { try Self.counter.updateStored { _ in } }
        #expect(stored == 2 * rounds)
        #expect(try Self.storage.read("counter") == StoredRecord(version: 1, data: Data("\(2 * rounds)".utf8)))
    }
}
