internal import CRippleThreadState

/// Which runtime is evaluating (running a derivation's compute or an effect's run) on the current thread.
///
/// A C11 thread-local (the internal `CRippleThreadState` module) holds an unretained pointer to the innermost
/// evaluating ``Runtime``. A runtime sets it when its evaluation depth goes from 0 to 1 and restores the previous
/// value when the depth returns to 0, so the slot is touched once per outermost evaluation, not per read. Reads
/// consult it only when their own runtime is not evaluating (depth 0): that is the case where a node of one runtime
/// is read inside another runtime's derivation or effect. ``onCleanup(_:)`` uses it to find the running effect.
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
