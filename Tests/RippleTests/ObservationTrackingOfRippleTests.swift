import Foundation
import Observation
import Testing

@_spi(Testing) @testable import Ripple

/// Ripple → Observation: atoms, derivations and async derivations read inside `withObservationTracking` fire its
/// `onChange` once per committed change (after a batch, never for an equal recomputation), and the trackers see the
/// new value; what SwiftUI relies on to re-render views that read Ripple state.
@Suite struct ObservationTrackingOfRippleTests {
    /// Tracks `read` once and records, at each `onChange`, what `seen` returns then.
    static func track<Value: Sendable>(
        _ read: () -> Void, seeing seen: @escaping @Sendable () -> Value, into log: Recorder<Value>
    ) {
        withObservationTracking(read) { log.append(seen()) }
    }

    /// The probe relies on Observation hashing the key paths it records, which it does only while tracking: if a
    /// toolchain stops doing so, this names the cause.
    @Test func theProbeSeesTrackingOnlyInsideWithObservationTracking() {
        let probe = Runtime.shared.observationProbe
        #expect(!ObservationProbe.isTracking(probe))
        let inside = withObservationTracking { ObservationProbe.isTracking(probe) } onChange: {}
        #expect(inside)
        let twice = withObservationTracking {
            (ObservationProbe.isTracking(probe), ObservationProbe.isTracking(probe))
        } onChange: {}
        #expect(twice == (true, true))
        #expect(!ObservationProbe.isTracking(probe))
    }

    @Test func anAtomReadUnderTrackingNotifiesOnceWithTheNewValue() {
        withIsolatedRuntime {
            let count = atom(1)
            let seen = Recorder<Int>()
            Self.track({ _ = count.value }, seeing: { count.value }, into: seen)
            #expect(seen.values == [])
            count.value = 2
            #expect(seen.values == [2])
            count.value = 3  // onChange is one-shot: the tracker has to read again
            #expect(seen.values == [2])
            Self.track({ _ = count.value }, seeing: { count.value }, into: seen)
            count.value = 4
            #expect(seen.values == [2, 4])
        }
    }

    @Test func aWriteOfAnEqualValueNotifiesNothing() {
        withIsolatedRuntime {
            let count = atom(1)
            let seen = Recorder<Int>()
            Self.track({ _ = count.value }, seeing: { count.value }, into: seen)
            count.value = 1
            #expect(seen.values == [])
            count.value = 5
            #expect(seen.values == [5])
        }
    }

    @Test func aBatchNotifiesOnceWhenItEndsWithTheLastValue() {
        withIsolatedRuntime {
            let count = atom(1)
            let seen = Recorder<Int>()
            Self.track({ _ = count.value }, seeing: { count.value }, into: seen)
            batch {
                count.value = 2
                count.value = 3
                #expect(seen.values == [])
            }
            #expect(seen.values == [3])
        }
    }

    @Test func aDerivationNotifiesOnlyWhenItsValueChanges() {
        withIsolatedRuntime {
            let count = atom(1)
            let parity = derive { count.value % 2 }
            let seen = Recorder<Int>()
            Self.track({ _ = parity.value }, seeing: { parity.value }, into: seen)
            count.value = 3  // parity recomputes to 1 again: no change
            #expect(seen.values == [])
            count.value = 4
            #expect(seen.values == [0])
        }
    }

    @Test func readsOfSeveralNodesNotifyOnceForABatchThatChangesAll() {
        withIsolatedRuntime {
            let first = atom("Ada")
            let last = atom("Lovelace")
            let full = derive { "\(first.value) \(last.value)" }
            let seen = Recorder<String>()
            Self.track({ _ = (first.value, last.value, full.value) }, seeing: { full.value }, into: seen)
            batch {
                first.value = "Grace"
                last.value = "Hopper"
            }
            #expect(seen.values == ["Grace Hopper"])
        }
    }

    @Test func readsOutsideTrackingRegisterNothing() {
        withIsolatedRuntime {
            let count = atom(1)
            let nodes = Runtime.current.liveNodeCount
            _ = count.value
            count.value = 2
            #expect(Runtime.current.observationRelays.isEmpty)
            #expect(Runtime.current.liveNodeCount == nodes)
        }
    }

    @Test func aReadInsideADerivationIsNotTrackedByObservationButTheDerivationIs() {
        withIsolatedRuntime {
            let count = atom(1)
            let doubled = derive { count.value * 2 }
            let seen = Recorder<Int>()
            Self.track({ _ = doubled.value }, seeing: { doubled.value }, into: seen)
            // Only the derivation read at the top has a relay: the atom it read inside its body has none.
            #expect(Runtime.current.observationRelays.count == 1)
            count.value = 2
            #expect(seen.values == [4])
        }
    }

    @Test func aRelayNobodyTrackedAgainIsDroppedAtTheNextChange() {
        withIsolatedRuntime {
            let count = atom(1)
            let nodes = Runtime.current.liveNodeCount
            let seen = Recorder<Int>()
            Self.track({ _ = count.value }, seeing: { count.value }, into: seen)
            #expect(Runtime.current.observationRelays.count == 1)
            #expect(Runtime.current.liveNodeCount == nodes + 1)
            count.value = 2  // notifies the tracker
            #expect(Runtime.current.observationRelays.count == 1)
            count.value = 3  // nobody read it under tracking since: the relay goes
            #expect(Runtime.current.observationRelays.isEmpty)
            #expect(Runtime.current.liveNodeCount == nodes)
            #expect(seen.values == [2])
        }
    }

    @Test func aTrackedReadDoesNotKeepTheNodeAlive() {
        withIsolatedRuntime {
            var count: AtomObject<Int>? = atom(1)
            weak let weakCount = count
            let seen = Recorder<Int>()
            Self.track({ _ = count?.value }, seeing: { 0 }, into: seen)
            release(&count)
            #expect(weakCount == nil)
            #expect(Runtime.current.observationRelays.isEmpty)
        }
    }

    @Test func anEffectInTheSameRuntimeAndATrackerBothSeeTheChangeOnce() {
        withIsolatedRuntime {
            let count = atom(1)
            let effectRuns = Recorder<Int>()
            let effect = Effect { effectRuns.append(count.value) }
            let seen = Recorder<Int>()
            Self.track({ _ = count.value }, seeing: { count.value }, into: seen)
            count.value = 2
            #expect(effectRuns.values == [1, 2])
            #expect(seen.values == [2])
            _ = effect
        }
    }

    @Test func aWriteOnAnotherThreadNotifiesOnThatThreadWithTheNewValue() async {
        let runtime = Runtime()
        let count = withIsolatedRuntime(using: runtime) { atom(1) }
        let seen = AwaitableLog<Int>()
        withObservationTracking { _ = count.value } onChange: { seen.append(count.value) }
        await runOnThread(stackSize: StackSize.small) { count.value = 2 }
        await seen.waitUntil(count: 1)
        #expect(seen.values == [2])
    }

    @Test func anObservationsSequenceYieldsEachCommittedValue() async {
        await withIsolatedRuntime { () async in
            let count = atom(1)
            var values = Observations { count.value }.makeAsyncIterator()
            #expect(await values.next() == 1)
            count.value = 2
            #expect(await values.next() == 2)
            batch {
                count.value = 3
                count.value = 4
            }
            #expect(await values.next() == 4)
        }
    }

    @Test func anAsyncDerivationNotifiesAtEachPhase() async throws {
        try await withIsolatedRuntime { () async throws in
            let gate = Gate<Void>()
            let number = derive { () async -> Int in
                await gate.wait()
                return 7
            }
            let seen = AwaitableLog<AsyncPhase<Int>>()
            withObservationTracking { _ = number.phase } onChange: { seen.append(number.phase) }
            #expect(number.phase == .suspending)
            gate.open()
            await seen.waitUntil(count: 1)
            #expect(seen.values == [.success(7)])
            #expect(number.lastValue == 7)
        }
    }
}
