import Dispatch

/// Where a body runs: the actor it was created on (so it is only ever called there), or anywhere.
///
/// `Effect { ... }` and `derive { ... }` take their body as an `@isolated(any) @Sendable` closure that inherits
/// the isolation of the code that creates it (`@_inheritActorContext`, as `Task { ... }` does). So the compiler
/// keeps checking the body against that isolation: created on the main actor (or another actor), it may touch
/// that actor's state and capture its non-`Sendable` values; created outside any actor, it must be `Sendable`,
/// because a write on any thread may run it. At run time the body's `isolation` says where it may be called,
/// and Ripple keeps that promise: an effect runs there (at once when the change happens there, otherwise as a
/// job enqueued there), and a derivation computed anywhere else traps.
@usableFromInline
enum BodyIsolation: Sendable {
    /// Created outside any actor: a `Sendable` body, callable on any thread.
    case none
    /// Created on the main actor.
    case mainActor
    /// Created on another actor.
    case actor(any Actor)

    /// The isolation of a body created on `isolation`. Inlinable, so that a body created outside any actor (the
    /// common case) makes no call for it.
    @inlinable @inline(__always)
    init(_ isolation: (any Actor)?) {
        guard let isolation else {
            self = .none
            return
        }
        self.init(actor: isolation)
    }

    /// The isolation of a body created on `actor`: the main actor, or another.
    @usableFromInline
    init(actor: any Actor) {
        self = actor === MainActor.shared ? .mainActor : .actor(actor)
    }

    /// Whether the body may run anywhere.
    var isNone: Bool {
        if case .none = self { true } else { false }
    }

    /// The scheduler that runs a bound effect's updates on its actor, or nil for a body callable anywhere.
    var scheduler: (any EffectScheduler)? {
        switch self {
        case .none: nil
        case .mainActor: MainActorInlineScheduler()
        case .actor(let actor): ActorScheduler(actor)
        }
    }

    /// Traps unless the calling code runs on this isolation, with `message` (which names the node and the fix).
    func preconditionIsolated(_ message: @autoclosure () -> String) {
        switch self {
        case .none:
            return
        case .mainActor:
            if !MainActorCheck.isCurrent { fatalError(message()) }
        case .actor(let actor):
            actor.preconditionIsolated(message())
        }
    }

    /// The actor's name in messages.
    var name: String {
        switch self {
        case .none: "no actor"
        case .mainActor: "the main actor"
        case .actor(let actor): "actor \(type(of: actor))"
        }
    }
}

/// Whether the main actor's executor (the main dispatch queue) is running the calling code.
enum MainActorCheck {
    /// A marker set on the main queue once; reading it back tells whether the main queue is the current one.
    static let key: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    static var isCurrent: Bool {
        DispatchQueue.getSpecific(key: key) == true
    }
}

/// Runs a main-actor effect's update at once when the change happens on the main actor (no hop: main-actor code
/// behaves exactly like a synchronous effect), and enqueues it on the main actor otherwise.
struct MainActorInlineScheduler: EffectScheduler {
    func schedule(_ job: @escaping @Sendable () -> Void) {
        if MainActorCheck.isCurrent {
            job()
        } else {
            Task { @MainActor in job() }
        }
    }
}

/// A body as a plain function, to call where its isolation holds.
///
/// An `@isolated(any)` function value is an ordinary thick function whose isolation is carried alongside it; the
/// language calls it only with `await` (which may hop to that isolation first). Ripple calls a body only on its
/// isolation (see ``BodyIsolation``), synchronously, so it drops the isolation from the type, as
/// `MainActor.assumeIsolated` does for `@MainActor` functions. `IsolationTests` checks that the two function
/// types have one layout.
@inlinable
func callableWhereIsolated<T>(_ body: consuming @escaping @isolated(any) @Sendable () -> T) -> () -> T {
    unsafeBitCast(body, to: (@Sendable () -> T).self)
}

/// The same for an effect's body, cast inside non-generic structs: a function value handed to the generic
/// `unsafeBitCast` directly is converted to the generic calling convention and back, which wraps it in two
/// reabstraction thunks (two allocations per effect); a struct holding it is cast as it is.
@inlinable
func callableWhereIsolated(_ body: consuming @escaping @isolated(any) @Sendable () -> Void) -> () -> Void {
    unsafeBitCast(IsolatedEffectBody(body: body), to: EffectBody.self).body
}

/// An effect's body with its isolation, and without: one layout (`IsolationTests`), so that one casts to the other.
@usableFromInline
struct IsolatedEffectBody {
    @usableFromInline let body: @isolated(any) @Sendable () -> Void
    @inlinable init(body: @escaping @isolated(any) @Sendable () -> Void) { self.body = body }
}

@usableFromInline
struct EffectBody {
    @usableFromInline let body: @Sendable () -> Void
}
