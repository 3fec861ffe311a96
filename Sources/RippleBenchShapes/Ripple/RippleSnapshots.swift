import Ripple
import RippleBenchC

/// What the snapshot row measured: the fastest capture and restore of `count` atoms, and the heap bytes one
/// snapshot holds per atom.
public struct SnapshotFigures: Sendable, Equatable {
    public var captureMilliseconds = 0.0
    public var restoreMilliseconds = 0.0
    public var bytesPerAtom = 0.0
    public var failures: [String] = []

    public init() {}
}

/// Snapshots (Swift only): `count` atoms of `[Int]` (a copy-on-write value of 100 elements, so that a deep copy
/// would show in both the time and the bytes), one effect reading all of them. Capture: `runtime.snapshot()`.
/// Restore: every atom written since, `runtime.restore(snapshot)` writes all of them back in one batch, and the
/// effect runs once.
public enum RippleSnapshots {
    public static let defaultCount = 10_000
    public static let defaultSamples = 10

    public static func run(count: Int = defaultCount, samples: Int = defaultSamples) -> SnapshotFigures {
        var figures = SnapshotFigures()
        let verifier = Verifier()
        let runtime = Runtime()
        var bestCapture = UInt64.max, bestRestore = UInt64.max
        withIsolatedRuntime(using: runtime) {
            let atoms = (0..<count).map { index in atom(Array(repeating: index, count: 100)) }
            let effectRuns = Counter()
            let effect = Effect {
                var total = 0
                for source in atoms { total &+= source.value[0] }
                effectRuns.count += 1
                _ = total
            }
            for sample in 0..<samples {
                let start = now()
                let snapshot = runtime.snapshot()
                bestCapture = min(bestCapture, now() - start)
                verifier.expect(snapshot.entries.count == count, "captured \(snapshot.entries.count) atoms")
                batch {
                    for (index, source) in atoms.enumerated() { source.value = [index + sample + 1] }
                }
                let runsBefore = effectRuns.count
                let restoreStart = now()
                let report = runtime.restore(snapshot)
                bestRestore = min(bestRestore, now() - restoreStart)
                verifier.expect(report.restored == count, "restored \(report.restored) atoms")
                verifier.expect(effectRuns.count == runsBefore + 1, "the effect ran \(effectRuns.count - runsBefore) times")
                verifier.expect(atoms[count - 1].value == Array(repeating: count - 1, count: 100), "wrong value restored")
            }
            let h0 = RippleCreation.heapInUse()
            let held = runtime.snapshot()
            figures.bytesPerAtom = Double(RippleCreation.heapInUse() - h0) / Double(count)
            withExtendedLifetime((held, effect)) {}
        }
        figures.captureMilliseconds = Double(bestCapture) / 1e6
        figures.restoreMilliseconds = Double(bestRestore) / 1e6
        figures.failures = verifier.failures
        return figures
    }
}
