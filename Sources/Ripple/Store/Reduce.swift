/// A reducer written as a closure: the usual leaf of a ``Reducer/body``.
///
/// ```swift
/// var body: some Reducer<State, Action> {
///     Reduce { state, action in
///         switch action {
///         case .increase:
///             state.count += 1
///             return .none
///         case .decrease:
///             state.count -= 1
///             return .none
///         }
///     }
/// }
/// ```
///
/// Threading: the closure is `Sendable`: the store calls it on whichever thread drains its actions, one action at
/// a time.
public struct Reduce<State, Action: Sendable>: Reducer, Sendable {
    private let reduction: @Sendable (inout State, Action) -> Work<Action>

    /// Creates a reducer that runs `reduce` for every action.
    ///
    /// ```swift
    /// let counter = Reduce<Int, Void> { count, _ in count += 1; return .none }
    /// ```
    ///
    /// - Parameter reduce: changes the state for an action and returns the work the action starts.
    public init(_ reduce: @escaping @Sendable (_ state: inout State, _ action: Action) -> Work<Action>) {
        reduction = reduce
    }

    /// Runs the closure.
    ///
    /// ```swift
    /// var count = 0
    /// _ = Reduce<Int, Void> { count, _ in count += 1; return .none }.reduce(into: &count, action: ())
    /// ```
    public func reduce(into state: inout State, action: Action) -> Work<Action> {
        reduction(&state, action)
    }
}
