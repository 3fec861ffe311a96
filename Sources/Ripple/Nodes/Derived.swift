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
/// ## Threading
/// Like the derivation it wraps: from any thread.
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
    public let projectedValue: Derivation<Value>

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
    ///
    /// Threading and lifetime: the derivation is created in ``Runtime/current``; it keeps the expression (and what
    /// it captures) alive.
    @inlinable
    public init(
        wrappedValue: @autoclosure @escaping () -> Value, label: String? = nil, fileID: String = #fileID,
        line: Int = #line
    ) {
        projectedValue = Derivation(
            recompute: Derivation.storing(wrappedValue), label: label, fileID: fileID, line: line)
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
    ///
    /// Threading and lifetime: the derivation is created in ``Runtime/current``; it keeps the expression (and what
    /// it captures) alive.
    @inlinable
    public init(
        wrappedValue: @autoclosure @escaping () -> Value, label: String? = nil, fileID: String = #fileID,
        line: Int = #line
    ) where Value: Equatable {
        projectedValue = Derivation(
            recompute: Derivation.storing(wrappedValue, equals: ==), label: label, fileID: fileID, line: line)
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
}
