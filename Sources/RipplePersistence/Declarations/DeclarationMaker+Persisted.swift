import Foundation
import Ripple

extension DeclarationMaker {
    /// Declares an atom whose value persists at `location`: each runtime's instance loads it on first use
    /// (synchronously: the first read sees the stored value, never the default first) and writes every change back,
    /// coalesced and in order.
    ///
    /// ```swift
    /// import Foundation
    /// import Ripple
    /// import RipplePersistence
    ///
    /// struct Settings: Codable, Sendable, Equatable { var volume = 5 }
    /// enum App {
    ///     static let storage = InMemoryStorage()
    ///     static let settings = declare.atom(persisted: .memory(storage, key: "settings")) { Settings() }
    /// }
    ///
    /// withIsolatedRuntime { App.settings.value.volume = 9 }
    /// withIsolatedRuntime { print(App.settings.value.volume) }     // 9
    /// ```
    ///
    /// The instance is kept for the runtime's lifetime (as `keepAlive: true`). An override (`overridden(with:)`)
    /// replaces the stored value in its runtime and keeps that runtime off the storage: neither read nor written.
    /// `DeclaredAtom.reset()` reads the stored value again.
    ///
    /// - Parameters:
    ///   - location: where the value is kept: `.file(url)`, `.memory(storage, key:)`, `.sqlite(database, key:)`
    ///     (RippleSQLite), or any ``PersistentStorage``.
    ///   - version: the version of the value's format, stored with it (default 1).
    ///   - migrate: turns data stored by an older version into a value; the value is then written back in
    ///     `version`. Without it, an older version is unreadable (reported and kept).
    ///   - onError: called (on any thread) with each ``PersistenceError`` of this declaration's instances.
    ///   - label: the name of its instances in trap messages.
    ///   - fileID: the file of the declaration (leave the default).
    ///   - line: the line of the declaration (leave the default).
    ///   - makeDefault: the value when nothing readable is stored.
    /// - Returns: the declared atom.
    ///
    /// Threading: from any thread, like any declared atom.
    public func atom<Value: Codable & Sendable & Equatable>(
        persisted location: PersistenceLocation, version: Int = 1,
        migrate: (@Sendable (_ storedVersion: Int, _ data: Data) throws -> Value)? = nil,
        onError: (@Sendable (PersistenceError) -> Void)? = nil,
        label: String? = nil, fileID: String = #fileID, line: Int = #line,
        _ makeDefault: @escaping @Sendable () -> Value
    ) -> DeclaredAtom<Value> {
        let settings = PersistenceSettings(version: version, migrate: migrate, onError: onError)
        let persisted = PersistedDeclaration<DeclaredAtom<Value>>()
        let declaration = ObjectIdentifier(persisted)
        // The instance's own writes reach its binding (its write observer), attached as soon as it is made.
        var lifecycle = Lifecycle<Value>()
        lifecycle.atomMade = { node in
            PersistenceContext.attach(node, to: .init(declaration: declaration, member: nil))
        }
        let declared = atom(label: label, keepAlive: true, lifecycle: lifecycle, fileID: fileID, line: line) {
            () -> Value in
            let runtime = Runtime.current
            let context = PersistenceContext.of(runtime)
            let binding = context.binding(.init(declaration: declaration, member: nil), in: runtime) {
                let binding = PersistedBinding(
                    writer: LocationRegistry.writer(for: location), settings: settings, context: context
                ) { [weak runtime] in
                    guard let runtime, let declared = persisted.declared else { return nil }
                    return RippleContext.$runtimeOverride.withValue(runtime) { declared.existingNode }
                }
                binding.writer.subscribe(binding)
                return binding
            }
            let value = binding.load(makeDefault)
            binding.attachExistingInstance()
            return value
        }
        persisted.declared = declared
        return declared
    }

    /// Declares a family of atoms each persisted at its own location (`location(key)`), as
    /// `declare.atom(persisted:)` does for one.
    /// ``PersistedAtomFamily/remove(_:)`` removes a member's stored value.
    ///
    /// ```swift
    /// import Foundation
    /// import Ripple
    /// import RipplePersistence
    ///
    /// enum Drafts {
    ///     static let storage = InMemoryStorage()
    ///     static let draft = declare.atomFamily(
    ///         persisted: { (post: Int) in .memory(storage, key: "draft-\(post)") }
    ///     ) { _ in "" }
    /// }
    ///
    /// Drafts.draft(7).value = "Hello"
    /// try await Runtime.current.flushPersistence()
    /// print(Drafts.storage.keys)      // ["draft-7"]
    /// ```
    ///
    /// - Parameters:
    ///   - location: where a member's value is kept, from its key.
    ///   - version: the version of the values' format.
    ///   - migrate: turns data stored by an older version into a value.
    ///   - onError: called with each ``PersistenceError`` of the members.
    ///   - label: the name of its members in trap messages (followed by the key).
    ///   - fileID: the file of the declaration (leave the default).
    ///   - line: the line of the declaration (leave the default).
    ///   - makeDefault: a member's value when nothing readable is stored for its key.
    /// - Returns: the family.
    ///
    /// Threading: from any thread.
    public func atomFamily<Key: Hashable & Sendable, Value: Codable & Sendable & Equatable>(
        persisted location: @escaping @Sendable (Key) -> PersistenceLocation, version: Int = 1,
        migrate: (@Sendable (_ storedVersion: Int, _ data: Data) throws -> Value)? = nil,
        onError: (@Sendable (PersistenceError) -> Void)? = nil,
        label: String? = nil, fileID: String = #fileID, line: Int = #line,
        _ makeDefault: @escaping @Sendable (Key) -> Value
    ) -> PersistedAtomFamily<Key, Value> {
        let settings = PersistenceSettings(version: version, migrate: migrate, onError: onError)
        let persisted = PersistedDeclaration<AtomFamily<Key, Value>>()
        // Each member's own writes reach its binding (its write observer), attached as soon as it is made.
        let lifecycle = { @Sendable (key: Key) -> Lifecycle<Value> in
            var lifecycle = Lifecycle<Value>()
            lifecycle.atomMade = { node in
                PersistenceContext.attach(
                    node, to: .init(declaration: ObjectIdentifier(persisted), member: AnyHashable(key)))
            }
            return lifecycle
        }
        let members = atomFamily(label: label, keepAlive: true, lifecycle: lifecycle, fileID: fileID, line: line) {
            (key: Key) -> Value in
            let runtime = Runtime.current
            let binding = PersistedAtomFamily<Key, Value>.binding(
                for: key, in: runtime, persisted: persisted, location: location, settings: settings)
            let value = binding.load { makeDefault(key) }
            binding.attachExistingInstance()
            return value
        }
        persisted.declared = members
        return PersistedAtomFamily(
            members: members, persisted: persisted, location: location, settings: settings, makeDefault: makeDefault)
    }
}

/// The declaration a persisted one is built on, set once right after it is made (the instances' bodies, which
/// need it to find their nodes, run later).
final class PersistedDeclaration<Declared: AnyObject & Sendable>: @unchecked Sendable {
    // @unchecked: `stored` is written once under `lock` before any instance exists, and read under it.
    private let lock = NSLock()
    private var stored: Declared?

    var declared: Declared? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
