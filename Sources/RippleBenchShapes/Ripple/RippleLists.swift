import Ripple
import RippleBenchC

/// Lists at scale (the `lists` rows): 10,000 rows, each with an effect that reads its row, and one effect that reads
/// the list's count; four operations, each timed in nanoseconds per operation and checked by exact run counts:
///
/// - `edit`: one row's value changes;
/// - `insert`: a new row goes into the middle;
/// - `move`: a row moves to another place;
/// - `view`: one row's value changes and a filtered, sorted view of the rows (the even values, by value) is read
///   again by its effect.
///
/// Four ways: a ``KeyedCollection`` (Ripple's lists), an atom holding an array of rows (the way before it: every
/// row's effect reads the array), `@Observable` row objects in an array (ObservationLists), and hand-written code
/// (an array, one callback per row, the view kept by hand with a binary search).
public enum RippleLists {
    public static let defaultRows = 10_000
    public static let defaultSamples = 3

    /// The four operations.
    public enum Operation: String, CaseIterable, Sendable {
        case edit, insert, move, view
    }

    /// How many operations one sample makes, by operation: the array atom re-runs every row per operation, so it
    /// makes fewer.
    public static func operations(_ operation: Operation, perRowCost: Bool) -> Int {
        switch (operation, perRowCost) {
        case (.edit, false): 10_000
        case (.insert, false): 200
        case (.move, false): 1_000
        case (.view, false): 2_000
        case (_, true): 10
        }
    }

    struct Row: Identifiable, Equatable, Sendable {
        let id: Int
        var value: Int
    }

    /// The view: rows with an even value, by value then id.
    static func inView(_ row: Row) -> Bool { row.value % 2 == 0 }
    static func precedes(_ a: Row, _ b: Row) -> Bool { (a.value, a.id) < (b.value, b.id) }

    /// The model's answer, for the checks.
    static func expectedView(_ rows: [Row]) -> [Int] {
        rows.filter(inView).sorted(by: precedes).map(\.id)
    }

    static func initialRows(_ count: Int) -> [Row] {
        (0..<count).map { Row(id: $0, value: $0 * 2) }
    }

    /// What one sample changes: the operation applied `operations` times to a list of `rows`, described on the
    /// model (an array) so that each way applies the same edits and is checked against the same result.
    enum Step {
        case edit(id: Int, value: Int)
        case insert(Row, at: Int)
        case move(id: Int, from: Int, to: Int)
    }

    /// The steps of a sample, applied to `model` as they are made.
    static func steps(_ operation: Operation, count: Int, model: inout [Row], nextID: inout Int) -> [Step] {
        var steps: [Step] = []
        steps.reserveCapacity(count)
        for index in 0..<count {
            switch operation {
            case .edit, .view:
                let position = (index &* 7_919) % model.count
                let value = model[position].value + 2  // stays even or odd: moves in the view, stays in it or out
                model[position].value = value
                steps.append(.edit(id: model[position].id, value: value))
            case .insert:
                let row = Row(id: nextID, value: nextID * 2)
                nextID += 1
                let at = model.count / 2
                model.insert(row, at: at)
                steps.append(.insert(row, at: at))
            case .move:
                let from = (index &* 7_919) % model.count
                let to = (index &* 104_729 + 1) % model.count
                let row = model.remove(at: from)
                model.insert(row, at: to)
                steps.append(.move(id: row.id, from: from, to: to))
            }
        }
        return steps
    }

    /// Ripple's keyed collection: nanoseconds per operation (fastest sample).
    public static func keyed(_ operation: Operation, rows: Int = defaultRows, samples: Int = defaultSamples)
        -> ShapeResult
    {
        let verifier = Verifier()
        let runtime = Runtime()
        var model = initialRows(rows)
        var nextID = rows
        let rowRuns = Counter(), listRuns = Counter(), sum = Counter()
        let (collection, effects, view) = withIsolatedRuntime(using: runtime) {
            let collection = KeyedCollection(model)
            var effects = (0..<rows).map { id in
                Effect {
                    rowRuns.count += 1
                    sum.count &+= collection[id]?.value ?? 0
                }
            }
            effects.append(
                Effect {
                    listRuns.count += 1
                    sum.count &+= collection.count
                })
            var view: KeyedView<Row, Int>?
            if operation == .view {
                let sorted = collection.filter(inView).sorted(by: precedes)
                effects.append(Effect { sum.count &+= sorted.count })
                view = sorted
            }
            return (collection, effects, view)
        }
        let count = operations(operation, perRowCost: false)
        var best = Double.infinity
        for _ in 0..<max(samples, 1) {
            let steps = steps(operation, count: count, model: &model, nextID: &nextID)
            let runsBefore = (rowRuns.count, listRuns.count)
            let start = now()
            for step in steps {
                switch step {
                case let .edit(id, value): collection.update(id) { $0.value = value }
                case let .insert(row, at): collection.insert(row, at: at)
                case let .move(id, _, to): collection.move(id, to: to)
                }
            }
            best = min(best, Double(now() - start) / 1e6)
            // One effect per operation: the edited row's (edit, view), or the list's (insert, move).
            let rowDelta = rowRuns.count - runsBefore.0
            let listDelta = listRuns.count - runsBefore.1
            verifier.expect(
                rowDelta == (operation == .insert || operation == .move ? 0 : count),
                "\(operation): the rows' effects ran \(rowDelta) times for \(count) operations")
            verifier.expect(
                listDelta == (operation == .insert || operation == .move ? count : 0),
                "\(operation): the list's effect ran \(listDelta) times for \(count) operations")
        }
        verifier.expect(collection.elements == model, "\(operation): the rows differ from the model")
        if let view { verifier.expect(view.ids == expectedView(model), "\(operation): the view differs") }
        withExtendedLifetime(effects) {}
        return ShapeResult(milliseconds: best, operations: count, value: 0, count: 0, failures: verifier.failures)
    }

    /// Ripple's keyed collection with a filtered view in its order (the even values) and an effect reading the view:
    /// nanoseconds per edit that makes a row enter or leave the view (fastest sample), checked by the effect's runs
    /// (one per edit) and the view's ids against the model.
    public static func keyedFilterEntry(rows: Int = defaultRows, samples: Int = defaultSamples) -> ShapeResult {
        let verifier = Verifier()
        let runtime = Runtime()
        var model = initialRows(rows)
        let viewRuns = Counter()
        let (collection, view, effect) = withIsolatedRuntime(using: runtime) {
            let collection = KeyedCollection(model)
            let view = collection.filter(inView)
            let effect = Effect {
                _ = view.count
                viewRuns.count += 1
            }
            return (collection, view, effect)
        }
        let count = 2_000
        var best = Double.infinity
        for sample in 0..<max(samples, 1) {
            // Distinct rows (7,919 is prime to the count), each one's value one more: in the view or out of it.
            var edits: [(id: Int, value: Int)] = []
            for index in 0..<count {
                let position = (index &* 7_919 &+ sample) % model.count
                model[position].value += 1
                edits.append((model[position].id, model[position].value))
            }
            let runsBefore = viewRuns.count
            let start = now()
            for edit in edits { collection.update(edit.id) { $0.value = edit.value } }
            best = min(best, Double(now() - start) / 1e6)
            let runs = viewRuns.count - runsBefore
            verifier.expect(runs == count, "filter: the view's effect ran \(runs) times for \(count) edits")
        }
        verifier.expect(view.ids == model.filter(inView).map(\.id), "filter: the view differs from the model")
        withExtendedLifetime(effect) {}
        return ShapeResult(milliseconds: best, operations: count, value: 0, count: 0, failures: verifier.failures)
    }

    /// Ripple's keyed collection: exact effect runs of one operation (the row effects' and the list's), for the
    /// tests and the benchmark's notes.
    public static func keyedRuns(_ operation: Operation, rows: Int = defaultRows) -> (rowEffects: Int, list: Int) {
        let runtime = Runtime()
        var model = initialRows(rows)
        var nextID = rows
        let rowEffects = Counter(), list = Counter()
        return withIsolatedRuntime(using: runtime) {
            let collection = KeyedCollection(model)
            let effects = (0..<rows).map { id in Effect { _ = collection[id]; rowEffects.count += 1 } }
            let listEffect = Effect { _ = collection.count; list.count += 1 }
            let step = steps(operation, count: 1, model: &model, nextID: &nextID)[0]
            let before = (rowEffects.count, list.count)
            switch step {
            case let .edit(id, value): collection.update(id) { $0.value = value }
            case let .insert(row, at): collection.insert(row, at: at)
            case let .move(id, _, to): collection.move(id, to: to)
            }
            withExtendedLifetime((effects, listEffect)) {}
            return (rowEffects.count - before.0, list.count - before.1)
        }
    }

    /// An atom holding the array of rows, each row's effect reading its index of it: every operation re-runs every
    /// row. The view is a derivation filtering and sorting the array.
    public static func arrayAtom(_ operation: Operation, rows: Int = defaultRows, samples: Int = defaultSamples)
        -> ShapeResult
    {
        let verifier = Verifier()
        let runtime = Runtime()
        var model = initialRows(rows)
        var nextID = rows
        let rowRuns = Counter()
        let (list, effects, view) = withIsolatedRuntime(using: runtime) {
            let list = atom(model)
            var effects = (0..<rows).map { index in Effect { rowRuns.count &+= list.value[index].value } }
            effects.append(Effect { rowRuns.count &+= list.value.count })
            var view: Derivation<[Int]>?
            if operation == .view {
                let sorted = derive { expectedView(list.value) }
                effects.append(Effect { rowRuns.count &+= sorted.value.count })
                view = sorted
            }
            return (list, effects, view)
        }
        let count = operations(operation, perRowCost: true)
        var best = Double.infinity
        for _ in 0..<max(samples, 1) {
            let steps = steps(operation, count: count, model: &model, nextID: &nextID)
            let start = now()
            for step in steps {
                list.update { rows in
                    switch step {
                    case let .edit(id, value):
                        if let index = rows.firstIndex(where: { $0.id == id }) { rows[index].value = value }
                    case let .insert(row, at): rows.insert(row, at: at)
                    case let .move(_, from, to): rows.insert(rows.remove(at: from), at: to)
                    }
                }
            }
            best = min(best, Double(now() - start) / 1e6)
        }
        verifier.expect(list.value == model, "\(operation): the rows differ from the model")
        if let view { verifier.expect(view.value == expectedView(model), "\(operation): the view differs") }
        withExtendedLifetime(effects) {}
        return ShapeResult(milliseconds: best, operations: count, value: 0, count: 0, failures: verifier.failures)
    }

    /// By hand: the rows in an array with a dictionary from id to index kept for edits, one callback per row
    /// called by the edit, one for the list called by inserts and moves, and the view kept incrementally (the
    /// edited row leaves its place and enters its new one by binary search).
    public static func handWritten(_ operation: Operation, rows: Int = defaultRows, samples: Int = defaultSamples)
        -> ShapeResult
    {
        let verifier = Verifier()
        var model = initialRows(rows)
        var nextID = rows
        let list = HandWrittenList(model)
        var sum = 0
        list.rowChanged = { row in sum &+= row.value }
        list.listChanged = { count in sum &+= count }
        if operation == .view { list.keepsView = true }
        let count = operations(operation, perRowCost: false)
        var best = Double.infinity
        for _ in 0..<max(samples, 1) {
            let steps = steps(operation, count: count, model: &model, nextID: &nextID)
            let start = now()
            for step in steps {
                switch step {
                case let .edit(id, value): list.edit(id: id, value: value)
                case let .insert(row, at): list.insert(row, at: at)
                case let .move(_, from, to): list.move(from: from, to: to)
                }
            }
            best = min(best, Double(now() - start) / 1e6)
        }
        verifier.expect(list.rows == model, "\(operation): the rows differ from the model")
        if operation == .view { verifier.expect(list.view == expectedView(model), "\(operation): the view differs") }
        return ShapeResult(
            milliseconds: best, operations: count, value: Double(sum), count: 0, failures: verifier.failures)
    }
}

extension RippleLists {
    /// The heap a KeyedCollection of `rows` rows takes (the row atoms, their engine nodes, the order, the id
    /// table), per row: the heap in use after making it minus before, over `rows`.
    public static func bytesPerRow(rows: Int = defaultRows) -> Double {
        let runtime = Runtime()
        let elements = initialRows(rows)
        let before = rb_heap_in_use()
        let collection = withIsolatedRuntime(using: runtime) { KeyedCollection(elements) }
        let after = rb_heap_in_use()
        withExtendedLifetime(collection) {}
        return Double(after - before) / Double(rows)
    }
}

/// The hand-written list: what `RippleLists.handWritten` measures.
final class HandWrittenList {
    typealias Row = RippleLists.Row
    private(set) var rows: [Row]
    /// Where each id is in `rows`: rebuilt from the first changed place after an insert or a move.
    private var indexOfID: [Int: Int] = [:]
    var rowChanged: (Row) -> Void = { _ in }
    var listChanged: (Int) -> Void = { _ in }
    /// The view's ids (kept when `keepsView`).
    private(set) var view: [Int] = []
    var keepsView = false {
        didSet { view = RippleLists.expectedView(rows) }
    }

    init(_ rows: [Row]) {
        self.rows = rows
        for (index, row) in rows.enumerated() { indexOfID[row.id] = index }
    }

    func edit(id: Int, value: Int) {
        guard let index = indexOfID[id] else { return }
        let old = rows[index]
        rows[index].value = value
        rowChanged(rows[index])
        guard keepsView else { return }
        if RippleLists.inView(old), let at = view.firstIndex(of: id) { view.remove(at: at) }
        let row = rows[index]
        guard RippleLists.inView(row) else { return }
        var low = 0
        var high = view.count
        while low < high {
            let middle = (low + high) / 2
            if RippleLists.precedes(row, rows[indexOfID[view[middle]]!]) { high = middle } else { low = middle + 1 }
        }
        view.insert(id, at: low)
    }

    func insert(_ row: Row, at index: Int) {
        rows.insert(row, at: index)
        reindex(from: index)
        listChanged(rows.count)
    }

    func move(from: Int, to: Int) {
        rows.insert(rows.remove(at: from), at: to)
        reindex(from: min(from, to))
        listChanged(rows.count)
    }

    private func reindex(from start: Int) {
        for index in start..<rows.count { indexOfID[rows[index].id] = index }
    }
}
