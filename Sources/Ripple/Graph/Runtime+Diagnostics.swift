internal import CRipple

// Turning engine statuses into traps. Every function here is @inline(never) and returns Never, so the hot paths
// that call them keep only a compare and a branch. Messages say what happened, why, and how to fix it, and name
// nodes by their labels.
extension Runtime {
    /// How trap messages name this runtime.
    var debugName: String {
        if self === Runtime.shared { return "Runtime.shared" }
        return "Runtime(0x\(String(UInt(bitPattern: opaqueSelf), radix: 16)))"
    }

    /// The labels of the nodes behind the engine's last RP_ECYCLE or RP_ELOOP, in the engine's order.
    func diagnosticLabels() -> [String] {
        var count = 0
        guard rp_graph_diagnostic(graph, nil, 0, &count) == .RP_OK, count > 0 else { return [] }
        var handles = [rp_node_t](repeating: rp_node_t(), count: count)
        var copied = 0
        guard rp_graph_diagnostic(graph, &handles, count, &copied) == .RP_OK else { return [] }
        return handles.prefix(min(count, copied)).map(label(of:))
    }

    /// The label of the node behind `handle`, or a placeholder when the handle is stale.
    func label(of handle: rp_node_t) -> String {
        var data: UnsafeMutableRawPointer?
        guard rp_node_data(graph, handle, &data) == .RP_OK, let data else {
            return "<disposed node>"
        }
        return Unmanaged<RippleNode>.fromOpaque(data).takeUnretainedValue().label
    }

    /// Traps for a non-OK status returned by the engine while `operation` was applied to `node`.
    @inline(never)
    func fail(_ status: rp_status_t, _ operation: String, node: RippleNode?) -> Never {
        switch status {
        case .RP_ECYCLE:
            var labels = diagnosticLabels()
            if labels.isEmpty, let node { labels = [node.label] }
            if let first = labels.first { labels.append(first) }
            fatalError(
                """
                Ripple: cycle: derivation reads itself: \(labels.joined(separator: " -> ")). \
                A derivation's body read its own value, directly or through the derivations listed (each one \
                reads the next), so it can never be computed. Fix: break the cycle — compute the value from the \
                atoms it comes from instead of from the derivation itself, or move the state that feeds back into \
                an atom written by an effect.
                """
            )
        case .RP_ELOOP:
            let labels = diagnosticLabels()
            fatalError(
                """
                Ripple: effects did not settle after \(settleBound) runs in one flush: \
                \(labels.isEmpty ? "<unknown effects>" : labels.joined(separator: ", ")) (\(debugName)). \
                Each of these effects ran \(settleBound) times in a single flush because it keeps writing a value \
                that it (or an effect it triggers) reads. Fix: write only when the value actually differs, make \
                the loop converge, or read the value you write with untracked { } so the write does not re-trigger \
                the effect. The bound is Runtime(settleBound:).
                """
            )
        default:
            let name = String(cString: rp_status_string(status))
            fatalError(
                """
                Ripple: \(operation)\(node.map { " of node \($0.label)" } ?? "") in \(debugName) failed: \(name). \
                Ripple's own nodes never cause this status except when memory runs out; otherwise it is a bug in \
                Ripple: please report it with this message.
                """
            )
        }
    }

    /// Traps for a read of `nodeLabel`, a node of this runtime, while `evaluating` (another runtime) runs a
    /// derivation or effect on this thread.
    @inline(never)
    func failForeignRead(nodeLabel: String, evaluating: UnsafeMutableRawPointer) -> Never {
        let other = Unmanaged<Runtime>.fromOpaque(evaluating).takeUnretainedValue()
        var reader = "a derivation or effect"
        var tracking = rp_node_t()
        var kind = rp_kind_t.RP_KIND_COMPUTED
        if rp_graph_tracking(other.graph, &tracking) == .RP_OK, tracking.generation != 0,
           rp_node_kind(other.graph, tracking, &kind) == .RP_OK {
            reader = "the \(kind == .RP_KIND_EFFECT ? "effect" : "derivation") \(other.label(of: tracking))"
        } else if let effect = other.runningEffect {
            reader = "the effect \(effect.label)"
        }
        fatalError(
            """
            Ripple: node \(nodeLabel) of \(debugName) was read inside \(reader) of \(other.debugName). \
            A derivation or effect can only depend on nodes of its own runtime: this read could not be tracked, \
            so the reader would never be updated when the node changes. \
            The usual cause is a global or static node (`let counter = atom(0)` at the top level): Swift creates \
            it lazily, on first use, in the runtime that was current then (here \(debugName)\
            \(self === Runtime.shared ? ", the shared runtime" : ", an isolated runtime, perhaps an earlier test's")\
            ), and it stays there, so a later withIsolatedRuntime scope (another test) reads a node of a runtime \
            that is not its own. Fix: declare it instead (`let counter = declare.atom { 0 }`, or \
            `declare.derived { ... }`): a declaration has one instance per runtime, made on first use in each; or \
            create the node where it is used (in the test, or in a function or type that builds the state for the \
            runtime it is called in); or, for two runtimes on purpose, create both nodes in the same runtime \
            (inside the same withIsolatedRuntime(using:) scope), or read the node outside the other runtime's \
            derivations and effects.
            """
        )
    }

    /// Traps when the engine cannot create a graph (it only fails when memory runs out).
    @inline(never)
    static func failedToCreateGraph(_ status: rp_status_t) -> Never {
        fatalError("Ripple: Runtime() could not create its graph: \(String(cString: rp_status_string(status))).")
    }

    /// Traps when the engine refuses to free the graph.
    @inline(never)
    func failedToDestroyGraph(_ status: rp_status_t) -> Never {
        fatalError(
            """
            Ripple: \(debugName) could not free its graph: \(String(cString: rp_status_string(status))). \
            The last reference to a runtime went away while one of its callbacks was running; this is a bug in \
            Ripple: please report it with this message.
            """
        )
    }
}
