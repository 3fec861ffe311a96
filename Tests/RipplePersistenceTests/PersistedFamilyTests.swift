import Foundation
import Ripple
import RipplePersistence
import Testing

/// Families persist each member at its own location, and removing a member removes its stored value.
@Suite struct PersistedFamilyTests {
    static let storage = InMemoryStorage()
    static let draft = declare.atomFamily(persisted: { (post: Int) in .memory(storage, key: "draft-\(post)") }) {
        post in "draft \(post)"
    }

    @Test func eachKeyIsStoredApartAndRemovalRemovesItsValue() async throws {
        try Self.storage.write(record(#""stored 3""#), for: "draft-3")
        try await withIsolatedRuntime { () async throws in
            #expect(Self.draft(3).value == "stored 3")
            Self.draft(1).value = "one"
            Self.draft(2).value = "two"
            try await Runtime.current.flushPersistence()
            #expect(Self.storage.keys == ["draft-1", "draft-2", "draft-3"])
            Self.draft.remove(1)
            #expect(Self.draft(1).value == "draft 1")
            try await Runtime.current.flushPersistence()
        }
        #expect(Self.storage.keys == ["draft-2", "draft-3"])
        #expect(try Self.storage.read("draft-2") == record(#""two""#))
        withIsolatedRuntime {
            #expect(Self.draft(1).value == "draft 1")
            #expect(Self.draft(2).value == "two")
        }
    }

    static let overriddenStorage = InMemoryStorage()
    static let overriddenFamily = declare.atomFamily(
        persisted: { (id: Int) in .memory(overriddenStorage, key: "\(id)") }
    ) { _ in 0 }

    @Test func anOverriddenMemberStaysOffTheStorage() async throws {
        try await withIsolatedRuntime(overriding: Self.overriddenFamily.members.overridden(1, with: 10)) {
            () async throws in
            #expect(Self.overriddenFamily(1).value == 10)
            Self.overriddenFamily(1).value = 11
            Self.overriddenFamily(2).value = 2
            try await Runtime.current.flushPersistence()
        }
        #expect(Self.overriddenStorage.keys == ["2"])
    }
}
