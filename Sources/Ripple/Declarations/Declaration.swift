/// What a declaration is made of, whatever its kind: its slot in every runtime's store, the body its instances
/// start from (an atom's default) or compute (a derivation's body), their equality and hooks, and where it was
/// declared. Each declared type keeps one: `Body` is `() -> Value` (or its async or keyed form for an async
/// derivation or a family), `Hooks` a ``Lifecycle`` (or, for a family, a function of the key giving one).
@usableFromInline
struct Declaration<Value, Body: Sendable, Hooks: Sendable> {
    /// The slot of the declaration (or family) in every runtime's store.
    @usableFromInline let index: Int
    /// The declared body; a runtime's override takes its place there.
    let body: Body
    /// Whether two values are the same for readers; nil: every change counts.
    let equals: ((Value, Value) -> Bool)?
    /// `equals` as an atom instance takes it (`forAnAtom()`): a closure with a context is boxed once, here, rather
    /// than once per instance.
    let atomEquality: SharedAtomEquality<Value>
    /// Whether each runtime keeps the instances for its lifetime.
    let keepAlive: Bool
    let lifecycle: Hooks
    let explicitLabel: String?
    let fileID: String
    let line: Int

    /// A new declaration, with the next unused slot.
    init(
        body: Body, equals: ((Value, Value) -> Bool)?, keepAlive: Bool, lifecycle: Hooks, label: String?,
        fileID: String, line: Int
    ) {
        index = DeclarationIndex.next()
        self.body = body
        self.equals = equals
        self.atomEquality = SharedAtomEquality(equals)
        self.keepAlive = keepAlive
        self.lifecycle = lifecycle
        self.explicitLabel = label
        self.fileID = fileID
        self.line = line
    }

    // The two labels are inlined, as the helpers of `PlainDeclaration` are: a call to a method of this generic type
    // from unspecialized code instantiates its metadata.

    /// The name of the declaration's instances: the label given at declaration, else `"<fileID>:<line>"`.
    @inline(__always)
    var label: String { explicitLabel ?? "\(fileID):\(line)" }

    /// The label of a family's member for `key`: the family's label followed by the key, or nil without one.
    @inline(__always)
    func memberLabel<Key>(for key: Key) -> String? {
        explicitLabel.map { "\($0)(\(key))" }
    }
}

/// A family's declaration: the body and the hooks of a member are functions of its key.
typealias KeyedDeclaration<Key, Value> =
    Declaration<Value, @Sendable (Key) -> Value, (@Sendable (Key) -> Lifecycle<Value>)?>

// Every stored property is immutable. All but the equality are Sendable; the equality is `==` (which captures only
// the value's type) or a closure the caller passed as `@Sendable`. So sharing a declaration between threads is safe.
extension Declaration: @unchecked Sendable {}
