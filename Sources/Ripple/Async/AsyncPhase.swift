/// Where an async value stands: its run is in flight, or it finished with a value or an error.
///
/// ``TypedAsyncDerivation/phase`` returns one. Switch over it to render each state, or use the accessors:
///
/// ```swift
/// switch profile.phase {
/// case .suspending: showSpinner()
/// case .success(let user): show(user)
/// case .failure(let error): show(error)
/// }
/// ```
///
/// A body that throws untyped errors (or none) gives an `AsyncPhase<Value>`, whose failure is `any Error`. This
/// is that type.
public typealias AsyncPhase<Value> = TypedAsyncPhase<Value, any Error>

/// Where an async value stands, with the error type its body declares: its run is in flight, or it finished with
/// a value or an error of type `Failure`.
///
/// A body declared `throws(FetchError)` gives a `TypedAsyncPhase<Value, FetchError>`: its ``error`` is a
/// `FetchError?`, compared without a cast. Every other body gives an ``AsyncPhase`` (`Failure` is `any Error`).
///
/// ```swift
/// enum FetchError: Error { case noData }
/// let phase: TypedAsyncPhase<Int, FetchError> = .failure(.noData)
/// assert(phase.error == .noData)
/// ```
///
/// Threading: a plain value; `Sendable` when `Value` and `Failure` are. Two phases are equal when both are
/// ``suspending``, both are ``success(_:)`` with equal values, or both are ``failure(_:)`` with errors of the same
/// type and the same description (what tests compare; errors need not be `Equatable`).
public enum TypedAsyncPhase<Value, Failure: Error> {
    /// The run for the current inputs is in flight (or has not started yet).
    case suspending
    /// The run finished with this value.
    case success(Value)
    /// The run threw this error.
    case failure(Failure)

    /// The value of a ``success(_:)``, else nil.
    ///
    /// ```swift
    /// let phase: AsyncPhase<Int> = .success(3)
    /// assert(phase.value == 3)
    /// ```
    public var value: Value? {
        if case .success(let value) = self { return value }
        return nil
    }

    /// The error of a ``failure(_:)``, else nil: typed as the body declared it.
    ///
    /// ```swift
    /// struct Offline: Error {}
    /// let phase: AsyncPhase<Int> = .failure(Offline())
    /// assert(phase.error is Offline)
    /// ```
    public var error: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }

    /// Whether this is ``suspending``.
    ///
    /// ```swift
    /// let phase: AsyncPhase<Int> = .suspending
    /// assert(phase.isSuspending)
    /// ```
    public var isSuspending: Bool {
        if case .suspending = self { return true }
        return false
    }

    /// The same phase with its value transformed; ``suspending`` and ``failure(_:)`` are kept.
    ///
    /// ```swift
    /// let phase: AsyncPhase<Int> = .success(2)
    /// assert(phase.map { $0 * 10 }.value == 20)
    /// ```
    ///
    /// - Parameter transform: applied to the value of a ``success(_:)``.
    public func map<T>(_ transform: (Value) throws -> T) rethrows -> TypedAsyncPhase<T, Failure> {
        switch self {
        case .suspending: .suspending
        case .success(let value): .success(try transform(value))
        case .failure(let error): .failure(error)
        }
    }

    /// The value of a ``success(_:)``; the error of a ``failure(_:)`` is thrown; nil while ``suspending``.
    ///
    /// ```swift
    /// let phase: AsyncPhase<Int> = .success(1)
    /// assert(try phase.get() == 1)
    /// ```
    public func get() throws(Failure) -> Value? {
        switch self {
        case .suspending: nil
        case .success(let value): value
        case .failure(let error): throw error
        }
    }
}

extension TypedAsyncPhase: Sendable where Value: Sendable {}

extension TypedAsyncPhase: Equatable where Value: Equatable {
    /// Equal phases: both suspending, successes with equal values, or failures whose errors have the same type and
    /// description.
    ///
    /// ```swift
    /// assert(AsyncPhase<Int>.success(1) == .success(1))
    /// assert(AsyncPhase<Int>.suspending != .success(1))
    /// ```
    public static func == (lhs: TypedAsyncPhase, rhs: TypedAsyncPhase) -> Bool {
        switch (lhs, rhs) {
        case (.suspending, .suspending): true
        case (.success(let a), .success(let b)): a == b
        case (.failure(let a), .failure(let b)):
            type(of: a) == type(of: b) && String(describing: a) == String(describing: b)
        default: false
        }
    }
}

extension TypedAsyncPhase: CustomStringConvertible {
    /// `suspending`, `success(<value>)` or `failure(<error>)`.
    ///
    /// ```swift
    /// print(AsyncPhase<Int>.success(2))   // success(2)
    /// ```
    public var description: String {
        switch self {
        case .suspending: "suspending"
        case .success(let value): "success(\(value))"
        case .failure(let error): "failure(\(error))"
        }
    }
}
