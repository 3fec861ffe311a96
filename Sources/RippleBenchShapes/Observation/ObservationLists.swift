#if canImport(Observation)
import Observation

/// A row as an `@Observable` object: what a Swift user would write so that a view of one row observes that row only.
@Observable
final class ObservedRow {
    let id: Int
    var value: Int

    init(id: Int, value: Int) {
        self.id = id
        self.value = value
    }
}

/// The list of row objects: its `rows` property is one observed value.
@Observable
final class ObservedRowList {
    var rows: [ObservedRow]

    init(rows: [ObservedRow]) {
        self.rows = rows
    }
}

/// The `lists` rows with Swift's Observation: `@Observable` row objects in an `@Observable` list, an observer per
/// row reading its object, one reading the list's count, and the view an observer that filters and sorts the rows
/// again (reading every row's value, so every edit re-runs it). Nanoseconds per operation (fastest sample).
public enum ObservationLists {
    public static func run(
        _ operation: RippleLists.Operation, rows: Int = RippleLists.defaultRows,
        samples: Int = RippleLists.defaultSamples
    ) -> ShapeResult {
        let verifier = Verifier()
        let scheduler = ObservationScheduler()
        var model = RippleLists.initialRows(rows)
        var nextID = rows
        var objects: [Int: ObservedRow] = [:]
        for row in model { objects[row.id] = ObservedRow(id: row.id, value: row.value) }
        let list = ObservedRowList(rows: model.map { objects[$0.id]! })
        let rowRuns = Counter(), sum = Counter()
        var observers = list.rows.map { object in
            ObservationObserver(scheduler: scheduler) {
                rowRuns.count += 1
                sum.count &+= object.value
            }
        }
        observers.append(ObservationObserver(scheduler: scheduler) { sum.count &+= list.rows.count })
        var view: ObservedDerivation<IntArrayCell>?
        if operation == .view {
            let sorted = ObservedDerivation<IntArrayCell>(scheduler: scheduler, equals: ==) {
                list.rows.filter { $0.value % 2 == 0 }.sorted { ($0.value, $0.id) < ($1.value, $1.id) }.map(\.id)
            }
            observers.append(ObservationObserver(scheduler: scheduler) { sum.count &+= sorted.value.count })
            view = sorted
        }
        let count = RippleLists.operations(operation, perRowCost: operation == .view)
        var best = Double.infinity
        for _ in 0..<max(samples, 1) {
            let steps = RippleLists.steps(operation, count: count, model: &model, nextID: &nextID)
            let runsBefore = rowRuns.count
            let start = now()
            for step in steps {
                scheduler.batch {
                    switch step {
                    case let .edit(id, value): objects[id]?.value = value
                    case let .insert(row, at):
                        let object = ObservedRow(id: row.id, value: row.value)
                        objects[row.id] = object
                        list.rows.insert(object, at: at)
                    case let .move(_, from, to): list.rows.insert(list.rows.remove(at: from), at: to)
                    }
                }
            }
            best = min(best, Double(now() - start) / 1e6)
            let rowDelta = rowRuns.count - runsBefore
            verifier.expect(
                rowDelta == (operation == .insert || operation == .move ? 0 : count),
                "\(operation): the rows' observers ran \(rowDelta) times for \(count) operations")
        }
        verifier.expect(
            list.rows.map { RippleLists.Row(id: $0.id, value: $0.value) } == model,
            "\(operation): the rows differ from the model")
        if let view {
            verifier.expect(view.value == RippleLists.expectedView(model), "\(operation): the view differs")
        }
        withExtendedLifetime(observers) {}
        return ShapeResult(milliseconds: best, operations: count, value: 0, count: 0, failures: verifier.failures)
    }
}
#endif
