/// A node that can be a declaration's instance: an override switches it, in place, to another body.
protocol OverridableInstance: RippleNode {
    /// What the instance starts from or runs: an atom's default, a derivation's body.
    associatedtype InstanceBody: Sendable

    /// Makes `body` the instance's from now on; called inside the override's batch, so that everything
    /// downstream sees the switch together.
    func applyOverride(_ body: InstanceBody)
}

extension AtomObject: OverridableInstance {
    /// An atom takes the new default at once, computed as a default is (with its runtime current, untracked), and
    /// counts as unwritten again (as after a reset).
    func applyOverride(_ body: @escaping @Sendable () -> Value) {
        writeDefault(runtime.creatingInstance(body))
    }
}

extension Derivation: OverridableInstance {
    /// A derivation runs the new body from now on, and recomputes.
    func applyOverride(_ body: @escaping @Sendable () -> Value) {
        ReplaceableBody<@Sendable () -> Value>.of(self).replace(with: body)
        refresh()
    }
}

extension TypedAsyncDerivation: OverridableInstance {
    /// An async derivation runs the new body from now on: its current run is stale.
    func applyOverride(_ body: @escaping @Sendable () async throws(Failure) -> Value) {
        ReplaceableBody<@Sendable () async throws(Failure) -> Value>.of(self).replace(with: body)
    }
}
