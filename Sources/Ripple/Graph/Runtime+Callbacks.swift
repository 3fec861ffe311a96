internal import CRipple
internal import CRippleThreadState

// How the engine reaches Swift. Each callback is a closure literal with no captures, so it converts to a
// @convention(c) function pointer. `host` is the runtime (unretained: the graph never outlives it) and `data` is
// the node object (unretained: the object owns the node, and its deinit disposes it). Dispatch to the node is a
// class-method call on RippleNode.
//
// A node's deinit can begin on one thread while another thread holds the graph: the deinit then waits in
// rp_node_dispose, and until it gets the graph the engine may still compute, run or schedule the node (a `values`
// observer does not keep what it observes alive, and nothing keeps an effect alive). Retaining and releasing an
// object whose deinit has begun would free it a second time, so a run, a scheduling, and a compute of a node its
// readers do not retain first take a strong reference with `ripple_object_try_retain` (the runtime's
// `swift_tryRetain`, done inline for an object without a side table), which fails once the deinit has begun: then
// the node's code does not run, and the deinit removes the node as soon as the graph is free. The reference is
// held until the callback returns, so the deinit cannot begin meanwhile (the body may drop the last user reference:
// the deinit then runs when the callback releases it, and the engine defers freeing a node being computed or run
// until that finishes).
extension Runtime {
    static func makeCallbacks(host: UnsafeMutableRawPointer) -> rp_callbacks_t {
        rp_callbacks_t(
            host: host,
            compute: { host, _, _, data, changed in
                let node = Unmanaged<RippleNode>.fromOpaque(data.unsafelyUnwrapped)
                // Readers that retain the node keep it alive through the compute (they release it only in
                // `unwatched`, under the graph this thread holds): no reference to take, the common case. Otherwise
                // (unobserved, or observed only by a `values` observer) its deinit may have begun on another thread.
                // One byte says both that and, for a derivation, whether the compute is the common one.
                let retention = node._withUnsafeGuaranteedRef { $0.readerRetention }
                if _slowPath(retention == .none) {
                    return Runtime.computeUnlessDeinitializing(node, host: host.unsafelyUnwrapped, changed: changed)
                }
                // The common compute, a derivation's, runs its specialized code from here.
                if _fastPath(
                    retention == .retainedDirectCompute
                        && Derivation.recomputeFromCallback(
                            data.unsafelyUnwrapped, host: host.unsafelyUnwrapped, changed: changed))
                {
                    return .RP_OK
                }
                return Runtime.computeRetained(node, host: host.unsafelyUnwrapped, changed: changed)
            },
            commit: { _, _, _, data in
                // An atom of plain bytes (the common commit) is committed from here; any other source by a class
                // call, out of line (`commitByClassCall`).
                let node = Unmanaged<RippleNode>.fromOpaque(data.unsafelyUnwrapped)
                if _fastPath(node._withUnsafeGuaranteedRef { $0.has(.directCallbacks) }) {
                    return AtomObject.commitFromCallback(data.unsafelyUnwrapped)
                }
                return Runtime.commitByClassCall(data.unsafelyUnwrapped)
            },
            run: { host, _, handle, data in
                // The first run happens inside rp_node_create, called by the `init` that creates the node and
                // holds it until the call returns: no reference to take. (A node without its handle yet is in that
                // call: the engine knows no other way to it, and the handle is set here, while the graph is held.
                // Reading it is safe for a node whose deinit has begun on another thread too: that deinit waits in
                // rp_node_dispose for the graph this thread holds, so the object is still there.)
                let unretained = Unmanaged<RippleNode>.fromOpaque(data.unsafelyUnwrapped)
                if _slowPath(unretained._withUnsafeGuaranteedRef { $0.awaitsHandle }) {
                    return Runtime.runFirst(unretained, handle: handle, host: host.unsafelyUnwrapped)
                }
                // Its deinit has begun: it stops, unrun. (Its handle is set: that check was the one above.)
                guard ripple_object_try_retain(data.unsafelyUnwrapped) else { return }
                // The node's run enters and leaves the evaluation; a deinit the release triggers runs after it.
                // The reference taken is dropped by hand (`ripple_object_release`, mostly inline) rather than by a
                // Swift reference going out of scope (a call to swift_release).
                // An `Effect` (the common run) runs its code from here; any other effect-kind node by a class call.
                if _fastPath(unretained._withUnsafeGuaranteedRef { $0.has(.directCallbacks) }) {
                    Effect.runFromCallback(data.unsafelyUnwrapped, host: host.unsafelyUnwrapped)
                } else {
                    unretained._withUnsafeGuaranteedRef { $0.run(host: host.unsafelyUnwrapped) }
                }
                ripple_object_release(data.unsafelyUnwrapped)
            },
            schedule: { _, _, handle, data in
                // A deferred effect became due: hand an update to its scheduler. One whose deinit has begun (it
                // waits in rp_node_dispose for the graph this thread holds) is not asked: retaining and releasing it
                // would free it a second time. It leaves the graph as soon as its deinit gets the graph.
                guard let node = Runtime.retainedEffect(data, handle: handle) else { return }
                node.scheduleUpdate()
            },
            watched: { _, _, _, data in
                // The node gained its first reader that keeps it alive (dependents hold their sources strongly).
                // The observer behind a `values` sequence, which must not keep its node alive (the sequence
                // finishes when the node goes), reads weakly: the engine calls this for the other readers only,
                // whatever their order, and `unwatched` when the last of them goes. An instance of a declaration
                // is watched by weak reads too (`Runtime.install`): nothing else may hold it, and an observer that
                // let it go would see it recreated by its next run, forever. Must not call into the graph: a
                // retain does not.
                // A try-retain: a declaration's read (`DeclarationStore.read`) may reach a node whose deinit has
                // begun (it waits for the graph to leave it); such a node is not retained, and goes.
                // (A derivation's first compute from now on makes its retention `.retainedDirectCompute` when it has
                // nothing to prepare: `Derivation.compute(host:changed:)`. Not here: this callback stays as small.)
                // A node with lifecycle hooks (kept in its extras) queues its `watched` event, to run when the
                // operation that linked the edge ends.
                let node = Unmanaged<RippleNode>.fromOpaque(data.unsafelyUnwrapped)
                node._withUnsafeGuaranteedRef { node in
                    node.readerRetention =
                        node.retainsWhileWatched && ripple_object_try_retain(Unmanaged.passUnretained(node).toOpaque())
                        ? .retained : .none
                    node.lifecycle?.nodeWasWatched()
                }
            },
            unwatched: { _, _, _, data in
                // The node lost its last reader that keeps it alive (weak readers may remain: they do not keep it).
                // The engine delivers this outside any callback and only for a live node (a disposed node's pending
                // notification is dropped), so releasing here may run a deinit cascade that disposes nodes.
                // A node with lifecycle hooks handles its `unwatched` event first, while the readers' reference
                // keeps it alive (at once, outside every batch and evaluation; else when the batch ends).
                let node = Unmanaged<RippleNode>.fromOpaque(data.unsafelyUnwrapped)
                let retained = node._withUnsafeGuaranteedRef { node in
                    defer { node.readerRetention = .none }
                    return node.isRetainedByReaders
                }
                node._withUnsafeGuaranteedRef { $0.lifecycle }?.nodeWasUnwatched()
                // The reference `watched` took, dropped inline unless it is the last (the runtime then deinits).
                if retained { ripple_object_release(data.unsafelyUnwrapped) }
            },
            release: nil,  // node objects own their nodes, not the other way round: nothing to free
            save: { host, _, _, data in
                // A transaction's savepoint: a write is about to reach this up-to-date derivation. Its value is
                // kept on the runtime's stack of copies (Transaction.swift); the node itself is not retained (the
                // engine names it again at the restore, or passes no data when it was freed).
                let node = Unmanaged<RippleNode>.fromOpaque(data.unsafelyUnwrapped)
                guard let copy = node._withUnsafeGuaranteedRef({ $0.copyValueForRollback() }) else { return false }
                Unmanaged<Runtime>.fromOpaque(host.unsafelyUnwrapped)._withUnsafeGuaranteedRef {
                    $0.transactionJournal.copies.append(copy)
                }
                return true
            },
            restore: { host, _, _, data, apply in
                // The copies come back newest first, each once: the last one kept is this node's.
                let copy = Unmanaged<Runtime>.fromOpaque(host.unsafelyUnwrapped)._withUnsafeGuaranteedRef {
                    $0.transactionJournal.copies.removeLast()
                }
                guard apply, let data else { return }
                Unmanaged<RippleNode>.fromOpaque(data)._withUnsafeGuaranteedRef { $0.restoreValueForRollback(copy) }
            }
        )
    }

    /// An effect-kind node's first run, inside the rp_node_create call of the `init` that creates it: records its
    /// handle, the one the run callback was given, then runs it.
    @inline(never)
    private static func runFirst(_ node: Unmanaged<RippleNode>, handle: rp_node_t, host: UnsafeMutableRawPointer) {
        node._withUnsafeGuaranteedRef { node in
            node.handle = handle
            node.run(host: host)
        }
    }

    /// The commit of a source the commit callback does not make itself (`AtomObject.commitFromCallback`): the
    /// node's own, through the class call. Out of line, so that the callback's common path keeps no frame for it.
    @inline(never)
    static func commitByClassCall(_ node: UnsafeMutableRawPointer) -> Bool {
        Unmanaged<RippleNode>.fromOpaque(node)._withUnsafeGuaranteedRef { $0.commit() }
    }

    /// The effect-kind node `data` (the node `handle` names) for a scheduling, with a strong reference for the
    /// callback's length; nil once its deinit has begun. Records the handle the first time: a deferred effect learns
    /// it in its first scheduling, inside rp_node_create, and it is written only then (a scheduled update reads it
    /// on another thread without holding the graph). A synchronous effect learns it in its first run, which the
    /// run callback handles itself.
    @inline(__always)
    private static func retainedEffect(_ data: UnsafeMutableRawPointer?, handle: rp_node_t) -> RippleNode? {
        let object = data.unsafelyUnwrapped
        guard ripple_object_try_retain(object) else { return nil }
        let node = Unmanaged<RippleNode>.fromOpaque(object).takeRetainedValue()
        if node.handle.generation == 0 { node.handle = handle }
        return node
    }

    /// The compute of a node its readers retain that `Derivation.recomputeFromCallback` did not make (an async
    /// derivation, a derivation with something to prepare, one whose runtime the thread does not mark as
    /// evaluating yet, or one not `.retainedDirectCompute` yet). A derivation's first compute since its readers
    /// retained it, with nothing to prepare, runs its specialized code from here
    /// (`Derivation.recomputeFromGeneralPath(_:host:changed:retained:)`) and makes the next ones take the callback's
    /// common path (`Derivation.recomputeFromCallback`); any other compute is the node's own, through the class
    /// call. Out of line, so that the callback's common path keeps no frame for it. The callback keeps nothing
    /// across it.
    @inline(never)
    private static func computeRetained(
        _ node: Unmanaged<RippleNode>, host: UnsafeMutableRawPointer, changed: UnsafeMutablePointer<Bool>
    ) -> rp_status_t {
        computeOnGeneralPath(node, host: host, changed: changed, retained: true)
    }

    /// The compute of a node its readers do not retain, whose deinit may have begun on another thread: a strong
    /// reference for the compute's length, or no compute at all (no change: the node leaves the graph as soon as
    /// the call that computes it ends).
    @inline(never)
    private static func computeUnlessDeinitializing(
        _ node: Unmanaged<RippleNode>, host: UnsafeMutableRawPointer, changed: UnsafeMutablePointer<Bool>
    ) -> rp_status_t {
        guard ripple_object_try_retain(node.toOpaque()) else {
            changed.pointee = false
            return .RP_OK
        }
        let status = computeOnGeneralPath(node, host: host, changed: changed, retained: false)
        ripple_object_release(node.toOpaque())
        return status
    }

    /// A compute the callback's common path did not make, for a node its readers retain (`retained`) or not: a
    /// derivation (the only computed node with the `.directCallbacks` trait) runs its specialized code from here
    /// when it can (`Derivation.recomputeFromGeneralPath(_:host:changed:retained:)`); any other compute is the
    /// node's own, through the class call.
    @inline(__always)
    private static func computeOnGeneralPath(
        _ node: Unmanaged<RippleNode>, host: UnsafeMutableRawPointer, changed: UnsafeMutablePointer<Bool>,
        retained: Bool
    ) -> rp_status_t {
        if node._withUnsafeGuaranteedRef({ $0.has(.directCallbacks) }),
           Derivation.recomputeFromGeneralPath(node.toOpaque(), host: host, changed: changed, retained: retained) {
            return .RP_OK
        }
        return node._withUnsafeGuaranteedRef { $0.compute(host: host, changed: changed) }
    }
}
