/// A type that runs code depending on publishers and is re-run when they change.
///
/// Ripple's own ``Effect`` and ``Derivation`` are subscribers. Your own types join with
/// ``Runtime/register(_:)``: the runtime calls ``run()`` once at once to record what it reads, and again after any
/// of those values changed, like an effect.
///
/// ```swift
/// final class TitleRenderer: Subscriber {
///     let title: AtomObject<String>
///     init(title: AtomObject<String>) { self.title = title }
///     func run() { print("title:", title.value) }
/// }
/// let title = atom("Home")
/// let renderer = TitleRenderer(title: title)
/// Runtime.current.register(renderer)             // prints "title: Home"
/// title.value = "Settings"                       // prints "title: Settings"
/// Runtime.current.unregister(subscriber: renderer)
/// ```
///
/// ## Threading
/// `run()` is called on the thread of the write that triggered it.
///
/// ## Lifetime
/// The runtime holds a registered subscriber weakly: once it is gone, it is dropped from the graph the next time
/// it would have run, when a `withIsolatedRuntime` scope of its runtime ends, or at
/// ``Runtime/unregister(subscriber:)`` (the clearest: call it when you are done).
public protocol Subscriber: AnyObject {
    /// Does the subscriber's work, reading the publishers it depends on.
    ///
    /// ```swift
    /// func run() { label.text = title.value }
    /// ```
    ///
    /// Threading: called by the runtime on the thread of the triggering write, inside an implicit batch; call it
    /// yourself only to run the work untracked.
    func run()
}
