import Foundation
import Ripple

/// A family of atoms persisted per key: `declare.atomFamily(persisted: { key in location }) { key in default }`.
///
/// Each member loads its own location on first use and writes its changes back, as a persisted declared atom does.
/// ``remove(_:)`` removes a member's stored value (and sets the member back to its default).
///
/// ```swift
/// import Foundation
/// import Ripple
/// import RipplePersistence
///
/// enum Notes {
///     static let storage = InMemoryStorage()
///     static let note = declare.atomFamily(
///         persisted: { (id: Int) in .memory(storage, key: "note-\(id)") }
///     ) { _ in "" }
/// }
///
/// withIsolatedRuntime {
///     Notes.note(1).value = "milk"
///     Notes.note.remove(1)
///     print(Notes.note(1).value.isEmpty)      // true: the default, and nothing stored under note-1
/// }
/// ```
///
/// Threading: from any thread. Lifetime: members are kept for the runtime's lifetime.
public final class PersistedAtomFamily<Key: Hashable & Sendable, Value: Codable & Sendable & Equatable>: Sendable {
    /// The family of the members (its overrides and look-ups work as for any family).
    public let members: AtomFamily<Key, Value>
    private let persisted: PersistedDeclaration<AtomFamily<Key, Value>>
    private let location: @Sendable (Key) -> PersistenceLocation
    private let settings: PersistenceSettings<Value>
    private let makeDefault: @Sendable (Key) -> Value

    init(
        members: AtomFamily<Key, Value>, persisted: PersistedDeclaration<AtomFamily<Key, Value>>,
        location: @escaping @Sendable (Key) -> PersistenceLocation, settings: PersistenceSettings<Value>,
        makeDefault: @escaping @Sendable (Key) -> Value
    ) {
        self.members = members
        self.persisted = persisted
        self.location = location
        self.settings = settings
        self.makeDefault = makeDefault
    }

    /// The member for `key` in the current runtime, loaded from its location on first use.
    ///
    /// ```swift
    /// import Ripple
    /// import RipplePersistence
    ///
    /// let storage = InMemoryStorage()
    /// let score = declare.atomFamily(persisted: { (player: String) in .memory(storage, key: player) }) { _ in 0 }
    /// withIsolatedRuntime { print(score("ada").value) }     // 0
    /// ```
    ///
    /// - Parameter key: the member's key.
    /// - Returns: the member's node.
    ///
    /// Threading: from any thread.
    public func callAsFunction(_ key: Key) -> AtomObject<Value> {
        members(key)
    }

    /// Removes the stored value of `key`'s member (in order with its writes) and sets the member of the current
    /// runtime back to its default, without storing that.
    ///
    /// ```swift
    /// import Ripple
    /// import RipplePersistence
    ///
    /// let storage = InMemoryStorage()
    /// let score = declare.atomFamily(persisted: { (player: String) in .memory(storage, key: player) }) { _ in 0 }
    /// withIsolatedRuntime { score("ada").value = 3; score.remove("ada") }
    /// ```
    ///
    /// - Parameter key: the member's key.
    ///
    /// Threading: from any thread.
    public func remove(_ key: Key) {
        let binding = Self.binding(
            for: key, in: Runtime.current, persisted: persisted, location: location, settings: settings)
        binding.remove(settingTo: makeDefault(key))
    }

    /// The binding of `key`'s member in `runtime`, made on first use.
    static func binding(
        for key: Key, in runtime: Runtime, persisted: PersistedDeclaration<AtomFamily<Key, Value>>,
        location: @Sendable (Key) -> PersistenceLocation, settings: PersistenceSettings<Value>
    ) -> PersistedBinding<Value> {
        let context = PersistenceContext.of(runtime)
        return context.binding(
            .init(declaration: ObjectIdentifier(persisted), member: AnyHashable(key)), in: runtime
        ) {
            let binding = PersistedBinding(
                writer: LocationRegistry.writer(for: location(key)), settings: settings, context: context
            ) { [weak runtime] in
                guard let runtime, let family = persisted.declared else { return nil }
                return RippleContext.$runtimeOverride.withValue(runtime) { family.existingNode(for: key) }
            }
            binding.writer.subscribe(binding)
            return binding
        }
    }
}

extension DeclaredAtom where Value: Codable & Sendable & Equatable {
    /// Reads the stored value, applies `body` and stores the result as one atomic step for every process using the
    /// storage (a SQLite transaction, a `flock` of the file), then sets the instance to it: read-modify-write that
    /// no other process interleaves with. Without persistence in this runtime (an override), it is
    /// `DeclaredAtom.update(_:)`.
    ///
    /// ```swift
    /// import Ripple
    /// import RipplePersistence
    ///
    /// let storage = InMemoryStorage()
    /// let launches = declare.atom(persisted: .memory(storage, key: "launches")) { 0 }
    /// withIsolatedRuntime { print(try! launches.updateStored { $0 += 1 }) }     // 1
    /// ```
    ///
    /// - Parameter body: modifies the value.
    /// - Returns: the value stored.
    /// - Throws: what the storage or `body` threw, or a ``PersistenceError`` for a stored value it cannot read.
    ///
    /// Threading: from any thread; it waits for the storage (do not call it while holding the graph).
    @discardableResult
    public func updateStored(_ body: (inout Value) throws -> Void) throws -> Value {
        let node = self.node
        guard let binding = PersistenceContext.binding(of: node) else {
            return try node.update { value in
                try body(&value)
                return value
            }
        }
        let current = node.value
        return try binding.updateStored(body, default: { current })
    }
}
