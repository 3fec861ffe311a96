/// A declaration with one instance per key per runtime, in its table of the runtime's store: ``AtomFamily``,
/// ``DerivationFamily``, ``AsyncDerivationFamily``. Finding a member, creating and installing it, counting and
/// overriding members are the same for all; a family says only how to make a member's node, and how its body
/// applies to a key.
protocol FamilyDeclaration: AnyObject, Sendable {
    associatedtype Key: Hashable & Sendable
    /// The value type of the instances.
    associatedtype InstanceValue
    /// The node that stands for a key's member in a runtime.
    associatedtype Member: OverridableInstance
    /// The family's body: a function of the key giving the body of that key's member.
    associatedtype FamilyBody: Sendable

    var declaration: Declaration<InstanceValue, FamilyBody, (@Sendable (Key) -> Lifecycle<InstanceValue>)?> { get }

    /// Creates and installs the member for `key` in `runtime`, which had none: out of line, off the read path.
    func makeMember(for key: Key, in runtime: Runtime) -> Member

    /// The body of `key`'s member: `body` applied to `key`.
    static func memberBody(_ body: FamilyBody, for key: Key) -> Member.InstanceBody
    /// How many written members the family keeps at most (``FamilyEviction``); nil: all of them, or none written.
    var writtenLimit: Int? { get }
}

extension FamilyDeclaration
where FamilyBody == @Sendable (Key) -> InstanceValue, Member.InstanceBody == @Sendable () -> InstanceValue {
    /// A synchronous family's member computes (or starts from) `body(key)`.
    static func memberBody(_ body: FamilyBody, for key: Key) -> Member.InstanceBody {
        applying(body, to: key)
    }
}

// Every helper is inlined into the family's own methods, for the reason given at `PlainDeclaration`'s.
extension FamilyDeclaration {
    /// The member for `key` in the current runtime, created if it has none.
    @inline(__always)
    func member(for key: Key) -> Member {
        let runtime = Runtime.forDeclarations
        if let existing = runtime.declarations.existing(family: declaration.index, for: key) {
            return unsafeDowncast(existing, to: Member.self)
        }
        return makeMember(for: key, in: runtime)
    }

    /// The member for `key` in the current runtime if it has one, without creating it.
    @inline(__always)
    func existingMember(for key: Key) -> Member? {
        Runtime.forDeclarations.declarations.existing(family: declaration.index, for: key)
            .map { unsafeDowncast($0, to: Member.self) }
    }

    /// How many members are alive in the current runtime.
    @inline(__always)
    var memberCount: Int {
        Runtime.forDeclarations.declarations.memberCount(family: declaration.index)
    }

    /// The body of `key`'s member in `runtime`: the member's override, the family's, or the declared one.
    @inline(__always)
    func currentBody(for key: Key, in runtime: Runtime) -> Member.InstanceBody {
        let (member, family) = runtime.declarations.override(family: declaration.index, for: key)
        if let member = member as? Member.InstanceBody { return member }
        return Self.memberBody((family as? FamilyBody) ?? declaration.body, for: key)
    }

    /// The hooks of `key`'s member: the family's, for that key, or none.
    @inline(__always)
    func hooks(for key: Key) -> Lifecycle<InstanceValue> {
        declaration.lifecycle?(key) ?? Lifecycle()
    }

    /// Installs the node `make` creates as `key`'s member in `runtime` (or returns the one another thread installed
    /// first), with its `hooks`; `body` is the ``ReplaceableBody`` of a derivation's member. `make` is passed on
    /// as it is: a closure made here would hold the family's witness table, looked up at each creation.
    @inline(__always)
    func install(
        _ key: Key, in runtime: Runtime, hooks: Lifecycle<InstanceValue>, body: AnyObject? = nil,
        _ make: () -> RippleNode
    ) -> Member {
        let table = runtime.declarations.table(of: declaration.index, keyedBy: Key.self, writtenLimit: writtenLimit)
        let node = runtime.createInstance(
            in: table, for: key, keepAlive: declaration.keepAlive, lifecycle: ErasedLifecycle(hooks), body: body, make)
        return unsafeDowncast(node, to: Member.self)
    }

    /// An override of `key`'s member only; an existing member switches at once.
    @inline(__always)
    func override(_ key: Key, with body: Member.InstanceBody) -> Override {
        Override { runtime in
            runtime.declarations.setOverride(body, family: self.declaration.index, for: key)
            if let node = runtime.declarations.existing(family: self.declaration.index, for: key) {
                unsafeDowncast(node, to: Member.self).applyOverride(body)
            }
        }
    }

    /// An override of the whole family, replacing its members' own; existing members switch at once.
    @inline(__always)
    func overrideFamily(with body: FamilyBody) -> Override {
        Override { runtime in
            runtime.declarations.setOverride(body, for: self.declaration.index)
            for (key, node) in runtime.declarations.liveMembers(family: self.declaration.index, keyedBy: Key.self) {
                unsafeDowncast(node, to: Member.self).applyOverride(Self.memberBody(body, for: key))
            }
        }
    }
}

/// A member's body: the family's `body` applied to the member's `key`. Free functions so that the closure holds only
/// the two: made in `FamilyDeclaration`'s extension, it would also hold the family's type metadata and witness
/// table, looked up at each member's creation.
private func applying<Key: Sendable, Value>(_ body: @escaping @Sendable (Key) -> Value, to key: Key)
    -> @Sendable () -> Value
{
    { body(key) }
}

/// The same for an async family's member.
func applying<Key: Sendable, Value, Failure: Error>(
    _ body: @escaping @Sendable (Key) async throws(Failure) -> Value, to key: Key
) -> @Sendable () async throws(Failure) -> Value {
    { () async throws(Failure) -> Value in try await body(key) }
}
