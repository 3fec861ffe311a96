/// Where the runs of a scheduled ``Effect`` happen.
///
/// An effect created with `Effect(on: scheduler) { ... }` does not run on the thread that wrote what it read.
/// When it becomes due, Ripple calls ``schedule(_:)`` once with a job; until the job starts, further changes do not
/// schedule again, they coalesce into that job's run, which sees the latest values. The job runs the effect only
/// if something it read really changed by then (a derivation it read may have come back to an equal value).
/// Runs still never overlap another effect or derivation body of the runtime.
///
/// ```swift
/// struct ImmediateScheduler: EffectScheduler {
///     func schedule(_ job: @escaping @Sendable () -> Void) { job() }
/// }
/// let count = atom(0)
/// let log = Effect(on: ImmediateScheduler()) { print(count.value) }   // prints 0
/// count.value = 1                                                       // prints 1
/// ```
///
/// Threading: ``schedule(_:)`` is called on the thread of the write that made the effect due, while the runtime's
/// graph is held: it should only enqueue the job (calling it synchronously, as above, also works). The job may
/// run on any thread. Lifetime: the job holds the effect weakly; a job that runs after the effect is gone does
/// nothing.
public protocol EffectScheduler: Sendable {
    /// Arranges for `job` to be called once, soon.
    ///
    /// ```swift
    /// func schedule(_ job: @escaping @Sendable () -> Void) { queue.async(execute: job) }
    /// ```
    ///
    /// - Parameter job: runs the effect if it is still due. Call it exactly once.
    func schedule(_ job: @escaping @Sendable () -> Void)
}

/// Runs effects on the main actor: see ``EffectScheduler/mainActor``.
///
/// ```swift
/// let render = Effect(on: .mainActor) { view.title = title.value }
/// ```
///
/// Threading: jobs are enqueued on the main actor from any thread. Lifetime: a value; holds nothing.
public struct MainActorScheduler: EffectScheduler {
    /// Creates the scheduler; ``EffectScheduler/mainActor`` is the usual spelling.
    ///
    /// ```swift
    /// let scheduler = MainActorScheduler()
    /// ```
    public init() {}

    /// Enqueues `job` on the main actor.
    ///
    /// ```swift
    /// MainActorScheduler().schedule { print("on the main actor") }
    /// ```
    ///
    /// - Parameter job: the effect's run.
    public func schedule(_ job: @escaping @Sendable () -> Void) {
        Task { @MainActor in job() }
    }
}

/// Runs effects on an actor: see ``EffectScheduler/actor(_:)``.
///
/// ```swift
/// actor Logger { var lines: [String] = [] }
/// let logger = Logger()
/// let log = Effect(on: .actor(logger)) { print(level.value) }
/// ```
///
/// Threading: jobs are enqueued on the actor from any thread. Lifetime: keeps the actor alive.
public struct ActorScheduler: EffectScheduler {
    /// The actor whose executor runs the jobs.
    ///
    /// ```swift
    /// let scheduler = ActorScheduler(logger)
    /// assert(scheduler.actor === logger)
    /// ```
    public let actor: any Actor

    /// Creates a scheduler that runs jobs on `actor`.
    ///
    /// ```swift
    /// let scheduler = ActorScheduler(logger)
    /// ```
    ///
    /// - Parameter actor: the actor to run effects on.
    public init(_ actor: any Actor) {
        self.actor = actor
    }

    /// Enqueues `job` on the actor.
    ///
    /// ```swift
    /// ActorScheduler(logger).schedule { print("on the logger") }
    /// ```
    ///
    /// - Parameter job: the effect's run.
    public func schedule(_ job: @escaping @Sendable () -> Void) {
        let actor = self.actor
        Task { await Self.run(job, isolatedTo: actor) }
    }

    private static func run(_ job: @Sendable () -> Void, isolatedTo actor: isolated any Actor) {
        job()
    }
}

extension EffectScheduler where Self == MainActorScheduler {
    /// The main actor: effects that update UI state bind to it.
    ///
    /// ```swift
    /// let render = Effect(on: .mainActor) { label.text = "\(count.value)" }
    /// ```
    ///
    /// Threading: usable from any thread.
    public static var mainActor: MainActorScheduler { MainActorScheduler() }
}

extension EffectScheduler where Self == ActorScheduler {
    /// The given actor: each run happens on its executor.
    ///
    /// ```swift
    /// let save = Effect(on: .actor(store)) { persist(document.value) }
    /// ```
    ///
    /// - Parameter actor: the actor to run effects on.
    ///
    /// Threading: usable from any thread. Lifetime: the scheduler keeps the actor alive.
    public static func actor(_ actor: any Actor) -> ActorScheduler { ActorScheduler(actor) }
}
