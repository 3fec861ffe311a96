import Testing

@_spi(Testing) @testable import Ripple

/// What an atom's commit reports, for values of plain bytes (whose committed copy the first write after a commit
/// makes, `AtomObject.store`) and values with references (copied by the commit): a value written back to the one
/// readers saw is no change, across batches and commits.
@Suite struct AtomCommitTests {
    @Test func aPlainValueWrittenBackToTheCommittedOneIsNoChange() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            let count = atom(0)
            let runs = Recorder<Int>()
            let log = Effect { runs.append(count.value) }
            runtime.batch { count.value = 1; count.value = 0 }
            #expect(runs.values == [0])
            runtime.batch { count.value = 1 }
            #expect(runs.values == [0, 1])
            runtime.batch { count.value = 2; count.value = 1 }
            #expect(runs.values == [0, 1])
            runtime.batch { count.value = 2; count.value = 3 }
            #expect(runs.values == [0, 1, 3])
            count.value = 4
            count.value = 3
            #expect(runs.values == [0, 1, 3, 4, 3])
            _ = log
        }
    }

    @Test func aValueWithReferencesWrittenBackToTheCommittedOneIsNoChange() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            let name = atom("a")
            let runs = Recorder<String>()
            let log = Effect { runs.append(name.value) }
            runtime.batch { name.value = "b"; name.value = "a" }
            #expect(runs.values == ["a"])
            runtime.batch { name.value = "b" }
            runtime.batch { name.value = "c"; name.value = "b" }
            #expect(runs.values == ["a", "b"])
            runtime.batch { name.value = "c"; name.value = "d" }
            #expect(runs.values == ["a", "b", "d"])
            _ = log
        }
    }

    /// A derivation reading a plain atom recomputes only when the committed value changed, also when the atom is
    /// read between the writes (the read commits the first).
    @Test func aDerivationSeesEachCommittedValueOnce() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            let count = atom(10)
            let computes = Recorder<Int>()
            let plusOne = derive { () -> Int in computes.append(count.value); return count.value + 1 }
            #expect(plusOne.value == 11)
            runtime.batch { count.value = 11; count.value = 10 }
            #expect(plusOne.value == 11)
            runtime.batch {
                count.value = 12
                #expect(plusOne.value == 13)
                count.value = 10
            }
            #expect(plusOne.value == 11)
            #expect(computes.values == [10, 12, 10])
        }
    }

    /// The value a tracer is told a write replaced, for a plain atom whose committed copy a later write makes: an
    /// announced in-place mutation (`didMutate`) after two committed writes replaces the last committed value.
    @Test func aTracedMutationOfAPlainAtomNamesTheLastCommittedValue() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            let count = atom(0, label: "count")
            let log = Effect(label: "log") { _ = count.value }
            count.value = 1
            count.value = 2
            let trace = CausalTrace()
            runtime.startTracing(trace)
            runtime.didMutate(count)
            let writes = trace.events.filter { $0.kind == .write }
            #expect(writes.map(\.previousValue) == ["2"])
            #expect(writes.map(\.value) == ["2"])
            runtime.stopTracing()
            _ = log
        }
    }
}
