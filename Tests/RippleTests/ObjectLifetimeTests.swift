import CRippleThreadState
import Foundation
@testable import Ripple
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

/// The start-up check that enables the inline paths (`ObjectLayoutCheck`, `ripple_object_layout_check_alive` and
/// `..._deiniting`): it passes on this runtime, rejects words it does not expect, and, forced off, leaves every step
/// to the Swift runtime's functions, which keep the same counts.
@Suite struct ObjectLayoutCheckTests {
    final class Plain {}

    /// What this process should have chosen: inline unless `RIPPLE_NO_INLINE_REFCOUNT` forces the runtime's functions
    /// (scripts/test runs the whole suite both ways).
    static var expectedLayout: Int {
        ripple_object_layout_forced_off() ? Int(RIPPLE_OBJECT_LAYOUT_RUNTIME) : Int(RIPPLE_OBJECT_LAYOUT_INLINE)
    }

    @Test func theFirstRuntimeChecksTheLayoutAndPublishesTheOutcome() {
        _ = Runtime()
        #expect(Int(ripple_object_layout_state()) == Self.expectedLayout)
        #expect(ObjectLayoutCheck.usesInlineReferenceCounts == !ripple_object_layout_forced_off())
    }

    @Test func aProbeCountedByTheRuntimeAndInlineAgreesWithTheLayout() {
        #expect(ObjectLayoutCheck.probeAgreesWithTheLayout())
    }

    /// A word with a side table (a weak reference) is not the layout the check expects, nor is a live object's
    /// a deiniting one: the check says no to both, and changes no count.
    @Test func theCheckRejectsWordsItDoesNotExpect() {
        let plain = Plain()
        let object = Unmanaged.passUnretained(plain).toOpaque()
        #expect(!ripple_object_layout_check_deiniting(object))
        let before = _getRetainCount(plain)
        weak let weakPlain = plain
        #expect(!ripple_object_layout_check_alive(object))
        #expect(_getRetainCount(plain) == before)
        #expect(weakPlain != nil)
        withExtendedLifetime(plain) {}
    }

    /// Forced off before the first runtime (in a process of its own), the check publishes the runtime's functions,
    /// and the try-retain and release keep the runtime's counts and refuse a deiniting object through them.
    @Test func forcedOffEveryStepGoesThroughTheRuntime() async {
        await #expect(processExitsWith: .success) {
            setenv("RIPPLE_NO_INLINE_REFCOUNT", "1", 1)
            _ = Runtime()
            guard Int(ripple_object_layout_state()) == Int(RIPPLE_OBJECT_LAYOUT_RUNTIME),
                !ObjectLayoutCheck.usesInlineReferenceCounts
            else { exit(1) }
            let probe = ObjectLifetimeTests.Probe(ObjectLifetimeTests.Outcome())
            let object = Unmanaged.passUnretained(probe).toOpaque()
            let before = _getRetainCount(probe)
            guard ripple_object_try_retain(object), _getRetainCount(probe) == before + 1 else { exit(2) }
            ripple_object_release(object)
            guard _getRetainCount(probe) == before else { exit(3) }
            withExtendedLifetime(probe) {}
            let outcome = ObjectLifetimeTests.Outcome()
            do { _ = ObjectLifetimeTests.Probe(outcome) }
            guard outcome.retainedInDeinit == false else { exit(4) }
        }
    }
}
