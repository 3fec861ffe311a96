/// The sequential specification of the operations the linearizability tests run concurrently on one runtime's
/// three atoms `a`, `b` and `c` (see ``AtomsUnderTest`` for the Ripple code of each operation).

/// The values of the three atoms: the model's state, and what a snapshot derivation returns.
struct AtomValues: Hashable, Sendable, CustomStringConvertible {
    var a: Int
    var b: Int
    var c: Int

    static let names = ["a", "b", "c"]

    subscript(atom: Int) -> Int {
        get { atom == 0 ? a : atom == 1 ? b : c }
        set {
            switch atom {
            case 0: a = newValue
            case 1: b = newValue
            default: c = newValue
            }
        }
    }

    var description: String { "(a: \(a), b: \(b), c: \(c))" }
}

/// One operation on the atoms. Atoms are numbered 0, 1, 2 for `a`, `b`, `c`.
enum AtomOperation: Equatable, Sendable, CustomStringConvertible {
    /// `atom.value = value`.
    case write(atom: Int, value: Int)
    /// `atom.update { $0 += amount; return $0 }`: returns the new value.
    case increment(atom: Int, by: Int)
    /// `atom.update { $0 = source.value + amount; return $0 }`: a read-modify-write across two atoms.
    case copy(atom: Int, from: Int, plus: Int)
    /// `runtime.batch { first.value = firstValue; second.value = secondValue }` (two distinct atoms).
    case batchWrite(first: Int, firstValue: Int, second: Int, secondValue: Int)
    /// `atom.value`.
    case read(atom: Int)
    /// The value of a derivation of all three atoms.
    case readSnapshot(SnapshotDerivation)
    /// `atom.update { $0 = lazySnapshot.value.source + amount }`: a derivation recomputed inside an `update`.
    case copyFromSnapshot(atom: Int, from: Int, plus: Int)
    /// `runtime.batch { (first.value, second.value) }` (two distinct atoms).
    case batchRead(first: Int, second: Int)
    /// `sum.value`: an atom that an effect keeps equal to `a + b`. Effects run while the write that triggered them
    /// still holds the graph, so no thread sees `a` or `b` changed and `sum` not yet.
    case readSum

    var description: String {
        let name = AtomValues.names
        switch self {
        case let .write(atom, value): return "\(name[atom]).value = \(value)"
        case let .increment(atom, amount): return "\(name[atom]).update { $0 += \(amount) }"
        case let .copy(atom, source, amount): return "\(name[atom]).update { $0 = \(name[source]).value + \(amount) }"
        case let .batchWrite(first, firstValue, second, secondValue):
            return "batch { \(name[first]).value = \(firstValue); \(name[second]).value = \(secondValue) }"
        case let .read(atom): return "\(name[atom]).value"
        case let .readSnapshot(derivation): return "\(derivation).value"
        case let .copyFromSnapshot(atom, source, amount):
            return "\(name[atom]).update { $0 = lazySnapshot.value.\(name[source]) + \(amount) }"
        case let .batchRead(first, second): return "batch { (\(name[first]).value, \(name[second]).value) }"
        case .readSum: return "sum.value"
        }
    }

    /// A random operation; values written stay small so that printed histories are easy to read.
    static func random(using random: inout some RandomNumberGenerator) -> AtomOperation {
        let atom = Int.random(in: 0..<3, using: &random)
        // Another atom than `atom`: batches write and read two distinct atoms.
        let other = (atom + Int.random(in: 1..<3, using: &random)) % 3
        switch Int.random(in: 0..<11, using: &random) {
        case 0: return .write(atom: atom, value: Int.random(in: 0..<10, using: &random))
        case 1: return .increment(atom: atom, by: Int.random(in: 1...3, using: &random))
        case 2: return .copy(atom: atom, from: other, plus: Int.random(in: 1...3, using: &random))
        case 3: return .copyFromSnapshot(atom: atom, from: other, plus: Int.random(in: 1...3, using: &random))
        case 4:
            return .batchWrite(
                first: atom, firstValue: Int.random(in: 0..<10, using: &random),
                second: other, secondValue: Int.random(in: 0..<10, using: &random))
        case 5: return .read(atom: atom)
        case 6: return .readSnapshot(.observed)
        case 7: return .readSnapshot(.lazy)
        case 8: return .readSnapshot(.chained)
        case 9: return .readSum
        default: return .batchRead(first: atom, second: other)
        }
    }
}

/// The derivations of all three atoms that operations read.
enum SnapshotDerivation: Sendable, CustomStringConvertible {
    /// Read by an effect, so every write brings it up to date before returning.
    case observed
    /// Read by nothing else: the reading thread recomputes it when it is stale.
    case lazy
    /// A lazy derivation that returns the lazy one's value: a read recomputes two levels.
    case chained

    var description: String {
        switch self {
        case .observed: return "observedSnapshot"
        case .lazy: return "lazySnapshot"
        case .chained: return "chainedSnapshot"
        }
    }
}

/// What an operation returned.
enum AtomOutcome: Equatable, Sendable, CustomStringConvertible {
    /// A write: nothing.
    case none
    case value(Int)
    case pair(Int, Int)
    case snapshot(AtomValues)

    var description: String {
        switch self {
        case .none: return "()"
        case let .value(value): return "\(value)"
        case let .pair(first, second): return "(\(first), \(second))"
        case let .snapshot(values): return "\(values)"
        }
    }
}

/// The model: the atoms' values, each operation applied alone.
enum AtomsModel: SequentialModel {
    static func apply(_ operation: AtomOperation, to state: AtomValues) -> (state: AtomValues, outcome: AtomOutcome) {
        var next = state
        switch operation {
        case let .write(atom, value):
            next[atom] = value
            return (next, .none)
        case let .increment(atom, amount):
            next[atom] += amount
            return (next, .value(next[atom]))
        case let .copy(atom, source, amount), let .copyFromSnapshot(atom, source, amount):
            next[atom] = state[source] + amount
            return (next, .value(next[atom]))
        case let .batchWrite(first, firstValue, second, secondValue):
            next[first] = firstValue
            next[second] = secondValue
            return (next, .none)
        case let .read(atom):
            return (state, .value(state[atom]))
        case .readSnapshot:
            return (state, .snapshot(state))
        case let .batchRead(first, second):
            return (state, .pair(state[first], state[second]))
        case .readSum:
            return (state, .value(state.a + state.b))
        }
    }
}
