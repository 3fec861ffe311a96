internal import CRipple

// User-defined types in the graph. A user publisher is stood for by a source node and a user subscriber by an
// effect node, both internal RippleNode subclasses kept in dictionaries keyed by the object's identity. The
// dictionaries are only for user-defined types: Ripple's own nodes are found by a cast and never go through them.
// These nodes do not own the runtime (it owns them), and the runtime frees them with its graph.
extension Runtime {
    /// Adds a subscriber to the graph and runs it once now, recording what its ``Subscriber/run()`` reads; it is
    /// run again, like an effect, after any of those values changed.
    ///
    /// The runtime holds the subscriber weakly: once the object is gone it is dropped the next time it would run.
    /// Registering it again re-runs it now. For Ripple's own subscribers, which are already in their graph,
    /// this just calls `run()`: an ``Effect`` re-runs, a ``Derivation`` is brought up to date.
    ///
    /// ```swift
    /// final class Logger: Subscriber {
    ///     let count: AtomObject<Int>
    ///     init(_ count: AtomObject<Int>) { self.count = count }
    ///     func run() { print("count:", count.value) }
    /// }
    /// let count = atom(0)
    /// let logger = Logger(count)
    /// Runtime.current.register(logger)       // prints "count: 0"
    /// count.value = 1                        // prints "count: 1"
    /// ```
    ///
    /// Threading: from any thread; `run()` is called before this returns and later on the thread of the
    /// triggering writes. Lifetime: not retained; call ``unregister(subscriber:)`` to stop it earlier.
    public func register(_ subscriber: any Subscriber) {
        batch {
            if subscriber is RippleNode {
                subscriber.run()
                return
            }
            let key = ObjectIdentifier(subscriber)
            if let existing = subscriberNodes[key] {
                if existing.subscriber === subscriber {
                    if !existing.isRunning { existing.runEffectNow() }
                    return
                }
                subscriberNodes[key] = nil  // an earlier object at the same address
                existing.disposeNode()
            }
            let node = SubscriberNode(runtime: self, subscriber: subscriber)
            subscriberNodes[key] = node
            node.createNode(.RP_KIND_EFFECT)
        }
    }

    /// Removes a subscriber from the graph: it is not run again.
    ///
    /// For an ``Effect`` this is ``Effect/cancel()``; for a ``Derivation`` it does nothing (a derivation is not
    /// run by the graph, only re-validated when read). Unknown subscribers are ignored.
    ///
    /// ```swift
    /// Runtime.current.register(logger)
    /// Runtime.current.unregister(subscriber: logger)
    /// count.value = 2                        // logger does not run
    /// ```
    ///
    /// Threading: from any thread; allowed inside the subscriber's own `run()`.
    public func unregister(subscriber: any Subscriber) {
        batch {
            if let effect = subscriber as? Effect {
                effect.cancel()
                return
            }
            if subscriber is RippleNode { return }
            if let node = subscriberNodes.removeValue(forKey: ObjectIdentifier(subscriber)) {
                node.disposeNode()
            }
        }
    }

    /// Removes a user-defined publisher's node from the graph.
    ///
    /// Derivations and effects that read it lose that dependency and are treated as if it had changed (effects
    /// re-run, outside a batch). A later tracked read creates a new node. Call it when a publisher object goes
    /// away, typically from its `deinit`. For Ripple's own nodes (``AtomObject``, ``Derivation``) it does nothing:
    /// they leave the graph when their last reference goes.
    ///
    /// ```swift
    /// final class Temperature: Publisher {
    ///     deinit { Runtime.current.unregister(publisher: self) }
    /// }
    /// ```
    ///
    /// Threading: from any thread.
    public func unregister(publisher: any Publisher) {
        batch {
            if publisher is RippleNode { return }
            if let node = publisherNodes.removeValue(forKey: ObjectIdentifier(publisher)) {
                node.disposeNode()
            }
        }
    }

    /// Records a read of `publisher`: inside a derivation or effect of this runtime, it becomes a dependency of
    /// that reader.
    ///
    /// For Ripple's own nodes this is the same as reading their value (it also brings a derivation up to date).
    /// For user-defined types, the first tracked read creates a source node standing for the object; reads
    /// outside any derivation or effect (or inside ``untracked(_:)``) cost nothing.
    ///
    /// ```swift
    /// var value: Double {
    ///     Runtime.current.willRead(self)
    ///     return storage
    /// }
    /// ```
    ///
    /// Threading: from any thread. Reading a publisher of this runtime inside another runtime's
    /// derivation or effect traps with a message naming both runtimes.
    public func willRead(_ publisher: any Publisher) {
        if let node = publisher as? RippleNode {
            node.recordRead()
            return
        }
        let innermost = EvaluationThreadState.innermost
        if innermost != opaqueSelf {
            // Nothing of this runtime is running on this thread, so nothing can depend on the read.
            if let innermost {
                failForeignRead(nodeLabel: PublisherNode.label(for: publisher), evaluating: innermost)
            }
            return
        }
        var reader = rp_node_t()
        if rp_graph_tracking(graph, &reader) != .RP_OK || reader.generation == 0 { return }  // untracked
        publisherNode(for: publisher).recordRead()
    }

    /// Reports a write to `publisher`: readers are marked and, outside a batch, the effects that depend on it run
    /// before this returns.
    ///
    /// For a user-defined publisher nobody has read inside a derivation or effect, it costs a dictionary lookup.
    /// For an ``AtomObject`` it announces an in-place mutation of its value (a reference type changed through
    /// `atom.value.field = ...`, which the atom's setter never sees as a new value): its readers count it as a
    /// change whatever the atom's equality says. For a ``Derivation`` it does nothing (derivations change only by
    /// recomputing).
    ///
    /// ```swift
    /// func increment() {
    ///     storage += 1
    ///     Runtime.current.didMutate(self)
    /// }
    /// ```
    ///
    /// Threading: from any thread.
    public func didMutate(_ publisher: any Publisher) {
        batch {
            if let node = publisher as? RippleNode {
                node.externalMutation()
                return
            }
            let key = ObjectIdentifier(publisher)
            guard let node = publisherNodes[key] else { return }
            guard node.publisher === publisher else {
                publisherNodes[key] = nil  // an earlier object at the same address
                node.disposeNode()
                return
            }
            let status = rp_source_set(graph, node.handle)
            if _slowPath(status != .RP_OK) { fail(status, "writing", node: node) }
        }
    }

    /// Removes the nodes of registered subscribers that are gone. Such a node still reads its dependencies, so
    /// the Ripple nodes it reads stay alive and keep this runtime alive: `withIsolatedRuntime` sweeps them when
    /// its body returns, so that an isolated runtime is freed with the test that used it.
    func dropDeadSubscribers() {
        batch {
            if subscriberNodes.isEmpty { return }
            var dead: [SubscriberNode] = []
            for node in subscriberNodes.values where node.subscriber == nil && !node.isRunning {
                dead.append(node)
            }
            for node in dead {
                subscriberNodes[node.key] = nil
                node.disposeNode()
            }
        }
    }

    /// The node standing for `publisher`, created on first use.
    private func publisherNode(for publisher: any Publisher) -> PublisherNode {
        let key = ObjectIdentifier(publisher)
        if let node = publisherNodes[key] {
            if node.publisher === publisher { return node }
            publisherNodes[key] = nil  // an earlier object at the same address
            node.disposeNode()
        }
        let node = PublisherNode(runtime: self, publisher: publisher)
        publisherNodes[key] = node
        return node
    }
}

/// The source node standing for a user-defined ``Publisher``. Owned by its runtime's dictionary; the engine does
/// not retain it while watched (the dictionary already does).
final class PublisherNode: RippleNode {
    weak var publisher: (any Publisher)?

    init(runtime: Runtime, publisher: any Publisher) {
        self.publisher = publisher
        super.init(
            runtime: runtime, extras: .labeled(PublisherNode.label(for: publisher)), fileID: "", line: 0,
            ownsRuntime: false, retainsWhileWatched: false
        )
        createNode(.RP_KIND_SOURCE)
    }

    override var kindName: String { "publisher" }

    static func label(for publisher: any Publisher) -> String {
        "publisher \(String(reflecting: type(of: publisher)))"
    }
}

/// The effect node standing for a user-defined ``Subscriber``. Owned by its runtime's dictionary; the subscriber
/// itself is held weakly.
final class SubscriberNode: RippleNode {
    weak var subscriber: (any Subscriber)?
    /// The subscriber's identity: its key in `Runtime.subscriberNodes`.
    let key: ObjectIdentifier
    var isRunning = false

    init(runtime: Runtime, subscriber: any Subscriber) {
        self.subscriber = subscriber
        key = ObjectIdentifier(subscriber)
        super.init(
            runtime: runtime, extras: .labeled("subscriber \(String(reflecting: type(of: subscriber)))"),
            fileID: "", line: 0, ownsRuntime: false
        )
    }

    override var kindName: String { "subscriber" }

    override func runEffect() {
        guard let subscriber else {
            // The subscriber is gone: leave the graph (the engine frees the node when this run returns).
            let runtime = self.runtime
            if runtime.subscriberNodes[key] === self { runtime.subscriberNodes[key] = nil }
            disposeNode()
            return
        }
        isRunning = true
        subscriber.run()
        isRunning = false
    }
}
