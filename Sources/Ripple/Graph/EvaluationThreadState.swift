#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#elseif canImport(Darwin)
internal import Darwin
#endif

/// Which runtime is evaluating (running a derivation's compute or an effect's run) on the current thread.
///
/// One pthread key holds an unretained pointer to the innermost evaluating ``Runtime``. A runtime sets it when its
/// evaluation depth goes from 0 to 1 and restores the previous value when the depth returns to 0, so the slot is
/// touched once per outermost evaluation, not per read. Reads consult it only when their own runtime is not
/// evaluating (depth 0): that is the case where a node of one runtime is read inside another runtime's
/// derivation or effect. ``onCleanup(_:)`` uses it to find the running effect.
enum EvaluationThreadState {
    /// The key, created once per process. Never deleted: it lives as long as the process.
    static let key: pthread_key_t = {
        var key = pthread_key_t()
        let result = pthread_key_create(&key, nil)
        precondition(result == 0, "Ripple: pthread_key_create failed (\(result)): out of thread-local keys.")
        return key
    }()

    /// The innermost runtime evaluating on this thread, as `Unmanaged<Runtime>` opaque pointer, or nil.
    static var innermost: UnsafeMutableRawPointer? {
        @inline(__always) get { pthread_getspecific(key) }
        @inline(__always) set { _ = pthread_setspecific(key, newValue) }
    }

    /// The innermost runtime evaluating on this thread, or nil.
    static var innermostRuntime: Runtime? {
        innermost.map { Unmanaged<Runtime>.fromOpaque($0).takeUnretainedValue() }
    }
}
