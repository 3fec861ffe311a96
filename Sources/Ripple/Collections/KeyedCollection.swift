// Keyed collections: a list of values with identities, in which a reader of one element depends on that element
// alone and a reader of the order or the count depends on the order alone. Built from atoms, so that snapshots,
// the store and declared state take one as they take any atom: one atom per element (its value, nil once the
// element is removed), one for the order (the ids with their elements' atoms), and one for the change log
// (`KeyedChange`), which only the incremental views read (`KeyedView`: filter and sort; `KeyedMap`: a transform
// memoized per element). One effect per collection, reading the order, finds the restores of a snapshot (an order
// the collection did not write) and empties the elements they took out of the order. The order is held in chunks
// (`KeyedOrder.swift`), so that an insert, a removal or a move copies O(√n) places, not the whole order.

/// An ordered collection of values with identities, in which one edit re-runs only the readers it concerns.
///
/// An array in an atom is one value: an edit of one element re-runs every reader of the array, and with a view or
/// an effect per row that is every row. A keyed collection keeps each element in a node of its own:
///
/// - a reader of one element (`todos[id]`) depends on that element only: an edit of another element, an insert,
///   a removal or a move of another element does not re-run it;
/// - a reader of the order (``ids``, ``count``, ``index(of:)``) depends on the order only: an edit of an element
///   does not re-run it;
/// - an insert, a removal or a move re-runs the readers of the order and the readers of the element inserted or
///   removed (a moved element's value is the same: its readers do not re-run).
///
/// The order is held in chunks of about √n elements: an insert, a removal or a move copies one or two chunks, not
/// the whole order, and ``index(of:)`` takes O(√n) steps.
///
/// ```swift
/// import Ripple
///
/// struct Todo: Identifiable, Equatable, Sendable {
///     let id: Int
///     var title: String
/// }
///
/// let todos = KeyedCollection([Todo(id: 1, title: "Milk"), Todo(id: 2, title: "Eggs")])
/// let first = Effect { print("row 1:", todos[1]?.title ?? "-") }    // prints "row 1: Milk"
/// let count = Effect { print("count:", todos.count) }               // prints "count: 2"
/// todos.update(2) { $0.title = "Bread" }                            // nothing runs: nobody reads row 2
/// todos.update(1) { $0.title = "Oat milk" }                         // prints "row 1: Oat milk"
/// todos.append(Todo(id: 3, title: "Tea"))                           // prints "count: 3"
/// _ = (first, count)
/// ```
///
/// Derived views stay incremental: ``filter(label:_:)`` and ``sorted(label:by:)`` give a ``KeyedView`` that, after an edit of
/// one element, runs its predicate on that element once and moves that element alone; ``map(_:)-1m4ns`` gives a
/// ``KeyedMap`` that transforms each element once and again only when that element changes.
///
/// ## Threading
/// Any thread may read and edit the collection at any time. Each edit is one batch of the collection's runtime:
/// other threads see the collection before or after it, and the effects it triggers run once, when it ends.
///
/// ## Lifetime
/// The collection and its elements' nodes live while you, or the readers of its elements and its order, hold
/// them. A removed element's node stays while something reads it (so that a reader of that id learns of a later
/// insert), and goes once nothing does.
public final class KeyedCollection<Element: Sendable, ID: Hashable & Sendable> {
    /// One element's node: its value, nil while no element of that id is in the collection.
    @usableFromInline typealias Row = AtomObject<Element?>

    /// One place in the order: the id, and the node of its element (held here so that a snapshot of the order
    /// keeps the nodes of the elements it names).
    @usableFromInline struct Place: Sendable {
        @usableFromInline let id: ID
        @usableFromInline let row: Row

        @inlinable init(id: ID, row: Row) {
            self.id = id
            self.row = row
        }
    }

    /// An id's entry in the table of rows: its element's node, and the tag of the chunk of the order it was last
    /// placed in (a hint, see `KeyedOrder.swift`).
    @usableFromInline struct Slot {
        @usableFromInline var row: Row
        @usableFromInline var chunk: Int

        @usableFromInline init(row: Row, chunk: Int) {
            self.row = row
            self.chunk = chunk
        }
    }

    /// The runtime the collection's nodes belong to: the one that was ``Runtime/current`` when it was created.
    public let runtime: Runtime

    /// The order: what readers of ``ids`` and ``count`` depend on. Every write is a change (the edit knows it is).
    @usableFromInline let order: AtomObject<Order>
    /// The newest change, read by the views alone (`KeyedView`); written only once a view exists.
    @usableFromInline let changeLog: AtomObject<KeyedChange<ID>?>
    /// The id of an element.
    @usableFromInline let identify: @Sendable (Element) -> ID
    /// Whether two values of one element are the same for its readers.
    let equals: @Sendable (Element, Element) -> Bool
    /// The collection's name in trap messages, and its creation site, which names its elements' nodes (a label
    /// of their own would cost each an object).
    @usableFromInline let label: String
    private let fileID: String
    private let line: Int
    /// The elements' nodes' equality, one closure for them all.
    private let rowEquals: @Sendable (Element?, Element?) -> Bool

    // Guards the two properties below, for a dictionary look-up or store at a time; never held while touching the
    // graph. The properties skip the dynamic exclusivity checks: the lock already makes each access exclusive.
    @usableFromInline let lock = ParkingLock()
    /// The node of every id the collection holds, and of removed ids whose node is still read or in the order
    /// (see `noteRemovedRow`), each with its chunk hint.
    @usableFromInline @exclusivity(unchecked) var rows: [ID: Slot] = [:]
    /// How many entries of `rows` may be for removed elements: when it passes the number of elements, the next
    /// removal looks for the nodes nothing holds any more.
    @exclusivity(unchecked) private var removedRows = 0

    /// Whether edits record their changes in `changeLog`: set, in a batch, by the first view made. Read and written
    /// only in batches of `runtime`, which hold its graph exclusively, as `revision` is.
    @usableFromInline @exclusivity(unchecked) var logsChanges = false
    /// The revision of the order the collection wrote last (or took in from a restore), and the last revision it
    /// gave: each write of the order gets a new one, so that a restored order is never taken for the current one.
    @usableFromInline @exclusivity(unchecked) var writtenRevision = 0
    @usableFromInline @exclusivity(unchecked) var lastRevision = 0
    /// The last chunk tag given (`newChunkTag`); in batches of `runtime`, as `revision` is.
    @usableFromInline @exclusivity(unchecked) var lastChunkTag = 0
    /// The smallest chunk size the order aims at (`KeyedOrder.swift`): below some hundreds of elements, one or two
    /// chunks. Tests lower it, before any edit, to split and merge chunks at small counts.
    @usableFromInline @exclusivity(unchecked) var minimumChunk = 64
    /// The effect that empties the elements a restored order left out (`reconcile`).
    private var restores: Effect?

    /// Creates a collection of `elements`, identified by `id` and compared with `equals`.
    ///
    /// ```swift
    /// import Ripple
    ///
    /// struct Point: Sendable { var name: String; var x: Double }
    ///
    /// let points = KeyedCollection(
    ///     [Point(name: "a", x: 0)], id: \.name, equals: { $0.x == $1.x })
    /// print(points["a"]?.x ?? -1)     // prints "0.0"
    /// ```
    ///
    /// - Parameters:
    ///   - elements: the elements, in order; their ids must differ.
    ///   - id: the key path to an element's id.
    ///   - equals: returns true when two values of one element are the same for its readers (an edit to an equal
    ///     value re-runs nothing); it must not read or write Ripple nodes.
    ///   - label: the name of the collection in trap messages and its nodes' labels; by default the file and line of
    ///     this call.
    ///   - fileID: the file of the call (leave the default).
    ///   - line: the line of the call (leave the default).
    ///
    /// Threading: from any thread. Two elements with one id trap.
    public init(
        _ elements: some Sequence<Element>, id: KeyPath<Element, ID> & Sendable,
        equals: @escaping @Sendable (Element, Element) -> Bool, label: String? = nil, fileID: String = #fileID,
        line: Int = #line
    ) {
        runtime = .current
        self.label = label ?? "\(fileID):\(line)"
        identify = { $0[keyPath: id] }
        self.equals = equals
        self.fileID = fileID
        self.line = line
        rowEquals = { old, new in
            switch (old, new) {
            case let (old?, new?): equals(old, new)
            case (nil, nil): true
            default: false
            }
        }
        let neverEqual: @Sendable (Order, Order) -> Bool = { _, _ in false }
        order = AtomObject(
            Order(chunks: [], count: 0, revision: 0), equals: neverEqual, label: "\(self.label).order", fileID: fileID,
            line: line)
        changeLog = AtomObject(nil, equals: { $0 === $1 }, label: "\(self.label).changes", fileID: fileID, line: line)
        var places = ContiguousArray<Place>()
        for element in elements {
            let id = identify(element)
            places.append(Place(id: id, row: makeRow(element, id: id)))
        }
        order.value = makeOrder(places, revision: 0)
        restores = Effect(label: "\(self.label).restores") { [weak self] in self?.reconcile() }
    }

    deinit {
        lock.deallocate()
    }

    // MARK: Reading

    /// The element with `id`, or nil when the collection holds none; setting it replaces that element, appends a
    /// new one, or (nil) removes it.
    ///
    /// Reading it depends on that element only: the reader re-runs when it is edited, removed or inserted again,
    /// not when another element changes or the order does. (Reading an id the collection never held depends on
    /// the order, to learn of its insert.)
    ///
    /// ```swift
    /// import Ripple
    ///
    /// struct Row: Identifiable, Equatable, Sendable { let id: Int; var text: String }
    ///
    /// let rows = KeyedCollection([Row(id: 1, text: "a")])
    /// rows[1] = Row(id: 1, text: "b")             // replaces
    /// rows[2] = Row(id: 2, text: "c")             // appends
    /// rows[1] = nil                               // removes
    /// print(rows.ids)                             // prints "[2]"
    /// ```
    ///
    /// Threading: from any thread. Setting a value whose id is not `id` traps.
    public subscript(id: ID) -> Element? {
        // Inlinable, as the reads and edits of one element are: specialized where the element type is known, a
        // read is a dictionary look-up and an atom's read, without generic metadata looked up at run time.
        @inlinable get {
            guard let row = row(for: id) else {
                dependOnOrder()  // which an insert of `id` changes
                return nil
            }
            return row.value
        }
        set {
            guard let newValue else {
                remove(id)
                return
            }
            precondition(
                identify(newValue) == id,
                "Ripple: \(label)[\(id)] was set to an element whose id is \(identify(newValue)). Set the "
                    + "subscript of the element's own id.")
            runtime.batch {
                if let row = row(for: id), row.latestValue != nil {
                    row.value = newValue
                    record(.changed, id)
                } else {
                    insertInBatch(newValue, at: nil)
                }
            }
        }
    }

    /// Reads the order: a dependency on it, for a read that found no element.
    @usableFromInline
    func dependOnOrder() {
        _ = order.value.count
    }

    /// The ids of the elements, in order. Reading it depends on the order only.
    ///
    /// Threading: from any thread.
    public var ids: [ID] {
        order.value.ids
    }

    /// How many elements the collection holds. Reading it depends on the order only.
    ///
    /// Threading: from any thread.
    public var count: Int {
        order.value.count
    }

    /// Whether the collection holds no element. Reading it depends on the order only.
    ///
    /// Threading: from any thread.
    public var isEmpty: Bool {
        order.value.count == 0
    }

    /// The position of the element with `id`, or nil. Reading it depends on the order only. It takes O(√n) steps:
    /// the order is held in chunks of about √n elements, and the collection knows each element's chunk.
    ///
    /// Threading: from any thread.
    public func index(of id: ID) -> Int? {
        let order = order.value
        return position(of: id, in: order)
    }

    /// Whether the collection holds an element with `id`. Reading it depends on the order only.
    ///
    /// Threading: from any thread.
    public func contains(_ id: ID) -> Bool {
        _ = order.value.count  // a dependency on every insert and removal; the element's value says which
        guard let row = row(for: id) else { return false }
        return runtime.untracked { row.value } != nil
    }

    /// The elements, in order. Reading it depends on the order and on every element: prefer reading ``ids`` and
    /// each element where each can have a reader of its own.
    ///
    /// Threading: from any thread.
    public var elements: [Element] {
        var elements: [Element] = []
        let order = order.value
        elements.reserveCapacity(order.count)
        order.forEachPlace { place in
            if let element = place.row.value { elements.append(element) }
        }
        return elements
    }

    // MARK: Editing

    /// Edits the element with `id` in place and returns what `body` returns, or nil (without calling `body`) when
    /// the collection holds no such element. Only that element's readers re-run, and only if its value changed.
    ///
    /// ```swift
    /// import Ripple
    ///
    /// struct Row: Identifiable, Equatable, Sendable { let id: Int; var done = false }
    ///
    /// let rows = KeyedCollection([Row(id: 1), Row(id: 2)])
    /// rows.update(2) { $0.done = true }
    /// print(rows[2]?.done == true)                // prints "true"
    /// ```
    ///
    /// - Parameters:
    ///   - id: the id of the element.
    ///   - body: modifies the element; it must not change its id (a trap says so) and should be short: other
    ///     threads using the runtime wait for it.
    ///
    /// Threading: from any thread; atomic, like ``AtomObject/update(_:)``.
    @inlinable @discardableResult
    public func update<Result>(_ id: ID, _ body: (inout Element) throws -> Result) rethrows -> Result? {
        guard let row = row(for: id) else { return nil }
        return try runtime.batch {
            let result = try row.update { value -> Result? in
                guard var element = value else { return nil }
                let result = try body(&element)
                precondition(
                    identify(element) == id,
                    "Ripple: an update of \(label)[\(id)] changed the element's id to \(identify(element)). An "
                        + "element's id is what finds it: remove the element and insert one with the new id.")
                value = element
                return result
            }
            if result != nil { record(.changed, id) }
            return result
        }
    }

    /// Adds `element` at the end. Re-runs the readers of the order and of that id.
    ///
    /// Threading: from any thread. An element whose id the collection holds already traps.
    @inlinable
    public func append(_ element: Element) {
        runtime.batch { insertInBatch(element, at: nil) }
    }

    /// Inserts `element` at `index` (0...count). Re-runs the readers of the order and of that id.
    ///
    /// ```swift
    /// import Ripple
    ///
    /// struct Row: Identifiable, Equatable, Sendable { let id: Int }
    ///
    /// let rows = KeyedCollection([Row(id: 1), Row(id: 3)])
    /// rows.insert(Row(id: 2), at: 1)
    /// print(rows.ids)                             // prints "[1, 2, 3]"
    /// ```
    ///
    /// Threading: from any thread. An element whose id the collection holds already, or an index out of range,
    /// traps.
    @inlinable
    public func insert(_ element: Element, at index: Int) {
        runtime.batch { insertInBatch(element, at: index) }
    }

    /// Removes the element with `id` and returns it, or nil when there is none. Re-runs the readers of the order
    /// and of that element.
    ///
    /// Threading: from any thread.
    @inlinable @discardableResult
    public func remove(_ id: ID) -> Element? {
        let removed = removeInBatch(id)
        // After `removeInBatch` returned, so that this call holds the removed node no more: the sweep can drop it.
        if removed != nil { noteRemovedRow() }
        return removed
    }

    /// `remove` but the sweep: the element out of the order and its node emptied, in a batch.
    @inlinable
    func removeInBatch(_ id: ID) -> Element? {
        guard let row = row(for: id) else { return nil }
        return runtime.batch {
            guard let element = row.latestValue else { return nil }
            editOrder { order in
                if let location = locate(id, row: row, in: order) { removePlace(at: location, from: &order) }
            }
            row.value = nil
            record(.removed, id)
            return element
        }
    }

    /// Moves the element with `id` to `index` (0..<count, its position once moved) and returns whether the
    /// collection holds it. Re-runs the readers of the order; the element's readers do not re-run (its value is
    /// the same).
    ///
    /// ```swift
    /// import Ripple
    ///
    /// struct Row: Identifiable, Equatable, Sendable { let id: Int }
    ///
    /// let rows = KeyedCollection([Row(id: 1), Row(id: 2), Row(id: 3)])
    /// rows.move(3, to: 0)
    /// print(rows.ids)                             // prints "[3, 1, 2]"
    /// ```
    ///
    /// Threading: from any thread. An index out of range traps.
    @inlinable @discardableResult
    public func move(_ id: ID, to index: Int) -> Bool {
        guard let row = row(for: id) else { return false }
        return runtime.batch {
            guard let from = locate(id, row: row, in: order.latestValue) else { return false }
            let count = order.latestValue.count
            precondition(
                index >= 0 && index < count,
                "Ripple: \(label).move(\(id), to: \(index)): the index is outside 0..<\(count).")
            editOrder { order in
                if from.position == index { return }
                let place = removePlace(at: from, from: &order)
                insertPlace(place, at: index, into: &order)
            }
            record(.moved, id)
            return true
        }
    }

    // MARK: Internals

    /// The node of `id`'s element (nil-valued when removed), or nil when the collection has none.
    @inlinable
    func row(for id: ID) -> Row? {
        lock.withLock { rows[id]?.row }
    }

    /// A new node holding `element`, made in the collection's runtime and entered in `rows`.
    @usableFromInline
    func makeRow(_ element: Element, id: ID) -> Row {
        let row = RippleContext.$runtimeOverride.withValue(runtime) {
            Row(element, equals: rowEquals, fileID: fileID, line: line)
        }
        lock.withLock { rows[id] = Slot(row: row, chunk: 0) }
        return row
    }

    /// Inserts `element` at `index` (nil: the end); in a batch of `runtime`. A removed element's node is reused,
    /// so that its readers learn of the insert.
    @inlinable
    func insertInBatch(_ element: Element, at index: Int?) {
        let id = identify(element)
        let row: Row
        if let existing = self.row(for: id) {
            // Not nil: in the order, or left out by a snapshot restored in this batch (before `reconcile` ran).
            precondition(
                existing.latestValue == nil || locate(id, row: existing, in: order.latestValue) == nil,
                "Ripple: \(label) holds an element with id \(id) already. Ids must be unique: update it instead.")
            existing.value = element
            row = existing
        } else {
            row = makeRow(element, id: id)
        }
        editOrder { order in
            insertPlace(Place(id: id, row: row), at: index ?? order.count, into: &order)
        }
        record(.inserted, id)
    }

    /// Changes the order, as the collection's own write; in a batch of `runtime`.
    @inlinable
    func editOrder(_ body: (inout Order) -> Void) {
        lastRevision += 1
        writtenRevision = lastRevision
        let revision = lastRevision
        order.update { order in
            body(&order)
            order.revision = revision
        }
    }

    /// The restores' effect: when the order is not the collection's last write (a snapshot restored it), empties
    /// the elements that are out of it (so that their readers learn of it, and an insert of their ids finds them
    /// empty) and takes the restored order as its own, with its chunks' hints.
    private func reconcile() {
        let restored = order.value
        runtime.batch {
            guard restored.revision != writtenRevision else { return }
            var kept = Set<ID>(minimumCapacity: restored.count)
            restored.forEachPlace { kept.insert($0.id) }
            let rows = lock.withLock { self.rows }
            for (id, slot) in rows where slot.row.latestValue != nil && !kept.contains(id) {
                slot.row.value = nil
            }
            noteChunks(of: restored)
            writtenRevision = restored.revision
        }
    }

    /// Makes edits log their changes for the views, from a first entry that views can find their way back to.
    @usableFromInline
    func startLoggingChanges() {
        runtime.batch {
            guard !logsChanges else { return }
            logsChanges = true
            changeLog.update { head in head = KeyedChange(.started, nil, after: head) }
        }
    }

    /// Notes the change in the log the views read, once a view exists; in a batch of `runtime`.
    @inlinable
    func record(_ kind: KeyedChangeKind, _ id: ID) {
        if logsChanges { appendToLog(kind, id) }
    }

    /// `record` once a view exists: out of line.
    @usableFromInline
    func appendToLog(_ kind: KeyedChangeKind, _ id: ID) {
        changeLog.update { head in head = KeyedChange(kind, id, after: head) }
    }

    /// Counts a removed element's node; once they outnumber the elements, drops those nothing else holds (no
    /// reader, no place in the order or in the value a snapshot or a reader kept).
    @usableFromInline
    func noteRemovedRow() {
        let sweep = lock.withLock {
            removedRows += 1
            return removedRows > max(64, rows.count - removedRows)
        }
        guard sweep else { return }
        runtime.batch {
            // The nodes dropped leave the graph when `dropped` goes, after the lock: never touch the graph holding it.
            var dropped: [Row] = []
            lock.withLock {
                for id in Array(rows.keys) where rows[id]?.row.latestValue == nil {
                    if isKnownUniquelyReferenced(&rows[id]!.row) { dropped.append(rows.removeValue(forKey: id)!.row) }
                }
                removedRows = rows.values.reduce(0) { $0 + ($1.row.latestValue == nil ? 1 : 0) }
            }
            _ = consume dropped
        }
    }
}

extension KeyedCollection where Element: Identifiable, Element.ID == ID {
    /// Creates a collection of identifiable `elements`, compared with your own equality.
    ///
    /// - Parameters:
    ///   - elements: the elements, in order; their ids must differ.
    ///   - equals: returns true when two values of one element are the same for its readers; it must not read or
    ///     write Ripple nodes.
    ///   - label: the name of the collection in trap messages and its nodes' labels; by default the file and line of
    ///     this call.
    ///   - fileID: the file of the call (leave the default).
    ///   - line: the line of the call (leave the default).
    ///
    /// Threading: from any thread. Two elements with one id trap.
    public convenience init(
        _ elements: some Sequence<Element>, equals: @escaping @Sendable (Element, Element) -> Bool,
        label: String? = nil, fileID: String = #fileID, line: Int = #line
    ) {
        self.init(elements, id: \Element.id, equals: equals, label: label, fileID: fileID, line: line)
    }
}

extension KeyedCollection where Element: Identifiable & Equatable, Element.ID == ID {
    /// Creates a collection of identifiable `elements`, compared with `==`: an edit that leaves an element equal
    /// re-runs nothing.
    ///
    /// ```swift
    /// import Ripple
    ///
    /// struct Todo: Identifiable, Equatable, Sendable { let id: Int; var title: String }
    ///
    /// let todos = KeyedCollection([Todo(id: 1, title: "Milk")], label: "todos")
    /// print(todos.count)                          // prints "1"
    /// ```
    ///
    /// - Parameters:
    ///   - elements: the elements, in order; their ids must differ.
    ///   - label: the name of the collection in trap messages and its nodes' labels; by default the file and line of
    ///     this call.
    ///   - fileID: the file of the call (leave the default).
    ///   - line: the line of the call (leave the default).
    ///
    /// Threading: from any thread. Two elements with one id trap.
    public convenience init(
        _ elements: [Element] = [], label: String? = nil, fileID: String = #fileID, line: Int = #line
    ) {
        self.init(elements, id: \Element.id, equals: { $0 == $1 }, label: label, fileID: fileID, line: line)
    }
}

extension KeyedCollection where Element: Equatable {
    /// Creates a collection of `elements` identified by `id`, compared with `==`.
    ///
    /// ```swift
    /// import Ripple
    ///
    /// struct City: Equatable, Sendable { var name: String; var population: Int }
    ///
    /// let cities = KeyedCollection([City(name: "Oslo", population: 709_000)], id: \.name)
    /// print(cities["Oslo"]?.population ?? 0)      // prints "709000"
    /// ```
    ///
    /// - Parameters:
    ///   - elements: the elements, in order; their ids must differ.
    ///   - id: the key path to an element's id.
    ///   - label: the name of the collection in trap messages and its nodes' labels; by default the file and line of
    ///     this call.
    ///   - fileID: the file of the call (leave the default).
    ///   - line: the line of the call (leave the default).
    ///
    /// Threading: from any thread. Two elements with one id trap.
    public convenience init(
        _ elements: some Sequence<Element>, id: KeyPath<Element, ID> & Sendable, label: String? = nil,
        fileID: String = #fileID, line: Int = #line
    ) {
        self.init(elements, id: id, equals: { $0 == $1 }, label: label, fileID: fileID, line: line)
    }
}

extension AtomObject {
    /// The latest value written, without a read: for code that holds the graph (a batch of the atom's runtime).
    @inlinable var latestValue: Value { latest }
}

// The collection's own mutable state (`rows`, `removedRows`) is touched only under `lock`, and `logsChanges`, the
// revisions, `lastChunkTag` and `minimumChunk` only in batches of `runtime` (or in `init`, or by a test before any
// edit), which hold its graph exclusively; everything else is a `let` of Sendable nodes and `@Sendable` closures. So
// sharing the collection between threads is safe: its element type and ids are Sendable.
extension KeyedCollection: @unchecked Sendable {}
