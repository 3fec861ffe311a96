/// A property wrapper that stores its value in an ``AtomObject``.
///
/// Reading the property records a read; assigning a different value notifies dependents. `$name` is the
/// ``AtomObject`` itself, to pass around or to give to APIs that take one. `Equatable` values are compared with
/// `==`; give any other value an equality with `@Atom(equals:)`.
///
/// ```swift
/// @Atom var count = 0
/// @Derived var title = "Count: \(count)"
/// let render = Effect { print(title) }       // prints "Count: 0"
/// count += 1                                 // prints "Count: 1"
/// print($count.label)                        // "MyApp/Counter.swift:1"
/// _ = render
/// ```
///
/// ## Threading
/// Like the atom it wraps: from any thread.
///
/// ## Lifetime
/// The wrapper holds the atom strongly; copies of the wrapper share the same atom. The atom belongs to the runtime
/// that was ``Runtime/current`` when the property was initialized.
@propertyWrapper
public struct Atom<Value> {
    /// The atom behind the property: what `$name` returns.
    ///
    /// ```swift
    /// @Atom var name = "Ripple"
    /// let object: AtomObject<String> = $name
    /// object.value = "Ripple 2"        // same as name = "Ripple 2"
    /// ```
    ///
    /// Threading and lifetime: as for the wrapper.
    public let projectedValue: AtomObject<Value>

    /// Creates the atom with the property's initial value.
    ///
    /// ```swift
    /// @Atom(label: "user name") var name = "Ripple"
    /// ```
    ///
    /// - Parameters:
    ///   - wrappedValue: the initial value.
    ///   - label: the name used in trap messages; by default the file and line of the declaration.
    ///   - fileID: the file of the declaration (leave the default).
    ///   - line: the line of the declaration (leave the default).
    ///
    /// Threading and lifetime: the atom is created in ``Runtime/current``, on the calling thread.
    @inlinable
    public init(wrappedValue: Value, label: String? = nil, fileID: String = #fileID, line: Int = #line)
    where Value: Equatable {
        projectedValue = AtomObject(
            initial: wrappedValue, equality: .equatable, label: label, fileID: fileID, line: line)
    }

    /// Creates the atom with the property's initial value and your own equality, for values that are not
    /// `Equatable` (or that need another notion of "the same").
    ///
    /// ```swift
    /// struct Point { var x = 0.0, y = 0.0 }
    /// @Atom(equals: { $0.x == $1.x && $0.y == $1.y }) var origin = Point()
    /// ```
    ///
    /// - Parameters:
    ///   - wrappedValue: the initial value.
    ///   - equals: returns true when two values are the same for the atom's readers; it must not read or write
    ///     Ripple nodes.
    ///   - label: the name used in trap messages; by default the file and line of the declaration.
    ///   - fileID: the file of the declaration (leave the default).
    ///   - line: the line of the declaration (leave the default).
    ///
    /// Threading and lifetime: the atom is created in ``Runtime/current``, on the calling thread.
    @inlinable
    public init(
        wrappedValue: Value, equals: @escaping @Sendable (Value, Value) -> Bool, label: String? = nil,
        fileID: String = #fileID, line: Int = #line
    ) {
        projectedValue = AtomObject(initial: wrappedValue, equals: equals, label: label, fileID: fileID, line: line)
    }

    /// Not available: a value that is not `Equatable` needs an equality.
    ///
    /// Swift picks this declaration for `@Atom var point = Point()` when `Point` is not `Equatable`, so that the
    /// error says what to write instead: `@Atom(equals: { ... }) var point = Point()`, or `atom(_:equals:)`.
    ///
    /// - Parameters:
    ///   - wrappedValue: the initial value.
    ///   - label: the name used in trap messages.
    ///   - fileID: the file of the declaration.
    ///   - line: the line of the declaration.
    @available(
        *, unavailable,
        message: "@Atom compares values with ==, and this type is not Equatable: make it Equatable, or give an equality with @Atom(equals: { $0.id == $1.id }) var name = value (or atom(value, equals: ...))"
    )
    public init(wrappedValue: Value, label: String? = nil, fileID: String = #fileID, line: Int = #line) {
        fatalError("unavailable")
    }

    /// The atom's value: reading records a read, assigning an unequal value notifies dependents.
    ///
    /// ```swift
    /// @Atom var count = 0
    /// count += 1               // a read, then a write
    /// ```
    ///
    /// Threading: from any thread. The setter is `nonmutating`: the value lives in
    /// the shared ``AtomObject``, not in the wrapper.
    @inlinable
    public var wrappedValue: Value {
        get { projectedValue.value }
        nonmutating set { projectedValue.value = newValue }
    }
}
