/// The values of an atom or a derivation as an asynchronous sequence: ``AtomObject/values`` and
/// ``Derivation/values``.
///
/// Each iteration observes the node on its own: it yields the node's current value first, then each new value
/// the node takes. A consumer slower than the writers does not make them wait and does not queue up stale values:
/// it receives the latest value when it asks for the next one. The sequence finishes when the node is freed, and
/// stops observing when the iterating task is cancelled or the iterator is dropped.
///
/// ```swift
/// let progress = atom(0)
/// Task.detached {
///     for step in 1...3 { progress.value = step }
/// }
/// for await value in progress.values {
///     print(value)                     // 0, then the newer values (possibly only 3)
///     if value == 3 { break }
/// }
/// ```
///
/// Threading: iterate from any task; writers on any thread feed it. Values are read under the runtime's rules, so
/// each one is a value the node really had. Lifetime: iterating does not keep the node alive.
public struct NodeValues<Element: Sendable>: AsyncSequence, Sendable {
    /// Values never fail.
    public typealias Failure = Never

    /// Starts observing for one iteration.
    private let observe: @Sendable () -> Iterator

    init<Node: RippleNode & Sendable>(of node: Node, read: @escaping @Sendable (Node) -> Element) {
        observe = { NodeValues.observing(node, read: read) }
    }

    /// Starts observing the node: the first ``Iterator/next()`` returns its current value.
    ///
    /// ```swift
    /// var iterator = count.values.makeAsyncIterator()
    /// let first = await iterator.next()       // the value count has now
    /// ```
    public func makeAsyncIterator() -> Iterator {
        observe()
    }

    /// Iterates over the values of one observation.
    ///
    /// ```swift
    /// var iterator = count.values.makeAsyncIterator()
    /// while let value = await iterator.next() { print(value) }
    /// ```
    ///
    /// Threading: use it from one task at a time, like any iterator. Lifetime: the observation ends when the
    /// sequence finishes, when the iterating task is cancelled, or when the last copy of the iterator goes.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncStream<Element>.Iterator
        /// Owns the observer effect: removes it from the graph when the iteration ends or the iterator goes.
        let observation: ValuesObservation

        /// The next value: the current one first, then the latest new one; nil once the node is freed or the
        /// task is cancelled.
        ///
        /// ```swift
        /// let value = await iterator.next()
        /// ```
        public mutating func next() async -> Element? {
            let value = await base.next()
            // The iteration is over: remove the observer now, on the consumer's own task, where waiting for the
            // graph is safe, so that nothing of it is left once the loop has ended.
            if value == nil { observation.stop() }
            return value
        }
    }

    /// An observer effect of the node's runtime feeds a stream that keeps only the newest value. The effect holds
    /// the node weakly and its read does not retain it: when the node goes, the disposal re-runs the effect,
    /// which finds it gone and finishes the stream.
    ///
    /// The stream has no termination handler on purpose. Cancelling the iterating task calls that handler while
    /// the task's status lock is held, and the graph's holder may be running the observer, whose `yield` needs
    /// that lock to resume the consumer: a handler that waited for the graph there would deadlock the runtime.
    /// Instead, whoever ends the iteration without waiting for anything removes the observer: the consumer when
    /// ``Iterator/next()`` returns nil, the iterator's last copy when it goes (``ValuesObservation``), and the
    /// observer itself at its next run once its `yield` reports the stream terminated, or once the node is gone.
    private static func observing<Node: RippleNode & Sendable>(
        _ node: Node, read: @escaping @Sendable (Node) -> Element
    ) -> Iterator {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let runtime = node.runtime
        let observer = Effect(observingIn: runtime, label: "values of \(node.label)") { [weak node] in
            guard let node else {
                continuation.finish()
                runtime.cancelRunningEffect()
                return
            }
            if case .terminated = continuation.yield(read(node)) { runtime.cancelRunningEffect() }
        }
        return Iterator(base: stream.makeAsyncIterator(), observation: ValuesObservation(observer))
    }
}

/// The observer behind one iteration of a ``NodeValues`` sequence, owned by the iterator (and its copies): the
/// observer goes when the iteration ends or when the last copy of the iterator goes, whichever comes first.
final class ValuesObservation: Sendable {
    private let observer: Effect

    init(_ observer: Effect) {
        self.observer = observer
    }

    /// Removes the observer from the graph (idempotent). Waits for the graph: never call it from a task
    /// cancellation or stream termination handler.
    func stop() {
        observer.cancel()
    }

    deinit {
        observer.cancel()
    }
}

extension Runtime {
    /// Cancels the effect whose body is running on this thread: how an observer removes itself once nobody
    /// iterates its stream. Called only from inside an effect body, while the graph is held.
    fileprivate func cancelRunningEffect() {
        runningEffect?.cancel()
    }
}

extension AtomObject where Value: Sendable {
    /// The atom's value now, then each new value it takes, as an asynchronous sequence: see ``NodeValues``.
    ///
    /// ```swift
    /// for await name in user.values { print("name:", name) }
    /// ```
    ///
    /// Threading: from any task. Lifetime: the sequence does not keep the atom alive; it finishes when the atom
    /// is freed.
    public var values: NodeValues<Value> {
        NodeValues(of: self) { $0.value }
    }
}

extension Derivation where Value: Sendable {
    /// The derivation's value now, then each new (unequal) value it computes, as an asynchronous sequence: see
    /// ``NodeValues``. Observing it keeps it computed eagerly, like an effect reading it.
    ///
    /// ```swift
    /// for await total in cartTotal.values { print("total:", total) }
    /// ```
    ///
    /// Threading: from any task. Lifetime: the sequence does not keep the derivation alive; it finishes when the
    /// derivation is freed.
    public var values: NodeValues<Value> {
        NodeValues(of: self) { $0.value }
    }
}
