/// How a ``Store``'s state changes in response to an action, and what work the action starts.
///
/// A reducer either implements ``reduce(into:action:)`` or describes itself as a composition in ``body``, built
/// from ``Reduce`` (a closure), ``Scope`` (a child reducer on a slice of the state and a case of the actions) and
/// other reducers, which run in the order they are written.
///
/// ```swift
/// struct Counter: Reducer {
///     struct State: Equatable { var count = 0 }
///     enum Action { case increase, decrease }
///
///     var body: some Reducer<State, Action> {
///         Reduce { state, action in
///             switch action {
///             case .increase: state.count += 1
///             case .decrease: state.count -= 1
///             }
///             return .none
///         }
///     }
/// }
/// ```
///
/// Threading: a store calls its reducer on the thread that drains its actions, one action at a time, never on two
/// threads at once; so a reducer is `Sendable`, and it must not block or wait for other actions (return a
/// ``Work/run(priority:operation:catch:)`` instead).
public protocol Reducer<State, Action> {
    /// The state the reducer changes.
    associatedtype State
    /// The actions it handles.
    associatedtype Action: Sendable
    /// The reducer that ``body`` returns: `Never` for reducers that implement ``reduce(into:action:)`` themselves.
    associatedtype Body

    /// Applies `action` to `state` and returns the work it starts (``Work/none`` when there is none).
    ///
    /// ```swift
    /// func reduce(into state: inout State, action: Action) -> Work<Action> {
    ///     state.count += 1
    ///     return .none
    /// }
    /// ```
    ///
    /// Threading: called by the store with its graph held: keep it short and never wait in it.
    func reduce(into state: inout State, action: Action) -> Work<Action>

    /// The reducer as a composition of others, run in the order written.
    ///
    /// ```swift
    /// var body: some Reducer<State, Action> {
    ///     Scope(state: \.counter, action: Action.counter) { Counter() }
    ///     Reduce { state, action in .none }
    /// }
    /// ```
    @ReducerBuilder<State, Action>
    var body: Body { get }
}

extension Reducer where Body == Never {
    /// A reducer that implements ``reduce(into:action:)`` has no body; reading it is a programming error.
    ///
    /// ```swift
    /// struct Increment: Reducer {
    ///     func reduce(into state: inout Int, action: Void) -> Work<Void> { state += 1; return .none }
    /// }
    /// ```
    public var body: Never {
        fatalError(
            "Ripple: \(Self.self) has no body: it implements reduce(into:action:) itself. Call reduce(into:action:)"
                + " instead of reading its body.")
    }
}

extension Reducer where Body: Reducer, Body.State == State, Body.Action == Action {
    /// Runs ``body``: the reduction of a reducer described as a composition.
    ///
    /// ```swift
    /// var state = Counter.State()
    /// _ = Counter().reduce(into: &state, action: .increase)   // state.count == 1
    /// ```
    public func reduce(into state: inout State, action: Action) -> Work<Action> {
        body.reduce(into: &state, action: action)
    }
}
