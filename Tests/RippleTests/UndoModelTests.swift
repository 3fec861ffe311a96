import Foundation
import Testing
import Ripple

/// Random writes, batches, transactions that return or throw (nested too), groups, store actions, undo and redo
/// over a few atoms and a store, checked after every operation against a plain model: the values, and the undo
/// and redo stacks as whole states. Re-run a failure with RIPPLE_UNDO_SEED=<seed>.
@Suite struct UndoModelTests {
    struct Refused: Error {}

    /// The reference: the values, and a stack of the whole state before each step.
    struct Model {
        var values: [Int]
        var undo: [[Int]] = []
        var redo: [[Int]] = []
        let limit: Int

        /// Records the step that moved the state from `before` to `values`, if it changed anything.
        mutating func step(from before: [Int], changed: Bool) {
            guard changed else { return }
            undo.append(before)
            if undo.count > limit { undo.removeFirst() }
            redo.removeAll()
        }
    }

    @Test func randomOperationsMatchAPlainModelStepByStep() {
        let seed = ProcessInfo.processInfo.environment["RIPPLE_UNDO_SEED"].flatMap { UInt64($0) }
            ?? UInt64.random(in: 0...UInt64.max)
        var random = SplitMix64(seed: seed)
        let steps = 10_000
        let atomCount = 5
        withIsolatedRuntime {
            let atoms = (0..<atomCount).map { atom(0, label: "a\($0)") }
            let store = Store(initialState: Counter.State(), reducer: Counter(fetchScore: { 1 }))
            let history = UndoHistory(limit: UndoHistory.Limit(steps: 40))
            var model = Model(values: Array(repeating: 0, count: atomCount + 1), limit: 40)
            func current() -> [Int] { atoms.map(\.value) + [store.state.count] }
            /// Writes `value` into slot `index` of the model and the runtime; whether it was a change.
            func write(_ index: Int, _ value: Int) -> Bool {
                let changed = model.values[index] != value
                model.values[index] = value
                atoms[index].value = value
                return changed
            }
            func randomWrites(_ count: Int) -> Bool {
                var changed = false
                for _ in 0..<count {
                    if write(Int.random(in: 0..<atomCount, using: &random), Int.random(in: 0..<3, using: &random)) {
                        changed = true
                    }
                }
                return changed
            }
            for stepIndex in 0..<steps {
                let before = model.values
                let operation = Int.random(in: 0..<100, using: &random)
                var description = ""
                switch operation {
                case 0..<25:
                    description = "write"
                    model.step(from: before, changed: randomWrites(1))
                case 25..<40:
                    description = "batch"
                    let changed = batch { randomWrites(Int.random(in: 1...4, using: &random)) }
                    model.step(from: before, changed: changed)
                case 40..<50:
                    description = "transaction that returns"
                    let changed = transaction { randomWrites(Int.random(in: 1...4, using: &random)) }
                    model.step(from: before, changed: changed)
                case 50..<58:
                    description = "transaction that throws"
                    let saved = model.values
                    do {
                        try transaction {
                            _ = randomWrites(Int.random(in: 1...4, using: &random))
                            throw Refused()
                        }
                    } catch {}
                    model.values = saved
                case 58..<64:
                    description = "transaction with an inner one that throws"
                    let changed = transaction {
                        var changed = randomWrites(1)
                        let saved = model.values
                        do {
                            try transaction {
                                _ = randomWrites(2)
                                throw Refused()
                            }
                        } catch {}
                        model.values = saved
                        changed = randomWrites(1) || changed
                        // Net of the rollback: a change only if a kept write changed something.
                        return changed
                    }
                    model.step(from: before, changed: changed)
                case 64..<68:
                    description = "store action"
                    store.send(.increase)
                    model.values[atomCount] += 1
                    model.step(from: before, changed: true)
                case 68..<72:
                    description = "group"
                    let changed = history.group("g") { randomWrites(Int.random(in: 1...3, using: &random)) }
                    model.step(from: before, changed: changed)
                case 72..<88:
                    description = "undo"
                    let report = history.undo()
                    #expect(report.applied == !model.undo.isEmpty, "seed \(seed), step \(stepIndex)")
                    if let state = model.undo.popLast() {
                        model.redo.append(model.values)
                        model.values = state
                    }
                default:
                    description = "redo"
                    let report = history.redo()
                    #expect(report.applied == !model.redo.isEmpty, "seed \(seed), step \(stepIndex)")
                    if let state = model.redo.popLast() {
                        model.undo.append(model.values)
                        model.values = state
                    }
                }
                let actual = current()
                let counts = (history.undoCount, history.redoCount)
                if actual != model.values || counts != (model.undo.count, model.redo.count) {
                    Issue.record(
                        """
                        seed \(seed), step \(stepIndex) (\(description)): values \(actual), model \(model.values); \
                        undo/redo \(counts), model (\(model.undo.count), \(model.redo.count))
                        """)
                    return
                }
            }
        }
    }
}
