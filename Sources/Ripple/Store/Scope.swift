/// Runs a child reducer on a slice of the parent's state, for one case of the parent's actions.
///
/// For an action of that case, the child reduces its slice (`state[keyPath: toChildState]`) and its work is
/// mapped back into the parent's actions; other actions pass by untouched. The child's work sends its actions
/// wrapped in the case, so they come back through the whole parent reducer: a ``Reduce`` written after the scope
/// in the parent's ``Reducer/body`` sees every child action, once the child has handled it. That is how a parent
/// observes what its children do.
///
/// ```swift
/// struct App: Reducer {
///     struct State: Equatable { var counter = Counter.State(); var log: [String] = [] }
///     enum Action { case counter(Counter.Action) }
///
///     var body: some Reducer<State, Action> {
///         Scope(state: \.counter, action: Action.counter) { Counter() }
///         Reduce { state, action in
///             if case .counter(.increase) = action { state.log.append("+1 → \(state.counter.count)") }
///             return .none
///         }
///     }
/// }
/// ```
///
/// Threading: as any reducer, called by the store one action at a time.
public struct Scope<State, Action: Sendable, Child: Reducer>: Reducer {
    // Key paths are immutable once formed: sharing one between threads is safe (the standard library does not
    // declare them Sendable).
    nonisolated(unsafe) private let toChildState: WritableKeyPath<State, Child.State>
    private let extract: @Sendable (Action) -> Child.Action?
    private let embed: @Sendable (Child.Action) -> Action
    private let child: Child

    /// Scopes `child` to the slice at `toChildState` and the case `embed` builds, recognising that case with
    /// `extract`.
    ///
    /// ```swift
    /// Scope(
    ///     state: \.counter,
    ///     action: Action.counter,
    ///     extract: { if case .counter(let action) = $0 { action } else { nil } }
    /// ) { Counter() }
    /// ```
    ///
    /// - Parameters:
    ///   - toChildState: where the child's state lives in the parent's.
    ///   - embed: wraps a child action into the parent's (the enum case, `Action.counter`).
    ///   - extract: the child action inside a parent action of that case, or nil for any other action.
    ///   - child: the child reducer.
    public init<ChildState, ChildAction>(
        state toChildState: WritableKeyPath<State, ChildState>,
        action embed: @escaping @Sendable (ChildAction) -> Action,
        extract: @escaping @Sendable (Action) -> ChildAction?,
        @ReducerBuilder<ChildState, ChildAction> child: () -> Child
    ) where ChildState == Child.State, ChildAction == Child.Action {
        self.toChildState = toChildState
        self.embed = embed
        self.extract = extract
        self.child = child()
    }

    /// Scopes `child` to the slice at `toChildState` and the enum case `embed`: the case is recognised by its
    /// name, through reflection.
    ///
    /// Recognising the case costs a `Mirror` of each action (a few hundred nanoseconds); pass `extract:` (the
    /// other initializer) on a hot path.
    ///
    /// ```swift
    /// Scope(state: \.counter, action: Action.counter) { Counter() }
    /// ```
    ///
    /// - Parameters:
    ///   - toChildState: where the child's state lives in the parent's.
    ///   - embed: the enum case that wraps a child action into the parent's (`Action.counter`). Only a case
    ///     works here: any other function makes every action pass by.
    ///   - child: the child reducer.
    public init<ChildState, ChildAction>(
        state toChildState: WritableKeyPath<State, ChildState>,
        action embed: @escaping @Sendable (ChildAction) -> Action,
        @ReducerBuilder<ChildState, ChildAction> child: () -> Child
    ) where ChildState == Child.State, ChildAction == Child.Action {
        self.init(state: toChildState, action: embed, extract: { extractCase(embed, from: $0) }, child: child)
    }

    /// Lets the child reduce its slice for an action of its case; any other action is no work.
    ///
    /// ```swift
    /// var state = App.State()
    /// _ = Scope(state: \.counter, action: App.Action.counter) { Counter() }
    ///     .reduce(into: &state, action: .counter(.increase))   // state.counter.count == 1
    /// ```
    public func reduce(into state: inout State, action: Action) -> Work<Action> {
        guard let childAction = extract(action) else { return .none }
        return child.reduce(into: &state[keyPath: toChildState], action: childAction).map(embed)
    }
}

extension Scope: Sendable where Child: Sendable {}

/// The payload of `root` when `root` is the enum case that `embed` builds, else nil: the case's payload must have
/// the payload's type, and embedding it again must give a case of the same name.
func extractCase<Root, Payload>(_ embed: (Payload) -> Root, from root: Root) -> Payload? {
    let mirror = Mirror(reflecting: root)
    guard mirror.displayStyle == .enum, let child = mirror.children.first,
        let payload = child.value as? Payload
    else { return nil }
    let embedded = Mirror(reflecting: embed(payload)).children.first?.label
    return embedded == child.label ? payload : nil
}
