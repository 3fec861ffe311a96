import Ripple
import RippleBenchC

/// What the undo row measured: the cost of a write with and without an undo history, and one undo of a large
/// step against restoring a snapshot of the same atoms.
public struct UndoFigures: Sendable, Equatable {
    /// A write outside any batch in a runtime that never had a history.
    public var plainWriteNanoseconds = 0.0
    /// The same write once a history was attached and released: what is left of it (nothing, expected).
    public var releasedHistoryWriteNanoseconds = 0.0
    /// A write outside any batch with a history attached: each write is a step of its own.
    public var recordedStepWriteNanoseconds = 0.0
    /// A write inside one batch of `batchWrites` writes with a history attached: the recording alone.
    public var recordedBatchedWriteNanoseconds = 0.0
    /// The same writes in one batch without a history.
    public var plainBatchedWriteNanoseconds = 0.0
    /// One undo of a step that changed `count` atoms (one effect reading all of them runs once).
    public var undoMilliseconds = 0.0
    /// `runtime.restore(snapshot)` of the same atoms, the same change.
    public var restoreMilliseconds = 0.0
    public var failures: [String] = []

    public init() {}
}

/// Undo (Swift only). Writes: an `Int` atom written `writes` times with alternating values, each shape in a fresh
/// runtime. Undo: `count` atoms of `[Int]` (100 elements, as in the snapshot row) with one effect reading them,
/// all written in one batch; `history.undo()` against `runtime.restore(snapshot)` of the state before.
public enum RippleUndo {
    public static let defaultCount = 10_000
    public static let defaultWrites = 200_000
    public static let defaultSamples = 5

    public static func run(count: Int = defaultCount, writes: Int = defaultWrites, samples: Int = defaultSamples)
        -> UndoFigures
    {
        var figures = UndoFigures()
        let verifier = Verifier()
        let perWrite = { (nanoseconds: UInt64) in Double(nanoseconds) / Double(writes) }
        figures.plainWriteNanoseconds = perWrite(bestWrites(writes: writes, samples: samples, history: .none))
        figures.releasedHistoryWriteNanoseconds = perWrite(
            bestWrites(writes: writes, samples: samples, history: .released))
        figures.recordedStepWriteNanoseconds = perWrite(
            bestWrites(writes: writes, samples: samples, history: .attached))
        figures.plainBatchedWriteNanoseconds = perWrite(
            bestWrites(writes: writes, samples: samples, history: .none, batched: true))
        figures.recordedBatchedWriteNanoseconds = perWrite(
            bestWrites(writes: writes, samples: samples, history: .attached, batched: true))
        (figures.undoMilliseconds, figures.restoreMilliseconds) = undoAgainstRestore(
            count: count, samples: samples, verifier: verifier)
        figures.failures = verifier.failures
        return figures
    }

    enum HistoryUse { case none, released, attached }

    /// The fastest of `samples` runs of `writes` writes, in nanoseconds.
    static func bestWrites(writes: Int, samples: Int, history use: HistoryUse, batched: Bool = false) -> UInt64 {
        var best = UInt64.max
        for _ in 0..<samples {
            let runtime = Runtime()
            withIsolatedRuntime(using: runtime) {
                let value = atom(0)
                var history: UndoHistory? = use == .none ? nil : UndoHistory(limit: .init(steps: 100))
                if use == .released { history = nil }
                let start = now()
                if batched {
                    batch { for index in 0..<writes { value.value = index & 1 == 0 ? 1 : 2 } }
                } else {
                    for index in 0..<writes { value.value = index & 1 == 0 ? 1 : 2 }
                }
                best = min(best, now() - start)
                withExtendedLifetime(history) {}
            }
        }
        return best
    }

    /// The fastest undo of a step of `count` changed atoms, and the fastest restore of the same change.
    static func undoAgainstRestore(count: Int, samples: Int, verifier: Verifier) -> (Double, Double) {
        var bestUndo = UInt64.max, bestRestore = UInt64.max
        let runtime = Runtime()
        withIsolatedRuntime(using: runtime) {
            let atoms = (0..<count).map { index in atom(Array(repeating: index, count: 100)) }
            let effectRuns = Counter()
            let effect = Effect {
                var total = 0
                for source in atoms { total &+= source.value[0] }
                effectRuns.count += 1
                _ = total
            }
            let history = UndoHistory(limit: .init(steps: 2))
            for sample in 0..<samples {
                let snapshot = runtime.snapshot()
                batch { for (index, source) in atoms.enumerated() { source.value = [index + sample + 1] } }
                var runsBefore = effectRuns.count
                let undoStart = now()
                let report = history.undo()
                bestUndo = min(bestUndo, now() - undoStart)
                verifier.expect(report.applied, "nothing undone")
                verifier.expect(effectRuns.count == runsBefore + 1, "undo: the effect ran \(effectRuns.count - runsBefore) times")
                verifier.expect(atoms[count - 1].value == Array(repeating: count - 1, count: 100), "undo: wrong value")
                history.redo()
                runsBefore = effectRuns.count
                let restoreStart = now()
                runtime.restore(snapshot)
                bestRestore = min(bestRestore, now() - restoreStart)
                verifier.expect(effectRuns.count == runsBefore + 1, "restore: the effect ran \(effectRuns.count - runsBefore) times")
                verifier.expect(atoms[count - 1].value == Array(repeating: count - 1, count: 100), "restore: wrong value")
            }
            withExtendedLifetime((effect, history)) {}
        }
        return (Double(bestUndo) / 1e6, Double(bestRestore) / 1e6)
    }
}
