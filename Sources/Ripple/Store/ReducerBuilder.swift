/// Builds a ``Reducer/body``: the reducers written one after the other run in that order for every action, and
/// the works they return are merged.
///
/// ```swift
/// var body: some Reducer<State, Action> {
///     Scope(state: \.counter, action: Action.counter) { Counter() }   // the child first
///     Reduce { state, action in .none }                              // then the parent, which sees its actions
/// }
/// ```
@resultBuilder
public enum ReducerBuilder<State, Action: Sendable> {
    /// Accepts a reducer of this state and these actions.
    ///
    /// ```swift
    /// var body: some Reducer<State, Action> { Reduce { _, _ in .none } }
    /// ```
    public static func buildExpression<R: Reducer>(_ reducer: R) -> R where R.State == State, R.Action == Action {
        reducer
    }

    /// The first reducer of a body.
    ///
    /// ```swift
    /// var body: some Reducer<State, Action> { Reduce { _, _ in .none } }
    /// ```
    public static func buildPartialBlock<R: Reducer>(first: R) -> R where R.State == State, R.Action == Action {
        first
    }

    /// The reducers so far followed by the next one.
    ///
    /// ```swift
    /// var body: some Reducer<State, Action> {
    ///     Reduce { _, _ in .none }
    ///     Reduce { _, _ in .none }
    /// }
    /// ```
    public static func buildPartialBlock<First: Reducer, Next: Reducer>(accumulated: First, next: Next)
        -> CombinedReducers<First, Next>
    where First.State == State, First.Action == Action, Next.State == State, Next.Action == Action {
        CombinedReducers(first: accumulated, second: next)
    }
}

/// Two reducers run one after the other on the same state and action, their works merged: what
/// ``ReducerBuilder`` makes of consecutive reducers in a ``Reducer/body``.
///
/// ```swift
/// var body: some Reducer<State, Action> {
///     Reduce { state, _ in state.count += 1; return .none }
///     Reduce { state, _ in state.total += state.count; return .none }   // sees the count already increased
/// }
/// ```
public struct CombinedReducers<First: Reducer, Second: Reducer>: Reducer
where First.State == Second.State, First.Action == Second.Action {
    let first: First
    let second: Second

    /// Runs the first reducer, then the second on the state the first left, and merges their works.
    ///
    /// ```swift
    /// var state = App.State()
    /// _ = App().body.reduce(into: &state, action: .counter(.increase))
    /// ```
    public func reduce(into state: inout First.State, action: First.Action) -> Work<First.Action> {
        let work = first.reduce(into: &state, action: action)
        return .merge(work, second.reduce(into: &state, action: action))
    }
}

extension CombinedReducers: Sendable where First: Sendable, Second: Sendable {}
