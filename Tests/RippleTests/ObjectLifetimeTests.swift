import CRippleThreadState
import Testing

/// The try-retain and release the engine's callbacks use on node objects (`ripple_object_lifetime.h`): inline on an
/// object without a side table, through the Swift runtime otherwise; both agree with the runtime's own count.
@Suite struct ObjectLifetimeTests {
    /// What a try-retain of a probe returned inside the probe's deinit; outlives the probe.
    final class Outcome {
        var retainedInDeinit: Bool?
    }

    final class Probe {
        let outcome: Outcome
        init(_ outcome: Outcome) { self.outcome = outcome }
        deinit {
            outcome.retainedInDeinit = ripple_object_try_retain(Unmanaged.passUnretained(self).toOpaque())
        }
    }

    @Test func tryRetainCountsOneStrongReferenceAndReleaseDropsIt() {
        let probe = Probe(Outcome())
        let object = Unmanaged.passUnretained(probe).toOpaque()
        let before = _getRetainCount(probe)
        #expect(ripple_object_try_retain(object))
        #expect(ripple_object_try_retain(object))
        #expect(_getRetainCount(probe) == before + 2)
        ripple_object_release(object)
        ripple_object_release(object)
        #expect(_getRetainCount(probe) == before)
        withExtendedLifetime(probe) {}
    }

    @Test func tryRetainWithASideTableCountsOneStrongReference() {
        let probe = Probe(Outcome())
        weak let weakProbe = probe  // a side table: the runtime's path
        let object = Unmanaged.passUnretained(probe).toOpaque()
        let before = _getRetainCount(probe)
        #expect(ripple_object_try_retain(object))
        #expect(_getRetainCount(probe) == before + 1)
        ripple_object_release(object)
        #expect(_getRetainCount(probe) == before)
        #expect(weakProbe != nil)
        withExtendedLifetime(probe) {}
    }

    @Test func tryRetainFailsOnceTheDeinitHasBegun() {
        let outcome = Outcome()
        do { _ = Probe(outcome) }
        #expect(outcome.retainedInDeinit == false)
    }

    @Test func tryRetainWithASideTableFailsOnceTheDeinitHasBegun() {
        let outcome = Outcome()
        var hadWeakReference = false
        do {
            let probe = Probe(outcome)
            weak let weakProbe = probe
            hadWeakReference = weakProbe != nil
            withExtendedLifetime(probe) {}
        }
        #expect(hadWeakReference)
        #expect(outcome.retainedInDeinit == false)
    }

    /// The last reference dropped by `ripple_object_release` runs the deinit (through the runtime).
    @Test func releaseOfTheLastReferenceRunsTheDeinit() {
        let outcome = Outcome()
        let object = Unmanaged.passRetained(Probe(outcome)).toOpaque()
        #expect(outcome.retainedInDeinit == nil)
        ripple_object_release(object)
        #expect(outcome.retainedInDeinit == false)
    }
}
