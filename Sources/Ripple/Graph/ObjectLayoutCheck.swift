internal import CRippleThreadState

/// The start-up check that lets the engine's callbacks take and drop references to node objects inline
/// (`ripple_object_lifetime.h`): it watches this process's Swift runtime count a probe object's references and
/// enables the inline paths only when the reference count word moves exactly as that header expects. The runtime
/// ships with the OS on Apple platforms, so its private layout is checked where it runs, not assumed; when the check
/// fails (or `RIPPLE_NO_INLINE_REFCOUNT` is set) every step goes through `swift_tryRetain` and `swift_release`.
enum ObjectLayoutCheck {
    /// Whether the inline paths are in use. Computed once per process, by the first ``Runtime`` (a static's
    /// initialization runs once, whichever thread gets there first); before that the callbacks call the runtime.
    static let usesInlineReferenceCounts: Bool = {
        let verified = !ripple_object_layout_forced_off() && probeAgreesWithTheLayout()
        ripple_object_layout_publish(verified)
        return verified
    }()

    /// What the probe's deinit found; outlives the probe.
    private final class DeinitOutcome {
        var deinitingAsExpected = false
    }

    /// A native object without weak references: its count lives in its own word.
    private final class Probe {
        let outcome: DeinitOutcome
        init(_ outcome: DeinitOutcome) { self.outcome = outcome }
        deinit {
            outcome.deinitingAsExpected = ripple_object_layout_check_deiniting(
                Unmanaged.passUnretained(self).toOpaque())
        }
    }

    /// Counts a probe's references up and down through the runtime and inline, then watches its deinit.
    static func probeAgreesWithTheLayout() -> Bool {
        let outcome = DeinitOutcome()
        var alive = false
        do {
            let probe = Probe(outcome)
            alive = ripple_object_layout_check_alive(Unmanaged.passUnretained(probe).toOpaque())
            withExtendedLifetime(probe) {}
        }
        return alive && outcome.deinitingAsExpected
    }
}
