import Ripple

/// The Ripple side of the linearizability tests: three atoms of one runtime, the derivations of all three that
/// ``SnapshotDerivation`` lists, an effect that observes one of them, an atom `sum` that another effect keeps equal
/// to `a + b`, and the Ripple code of each ``AtomOperation``.
///
/// The nodes live as long as this object; none is freed while threads use them.
final class AtomsUnderTest: Sendable {
    let runtime: Runtime
    private let atoms: [AtomObject<Int>]
    /// Read by `observer`, so writes bring it up to date before they return.
    private let observedSnapshot: Derivation<AtomValues>
    /// Read by nobody but the operations: the reading thread recomputes it when it is stale.
    private let lazySnapshot: Derivation<AtomValues>
    /// Returns `lazySnapshot`'s value; read by nobody but the operations.
    private let chainedSnapshot: Derivation<AtomValues>
    private let observer: Effect
    /// Written only by `summer`.
    private let sum: AtomObject<Int>
    private let summer: Effect

    init(_ initial: AtomValues) {
        let runtime = Runtime()
        self.runtime = runtime
        (atoms, observedSnapshot, lazySnapshot, chainedSnapshot, observer, sum, summer) = withIsolatedRuntime(
            using: runtime
        ) {
            let atoms = [atom(initial.a, label: "a"), atom(initial.b, label: "b"), atom(initial.c, label: "c")]
            // @Sendable: derivation bodies run on whichever thread reads or writes.
            let snapshot: @Sendable () -> AtomValues = {
                AtomValues(a: atoms[0].value, b: atoms[1].value, c: atoms[2].value)
            }
            let observedSnapshot = derive(label: "observedSnapshot", snapshot)
            let lazySnapshot = derive(label: "lazySnapshot", snapshot)
            let chainedSnapshot = derive(label: "chainedSnapshot") { lazySnapshot.value }
            let observer = Effect(label: "observer") { _ = observedSnapshot.value }
            let sum = atom(initial.a + initial.b, label: "sum")
            let summer = Effect(label: "summer") { sum.value = atoms[0].value + atoms[1].value }
            return (atoms, observedSnapshot, lazySnapshot, chainedSnapshot, observer, sum, summer)
        }
    }

    /// Runs `operation` on the calling thread and returns what it returned.
    func perform(_ operation: AtomOperation) -> AtomOutcome {
        switch operation {
        case let .write(atom, value):
            write(value, to: atom)
            return .none
        case let .increment(atom, amount):
            return .value(
                atoms[atom].update { value in
                    value += amount
                    return value
                })
        case let .copy(atom, source, amount):
            let sourceAtom = atoms[source]
            return .value(
                atoms[atom].update { value in
                    value = sourceAtom.value + amount
                    return value
                })
        case let .batchWrite(first, firstValue, second, secondValue):
            runtime.batch {
                atoms[first].value = firstValue
                atoms[second].value = secondValue
            }
            return .none
        case let .read(atom):
            return .value(value(of: atom))
        case .readSnapshot(.observed):
            return .snapshot(observedSnapshot.value)
        case .readSnapshot(.lazy):
            return .snapshot(lazySnapshot.value)
        case .readSnapshot(.chained):
            return .snapshot(chainedSnapshot.value)
        case let .copyFromSnapshot(atom, source, amount):
            let lazySnapshot = lazySnapshot
            return .value(
                atoms[atom].update { value in
                    value = lazySnapshot.value[source] + amount
                    return value
                })
        case let .batchRead(first, second):
            let (firstValue, secondValue) = runtime.batch { (atoms[first].value, atoms[second].value) }
            return .pair(firstValue, secondValue)
        case .readSum:
            return .value(sum.value)
        }
    }

    /// `atom.value`, for atoms 0, 1, 2 (`a`, `b`, `c`).
    func value(of atom: Int) -> Int {
        atoms[atom].value
    }

    /// `atom.value = value`.
    func write(_ value: Int, to atom: Int) {
        atoms[atom].value = value
    }

    /// Sets all three atoms in one batch: the start of a new history.
    func reset(to values: AtomValues) {
        runtime.batch {
            for (index, atom) in atoms.enumerated() { atom.value = values[index] }
        }
    }

    /// The atoms' values, read in one batch.
    var values: AtomValues {
        runtime.batch { AtomValues(a: atoms[0].value, b: atoms[1].value, c: atoms[2].value) }
    }

    /// Keeps the effects alive up to here: their runs keep `observedSnapshot` up to date and `sum` equal to `a + b`.
    func keepObserving() {
        withExtendedLifetime((observer, summer)) {}
    }
}
