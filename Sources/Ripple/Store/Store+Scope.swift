/// Where a store's state lives: its own atom, or (a scoped store) a derivation of its slice of the parent's state.
enum StoreStateSource<State> {
    case own(AtomObject<State>)
    case slice(Derivation<State>)

    /// The runtime of the node: the store's.
    var runtime: Runtime {
        switch self {
        case .own(let atom): atom.runtime
        case .slice(let slice): slice.runtime
        }
    }

    /// A body that reads `keyPath` of the state through the node: a derivation made of it depends on the node.
    func reading<Value>(_ keyPath: KeyPath<State, Value>) -> () -> Value {
        // Key paths are immutable once formed: sharing one between threads is safe.
        nonisolated(unsafe) let path = keyPath
        switch self {
        case .own(let atom): return { atom.value[keyPath: path] }
        case .slice(let slice): return { slice.value[keyPath: path] }
        }
    }
}

/// How a scoped store reaches its parent: sending an action embedded into the parent's, and awaiting the parent's
/// work. It holds the parent, which owns the work and the state.
struct StoreParentLink<Action>: Sendable {
    let send: @Sendable (Action) -> Void
    let finish: @Sendable () async -> Void
}

extension Store {
    /// A store of a child feature's state and actions, inside this one: it reads the slice at `toChildState`
    /// through this store's nodes and sends every action through this store, wrapped by `embed`.
    ///
    /// A child feature is written against its own types: its view takes a `Store<Child.State, Child.Action>`, and
    /// its tests use a `TestStore` of the child reducer alone. The parent composes the child reducer with
    /// ``Scope``, and hands the child view `store.scope(state: \.child, action: Action.child)`.
    ///
    /// ```swift
    /// import Ripple
    ///
    /// struct Counter: Reducer {
    ///     struct State: Equatable { var count = 0 }
    ///     enum Action { case increase }
    ///     func reduce(into state: inout State, action: Action) -> Work<Action> {
    ///         state.count += 1
    ///         return .none
    ///     }
    /// }
    ///
    /// struct App: Reducer {
    ///     struct State: Equatable { var counter = Counter.State(); var title = "Scores" }
    ///     enum Action { case counter(Counter.Action) }
    ///     var body: some Reducer<State, Action> {
    ///         Scope(state: \.counter, action: Action.counter) { Counter() }
    ///     }
    /// }
    ///
    /// let app = Store(initialState: App.State(), reducer: App())
    /// let counter = app.scope(state: \.counter, action: App.Action.counter)
    /// let label = Effect { print("count:", counter.count) }   // prints "count: 0"
    /// counter.send(.increase)                                 // prints "count: 1"
    /// print(app.counter.count)                                // prints "1"
    /// _ = label
    /// ```
    ///
    /// Reads: the child's state is one derivation of this store's state (with equality cut-off when it is
    /// `Equatable`), and `child.someProperty` one derivation of that, so a reader of a child's property re-runs
    /// only when that property changes. Sends: `child.send(action)` is `send(embed(action))`, reduced by this
    /// store's reducer (the child reducer inside it, through ``Scope``), with this store's ordering and work.
    /// ``finish()`` on the child awaits this store's work.
    ///
    /// - Parameters:
    ///   - toChildState: where the child's state lives in this store's state.
    ///   - embed: wraps a child action into this store's (the enum case, `Action.child`).
    ///   - label: names the child store's nodes in trap messages and traces; by default this store's name and
    ///     the key path.
    /// - Returns: a store of the child's state and actions. Each call makes a new one: keep it where the child
    ///   feature lives (a view's property).
    ///
    /// Threading: from any thread; the child store is used like any store. Lifetime: the child store keeps this
    /// store alive.
    public func scope<ChildState: Sendable, ChildAction: Sendable>(
        state toChildState: KeyPath<State, ChildState>, action embed: @escaping @Sendable (ChildAction) -> Action,
        label: String? = nil
    ) -> Store<ChildState, ChildAction> {
        let childName = label ?? "\(nodeLabelPrefix) \(toChildState)"
        let slice = Derivation(
            body: stateSource.reading(toChildState), recompute: Store<ChildState, ChildAction>.sliceRecompute(),
            label: childName, fileID: "Ripple/Store+Scope.swift", line: #line, runtime: stateSource.runtime)
        let link = StoreParentLink<ChildAction>(
            send: { [self] action in send(embed(action)) },
            finish: { [self] in await finish() })
        return Store<ChildState, ChildAction>(slice: slice, parentLink: link, name: childName)
    }

    /// How a scoped store's slice stores each result: a result equal to the last (`==`, when `State` is
    /// `Equatable`) is no change; otherwise every result is one.
    static func sliceRecompute() -> Derivation<State>.Recompute {
        guard let equals = stateEquality() else { return Derivation.storingEveryResult }
        return Derivation.storing(equals: equals)
    }
}
