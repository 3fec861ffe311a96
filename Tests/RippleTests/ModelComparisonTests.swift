import Testing
@_spi(Testing) import Ripple

/// Random graphs and random operation sequences, checked step by step against a
/// naive model that recomputes everything: values, which derivations ran (each
/// at most once, and only when something it read last time changed), and which
/// effects ran (each at most once, in creation order, seeing consistent values).
@Suite @MainActor struct ModelComparisonTests {
    nonisolated static let atomCount = 4
    nonisolated static let derivationCount = 12
    nonisolated static let effectCount = 4
    nonisolated static let steps = 120

    /// How a derivation computes its value from nodes with smaller indices.
    enum Formula {
        case sum(Int, Int)
        case choose(Int, Int, Int)
        case modulo3(Int)

        /// The nodes a run reads, in read order, given every node's value.
        func reads(_ values: [Int]) -> [Int] {
            switch self {
            case let .sum(x, y): [x, y]
            case let .choose(condition, ifEven, ifOdd): [condition, values[condition] % 2 == 0 ? ifEven : ifOdd]
            case let .modulo3(x): [x]
            }
        }

        func evaluate(_ read: (Int) -> Int) -> Int {
            switch self {
            case let .sum(x, y): read(x) + read(y)
            case let .choose(condition, ifEven, ifOdd): read(condition) % 2 == 0 ? read(ifEven) : read(ifOdd)
            case let .modulo3(x): read(x) % 3
            }
        }

        static func random(below bound: Int, using rng: inout SplitMix64) -> Formula {
            func node() -> Int { Int.random(in: 0..<bound, using: &rng) }
            switch Int.random(in: 0..<3, using: &rng) {
            case 0: return .sum(node(), node())
            case 1: return .choose(node(), node(), node())
            default: return .modulo3(node())
            }
        }
    }

    /// Every node's value under the model, atoms first.
    static func modelValues(atoms: [Int], formulas: [Formula]) -> [Int] {
        var values = atoms
        for formula in formulas {
            values.append(formula.evaluate { values[$0] })
        }
        return values
    }

    /// What the Ripple side reports.
    final class Recorder {
        var derivationRuns = Array(repeating: 0, count: ModelComparisonTests.derivationCount)
        var effectSnapshots = Array(repeating: [[Int]](), count: ModelComparisonTests.effectCount)
        var effectOrder: [Int] = []
    }

    @Test(arguments: 0..<32 as Range<UInt64>)
    func randomOperationsMatchARecomputeEverythingModel(seed: UInt64) {
        withIsolatedRuntime {
            var rng = SplitMix64(seed: seed)
            let recorder = Recorder()
            var atomValues = (0..<Self.atomCount).map { _ in Int.random(in: 0..<4, using: &rng) }
            var formulas: [Formula] = []

            var readers: [() -> Int] = []
            var atoms: [AtomObject<Int>] = []
            for index in 0..<Self.atomCount {
                let node = atom(atomValues[index], label: "atom \(index)")
                atoms.append(node)
                readers.append { node.value }
            }
            var derivations: [Derivation<Int>] = []
            for index in 0..<Self.derivationCount {
                let formula = Formula.random(below: Self.atomCount + index, using: &rng)
                formulas.append(formula)
                let inputs = readers
                let node = derive(label: "derivation \(index)") { () -> Int in
                    recorder.derivationRuns[index] += 1
                    return formula.evaluate { inputs[$0]() }
                }
                derivations.append(node)
                readers.append { node.value }
            }
            let nodeCount = Self.atomCount + Self.derivationCount
            var values = Self.modelValues(atoms: atomValues, formulas: formulas)

            // Read every derivation once; remember what each run read.
            for (index, derivation) in derivations.enumerated() {
                #expect(derivation.value == values[Self.atomCount + index], "seed \(seed): initial derivation \(index)")
            }
            #expect(recorder.derivationRuns == Array(repeating: 1, count: Self.derivationCount), "seed \(seed)")
            var lastReads: [[(node: Int, value: Int)]] = formulas.map { formula in
                formula.reads(values).map { (node: $0, value: values[$0]) }
            }

            var watched: [[Int]] = []
            var effects: [Effect] = []
            for index in 0..<Self.effectCount {
                let nodes = (0..<Int.random(in: 1...3, using: &rng)).map { _ in Int.random(in: 0..<nodeCount, using: &rng) }
                watched.append(nodes)
                let inputs = readers
                effects.append(Effect(label: "effect \(index)") {
                    recorder.effectSnapshots[index].append(nodes.map { inputs[$0]() })
                    recorder.effectOrder.append(index)
                })
            }
            #expect(recorder.effectOrder == Array(0..<Self.effectCount), "seed \(seed)")
            #expect(recorder.derivationRuns == Array(repeating: 1, count: Self.derivationCount), "seed \(seed): effects' first runs")

            for step in 0..<Self.steps {
                let context = "seed \(seed), step \(step)"
                recorder.derivationRuns = Array(repeating: 0, count: Self.derivationCount)
                recorder.effectOrder = []

                func write() {
                    let index = Int.random(in: 0..<Self.atomCount, using: &rng)
                    let value = Int.random(in: 0..<4, using: &rng)
                    atoms[index].value = value
                    atomValues[index] = value
                }
                switch Int.random(in: 0..<10, using: &rng) {
                case 0..<6:
                    write()
                case 6..<8:
                    batch {
                        for _ in 0..<Int.random(in: 2...4, using: &rng) {
                            write()
                        }
                    }
                case 8:
                    // Written and written back inside a batch: no change at all.
                    let index = Int.random(in: 0..<Self.atomCount, using: &rng)
                    let original = atomValues[index]
                    batch {
                        atoms[index].value = original + 1
                        atoms[index].value = original
                    }
                default:
                    break
                }

                let newValues = Self.modelValues(atoms: atomValues, formulas: formulas)
                let expectedEffects = (0..<Self.effectCount).filter { index in
                    watched[index].contains { values[$0] != newValues[$0] }
                }
                #expect(recorder.effectOrder == expectedEffects, "\(context)")
                for index in expectedEffects {
                    #expect(recorder.effectSnapshots[index].last == watched[index].map { newValues[$0] }, "\(context): effect \(index)")
                }

                for (index, derivation) in derivations.enumerated() {
                    #expect(derivation.value == newValues[Self.atomCount + index], "\(context): derivation \(index)")
                }
                let expectedRuns = lastReads.map { reads in reads.contains { newValues[$0.node] != $0.value } ? 1 : 0 }
                #expect(recorder.derivationRuns == expectedRuns, "\(context)")

                for index in 0..<Self.derivationCount where expectedRuns[index] == 1 {
                    lastReads[index] = formulas[index].reads(newValues).map { (node: $0, value: newValues[$0]) }
                }
                values = newValues
            }
            #expect(Runtime.current.checkInvariants() == nil, "seed \(seed)")
            withExtendedLifetime(effects) {}
        }
    }
}
