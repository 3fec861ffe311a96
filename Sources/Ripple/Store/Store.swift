// The store: unidirectional data flow on Ripple. A `Store` holds one `State` value in an atom and changes it only
// by reducing `Action`s, one at a time in the order they are sent, each reduction one batch of the store's runtime.
// A reducer (`Reducer`, `Reduce`, `Scope`, composed with `ReducerBuilder`) returns `Work`: nothing, or runs in
// tasks that send further actions through `Send`. Reads of the state go through Ripple nodes (the atom, and one
// derivation per key path read through dynamic member lookup), so derivations, effects, async derivations and
// anything that observes Ripple nodes see the store like any other state. The test store lives in RippleTesting.

/// A store of state changed only by actions: each action is reduced, in the order sent, by a ``Reducer`` that
/// changes the state and returns the asynchronous ``Work`` the action starts.
///
/// The state is Ripple state: read a property of it through the store (`store.count`) inside a derivation or an
/// effect and that reader depends on that property alone. It re-runs when a reduction changes that property, not
/// when another one changes. ``state`` reads the whole value (a dependency on every property).
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
///
/// let store = Store(initialState: Counter.State(), reducer: Counter())
/// let label = Effect { print("count:", store.count) }   // prints "count: 0"
/// store.send(.increase)                                 // prints "count: 1"
/// _ = label
/// ```
///
/// ## Reading the state
/// `store.someProperty` reads `State`'s property through a derivation of the store's state atom, made on the first
/// read of that key path and kept by the store. For an `Equatable` property it has equality cut-off: a reduction
/// that leaves the property equal re-runs nothing that read only that property. The cost of a read is a lock, a
/// dictionary lookup of the key path and a derivation read; after a reduction, each property read since is
/// recomputed (one key-path read and one comparison) before anything that read it runs. A property that is not
/// `Equatable` reads the whole state: its readers re-run after every reduction that changes the state.
///
/// ## Threading
/// ``send(_:)`` may be called from any thread or task, including the main actor, a reducer's work and an effect.
/// Actions are reduced one at a time, in the order their `send` calls took the store's queue: the caller that
/// finds the queue idle reduces its action, and any action sent meanwhile, before its `send` returns; a `send` made
/// while another thread is reducing only queues the action, which that thread reduces. Each reduction is one batch
/// of the store's runtime: other threads see the state before or after it, never in between, and the effects it
/// triggers run once, at its end, on the reducing thread. Work runs in tasks, off the graph.
///
/// ## Lifetime
/// The store belongs to the runtime that was current when it was created. Derivations and effects that read it
/// keep its state alive, not the store. Freeing the store cancels every run of work still in flight; their later
/// sends do nothing.
@dynamicMemberLookup
public final class Store<State: Sendable, Action: Sendable> {
    /// The state, as Ripple state: the store's own atom, which reductions write, or a scoped store's slice of its
    /// parent's state; reads through the store read it.
    let stateSource: StoreStateSource<State>
    /// Where a scoped store sends its actions (embedded into the parent's) and awaits its work: the parent.
    let parentLink: StoreParentLink<Action>?
    private let reducer: @Sendable (inout State, Action) -> Work<Action>
    /// What the test store intercepts, set once by the initializer.
    private let hooks: StoreHooks<Action>?
    /// The name of the store in labels of its nodes.
    private let name: String

    // Guards everything below; held only for a few stores, never while touching the graph or running user code.
    // The properties it guards skip the dynamic exclusivity checks: the lock already makes each access exclusive.
    private let lock = ParkingLock()
    /// The actions sent while another thread was reducing, not yet reduced, from `queueHead` on.
    @exclusivity(unchecked) private var queue: [Action] = []
    /// The run that sent each action of `queue` (nil for `send(_:)`'s callers), at the same index. An array of its
    /// own: an array of pairs would make generic code build the pair's type at run time on every send.
    @exclusivity(unchecked) private var queueRuns: [RunCancellation?] = []
    @exclusivity(unchecked) private var queueHead = 0
    /// `queue.count - queueHead`, kept apart so that the usual case (nothing queued) touches no generic array.
    @exclusivity(unchecked) private var queued = 0
    /// Whether a thread is reducing the store's actions.
    @exclusivity(unchecked) private var draining = false
    /// The derivation of each key path read through dynamic member lookup (a `Derivation<Value>`), by value.
    @exclusivity(unchecked) private var fields: [AnyKeyPath: AnyObject] = [:]
    /// The same for the first key path objects read, found by identity: a literal key path is one object per
    /// call site, so this spares most reads the hashing of a key path.
    @exclusivity(unchecked) private var recentFields: [(keyPath: AnyKeyPath, field: AnyObject)] = []
    /// The runs in flight, by a number of their own, and the runs tagged with each cancellation id.
    @exclusivity(unchecked) private var runs: [UInt64: RunningWork] = [:]
    @exclusivity(unchecked) private var runsByID: [WorkID: Set<UInt64>] = [:]
    @exclusivity(unchecked) private var lastRun: UInt64 = 0

    /// A run in flight: its task once created, whether it was cancelled (under the store's lock, for the task made
    /// after), its ids and the action that started it.
    private struct RunningWork {
        var task: Task<Void, Never>?
        var isCancelled = false
        /// What the run's sends consult, apart from the store's lock (see ``RunCancellation``).
        var cancellation: RunCancellation
        var ids: [WorkID]
        var origin: Action
    }

    init<R: Reducer & Sendable>(
        initialState: State, reducer: R, hooks: StoreHooks<Action>?, label: String?, fileID: String, line: Int
    ) where R.State == State, R.Action == Action {
        name = label ?? "store (\(fileID):\(line))"
        stateSource = .own(
            AtomObject(initial: initialState, equals: Self.stateEquality(), label: name, fileID: fileID, line: line))
        self.reducer = { state, action in reducer.reduce(into: &state, action: action) }
        self.hooks = hooks
        parentLink = nil
    }

    /// A scoped store: its state is `slice`, a derivation of the parent's, and its actions go to `parentLink`.
    init(slice: Derivation<State>, parentLink: StoreParentLink<Action>, name: String) {
        self.name = name
        stateSource = .slice(slice)
        self.parentLink = parentLink
        // Never called: a scoped store's `send` hands every action to its parent.
        reducer = { _, _ in .none }
        hooks = nil
    }

    /// Creates a store holding `initialState`, changed by `reducer`.
    ///
    /// The store belongs to ``Runtime/current``.
    ///
    /// ```swift
    /// let store = Store(initialState: Counter.State(), reducer: Counter())
    /// ```
    ///
    /// - Parameters:
    ///   - initialState: the state before any action.
    ///   - reducer: reduces every action sent to the store.
    ///   - label: names the store's nodes in trap messages and traces; by default the file and line of this call.
    ///   - fileID: the file of the call (leave the default).
    ///   - line: the line of the call (leave the default).
    ///
    /// Threading: from any thread. Lifetime: see ``Store``.
    public convenience init<R: Reducer & Sendable>(
        initialState: State, reducer: R, label: String? = nil, fileID: String = #fileID, line: Int = #line
    ) where R.State == State, R.Action == Action {
        self.init(initialState: initialState, reducer: reducer, hooks: nil, label: label, fileID: fileID, line: line)
    }

    /// Creates a store holding `initialState`, changed by the reducers `reducer` builds, in order.
    ///
    /// ```swift
    /// let store = Store(initialState: 0) {
    ///     Reduce<Int, Bool> { count, up in count += up ? 1 : -1; return .none }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - initialState: the state before any action.
    ///   - label: names the store's nodes in trap messages and traces; by default the file and line of this call.
    ///   - fileID: the file of the call (leave the default).
    ///   - line: the line of the call (leave the default).
    ///   - reducer: builds the reducer, as a ``Reducer/body`` does.
    ///
    /// Threading: from any thread. Lifetime: see ``Store``.
    public convenience init<R: Reducer & Sendable>(
        initialState: State, label: String? = nil, fileID: String = #fileID, line: Int = #line,
        @ReducerBuilder<State, Action> reducer: () -> R
    ) where R.State == State, R.Action == Action {
        self.init(initialState: initialState, reducer: reducer(), label: label, fileID: fileID, line: line)
    }

    /// A store whose work hands its actions to `hooks` instead of reducing them: the test store's.
    package convenience init<R: Reducer & Sendable>(
        initialState: State, reducer: R, hooks: StoreHooks<Action>, fileID: String, line: Int
    ) where R.State == State, R.Action == Action {
        self.init(initialState: initialState, reducer: reducer, hooks: hooks, label: nil, fileID: fileID, line: line)
    }

    deinit {
        let tasks = lock.withLock { runs.values.compactMap(\.task) }
        for task in tasks { task.cancel() }
        lock.deallocate()
    }

    /// The name of the store in labels of its nodes (a scoped store's names start with it). Not `name`: an
    /// internal property would hide a state property of that name from `store.name` in this module's tests.
    var nodeLabelPrefix: String { name }

    /// `==` when `State` is `Equatable`, so that a reduction leaving the state equal is no write; otherwise every
    /// reduction is a change.
    static func stateEquality() -> ((State, State) -> Bool)? {
        guard let equatable = State.self as? any Equatable.Type else { return nil }
        return equatable.equality(as: State.self)
    }

    // MARK: Reading

    /// The whole state.
    ///
    /// Reading it inside a derivation or an effect makes that reader depend on every property: prefer
    /// `store.someProperty`, which depends on one.
    ///
    /// ```swift
    /// let snapshot = store.state          // Counter.State(count: 0)
    /// ```
    ///
    /// Threading: from any thread; a reduction in progress on another thread is seen entirely or not at all.
    public var state: State {
        switch stateSource {
        case .own(let atom): atom.value
        case .slice(let slice): slice.value
        }
    }

    /// A property of the state, read through a derivation with equality cut-off: its readers re-run only when a
    /// reduction changes that property.
    ///
    /// ```swift
    /// let title = derive { "Count: \(store.count)" }   // recomputes only when count changes
    /// ```
    ///
    /// Threading: from any thread. The derivation is made on the first read of the key path and kept by the store.
    public subscript<Value: Equatable>(dynamicMember keyPath: KeyPath<State, Value>) -> Value {
        field(keyPath).value
    }

    /// A property of the state that is not `Equatable`: a read of the whole state, so its readers re-run after
    /// every reduction that changes the state.
    ///
    /// ```swift
    /// let lastError = store.error      // (any Error)?: not Equatable
    /// ```
    ///
    /// Threading: from any thread.
    public subscript<Value>(dynamicMember keyPath: KeyPath<State, Value>) -> Value {
        state[keyPath: keyPath]
    }

    /// The derivation that reads `keyPath` of the state, made on its first use.
    private func field<Value: Equatable>(_ keyPath: KeyPath<State, Value>) -> Derivation<Value> {
        if let found = lock.withLock({ lookUpField(keyPath) }) {
            return unsafeDowncast(found, to: Derivation<Value>.self)
        }
        let made = Derivation(
            body: stateSource.reading(keyPath), recompute: Derivation.storingUnlessEqual,
            label: "\(name) \(keyPath)", fileID: "Ripple/Store.swift", line: #line, runtime: stateSource.runtime)
        // Another thread may have made one meanwhile: the first one stored is the one every reader shares.
        return lock.withLock {
            if let found = lookUpField(keyPath) { return unsafeDowncast(found, to: Derivation<Value>.self) }
            fields[keyPath] = made
            remember(keyPath, made)
            return made
        }
    }

    /// The field of `keyPath`, by identity first, then by value. Called with the lock held.
    private func lookUpField(_ keyPath: AnyKeyPath) -> AnyObject? {
        for entry in recentFields where entry.keyPath === keyPath { return entry.field }
        guard let found = fields[keyPath] else { return nil }
        remember(keyPath, found)
        return found
    }

    /// Adds a key path object to the ones found by identity, up to a few. Called with the lock held.
    private func remember(_ keyPath: AnyKeyPath, _ field: AnyObject) {
        if recentFields.count < 16 { recentFields.append((keyPath, field)) }
    }

    // MARK: Sending

    /// Sends `action` to the store: the reducer applies it after every action sent before, in one batch, and the
    /// work it returns starts.
    ///
    /// ```swift
    /// store.send(.increase)
    /// print(store.count)             // 1, when no other thread is sending to the store
    /// ```
    ///
    /// Threading: from any thread or task, including a reducer (the action is reduced after the current one), an
    /// effect and the main actor. If no other thread is reducing the store's actions, the action (and any sent
    /// meanwhile) is reduced before `send` returns, and the effects its changes trigger have run; otherwise the
    /// reducing thread reduces it and `send` returns at once.
    public func send(_ action: Action) {
        if let parentLink { return parentLink.send(action) }
        send(action, from: nil)
    }

    /// `send(_:)` of an action that `run` sent, or a caller's (`run` nil). The reducing thread drops the actions
    /// of a run cancelled before their turn: it is the only thread that cancels runs while it reduces (a
    /// reduction's work does), so a run it finds not cancelled stays so until its action is reduced.
    @inline(__always)
    private func send(_ action: Action, from run: RunCancellation?) {
        let drains = lock.withLock {
            if draining {
                queue.append(action)
                queueRuns.append(run)
                queued += 1
                return false
            }
            draining = true
            return true
        }
        guard drains else { return }
        if run?.isCancelled != true { reduce(action) }
        while hasQueued() {
            var run: RunCancellation?
            let action = takeQueued(run: &run)
            if run?.isCancelled != true { reduce(action) }
        }
    }

    /// Whether actions were queued meanwhile; if not, the store is idle again.
    private func hasQueued() -> Bool {
        lock.withLock {
            if queued > 0 { return true }
            draining = false
            return false
        }
    }

    /// The oldest queued action, removed, and the run that sent it in `run`; there is one (`hasQueued()`), and only
    /// the draining thread takes them.
    private func takeQueued(run: inout RunCancellation?) -> Action {
        lock.withLock {
            let action = queue[queueHead]
            run = queueRuns[queueHead]
            queueHead += 1
            queued -= 1
            if queued == 0 {
                queue.removeAll(keepingCapacity: true)
                queueRuns.removeAll(keepingCapacity: true)
                queueHead = 0
            }
            return action
        }
    }

    /// Reduces one action in one batch, then starts its work.
    private func reduce(_ action: Action) {
        guard case .own(let atom) = stateSource else { preconditionFailure("Ripple: a scoped store reduces nothing") }
        let work = atom.update { reducer(&$0, action) }
        start(work, origin: action)
    }

    /// An action sent by work (by `run`, or by a reduction's `.send` when nil): reduced, or handed to the test
    /// store; nothing once `run` is cancelled.
    private func deliverFromWork(_ action: Action, from run: RunCancellation? = nil) {
        guard let hooks else { return send(action, from: run) }
        guard let run else { return hooks.receive(action) }
        run.deliverUnlessCancelled { hooks.receive(action) }
    }

    // MARK: Work

    private func start(_ work: Work<Action>, origin: Action) {
        switch work.operation {
        case .none:
            return
        case .send(let action):
            deliverFromWork(action)
        case .cancel(let id):
            cancelRuns(id)
        case .merge(let works):
            for work in works { start(work, origin: origin) }
        case .run(let run):
            launch(run, origin: origin)
        }
    }

    private func launch(_ run: Work<Action>.Run, origin: Action) {
        let cancellation = RunCancellation()
        let number = lock.withLock {
            lastRun &+= 1
            runs[lastRun] = RunningWork(cancellation: cancellation, ids: run.ids, origin: origin)
            for id in run.ids { runsByID[id, default: []].insert(lastRun) }
            return lastRun
        }
        hooks?.runsChanged()
        let send = Send<Action> { [weak self] action in self?.deliverFromWork(action, from: cancellation) }
        let operation = run.operation
        let task = Task(priority: run.priority) { [weak self] in
            await operation(send)
            self?.runEnded(number)
        }
        // The run may have been cancelled (by another thread's reduction) before its task existed.
        let cancelled = lock.withLock {
            guard runs[number] != nil else { return false }
            runs[number]?.task = task
            return runs[number]?.isCancelled ?? false
        }
        if cancelled { task.cancel() }
    }

    private func runEnded(_ number: UInt64) {
        lock.withLock {
            guard let run = runs.removeValue(forKey: number) else { return }
            for id in run.ids {
                runsByID[id]?.remove(number)
                if runsByID[id]?.isEmpty == true { runsByID[id] = nil }
            }
        }
        hooks?.runsChanged()
    }

    /// Cancels the runs tagged with `id`: their sends do nothing from now on, then their tasks are cancelled.
    /// Called by the reducing thread (a reduction's work), which drops their queued actions.
    private func cancelRuns(_ id: WorkID) {
        let cancelled = lock.withLock {
            let numbers = runsByID.removeValue(forKey: id) ?? []
            return numbers.compactMap { number -> (RunCancellation, Task<Void, Never>?)? in
                runs[number]?.isCancelled = true
                return runs[number].map { ($0.cancellation, $0.task) }
            }
        }
        for (cancellation, task) in cancelled {
            cancellation.cancel()
            task?.cancel()
        }
    }

    /// The actions whose work is still running, one per run, oldest first: what the test store reports.
    package var runningWorkOrigins: [Action] {
        lock.withLock { runs.sorted { $0.key < $1.key }.map(\.value.origin) }
    }

    /// What ``finish()`` waits for: the tasks of the runs in flight, and whether the store is not yet idle beyond
    /// them (a thread is reducing, or a run has no task yet: either can start or own work that no task shows yet).
    func outstandingWorkForFinish() -> (tasks: [Task<Void, Never>], settling: Bool) {
        lock.withLock {
            let tasks = runs.values.compactMap(\.task)
            return (tasks, draining || tasks.count != runs.count)
        }
    }
}

/// What a test store intercepts: the actions work sends (instead of reducing them) and each start or end of a run.
package struct StoreHooks<Action>: Sendable {
    package var receive: @Sendable (Action) -> Void
    package var runsChanged: @Sendable () -> Void

    package init(receive: @escaping @Sendable (Action) -> Void, runsChanged: @escaping @Sendable () -> Void) {
        self.receive = receive
        self.runsChanged = runsChanged
    }
}

extension Equatable {
    /// `==` on values of `T`, which is `Self`: how a store compares a `State` it only knows is `Equatable` at run
    /// time.
    fileprivate static func equality<T>(as type: T.Type) -> (T, T) -> Bool {
        precondition(T.self == Self.self, "Ripple: internal error: the store's equality is for its own State")
        // `T` is `Self` (checked above): reinterpreting the values is exact and costs no dynamic cast per write.
        return { unsafeBitCast($0, to: Self.self) == unsafeBitCast($1, to: Self.self) }
    }
}

// Every mutable stored property (`queue`, `queueRuns`, `queueHead`, `queued`, `draining`, `fields`, `recentFields`,
// `runs`, `runsByID`, `lastRun`) is read and written only inside `lock.withLock`. The state lives in an atom, or (a
// scoped store) in a derivation of the parent's state, both safe to share when `State` is Sendable; the reducer, the
// hooks and a scoped store's parent link are `Sendable` values set once by the initializer; the reducer runs on one
// thread at a time (the one `draining` admits). So sharing the store between threads is safe.
extension Store: @unchecked Sendable {}
