/// How cellx, the propagation grid, the chain and creation are measured and
/// checked, the same for every framework: each framework only builds the graph
/// and hands over closures (one indirect call per operation, next to hundreds
/// of nanoseconds of propagation).

// MARK: - cellx

public enum CellxCheck {
    public static let defaultGraphs = 10
    public static let defaultSamples = 5

    /// The end values before and after the update (BENCHMARKS.md).
    static func expected(layers: Int) -> (before: [Int], after: [Int])? {
        switch layers {
        case 1000, 2500: ([-3, -6, -2, 2], [-2, -4, 2, 3])
        case 5000: ([2, 4, -1, -6], [-2, 1, -4, -4])
        default: nil
        }
    }

    /// Times `graphs` freshly built graphs per sample (`runGraph` builds one,
    /// times its update, and returns the nanoseconds and the end values before
    /// and after); the fastest sample's sum.
    static func measure(
        layers: Int, samples: Int, graphs: Int,
        _ runGraph: () -> (nanoseconds: UInt64, before: [Int], after: [Int])
    ) -> ShapeResult {
        var result = ShapeResult()
        let verifier = Verifier()
        var best = UInt64.max
        for _ in 0..<max(samples, 1) {
            var total: UInt64 = 0
            for _ in 0..<graphs {
                let (nanoseconds, before, after) = runGraph()
                total += nanoseconds
                if let expected = expected(layers: layers) {
                    verifier.expect(before == expected.before, "cellx \(layers): before \(before), expected \(expected.before)")
                    verifier.expect(after == expected.after, "cellx \(layers): after \(after), expected \(expected.after)")
                }
                result.value = Double(after[0])
            }
            best = min(best, total)
        }
        result.milliseconds = Double(best) / 1e6
        result.operations = graphs
        result.failures = verifier.failures
        return result
    }
}

// MARK: - propagation grid and chain

/// A built grid: one source, `width` chains of `height` +1 nodes, an effect
/// per chain counting its runs in `counter`.
struct GridInstance {
    /// source = source + 1, in a batch.
    var increment: () -> Void
    var source: () -> Int
    /// The end of chain k.
    var end: (Int) -> Int
    var counter: Counter
}

public enum GridCheck {
    public static let defaultSamples = 10

    /// 10 warm-up increments, then `samples` samples of `operations`; checks
    /// every chain end and the effect runs after each sample (and, for the
    /// chain, the end after every write).
    static func measure(
        _ grid: GridInstance, width: Int, height: Int, operations: Int, samples: Int, checkEveryWrite: Bool
    ) -> ShapeResult {
        let verifier = Verifier()
        for _ in 0..<10 { grid.increment() }
        var result = ShapeResult()
        var best = UInt64.max
        for _ in 0..<max(samples, 1) {
            grid.counter.count = 0
            let t0 = now()
            for _ in 0..<operations {
                grid.increment()
                if checkEveryWrite {
                    let value = grid.end(0), expected = grid.source() + height
                    verifier.expect(value == expected, "chain \(height): last == \(value), expected \(expected)")
                }
            }
            let elapsed = now() - t0
            let expected = grid.source() + height
            for index in 0..<width {
                let value = grid.end(index)
                verifier.expect(
                    value == expected, "grid \(width)x\(height): chain \(index) ends at \(value), expected \(expected)")
            }
            verifier.expect(
                grid.counter.count == operations * width,
                "grid \(width)x\(height): effects ran \(grid.counter.count) times, expected \(operations * width)")
            if elapsed < best {
                best = elapsed
                result.count = grid.counter.count
                result.value = Double(grid.end(width - 1))
            }
        }
        result.milliseconds = Double(best) / 1e6
        result.operations = operations
        result.failures = verifier.failures
        return result
    }
}

// MARK: - creation and teardown

/// Creation and teardown times, fastest sample of each phase.
public struct CreationResult: Sendable, Equatable {
    public var atoms = 0.0, derived = 0.0, effects = 0.0, teardown = 0.0
    public var failures: [String] = []

    public init() {}
}

/// The phases of one creation sample, in order.
enum CreationPhase: Int, CaseIterable {
    case atoms, derived, effects, teardown
}

public enum CreationCheck {
    public static let defaultCount = 100_000
    public static let defaultSamples = 5

    /// Runs `samples` samples; `sample` creates and tears down, calling
    /// `mark` at the start and after each phase (five marks), and returns the
    /// effect runs it counted (which must be `count`).
    static func measure(count: Int, samples: Int, _ sample: (_ mark: () -> Void) -> Int) -> CreationResult {
        let verifier = Verifier()
        var best = [UInt64](repeating: .max, count: CreationPhase.allCases.count)
        for _ in 0..<max(samples, 1) {
            var marks: [UInt64] = []
            marks.reserveCapacity(best.count + 1)
            let runs = sample { marks.append(now()) }
            verifier.expect(runs == count, "create: \(runs) effect runs, expected \(count)")
            verifier.expect(marks.count == best.count + 1, "create: \(marks.count) phase marks")
            guard marks.count == best.count + 1 else { continue }
            for phase in 0..<best.count { best[phase] = min(best[phase], marks[phase + 1] - marks[phase]) }
        }
        var result = CreationResult()
        result.atoms = Double(best[CreationPhase.atoms.rawValue]) / 1e6
        result.derived = Double(best[CreationPhase.derived.rawValue]) / 1e6
        result.effects = Double(best[CreationPhase.effects.rawValue]) / 1e6
        result.teardown = Double(best[CreationPhase.teardown.rawValue]) / 1e6
        result.failures = verifier.failures
        return result
    }

    /// The phases of one creation sample, which every backend runs the same way: `count` atoms (`atom(i)`), a
    /// derivation reading each (`derive`), an effect reading each (`effect`, whose body counts its runs in
    /// `counter`), then releasing the effects, the derivations and the atoms, in that order. Calls `mark` at the
    /// start and after each of the first three phases; the caller marks the teardown's end (after leaving any
    /// scope the phases ran in, a runtime's say, whose end is part of the teardown). Inlined into each caller, so
    /// that the makers' calls are its own code, as if written there: called through a generic function, they
    /// slowed the Swift column's derivations by 11%.
    @inline(__always)
    static func phases<Atom, Derived, Observer>(
        count: Int, mark: () -> Void, counter: Counter, atom: (Int) -> Atom, derive: (Atom) -> Derived,
        effect: (Atom, Counter) -> Observer
    ) {
        var atoms: [Atom] = []
        var derivations: [Derived] = []
        var effects: [Observer] = []
        atoms.reserveCapacity(count)
        derivations.reserveCapacity(count)
        effects.reserveCapacity(count)
        mark()
        for i in 0..<count { atoms.append(atom(i)) }
        mark()
        for source in atoms { derivations.append(derive(source)) }
        mark()
        for source in atoms { effects.append(effect(source, counter)) }
        mark()
        effects = []
        derivations = []
        atoms = []
    }
}
