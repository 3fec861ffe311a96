/// A keyed collection's elements (or a view's) transformed one by one, each transform memoized: an element is
/// transformed when first read, and again only when it changes. A reader of one transformed element depends on that
/// element alone.
///
/// Make one with ``KeyedCollection/map(_:)-1m4ns`` or ``KeyedView/map(_:)-59fpu``:
///
/// ```swift
/// import Ripple
///
/// struct Row: Identifiable, Equatable, Sendable { let id: Int; var celsius: Double }
///
/// let rows = KeyedCollection([Row(id: 1, celsius: 20), Row(id: 2, celsius: 30)])
/// let fahrenheit = rows.map { $0.celsius * 9 / 5 + 32 }
/// let first = Effect { print(fahrenheit[1] ?? 0) }    // prints "68.0"
/// rows.update(2) { $0.celsius = 0 }                   // row 1 is the same: nothing runs
/// rows.update(1) { $0.celsius = 100 }                 // prints "212.0"
/// _ = first
/// ```
///
/// ## Threading
/// From any thread. The transform runs in a derivation of the element: it should depend on the element alone.
///
/// ## Lifetime
/// The map holds its collection and one derivation per element read; those of removed elements go once the map
/// holds over twice as many as the collection has elements.
public final class KeyedMap<Element: Sendable, ID: Hashable & Sendable, Output: Sendable> {
    /// The collection whose elements are transformed.
    public let source: KeyedCollection<Element, ID>
    private let readIDs: @Sendable () -> [ID]
    private let transform: @Sendable (Element) -> Output
    private let equals: (@Sendable (Output?, Output?) -> Bool)?

    // Guards `outputs`, for a dictionary look-up or store at a time; never held while touching the graph.
    private let lock = ParkingLock()
    /// The derivation of each element read, by id.
    @exclusivity(unchecked) private var outputs: [ID: Derivation<Output?>] = [:]

    init(
        source: KeyedCollection<Element, ID>, ids: @escaping @Sendable () -> [ID],
        transform: @escaping @Sendable (Element) -> Output, equals: (@Sendable (Output, Output) -> Bool)?
    ) {
        self.source = source
        readIDs = ids
        self.transform = transform
        if let equals {
            self.equals = { old, new in
                switch (old, new) {
                case let (old?, new?): equals(old, new)
                case (nil, nil): true
                default: false
                }
            }
        } else {
            self.equals = nil
        }
    }

    deinit {
        lock.deallocate()
    }

    /// The transformed element with `id`, or nil when the collection holds no such element. Reading it depends on
    /// that element alone; the transform runs on the first read and after each change of the element.
    ///
    /// Threading: from any thread.
    public subscript(id: ID) -> Output? {
        guard let row = source.row(for: id) else { return source[id].map(transform) }
        if let output = lock.withLock({ outputs[id] }) { return output.value }
        let transform = transform
        let made = withIsolatedRuntime(using: source.runtime) {
            if let equals {
                derive(equals: equals, label: "\(source.label).map[\(id)]") { row.value.map(transform) }
            } else {
                derive(label: "\(source.label).map[\(id)]") { row.value.map(transform) }
            }
        }
        let elementCount = source.runtime.untracked { source.count }
        let (output, sweep) = lock.withLock {
            if let earlier = outputs[id] { return (earlier, false) }
            outputs[id] = made
            return (made, outputs.count > 64 && outputs.count > 2 * elementCount)
        }
        if sweep { dropRemoved() }
        return output.value
    }

    /// The ids of the elements, in order: the collection's or the view's. Reading it depends on that order.
    ///
    /// Threading: from any thread.
    public var ids: [ID] {
        readIDs()
    }

    /// The transformed elements, in order. Reading it depends on the order and on every element.
    ///
    /// Threading: from any thread.
    public var elements: [Output] {
        ids.compactMap { self[$0] }
    }

    /// Drops the derivations of elements the collection no longer holds.
    private func dropRemoved() {
        let entries = lock.withLock { Array(outputs.keys) }
        let removed = source.runtime.untracked { entries.filter { source.row(for: $0)?.value == nil } }
        lock.withLock {
            for id in removed { outputs[id] = nil }
        }
    }
}

extension KeyedCollection {
    /// The elements transformed by `transform`, each once and again only when that element changes.
    ///
    /// - Parameter transform: makes an element's output. It should depend on the element alone.
    ///
    /// Threading: from any thread.
    public func map<Output: Sendable>(
        _ transform: @escaping @Sendable (Element) -> Output
    ) -> KeyedMap<Element, ID, Output> {
        KeyedMap(source: self, ids: { [self] in ids }, transform: transform, equals: nil)
    }

    /// The elements transformed by `transform`, each once and again only when that element changes; a result
    /// equal to the one before (`==`) re-runs nothing.
    ///
    /// - Parameter transform: makes an element's output. It should depend on the element alone.
    ///
    /// Threading: from any thread.
    public func map<Output: Sendable & Equatable>(
        _ transform: @escaping @Sendable (Element) -> Output
    ) -> KeyedMap<Element, ID, Output> {
        KeyedMap(source: self, ids: { [self] in ids }, transform: transform, equals: { $0 == $1 })
    }
}

// `outputs` is touched only under `lock`; the rest are `let`s of Sendable values and `@Sendable` closures.
extension KeyedMap: @unchecked Sendable {}
