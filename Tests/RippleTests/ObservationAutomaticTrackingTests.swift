import Foundation
import Observation
import Testing

@testable import Ripple

/// A runtime created with `tracksObservableReads: true`: every derivation and effect body tracks the `@Observable`
/// properties it reads directly, as if wrapped in `observing { }`, with the same guarantees (after the write, once
/// per change, glitch-free). Models: `SharedCounter` and `MainCounter` (ObservationPropertiesInRippleTests.swift).
@Suite struct ObservationAutomaticTrackingTests {
    @Test func theSettingIsOffByDefaultAndForTheSharedRuntime() {
        #expect(!Runtime().tracksObservableReads)
        #expect(!Runtime.shared.tracksObservableReads)
        #expect(Runtime(tracksObservableReads: true).tracksObservableReads)
    }

    @Test func anEffectReadingAPropertyDirectlyRunsOncePerChangeWithTheNewValue() {
        withIsolatedRuntime(using: Runtime(tracksObservableReads: true)) {
            let model = SharedCounter()
            let seen = Recorder<Int>()
            let effect = Effect { seen.append(model.count) }
            Runtime.current.batch {
                model.count = 1
                #expect(seen.values == [0])  // not before the batch ends
            }
            #expect(seen.values == [0, 1])
            Runtime.current.batch {
                model.count = 2
                model.count = 3
            }
            #expect(seen.values == [0, 1, 3])
            _ = effect
        }
    }

    @Test func aDerivationReadingAPropertyDirectlyRecomputesOncePerChangeWithTheNewValue() {
        withIsolatedRuntime(using: Runtime(tracksObservableReads: true)) {
            let model = SharedCounter()
            let runs = RunCount()
            let tenfold = derive {
                runs.increment()
                return model.count * 10
            }
            #expect(tenfold.value == 0)
            #expect(tenfold.value == 0)
            #expect(runs.value == 1)
            Runtime.current.batch { model.count = 3 }
            #expect(runs.value == 1)  // lazy: marked, not recomputed
            #expect(tenfold.value == 30)
            #expect(tenfold.value == 30)
            #expect(runs.value == 2)
        }
    }

    @Test func atomsAndPropertiesChangedInOneBatchRunEachDependentOnceSeeingAllNewValues() {
        withIsolatedRuntime(using: Runtime(tracksObservableReads: true)) {
            let model = SharedCounter()
            let offset = atom(100)
            let sumRuns = RunCount()
            let sum = derive {
                sumRuns.increment()
                return offset.value + model.count
            }
            let tenfold = derive { model.count * 10 }
            let seen = Recorder<String>()
            let effect = Effect { seen.append("\(sum.value) \(tenfold.value) \(offset.value) \(model.label)") }
            #expect(seen.values == ["100 0 100 zero"])
            Runtime.current.batch {
                offset.value = 200
                model.count = 1
                model.label = "one"
            }
            #expect(seen.values == ["100 0 100 zero", "201 10 200 one"])
            #expect(sumRuns.value == 2)
            offset.value = 300
            #expect(seen.values == ["100 0 100 zero", "201 10 200 one", "301 10 300 one"])
            #expect(sumRuns.value == 3)
            _ = effect
        }
    }

    /// Observation merges a nested tracking's reads into the enclosing one, so a derivation computed for the first
    /// time inside an effect's run also makes its properties a dependency of that run: the next change of one of
    /// them runs the effect once more even when the derivation's value stays equal. From then on the derivation is
    /// re-validated before the effect's body, outside its tracking, and its equality cuts propagation.
    @Test func aDerivationFirstComputedInsideAnEffectRunsItOnceMoreThenCutsPropagation() {
        withIsolatedRuntime(using: Runtime(tracksObservableReads: true)) {
            let model = SharedCounter()
            let isPositive = derive { model.count > 0 }
            let seen = Recorder<Bool>()
            let effect = Effect { seen.append(isPositive.value) }
            Runtime.current.batch { model.count = -1 }
            #expect(seen.values == [false, false])  // the first run tracked model.count through isPositive
            Runtime.current.batch { model.count = -2 }
            #expect(seen.values == [false, false])
            Runtime.current.batch { model.count = 1 }
            #expect(seen.values == [false, false, true])
            Runtime.current.batch { model.count = 2 }
            #expect(seen.values == [false, false, true])
            _ = effect
        }
    }

    @Test func aDerivationComputedBeforeTheEffectReadsItCutsPropagationAtOnce() {
        withIsolatedRuntime(using: Runtime(tracksObservableReads: true)) {
            let model = SharedCounter()
            let isPositive = derive { model.count > 0 }
            #expect(isPositive.value == false)
            let seen = Recorder<Bool>()
            let effect = Effect { seen.append(isPositive.value) }
            Runtime.current.batch { model.count = -1 }
            #expect(seen.values == [false])
            Runtime.current.batch { model.count = 1 }
            #expect(seen.values == [false, true])
            _ = effect
        }
    }

    @Test func aBodyThatStopsReadingThePropertyNoLongerDependsOnIt() {
        withIsolatedRuntime(using: Runtime(tracksObservableReads: true)) {
            let model = SharedCounter()
            let reads = atom(true)
            let seen = Recorder<Int>()
            let effect = Effect { seen.append(reads.value ? model.count : -1) }
            reads.value = false
            Runtime.current.batch { model.count = 5 }
            #expect(seen.values == [0, -1])
            reads.value = true
            Runtime.current.batch { model.count = 6 }
            #expect(seen.values == [0, -1, 5, 6])
            _ = effect
        }
    }

    @Test func observingInsideATrackedBodyStillRunsItOncePerChange() {
        withIsolatedRuntime(using: Runtime(tracksObservableReads: true)) {
            let model = SharedCounter()
            let seen = Recorder<String>()
            let effect = Effect { seen.append("\(model.count) \(observing { model.count })") }
            Runtime.current.batch { model.count = 1 }
            #expect(seen.values == ["0 0", "1 1"])
            _ = effect
        }
    }

    @Test func withTheSettingOffAPropertyReadDirectlyIsNoDependency() {
        withIsolatedRuntime {
            let model = SharedCounter()
            let seen = Recorder<Int>()
            let effect = Effect { seen.append(model.count) }
            let runs = RunCount()
            let tenfold = derive {
                runs.increment()
                return model.count * 10
            }
            #expect(tenfold.value == 0)
            Runtime.current.batch { model.count = 1 }
            #expect(seen.values == [0])
            #expect(tenfold.value == 0)  // the cached value: nothing marked it
            #expect(runs.value == 1)
            _ = effect
        }
    }

    @Test func anAsyncDerivationTracksPropertiesThroughTheDerivationsItReads() async throws {
        try await withIsolatedRuntime(using: Runtime(tracksObservableReads: true)) { () async throws in
            let model = SharedCounter()
            let counted = derive { model.count }
            let direct = derive { () async -> Int in model.count }
            let throughDerivation = derive { () async -> Int in counted.value * 2 }
            #expect(try await direct.value == 0)
            #expect(try await throughDerivation.value == 0)
            Runtime.current.batch { model.count = 4 }
            #expect(try await throughDerivation.value == 8)
            #expect(try await direct.value == 0)  // async bodies are not tracked: still the first run's value
        }
    }

    @Test func aWriteOnAnotherThreadInsideABatchRunsTheEffectThereWithTheNewValue() async {
        let runtime = Runtime(tracksObservableReads: true)
        let model = SharedCounter()
        let seen = Recorder<Int>()
        let effect = withIsolatedRuntime(using: runtime) { Effect { seen.append(model.count) } }
        await runOnThread(stackSize: StackSize.small) { runtime.batch { model.count = 9 } }
        #expect(seen.values == [0, 9])
        _ = effect
    }

    @Test func aWriteOnAnotherThreadOutsideABatchTraps() async {
        await #expect(processExitsWith: .failure) {
            let runtime = Runtime(tracksObservableReads: true)
            let model = SharedCounter()
            let effect = withIsolatedRuntime(using: runtime) { Effect { _ = model.count } }
            runOnAnotherThreadAndWait { model.count = 1 }
            _ = effect
        }
    }
}

/// The setting for a main-actor model written on the main actor outside any batch: as with `observing { }`, the
/// write reaches the runtime after the writer's job, once for all the writes of that job.
@Suite @MainActor struct ObservationAutomaticTrackingOnTheMainActorTests {
    @Test func writesInOneJobRunTheEffectOnceAfterItWithTheLastValue() async {
        await withIsolatedRuntime(using: Runtime(tracksObservableReads: true)) { () async in
            let model = MainCounter()
            var seen: [Int] = []
            let effect = Effect { seen.append(model.count) }
            model.count = 1
            model.count = 2
            #expect(seen == [0])  // the writer's job is not over
            await drainMainActor()
            #expect(seen == [0, 2])
            _ = effect
        }
    }

    @Test func aDerivationReadLaterInTheWritersJobSeesTheNewValue() async {
        await withIsolatedRuntime(using: Runtime(tracksObservableReads: true)) { () async in
            let model = MainCounter()
            var runs = 0
            let doubled = derive {
                runs += 1
                return model.count * 2
            }
            #expect(doubled.value == 0)
            model.count = 5
            #expect(doubled.value == 10)  // the read comes after the write: the write is applied first
            await drainMainActor()
            #expect(doubled.value == 10)
            #expect(runs == 2)
        }
    }
}
