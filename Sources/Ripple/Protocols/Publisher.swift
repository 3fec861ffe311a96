/// A type whose reads can be tracked: derivations and effects that read it re-run when it changes.
///
/// Ripple's own ``AtomObject`` and ``Derivation`` are publishers. Your own types join the graph by calling
/// ``Runtime/willRead(_:)`` in their getters and ``Runtime/didMutate(_:)`` after their writes.
///
/// ```swift
/// final class Temperature: Publisher {
///     private var celsius = 20.0
///     var value: Double {
///         get { Runtime.current.willRead(self); return celsius }
///         set { celsius = newValue; Runtime.current.didMutate(self) }
///     }
/// }
/// let t = Temperature()
/// let log = Effect { print(t.value) }        // prints 20.0
/// t.value = 25                                // prints 25.0
/// ```
///
/// ## Threading
/// Call `willRead`/`didMutate` from any thread; guard the publisher's own storage as you would without Ripple.
///
/// ## Lifetime
/// The runtime refers to a user-defined publisher weakly (by identity): it creates a graph node for it on its
/// first tracked read and frees that node on ``Runtime/unregister(publisher:)`` or when the runtime goes.
public protocol Publisher: AnyObject {}
