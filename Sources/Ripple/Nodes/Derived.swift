internal import CRippleThreadState

/// A property wrapper whose value is a ``Derivation`` of its initial expression.
///
/// The expression you write as the initial value is not evaluated at once: it becomes the derivation's body,
/// re-evaluated lazily when something it read changed. `$name` is the ``Derivation`` itself.
///
/// ```swift
/// @Atom var x = 1
/// @Atom var y = 2
/// @Derived var sum = x + y        // cached until x or y changes
/// print(sum)                      // 3
/// x = 10
/// print(sum)                      // 12
/// ```
///
/// For an `Equatable` value, a recomputation that gives an equal value is not a change (nothing downstream
/// re-runs); for other values every recomputation is.
///
/// ## In a class
/// A stored property's initial value cannot read the instance's other properties (Swift runs it before `self`
/// exists). Give the body the instance instead: it runs when the property is first read, with the object that
/// owns it.
///
/// ```swift
/// final class CounterViewModel {
///     @Atom var count = 0
///     @Derived({ (model: CounterViewModel) in "Count: \(model.count)" }) var title: String
/// }
/// let model = CounterViewModel()
/// print(model.title)              // "Count: 0"
/// model.count += 1
/// print(model.title)              // "Count: 1"
/// ```
///
/// The derivation is created on the first access to the property (or to `$title`), in the runtime that was
/// ``Runtime/current`` when the object was initialized, and holds the object weakly, so it creates no cycle.
/// This form works in classes only: in a struct or outside a type, write the expression itself.
///
/// In a `@MainActor` class, assign the wrapper in the initializer (`_title = Derived({ ... })`) when the property
/// may be recomputed from another thread: the initializer tells the wrapper the class's actor, so the body is then
/// computed only on the main actor (elsewhere it traps). Swift does not tell a property attribute's closure which
/// actor it belongs to, so a body given in the attribute runs wherever a recomputation is needed.
///
/// ## Threading
/// Like the derivation it wraps: from any thread. The expression keeps the isolation of the code that declares the
/// property: declared on the main actor, it may read main-actor state and is computed only there (elsewhere it
/// traps). Declared outside any actor, the expression is not checked for `Sendable` (Swift cannot infer an
/// autoclosure's isolation), so keep what it captures to nodes and values: prefer `derive { ... }`, whose body the
/// compiler checks, for derivations read on several threads.
///
/// ## Lifetime
/// The wrapper holds the derivation strongly; copies share it. The derivation belongs to the runtime that was
/// ``Runtime/current`` when the property was initialized.
@propertyWrapper
public struct Derived<Value> {
    /// The derivation behind the property: what `$name` returns.
    ///
    /// It is the ``Derivation`` rather than the wrapper, so that `$name` can be passed to anything that takes a
    /// node, observed with ``Derivation/values``, or computed ahead of time with ``Derivation/run()``.
    ///
    /// ```swift
    /// @Atom var a = 1
    /// @Derived var doubled = a * 2
    /// let node: Derivation<Int> = $doubled
    /// print(node.value)              // 2
    /// ```
    ///
    /// Threading and lifetime: as for the wrapper.
    @inlinable
    public var projectedValue: Derivation<Value> {
        guard let eager else { Self.ownerOnly(property!.label) }
        return eager
    }

    /// The derivation of an expression (`@Derived var sum = x + y`), created with the wrapper.
    @usableFromInline let eager: Derivation<Value>?
    /// The derivation of a body that reads the owning object, created on the first access through the owner.
    @usableFromInline let property: DerivedProperty<Value>?

    /// Creates a derivation of the initial expression; every recomputation counts as a change.
    ///
    /// Chosen for values that are not `Equatable`.
    ///
    /// ```swift
    /// final class Formatter { let digits: Int; init(digits: Int) { self.digits = digits } }
    /// @Atom var digits = 2
    /// @Derived var formatter = Formatter(digits: digits)   // not Equatable: a new one is always a change
    /// ```
    ///
    /// - Parameters:
    ///   - wrappedValue: the expression that computes the value, evaluated lazily as the derivation's body.
    ///   - label: the name used in trap messages; by default the file and line of the declaration.
    ///   - fileID: the file of the declaration (leave the default).
    ///   - line: the line of the declaration (leave the default).
    ///   - isolation: the actor of the declaring code (leave the default): the expression is computed only there.
    ///
    /// Threading and lifetime: the derivation is created in ``Runtime/current``; it keeps the expression (and what
    /// it captures) alive.
    @inlinable
    public init(
        wrappedValue: @autoclosure @escaping () -> Value, label: String? = nil, fileID: String = #fileID,
        line: Int = #line, isolation: isolated (any Actor)? = #isolation
    ) {
        eager = Derivation(
            recompute: Derivation.storingEveryResult(wrappedValue), label: label, fileID: fileID, line: line,
            isolation: BodyIsolation(isolation))
        property = nil
    }

    /// Creates a derivation of the initial expression whose equal recomputations are not changes.
    ///
    /// ```swift
    /// @Atom var count = 3
    /// @Derived var isEven = count % 2 == 0      // count = 5 recomputes to false: no change downstream
    /// ```
    ///
    /// - Parameters:
    ///   - wrappedValue: the expression that computes the value, evaluated lazily as the derivation's body.
    ///   - label: the name used in trap messages; by default the file and line of the declaration.
    ///   - fileID: the file of the declaration (leave the default).
    ///   - line: the line of the declaration (leave the default).
    ///   - isolation: the actor of the declaring code (leave the default): the expression is computed only there.
    ///
    /// Threading and lifetime: the derivation is created in ``Runtime/current``; it keeps the expression (and what
    /// it captures) alive.
    @inlinable
    public init(
        wrappedValue: @autoclosure @escaping () -> Value, label: String? = nil, fileID: String = #fileID,
        line: Int = #line, isolation: isolated (any Actor)? = #isolation
    ) where Value: Equatable {
        eager = Derivation(
            recompute: Derivation.storing(wrappedValue), label: label, fileID: fileID, line: line,
            isolation: BodyIsolation(isolation))
        property = nil
    }

    /// Creates a derived stored property of a class whose body reads the object that owns it; every
    /// recomputation counts as a change.
    ///
    /// ```swift
    /// final class Basket {
    ///     @Atom var items: [String] = []
    ///     @Derived({ (basket: Basket) in basket.items.map { $0.uppercased() } }) var shouting: [String]
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - body: computes the value from the owning object (and any other nodes); it runs on the first read and
    ///     again after something it read changed.
    ///   - label: the name used in trap messages; by default the file and line of the declaration.
    ///   - fileID: the file of the declaration (leave the default).
    ///   - line: the line of the declaration (leave the default).
    ///   - isolation: the actor of the declaring code (leave the default): in a `@MainActor` class, the body is
    ///     computed only on the main actor.
    ///
    /// Threading: the property may be read from any thread; the first access creates the derivation (once, even
    /// when threads race). Lifetime: the derivation lives as long as the object (or live readers); it holds the
    /// object weakly. Reading it after the object is gone (from an effect that outlived it) traps.
    @inlinable
    public init<Owner: AnyObject>(
        _ body: @escaping (Owner) -> Value, label: String? = nil, fileID: String = #fileID, line: Int = #line,
        isolation: isolated (any Actor)? = #isolation
    ) {
        eager = nil
        property = DerivedProperty(
            label: label, fileID: fileID, line: line, isolation: BodyIsolation(isolation)
        ) { owner in
            Derivation<Value>.storingEveryResult(
                DerivedProperty.body(body, reading: owner, label: label, fileID: fileID, line: line))
        }
    }

    /// Creates a derived stored property of a class whose body reads the object that owns it; a recomputation
    /// that gives an equal value is not a change.
    ///
    /// ```swift
    /// final class CounterViewModel {
    ///     @Atom var count = 0
    ///     @Derived({ (model: CounterViewModel) in model.count % 2 == 0 }) var isEven: Bool
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - body: computes the value from the owning object (and any other nodes).
    ///   - label: the name used in trap messages; by default the file and line of the declaration.
    ///   - fileID: the file of the declaration (leave the default).
    ///   - line: the line of the declaration (leave the default).
    ///   - isolation: the actor of the declaring code (leave the default).
    ///
    /// Threading and lifetime: as for the form without equality.
    @inlinable
    public init<Owner: AnyObject>(
        _ body: @escaping (Owner) -> Value, label: String? = nil, fileID: String = #fileID, line: Int = #line,
        isolation: isolated (any Actor)? = #isolation
    ) where Value: Equatable {
        eager = nil
        property = DerivedProperty(
            label: label, fileID: fileID, line: line, isolation: BodyIsolation(isolation)
        ) { owner in
            Derivation<Value>.storing(
                DerivedProperty.body(body, reading: owner, label: label, fileID: fileID, line: line))
        }
    }

    /// The derivation's value, brought up to date (and recorded as a read).
    ///
    /// ```swift
    /// @Atom var name = "ripple"
    /// @Derived var title = name.capitalized
    /// print(title)                    // "Ripple"
    /// ```
    ///
    /// Threading: from any thread.
    @inlinable
    public var wrappedValue: Value {
        projectedValue.value
    }

    /// The property's value, when the wrapper is a stored property of a class: Swift reads it through this
    /// subscript, handing over the object, so that a body reading the object can be created on the first read.
    ///
    /// ```swift
    /// let model = CounterViewModel()
    /// print(model.title)              // Swift calls this subscript with `model`
    /// ```
    ///
    /// - Parameters:
    ///   - owner: the object whose property is read.
    ///   - wrapped: the property's key path.
    ///   - storage: the key path of the wrapper's storage.
    ///
    /// Threading: from any thread.
    @inlinable
    public static subscript<Owner: AnyObject>(
        _enclosingInstance owner: Owner, wrapped wrapped: KeyPath<Owner, Value>,
        storage storage: KeyPath<Owner, Derived<Value>>
    ) -> Value {
        owner[keyPath: storage].derivation(of: owner).value
    }

    /// The property's ``Derivation`` (`$title`), when the wrapper is a stored property of a class.
    ///
    /// ```swift
    /// let node: Derivation<String> = model.$title
    /// ```
    ///
    /// - Parameters:
    ///   - owner: the object whose property is read.
    ///   - projected: the projected property's key path.
    ///   - storage: the key path of the wrapper's storage.
    ///
    /// Threading: from any thread.
    @inlinable
    public static subscript<Owner: AnyObject>(
        _enclosingInstance owner: Owner, projected projected: KeyPath<Owner, Derivation<Value>>,
        storage storage: KeyPath<Owner, Derived<Value>>
    ) -> Derivation<Value> {
        owner[keyPath: storage].derivation(of: owner)
    }

    /// The derivation, creating it for `owner` on the first access of an owner-reading property.
    @inlinable
    func derivation(of owner: AnyObject) -> Derivation<Value> {
        if let eager { return eager }
        return property.unsafelyUnwrapped.derivation(of: owner)
    }

    @usableFromInline @inline(never)
    static func ownerOnly(_ label: String) -> Never {
        fatalError(
            """
            Ripple: @Derived property \(label) reads its owning object, so it works only as a stored property of \
            a class (Swift hands the object to the wrapper there). In a struct, or outside a type, write the \
            expression itself: @Derived var title = "Count: \\(count)".
            """)
    }
}

/// The derivation behind a `@Derived` stored property of a class whose body reads the object: made on the first
/// access, when the object is known, and published once (threads that race create one derivation each; all but
/// the first are discarded, unread).
@usableFromInline
final class DerivedProperty<Value> {
    /// Builds the derivation's recompute for the owner (the body capturing it weakly).
    @usableFromInline typealias MakeRecompute = (_ owner: AnyObject) -> Derivation<Value>.Recompute

    private let makeRecompute: MakeRecompute
    /// The runtime current when the owner was initialized: where the derivation goes.
    private let runtime: Runtime
    private let explicitLabel: String?
    private let fileID: String
    private let line: Int
    private let isolation: BodyIsolation
    /// The published derivation, retained (an `Unmanaged` opaque pointer), or nil before the first access.
    private let slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>

    @usableFromInline
    init(label: String?, fileID: String, line: Int, isolation: BodyIsolation, makeRecompute: @escaping MakeRecompute) {
        self.makeRecompute = makeRecompute
        self.isolation = isolation
        runtime = .current
        explicitLabel = label
        self.fileID = fileID
        self.line = line
        slot = .allocate(capacity: 1)
        slot.initialize(to: nil)
    }

    deinit {
        if let published = slot.pointee {
            Unmanaged<Derivation<Value>>.fromOpaque(published).release()
        }
        slot.deallocate()
    }

    /// The name used in trap messages.
    @usableFromInline
    var label: String {
        explicitLabel ?? "\(fileID):\(line)"
    }

    @usableFromInline
    func derivation(of owner: AnyObject) -> Derivation<Value> {
        if let published = ripple_once_slot_load(slot) {
            return Unmanaged<Derivation<Value>>.fromOpaque(published).takeUnretainedValue()
        }
        return create(for: owner)
    }

    @inline(never)
    private func create(for owner: AnyObject) -> Derivation<Value> {
        let made = Derivation(
            recompute: makeRecompute(owner), label: explicitLabel, fileID: fileID, line: line, runtime: runtime,
            isolation: isolation)
        let retained = Unmanaged.passRetained(made)
        if ripple_once_slot_publish(slot, retained.toOpaque()) { return made }
        retained.release()
        return Unmanaged<Derivation<Value>>.fromOpaque(ripple_once_slot_load(slot)!).takeUnretainedValue()
    }

    /// `body` applied to `owner`, which it holds weakly (the owner holds the derivation).
    @inlinable
    static func body<Owner: AnyObject>(
        _ body: @escaping (Owner) -> Value, reading owner: AnyObject, label: String?, fileID: String, line: Int
    ) -> () -> Value {
        { [weak owner] in
            guard let owner else { ownerGone(label: label, fileID: fileID, line: line) }
            return body(unsafeDowncast(owner, to: Owner.self))
        }
    }

    @usableFromInline @inline(never)
    static func ownerGone(label: String?, fileID: String, line: Int) -> Never {
        fatalError(
            """
            Ripple: @Derived property \(label ?? "\(fileID):\(line)") was recomputed after the object that owns it \
            was freed (a live effect still reads it). Cancel the effects that read an object's properties when the \
            object goes, for instance in its deinit, or hold the object for as long as they run.
            """)
    }
}
