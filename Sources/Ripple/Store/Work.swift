/// What a reducer returns: the asynchronous work an action starts, which may send further actions.
///
/// Most actions only change state and return ``none``. An action that needs something from the outside world
/// returns ``run(priority:operation:catch:)``: the store runs the operation in a task once the state change is
/// applied, and the operation sends its results back as actions. Runs can be tagged with an id
/// (``cancellable(id:cancelInFlight:)``) and cancelled by it (``cancel(id:)``); several works combine with
/// `merge(_:)`. Freeing the store cancels every run still in flight.
///
/// ```swift
/// Reduce { state, action in
///     switch action {
///     case .increase:
///         state.count += 1
///         return .none
///     case .decrease:
///         state.count -= 1
///         return .run { send in
///             let score = try await fetchScore()
///             send(score > 0 ? .increase : .decrease)
///         }
///     }
/// }
/// ```
///
/// Threading: a value; build it on any thread. Runs execute on the cooperative pool (or on the actor their
/// operation is isolated to), never while the store's graph is held.
public struct Work<Action: Sendable>: Sendable {
    /// One asynchronous run and the ids it can be cancelled by.
    struct Run: Sendable {
        var priority: TaskPriority?
        var ids: [WorkID]
        var operation: @Sendable (Send<Action>) async -> Void
    }

    enum Operation: Sendable {
        case none
        case send(Action)
        case run(Run)
        case cancel(WorkID)
        case merge([Work])
    }

    let operation: Operation

    /// No work: the action only changed state.
    ///
    /// ```swift
    /// case .increase:
    ///     state.count += 1
    ///     return .none
    /// ```
    public static var none: Work { Work(operation: .none) }

    /// Sends `action` to the store as soon as the current reduction ends, after the actions already sent.
    ///
    /// Useful for a child to tell its parent something (the parent's reducer sees the action), without a task.
    ///
    /// ```swift
    /// case .saveTapped:
    ///     return .send(.delegate(.saved(state.draft)))
    /// ```
    public static func send(_ action: Action) -> Work { Work(operation: .send(action)) }

    /// Runs `operation` in a new task, which may send actions back through its ``Send`` argument.
    ///
    /// The task starts once the reduction that returned this work has been applied (its state change is visible
    /// and the effects it triggered have run). If `operation` throws an error other than `CancellationError`,
    /// `handler` gets it with the same ``Send``, to turn it into an action; without a handler the error ends the
    /// run silently.
    ///
    /// ```swift
    /// return .run { send in
    ///     send(.loaded(try await api.load()))
    /// } catch: { error, send in
    ///     send(.failed("\(error)"))
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - priority: the task's priority; by default the priority of the thread that reduced the action.
    ///   - operation: the work; check `Task.isCancelled` (or call cancellable APIs) to stop early when cancelled.
    ///   - handler: called with the error `operation` throws, unless it is a cancellation.
    ///
    /// Threading: `operation` runs on the cooperative pool, or on its actor if it is isolated to one. Lifetime: the
    /// task is cancelled when the store is freed; it does not keep the store alive.
    public static func run(
        priority: TaskPriority? = nil,
        operation: @escaping @Sendable (_ send: Send<Action>) async throws -> Void,
        catch handler: (@Sendable (_ error: any Error, _ send: Send<Action>) async -> Void)? = nil
    ) -> Work {
        Work(
            operation: .run(
                Run(priority: priority, ids: []) { send in
                    do {
                        try await operation(send)
                    } catch is CancellationError {
                    } catch {
                        await handler?(error, send)
                    }
                }))
    }

    /// Cancels every run in flight that was tagged with `id` (``cancellable(id:cancelInFlight:)``).
    ///
    /// A cancelled run's task is cancelled and its later ``Send`` calls do nothing.
    ///
    /// ```swift
    /// case .stopTimer:
    ///     return .cancel(id: TimerID())
    /// ```
    ///
    /// - Parameter id: any hashable value; equal ids name the same runs.
    public static func cancel(id: some Hashable & Sendable) -> Work {
        Work(operation: .cancel(WorkID(id)))
    }

    /// Tags every run of this work with `id`, so that ``cancel(id:)`` can cancel them.
    ///
    /// With `cancelInFlight`, the runs already tagged with `id` are cancelled first: the usual way to keep only
    /// the latest search, fetch or timer.
    ///
    /// ```swift
    /// case .queryChanged(let query):
    ///     state.query = query
    ///     return .run { send in
    ///         send(.results(try await search(query)))
    ///     }
    ///     .cancellable(id: SearchID(), cancelInFlight: true)
    /// ```
    ///
    /// - Parameters:
    ///   - id: any hashable value; equal ids name the same runs.
    ///   - cancelInFlight: cancels the runs already tagged with `id` before starting these.
    public func cancellable(id: some Hashable & Sendable, cancelInFlight: Bool = false) -> Work {
        let id = WorkID(id)
        let tagged = tagging(id)
        return cancelInFlight ? .merge(Work(operation: .cancel(id)), tagged) : tagged
    }

    private func tagging(_ id: WorkID) -> Work {
        switch operation {
        case .run(var run):
            run.ids.append(id)
            return Work(operation: .run(run))
        case .merge(let works):
            return Work(operation: .merge(works.map { $0.tagging(id) }))
        case .none, .send, .cancel:
            return self
        }
    }

    /// Combines works: each starts in order, and the runs among them proceed concurrently.
    ///
    /// ```swift
    /// return .merge(
    ///     .cancel(id: TimerID()),
    ///     .run { send in send(.loaded(try await load())) }
    /// )
    /// ```
    public static func merge(_ works: Work...) -> Work {
        merge(works)
    }

    /// Combines an array of works: each starts in order, and the runs among them proceed concurrently.
    ///
    /// ```swift
    /// return .merge(ids.map { id in .run { send in send(.loaded(id, try await load(id))) } })
    /// ```
    public static func merge(_ works: [Work]) -> Work {
        let kept = works.filter { if case .none = $0.operation { false } else { true } }
        switch kept.count {
        case 0: return .none
        case 1: return kept[0]
        default: return Work(operation: .merge(kept))
        }
    }

    /// The same work sending `transform(action)` for each action it would have sent: how a parent runs a child's
    /// work (``Scope`` does it with the child's case of the parent's actions).
    ///
    /// ```swift
    /// let childWork: Work<Counter.Action> = .send(.increase)
    /// let parentWork: Work<App.Action> = childWork.map(App.Action.counter)
    /// ```
    public func map<Other: Sendable>(_ transform: @escaping @Sendable (Action) -> Other) -> Work<Other> {
        switch operation {
        case .none:
            return .none
        case .send(let action):
            return .send(transform(action))
        case .cancel(let id):
            return Work<Other>(operation: .cancel(id))
        case .merge(let works):
            return Work<Other>(operation: .merge(works.map { $0.map(transform) }))
        case .run(let run):
            let operation = run.operation
            return Work<Other>(
                operation: .run(
                    .init(priority: run.priority, ids: run.ids) { send in
                        await operation(Send { send(transform($0)) })
                    }))
        }
    }
}

/// A cancellation id of any type, as ``Work`` keeps it.
struct WorkID: Hashable, Sendable {
    // Made only from a `Hashable & Sendable` value (the initializer below): the box holds a Sendable value, which
    // the standard library's AnyHashable cannot promise for itself.
    nonisolated(unsafe) private let value: AnyHashable

    init(_ value: some Hashable & Sendable) {
        self.value = AnyHashable(value)
    }
}
