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
    private let observe: @Sendable () -> AsyncStream<Element>

    init<Node: RippleNode & Sendable>(of node: Node, read: @escaping @Sendable (Node) -> Element) {
        observe = { NodeValues.stream(of: node, read: read) }
    }

    /// Starts observing the node: the first ``Iterator/next()`` returns its current value.
    ///
    /// ```swift
    /// var iterator = count.values.makeAsyncIterator()
    /// let first = await iterator.next()       // the value count has now
    /// ```
    public func makeAsyncIterator() -> Iterator {
        Iterator(base: observe().makeAsyncIterator())
    }

    /// Iterates over the values of one observation.
    ///
    /// ```swift
    /// var iterator = count.values.makeAsyncIterator()
    /// while let value = await iterator.next() { print(value) }
    /// ```
    ///
    /// Threading: use it from one task at a time, like any iterator.
    public struct Iterator: AsyncIteratorProtocol {
        var base: AsyncStream<Element>.Iterator

        /// The next value: the current one first, then the latest new one; nil once the node is freed or the
        /// task is cancelled.
        ///
        /// ```swift
        /// let value = await iterator.next()
        /// ```
        public mutating func next() async -> Element? {
            await base.next()
        }
    }

    /// An observer effect of the node's runtime feeds a stream that keeps only the newest value. The effect holds
    /// the node weakly and its read does not retain it: when the node goes, the disposal re-runs the effect,
    /// which finds it gone and finishes the stream.
    private static func stream<Node: RippleNode & Sendable>(
        of node: Node, read: @escaping @Sendable (Node) -> Element
    ) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream<Element>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let observer = Effect(observingIn: node.runtime, label: "values of \(node.label)") { [weak node] in
            guard let node else {
                continuation.finish()
                return
            }
            continuation.yield(read(node))
        }
        continuation.onTermination = { _ in observer.cancel() }
        return stream
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
