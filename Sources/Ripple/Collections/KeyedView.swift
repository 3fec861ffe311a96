/// The ids of a keyed collection's elements that pass a filter, in the collection's order or sorted: a view that
/// stays incremental. After an edit of one element it runs its predicate on that element once and, sorted, moves
/// that element alone (a binary search); its readers re-run only when the ids it lists change.
///
/// Make one with ``KeyedCollection/filter(label:_:)`` or ``KeyedCollection/sorted(label:by:)``, and chain them:
///
/// ```swift
/// import Ripple
///
/// struct Todo: Identifiable, Equatable, Sendable {
///     let id: Int
///     var title: String
///     var done = false
/// }
///
/// let todos = KeyedCollection([
///     Todo(id: 1, title: "Milk"), Todo(id: 2, title: "Eggs"), Todo(id: 3, title: "Bread"),
/// ])
/// let open = todos.filter { !$0.done }.sorted { $0.title < $1.title }
/// let list = Effect { print(open.ids) }       // prints "[3, 2, 1]"
/// todos.update(2) { $0.done = true }          // prints "[3, 1]"
/// todos.update(1) { $0.title = "Oat milk" }   // the order is the same: nothing runs
/// _ = list
/// ```
///
/// The predicate and the comparator see elements only: reads of other nodes inside them are not tracked. Elements
/// the comparator orders neither way keep no particular order among themselves.
///
/// ## Threading
/// From any thread, like a derivation: the view is one, whose value is the list of ids.
///
/// ## Lifetime
/// The view holds its collection; readers of ``ids`` hold the view's node.
public final class KeyedView<Element: Sendable, ID: Hashable & Sendable>: Sendable {
    /// The collection the view lists elements of.
    public let source: KeyedCollection<Element, ID>
    @usableFromInline let isIncluded: (@Sendable (Element) -> Bool)?
    @usableFromInline let areInIncreasingOrder: (@Sendable (Element, Element) -> Bool)?
    /// The view's node: its value is the ids, with a generation that changes when they do.
    @usableFromInline let node: Derivation<KeyedViewIDs<ID>>
    /// What the node's body keeps between its evaluations.
    @usableFromInline let state: KeyedViewState<Element, ID>

    // Inlinable, as the view's state and body are: specialized where the element and id types are known, the
    // body's look-ups run without generic metadata looked up at run time.
    @inlinable
    init(
        source: KeyedCollection<Element, ID>, isIncluded: (@Sendable (Element) -> Bool)?,
        areInIncreasingOrder: (@Sendable (Element, Element) -> Bool)?, label: String?
    ) {
        self.source = source
        self.isIncluded = isIncluded
        self.areInIncreasingOrder = areInIncreasingOrder
        let state = KeyedViewState(
            source: source, isIncluded: isIncluded, areInIncreasingOrder: areInIncreasingOrder)
        self.state = state
        node = withIsolatedRuntime(using: source.runtime) {
            derive(equals: { $0.generation == $1.generation }, label: label ?? "\(source.label).view") {
                state.evaluate()
            }
        }
        source.startLoggingChanges()
    }

    /// The ids of the elements in the view, in its order. Reading it depends on the view: the reader re-runs when
    /// an element enters or leaves it or moves in it, not when an element changes in place.
    ///
    /// Threading: from any thread.
    public var ids: [ID] {
        node.value.ids
    }

    /// How many elements the view lists. Reading it depends on the view.
    ///
    /// Threading: from any thread.
    public var count: Int {
        node.value.ids.count
    }

    /// The elements the view lists, in its order. Reading it depends on the view and on each of those elements.
    ///
    /// Threading: from any thread.
    public var elements: [Element] {
        ids.compactMap { source[$0] }
    }

    /// A view of the elements of this one that also pass `isIncluded`, in this view's order.
    ///
    /// - Parameters:
    ///   - label: the name of the view's node; by default the collection's label with ".view".
    ///   - isIncluded: whether an element is in the view. It should depend on the element alone.
    ///
    /// Threading: from any thread.
    @inlinable
    public func filter(label: String? = nil, _ isIncluded: @escaping @Sendable (Element) -> Bool) -> KeyedView {
        let before = self.isIncluded
        let both: @Sendable (Element) -> Bool =
            if let before { { before($0) && isIncluded($0) } } else { isIncluded }
        return KeyedView(
            source: source, isIncluded: both, areInIncreasingOrder: areInIncreasingOrder, label: label)
    }

    /// A view of the elements of this one, sorted by `areInIncreasingOrder` (which replaces this view's order).
    ///
    /// - Parameters:
    ///   - label: the name of the view's node; by default the collection's label with ".view".
    ///   - areInIncreasingOrder: a strict weak ordering of elements. It should depend on the elements alone.
    ///
    /// Threading: from any thread.
    @inlinable
    public func sorted(
        label: String? = nil, by areInIncreasingOrder: @escaping @Sendable (Element, Element) -> Bool
    ) -> KeyedView {
        KeyedView(source: source, isIncluded: isIncluded, areInIncreasingOrder: areInIncreasingOrder, label: label)
    }

    /// The view's elements transformed by `transform`, each once and again only when that element changes.
    ///
    /// Threading: from any thread.
    public func map<Output: Sendable>(_ transform: @escaping @Sendable (Element) -> Output) -> KeyedMap<
        Element, ID, Output
    > {
        KeyedMap(source: source, ids: { [self] in ids }, transform: transform, equals: nil)
    }

    /// The view's elements transformed by `transform`, each once and again only when that element changes; a
    /// result equal to the one before (`==`) re-runs nothing.
    ///
    /// Threading: from any thread.
    public func map<Output: Sendable & Equatable>(_ transform: @escaping @Sendable (Element) -> Output)
        -> KeyedMap<Element, ID, Output>
    {
        KeyedMap(source: source, ids: { [self] in ids }, transform: transform, equals: { $0 == $1 })
    }
}

extension KeyedCollection {
    /// A view of the ids of the elements that pass `isIncluded`, in the collection's order, kept up to date
    /// incrementally: an edit runs `isIncluded` on the edited element alone.
    ///
    /// ```swift
    /// import Ripple
    ///
    /// struct Row: Identifiable, Equatable, Sendable { let id: Int; var value: Int }
    ///
    /// let rows = KeyedCollection((1...5).map { Row(id: $0, value: $0) })
    /// let even = rows.filter { $0.value % 2 == 0 }
    /// print(even.ids)                             // prints "[2, 4]"
    /// rows.update(3) { $0.value = 6 }
    /// print(even.ids)                             // prints "[2, 3, 4]"
    /// ```
    ///
    /// - Parameters:
    ///   - label: the name of the view's node; by default the collection's label with ".view".
    ///   - isIncluded: whether an element is in the view. It should depend on the element alone: reads of other
    ///     nodes inside it are not tracked.
    ///
    /// Threading: from any thread.
    @inlinable
    public func filter(
        label: String? = nil, _ isIncluded: @escaping @Sendable (Element) -> Bool
    ) -> KeyedView<Element, ID> {
        KeyedView(source: self, isIncluded: isIncluded, areInIncreasingOrder: nil, label: label)
    }

    /// A view of the ids of the elements sorted by `areInIncreasingOrder`, kept up to date incrementally: an edit
    /// moves the edited element alone.
    ///
    /// ```swift
    /// import Ripple
    ///
    /// struct Row: Identifiable, Equatable, Sendable { let id: Int; var score: Int }
    ///
    /// let rows = KeyedCollection([Row(id: 1, score: 30), Row(id: 2, score: 10), Row(id: 3, score: 20)])
    /// let ranking = rows.sorted { $0.score > $1.score }
    /// print(ranking.ids)                          // prints "[1, 3, 2]"
    /// rows.update(2) { $0.score = 40 }
    /// print(ranking.ids)                          // prints "[2, 1, 3]"
    /// ```
    ///
    /// - Parameters:
    ///   - label: the name of the view's node; by default the collection's label with ".view".
    ///   - areInIncreasingOrder: a strict weak ordering of elements. It should depend on the elements alone.
    ///
    /// Threading: from any thread.
    @inlinable
    public func sorted(
        label: String? = nil, by areInIncreasingOrder: @escaping @Sendable (Element, Element) -> Bool
    ) -> KeyedView<Element, ID> {
        KeyedView(source: self, isIncluded: nil, areInIncreasingOrder: areInIncreasingOrder, label: label)
    }
}

/// A view's value: the ids it lists, and a generation that changes exactly when they do (so that the derivation's
/// equality is one comparison, not one of the whole list).
@usableFromInline
struct KeyedViewIDs<ID: Sendable>: Sendable {
    @usableFromInline let ids: [ID]
    @usableFromInline let generation: Int

    @inlinable init(ids: [ID], generation: Int) {
        self.ids = ids
        self.generation = generation
    }
}

/// What a view keeps between its evaluations, and the evaluation itself: the body of its derivation.
@usableFromInline
final class KeyedViewState<Element: Sendable, ID: Hashable & Sendable> {
    @usableFromInline let source: KeyedCollection<Element, ID>
    @usableFromInline let isIncluded: (@Sendable (Element) -> Bool)?
    @usableFromInline let areInIncreasingOrder: (@Sendable (Element, Element) -> Bool)?

    /// The newest change the view has taken in; nil before its first evaluation.
    @usableFromInline var seen: KeyedChange<ID>?
    @usableFromInline var evaluated = false
    /// Whether each element of the collection is in the view (the predicate's memo).
    @usableFromInline var included: [ID: Bool] = [:]
    /// The view's ids, in its order.
    @usableFromInline var members: [ID] = []
    /// For a sorted view, the value each member had when it took its place (so `memberValues[i]` is `members[i]`'s):
    /// the binary searches compare these, without a look-up, and find an edited element's old place by its old
    /// value.
    @usableFromInline var memberValues: [Element] = []
    /// The same by id.
    @usableFromInline var placedValues: [ID: Element] = [:]
    @usableFromInline var generation = 0
    /// How many times the view went through the whole collection (its first evaluation, a restore, many changes at
    /// once): for the tests, which check that an element entering or leaving does not.
    @usableFromInline var fullPasses = 0
    /// How many elements may enter or leave in one evaluation of a view in the collection's order, each by a
    /// binary search: more go through the whole order once.
    @inlinable static var incrementalLimit: Int { 32 }

    @inlinable
    init(
        source: KeyedCollection<Element, ID>, isIncluded: (@Sendable (Element) -> Bool)?,
        areInIncreasingOrder: (@Sendable (Element, Element) -> Bool)?
    ) {
        self.source = source
        self.isIncluded = isIncluded
        self.areInIncreasingOrder = areInIncreasingOrder
    }

    /// The view's body: depends on the collection's change log alone, and reads the elements untracked.
    @inlinable
    func evaluate() -> KeyedViewIDs<ID> {
        let head = source.changeLog.value
        source.runtime.untracked {
            if evaluated, let head, let changes = head.since(seen) {
                apply(changes)
            } else if !evaluated || head !== seen {
                computeAll()
            }
        }
        evaluated = true
        seen = head
        return KeyedViewIDs(ids: members, generation: generation)
    }

    /// Whether `element` is in the view.
    @inlinable
    func passes(_ element: Element) -> Bool {
        isIncluded?(element) ?? true
    }

    /// The current value of the element with `id` (untracked: called in `untracked`).
    @inlinable
    func element(_ id: ID) -> Element? {
        source.row(for: id)?.value
    }

    /// The view from the whole collection.
    @inlinable
    func computeAll() {
        var kept: [(id: ID, element: Element)] = []
        included = [:]
        source.order.value.forEachPlace { place in
            guard let element = place.row.value else { return }
            let passes = passes(element)
            included[place.id] = passes
            if passes { kept.append((place.id, element)) }
        }
        if let areInIncreasingOrder { kept.sort { areInIncreasingOrder($0.element, $1.element) } }
        members = kept.map(\.id)
        if areInIncreasingOrder != nil {
            memberValues = kept.map(\.element)
            placedValues = Dictionary(uniqueKeysWithValues: kept.lazy.map { ($0.id, $0.element) })
        }
        generation += 1
        fullPasses += 1
    }

    /// The view after `changes` (oldest first): each element they name is tested once, whatever the number of its
    /// changes.
    @inlinable
    func apply(_ changes: [KeyedChange<ID>]) {
        var touched: [ID] = []
        var named = Set<ID>()
        var relocated = Set<ID>()
        for change in changes {
            guard let id = change.id else { continue }
            if named.insert(id).inserted { touched.append(id) }
            if change.kind != .changed { relocated.insert(id) }
        }
        if let areInIncreasingOrder {
            applySorted(touched, by: areInIncreasingOrder)
        } else {
            applyInOrder(touched, relocated: relocated)
        }
    }

    /// `apply` for a view in the collection's order: each touched member that fails now, is gone or took another
    /// place leaves; each touched element that passes and is not in its place enters it, found by a binary search
    /// of the members by their positions in the collection (each an O(√n) look-up: see `KeyedOrder.swift`). The
    /// members that did not change keep their order among themselves, the collection's.
    @inlinable
    func applyInOrder(_ touched: [ID], relocated: Set<ID>) {
        var entering: [ID] = []
        var left: [ID] = []
        for id in touched {
            let was = included[id] ?? false
            let now: Bool
            if let element = element(id) {
                now = passes(element)
                included[id] = now
            } else {
                now = false
                included[id] = nil
            }
            let moves = relocated.contains(id)
            if was && (!now || moves) { left.append(id) }
            if now && (!was || moves) { entering.append(id) }
        }
        guard !left.isEmpty || !entering.isEmpty else { return }
        generation += 1
        let order = source.order.value
        // Many at once (a batch of edits): one pass over the order, with the predicate's memo.
        if left.count + entering.count > Self.incrementalLimit {
            var kept: [ID] = []
            order.forEachPlace { if included[$0.id] == true { kept.append($0.id) } }
            members = kept
            fullPasses += 1
            return
        }
        for id in left {
            if let index = members.firstIndex(of: id) { members.remove(at: index) }
        }
        for id in entering {
            // Not in the order: a restored snapshot left it out, and `reconcile` empties it next.
            guard let position = source.position(of: id, in: order) else { continue }
            var low = 0
            var high = members.count
            while low < high {
                let middle = (low + high) / 2
                if let other = source.position(of: members[middle], in: order), other < position {
                    low = middle + 1
                } else {
                    high = middle
                }
            }
            members.insert(id, at: low)
        }
    }

    /// `apply` for a sorted view: each touched element leaves its place, then each one in the view enters its
    /// place by binary search, among elements that did not change and so are still in order.
    @inlinable
    func applySorted(_ touched: [ID], by areInIncreasingOrder: (Element, Element) -> Bool) {
        var removedAt: [Int] = []
        for id in touched where included[id] == true {
            if let index = place(of: id, by: areInIncreasingOrder) {
                members.remove(at: index)
                memberValues.remove(at: index)
                placedValues[id] = nil
                removedAt.append(index)
            }
        }
        var insertedAt: [Int] = []
        for id in touched {
            guard let element = element(id) else {
                included[id] = nil
                continue
            }
            let now = passes(element)
            included[id] = now
            guard now else { continue }
            var low = 0
            var high = members.count
            while low < high {
                let middle = (low + high) / 2
                if areInIncreasingOrder(element, memberValues[middle]) {
                    high = middle
                } else {
                    low = middle + 1
                }
            }
            members.insert(id, at: low)
            memberValues.insert(element, at: low)
            placedValues[id] = element
            insertedAt.append(low)
        }
        // One element put back where it was: the ids are the same.
        if removedAt.isEmpty && insertedAt.isEmpty { return }
        if touched.count == 1 && removedAt == insertedAt { return }
        generation += 1
    }

    /// Where member `id` is: the first place whose value its old value does not precede (a binary search), then
    /// along the values equal to it; a linear search if it is not there (not reached while the comparator is a
    /// strict weak ordering of unchanging values).
    @inlinable
    func place(of id: ID, by areInIncreasingOrder: (Element, Element) -> Bool) -> Int? {
        guard let old = placedValues[id] else { return members.firstIndex(of: id) }
        var low = 0
        var high = members.count
        while low < high {
            let middle = (low + high) / 2
            if areInIncreasingOrder(memberValues[middle], old) { low = middle + 1 } else { high = middle }
        }
        var index = low
        while index < members.count && !areInIncreasingOrder(old, memberValues[index]) {
            if members[index] == id { return index }
            index += 1
        }
        return members.firstIndex(of: id)
    }
}

// `KeyedViewState`'s variables are touched only by `evaluate()`, the body of the view's derivation, which the engine
// runs while the graph is held exclusively and never on two threads at once (see Derivation's Sendable conformance);
// its `let`s are a Sendable collection and `@Sendable` closures.
extension KeyedViewState: @unchecked Sendable {}
