import Foundation
import Observation
import Testing

@_spi(Testing) @testable import Ripple

/// A model written from any thread, one write at a time (the tests order the threads).
@Observable final class SharedCounter: @unchecked Sendable {
    var count = 0
    var label = "zero"
}

/// A SwiftUI-style model: isolated to the main actor.
@Observable @MainActor final class MainCounter {
    var count = 0
}

/// Lets every main-actor job enqueued so far run: where a main-actor write outside a batch reaches Ripple.
@MainActor func drainMainActor() async {
    await Task { @MainActor in }.value
}

/// Observation → Ripple (`observing { }`), for writes whose end Ripple sees on the writer's thread: inside a batch or an effect of
/// the runtime. Dependents run once per batch, after the write, and see the new value.
@Suite struct ObservationPropertiesInBatchesTests {
    @Test func anEffectReadingAPropertyRunsWhenTheBatchEndsWithTheNewValue() {
        withIsolatedRuntime {
            let model = SharedCounter()
            let seen = Recorder<Int>()
            let effect = Effect { seen.append(observing { model.count }) }
            Runtime.current.batch {
                model.count = 1
                #expect(seen.values == [0])  // not before the batch ends
            }
            #expect(seen.values == [0, 1])
            Runtime.current.batch { model.count = 2 }
            #expect(seen.values == [0, 1, 2])
            _ = effect
        }
    }

    @Test func aPropertyReadOutsideObservingIsNoDependency() {
        withIsolatedRuntime {
            let model = SharedCounter()
            let seen = Recorder<Int>()
            let effect = Effect { seen.append(model.count) }
            Runtime.current.batch { model.count = 1 }
            #expect(seen.values == [0])
            #expect(observing { model.count } == 1)  // outside any body: just the read
            _ = effect
        }
    }

    @Test func twoWritesInOneBatchRunTheDependentOnce() {
        withIsolatedRuntime {
            let model = SharedCounter()
            let seen = Recorder<Int>()
            let effect = Effect { seen.append(observing { model.count }) }
            Runtime.current.batch {
                model.count = 1
                model.count = 2
            }
            #expect(seen.values == [0, 2])
            _ = effect
        }
    }

    @Test func aDerivationRecomputesOnlyAfterAChangeAndSeesTheNewValue() {
        withIsolatedRuntime {
            let model = SharedCounter()
            let runs = RunCount()
            let tenfold = derive {
                runs.increment()
                return observing { model.count } * 10
            }
            #expect(tenfold.value == 0)
            #expect(tenfold.value == 0)
            #expect(runs.value == 1)
            Runtime.current.batch { model.count = 3 }
            #expect(tenfold.value == 30)
            #expect(runs.value == 2)
        }
    }

    @Test func aDerivationAndAnEffectReadingAnAtomAndAPropertyRunOncePerBatch() {
        withIsolatedRuntime {
            let model = SharedCounter()
            let offset = atom(100)
            let derivationRuns = RunCount()
            let sum = derive {
                derivationRuns.increment()
                return offset.value + observing { model.count }
            }
            let seen = Recorder<String>()
            let effect = Effect { seen.append("\(sum.value) \(offset.value) \(observing { model.label })") }
            #expect(seen.values == ["100 100 zero"])
            Runtime.current.batch {
                offset.value = 200
                model.count = 1
                model.label = "one"
            }
            #expect(seen.values == ["100 100 zero", "201 200 one"])
            #expect(derivationRuns.value == 2)
            _ = effect
        }
    }

    @Test func aBodyThatStopsReadingThePropertyNoLongerDependsOnIt() {
        withIsolatedRuntime {
            let model = SharedCounter()
            let reads = atom(true)
            let seen = Recorder<Int>()
            let effect = Effect { seen.append(reads.value ? observing { model.count } : -1) }
            reads.value = false
            Runtime.current.batch { model.count = 5 }
            #expect(seen.values == [0, -1])
            reads.value = true
            Runtime.current.batch { model.count = 6 }
            #expect(seen.values == [0, -1, 5, 6])
            _ = effect
        }
    }

    @Test func runsForOtherReasonsLeaveOneDependencyOnTheProperty() {
        withIsolatedRuntime {
            let model = SharedCounter()
            let tick = atom(0)
            let seen = Recorder<String>()
            let effect = Effect { seen.append("\(tick.value) \(observing { model.count })") }
            for value in 1...3 { tick.value = value }  // each run tracks the property anew
            Runtime.current.batch { model.count = 1 }
            #expect(seen.values == ["0 0", "1 0", "2 0", "3 0", "3 1"])
            _ = effect
        }
    }

    @Test func anEffectWritingAPropertyRunsItsReadersAfterItWithTheNewValue() {
        withIsolatedRuntime {
            let model = SharedCounter()
            let source = atom(0)
            let writer = Effect { model.count = source.value * 2 }
            let seen = Recorder<Int>()
            let reader = Effect { seen.append(observing { model.count }) }
            source.value = 4
            #expect(seen.values == [0, 8])
            _ = (writer, reader)
        }
    }

    @Test func aTrackerThatWritesAPropertyOnChangeRunsItsReadersAfterTheWrite() {
        withIsolatedRuntime {
            let model = SharedCounter()
            let source = atom(1)
            let seen = Recorder<Int>()
            let reader = Effect { seen.append(observing { model.count }) }
            withObservationTracking { _ = source.value } onChange: { model.count = source.value * 10 }
            source.value = 2  // the tracker's onChange writes the model during this write's flush
            #expect(seen.values == [0, 20])
            _ = reader
        }
    }

    @Test func aWriteOnAnotherThreadInsideABatchRunsTheEffectThereWithTheNewValue() async {
        let runtime = Runtime()
        let model = SharedCounter()
        let seen = Recorder<Int>()
        let effect = withIsolatedRuntime(using: runtime) { Effect { seen.append(observing { model.count }) } }
        await runOnThread(stackSize: StackSize.small) { runtime.batch { model.count = 9 } }
        #expect(seen.values == [0, 9])
        _ = effect
    }

    @Test func aWriteOnAnotherThreadOutsideABatchTraps() async {
        await #expect(processExitsWith: .failure) {
            let runtime = Runtime()
            let model = SharedCounter()
            let effect = withIsolatedRuntime(using: runtime) { Effect { _ = observing { model.count } } }
            runOnAnotherThreadAndWait { model.count = 1 }
            _ = effect
        }
    }
}

/// Observation → Ripple for a main-actor model written on the main actor outside any batch: the write reaches
/// Ripple in a main-actor job enqueued at Observation's willSet, after the writer's job, once for all the writes of
/// that job.
@Suite @MainActor struct ObservationPropertiesOnTheMainActorTests {
    @Test func aWriteReachesTheEffectAfterTheWritersJobWithTheNewValue() async {
        await withIsolatedRuntime { () async in
            let model = MainCounter()
            var seen: [Int] = []
            let effect = Effect { seen.append(observing { model.count }) }
            model.count = 1
            #expect(seen == [0])  // the writer's job is not over
            await drainMainActor()
            #expect(seen == [0, 1])
            model.count = 2
            await drainMainActor()
            #expect(seen == [0, 1, 2])
            _ = effect
        }
    }

    @Test func writesInOneJobRunTheEffectOnceWithTheLastValue() async {
        await withIsolatedRuntime { () async in
            let model = MainCounter()
            var seen: [Int] = []
            let effect = Effect { seen.append(observing { model.count }) }
            model.count = 1
            model.count = 2
            model.count = 3
            await drainMainActor()
            #expect(seen == [0, 3])
            _ = effect
        }
    }

    @Test func anAtomWrittenInTheSameJobRunsTheEffectOnceSeeingBoth() async {
        await withIsolatedRuntime { () async in
            let model = MainCounter()
            let offset = atom(100)
            var seen: [Int] = []
            let effect = Effect { seen.append(offset.value + observing { model.count }) }
            model.count = 1
            offset.value = 200  // runs the effect now: it reads the stored count, 1
            await drainMainActor()
            #expect(seen == [100, 201])  // and the count's own notification finds nothing left to do
            _ = effect
        }
    }

    @Test func aDerivationReadLaterInTheWritersJobOrAfterItSeesTheNewValue() async {
        await withIsolatedRuntime { () async in
            let model = MainCounter()
            var runs = 0
            let doubled = derive {
                runs += 1
                return observing { model.count } * 2
            }
            #expect(doubled.value == 0)
            model.count = 5
            #expect(doubled.value == 10)  // the read comes after the write: the write is applied first
            await drainMainActor()
            #expect(doubled.value == 10)
            #expect(runs == 2)
            model.count = 21
            await drainMainActor()  // the job enqueued at the write applies it
            #expect(runs == 2)  // lazy: marked, not recomputed
            #expect(doubled.value == 42)
            #expect(runs == 3)
        }
    }

    @Test func anAtomWrittenLaterInTheJobRunsAnEffectOnceThroughADerivationSeeingBoth() async {
        await withIsolatedRuntime { () async in
            let model = MainCounter()
            let offset = atom(100)
            let doubled = derive { observing { model.count } * 2 }
            var seen: [Int] = []
            let effect = Effect { seen.append(offset.value + doubled.value) }
            model.count = 1
            offset.value = 200  // its batch applies the count's write first: one run, both new values
            #expect(seen == [100, 202])
            await drainMainActor()
            #expect(seen == [100, 202])
            _ = effect
        }
    }
}
