internal import CRippleThreadState

/// Which runtime is evaluating (running a derivation's compute or an effect's run) on the current thread.
///
/// A C11 thread-local (the internal `CRippleThreadState` module) holds an unretained pointer to the innermost
/// evaluating ``Runtime``. An evaluation that finds the slot naming another runtime, or none, saves it, points it at
/// its own runtime and puts the saved value back when it returns (`evaluating(_:_:)`), so any nesting of runtimes on
/// one thread leaves the innermost one in the slot: runtimes nest in any order on one thread (runtime 1's effect
/// writes into runtime 2, whose effect runs runtime 1's effect), and each evaluation must find its own runtime
/// innermost and leave the slot as it found it. An evaluation that finds its own runtime there leaves it alone: a
/// flush marks its runtime once for all the computes and runs it makes (`Runtime.endBatch()`), as an evaluation
/// does for those its reads cause.
///
/// A read checks that the slot is empty or names its own runtime: a node of one runtime read inside another
/// runtime's derivation or effect could not be tracked. ``onCleanup(_:)-37wcr`` uses it to find the runtime whose
/// body is running, then asks that runtime which node evaluates (`Runtime.evaluatingNode`, the engine's record).
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

    /// Makes `runtime` (as the engine hands it to callbacks) the innermost evaluating runtime, before a compute or
    /// a run calls user code; returns the slot's value before, for `exit(restoring:)`.
    @inline(__always)
    static func enter(_ runtime: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
        let outer = innermost
        innermost = runtime  // a store: cheaper than comparing first
        return outer
    }

    /// Puts back what `enter(_:)` returned, once user code returned.
    @inline(__always)
    static func exit(restoring outer: UnsafeMutableRawPointer?) {
        innermost = outer
    }

    /// Whether the slot names `runtime` already. Compared as integers: one compare, no optional test.
    @inline(__always)
    static func names(_ runtime: UnsafeMutableRawPointer) -> Bool {
        UInt(bitPattern: innermost) == UInt(bitPattern: runtime)
    }

    /// Runs `body`, a compute of `runtime` (as the engine hands it to callbacks), with `runtime` as the innermost
    /// evaluating runtime. A flush (`Runtime.endBatch()`) marks its runtime once for all the computes it causes,
    /// as does an evaluation for the computes its reads cause: then the slot names the runtime already and the
    /// compute costs one comparison. (A read outside evaluations does not: the `released` hook of a declaration
    /// whose last reader it removed runs at once only while nothing is marked, and no code after the read would
    /// run it.) Otherwise `evaluatingMarked(_:_:)`, out of line, marks it around `body` (so that the common path
    /// saves no registers for it).
    @inline(__always)
    static func evaluating<T>(_ runtime: UnsafeMutableRawPointer, _ body: () -> T) -> T {
        if _fastPath(names(runtime)) { return body() }
        return evaluatingMarked(runtime, body)
    }

    /// `evaluating(_:_:)` when the slot does not name `runtime`: saves the slot, points it at `runtime` around
    /// `body` and puts it back.
    @inline(never)
    static func evaluatingMarked<T>(_ runtime: UnsafeMutableRawPointer, _ body: () -> T) -> T {
        let outer = enter(runtime)
        let result = body()
        exit(restoring: outer)
        return result
    }
}
