internal import CRippleThreadState

/// Which runtime is evaluating (running a derivation's compute or an effect's run) on the current thread.
///
/// A C11 thread-local (the internal `CRippleThreadState` module) holds an unretained pointer to the innermost
/// evaluating ``Runtime``. Every evaluation saves the slot, points it at its own runtime and puts the saved value
/// back when it returns (`RuntimeState.enterEvaluation(host:)`), so any nesting of runtimes on one thread leaves the
/// innermost one in the slot. A read checks that the slot is empty or names its own runtime: a node of one runtime
/// read inside another runtime's derivation or effect could not be tracked. ``onCleanup(_:)-37wcr`` uses it to find
/// the running effect or derivation.
enum EvaluationThreadState {
    /// The innermost runtime evaluating on this thread, as `Unmanaged<Runtime>` opaque pointer, or nil.
    static var innermost: UnsafeMutableRawPointer? {
        @inline(__always) get { ripple_thread_state_evaluating() }
        @inline(__always) set { ripple_thread_state_set_evaluating(newValue) }
    }

    /// The innermost runtime evaluating on this thread, or nil.
    static var innermostRuntime: Runtime? {
        innermost.map { Unmanaged<Runtime>.fromOpaque($0).takeUnretainedValue() }
    }
}
