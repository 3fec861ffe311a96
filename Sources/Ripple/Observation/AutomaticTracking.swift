// Observation → Ripple for every body of a runtime created with `tracksObservableReads: true`: each derivation's and
// effect's body is wrapped, when the node is created, in what `observing { }` does (ObservedProperties.swift), so
// the guarantees, threading rules and traps are the same. Wrapping at creation keeps the check off the evaluation
// path: a runtime without the setting runs exactly the code it ran before.

extension Runtime {
    /// `recompute` inside `observing { }`, for a derivation of this runtime. `unowned(unsafe)`: the closure lives
    /// in a node of this runtime, and every node holds its runtime strongly.
    func trackingObservableReads<Value>(
        of recompute: @escaping Derivation<Value>.Recompute
    ) -> Derivation<Value>.Recompute {
        { [unowned(unsafe) self] derivation in
            observingInEvaluation { recompute(derivation) }
        }
    }

    /// `body` inside `observing { }`, for an effect of this runtime (`unowned(unsafe)` for the same reason).
    func trackingObservableReads(of body: @escaping () -> Void) -> () -> Void {
        { [unowned(unsafe) self] in observingInEvaluation(body) }
    }
}
