import RippleBenchC

/// What one shape run measured and verified.
///
/// `milliseconds` is the fastest sample (BENCHMARKS.md reports the minimum over
/// samples). `value` and `count` are the shape's checked value and counter, so
/// that callers (the unit tests) can assert them exactly; `failures` lists the
/// checks that did not hold, and a run with failures measured a bug.
public struct ShapeResult: Sendable, Equatable {
    public var milliseconds: Double = 0
    public var operations: Int = 0
    public var value: Double = 0
    public var count: Int = 0
    public var failures: [String] = []

    /// The measured workload was scaled down by this factor and `milliseconds`
    /// scaled back up (used for Observation, whose full workloads take minutes).
    public var scale: Double = 1

    public init() {}

    /// The result of a shape timed by its fastest sample of `operations` operations, in milliseconds.
    init(milliseconds: Double, operations: Int, value: Double, count: Int, failures: [String]) {
        self.milliseconds = milliseconds
        self.operations = operations
        self.value = value
        self.count = count
        self.failures = failures
    }

    public var ok: Bool { failures.isEmpty }
}

/// Records failed checks without costing anything when they hold.
public final class Verifier {
    public private(set) var failures: [String] = []
    private var failureCount = 0

    public init() {}

    @inline(__always)
    public func expect(_ condition: Bool, _ message: @autoclosure () -> String) {
        if _slowPath(!condition) { record(message()) }
    }

    @inline(never)
    func record(_ message: String) {
        failureCount += 1
        if failures.count < 5 { failures.append(message) }
    }
}

/// A counter the node bodies bump: a pointer, so a closure that captures it
/// pays neither reference counting nor an exclusivity check per increment.
///
/// Sendable because only node bodies of one runtime bump it, and the engine
/// never runs two bodies of a runtime at once (include/ripple.h, "threads"):
/// each increment happens while the graph is held exclusively, and the shapes
/// read the count on the thread that ran the workload, after it.
public final class Counter: @unchecked Sendable {
    private let cell = UnsafeMutablePointer<Int>.allocate(capacity: 1)

    public init() { cell.initialize(to: 0) }
    deinit { cell.deallocate() }

    public var count: Int {
        @inline(__always) get { cell.pointee }
        @inline(__always) set { cell.pointee = newValue }
    }
}

/// Nanoseconds from the same monotonic clock as the C side.
@inline(__always)
func now() -> UInt64 { rb_clock_ns() }

/// Runs `samples` timed samples after the warm-up the caller did, and returns
/// the fastest in milliseconds.
func fastest(samples: Int, _ sample: () -> Void) -> Double {
    var best = UInt64.max
    for _ in 0..<max(samples, 1) {
        let start = now()
        sample()
        best = min(best, now() - start)
    }
    return Double(best) / 1e6
}

/// As `fastest(samples:_:)`, for samples that suspend.
func fastest(samples: Int, _ sample: () async -> Void) async -> Double {
    var best = UInt64.max
    for _ in 0..<max(samples, 1) {
        let start = now()
        await sample()
        best = min(best, now() - start)
    }
    return Double(best) / 1e6
}

/// K8's busy(): the C loop the compiler cannot delete, shared with the C side.
@inline(__always)
func busy() -> Int { Int(rb_busy_loop()) }

/// Whether this toolchain has Swift's Observation module (the Observation
/// column is empty without it).
#if canImport(Observation)
public let observationIsAvailable = true
#else
public let observationIsAvailable = false
#endif

/// Nodes that a body reads in a loop. Swift retains and releases each element
/// of `for node in array { node.value }` around the call (the call could, as
/// far as the compiler knows, mutate memory), which is the shape code's cost,
/// not Ripple's; so loops read through unretained handles while `nodes` keeps
/// every node alive.
struct NodeList<Node: AnyObject & Sendable>: Sendable {
    let nodes: [Node]
    private let handles: [Unmanaged<Node>]

    init(_ nodes: [Node]) {
        self.nodes = nodes
        handles = nodes.map { Unmanaged.passUnretained($0) }
    }

    var count: Int { handles.count }

    @inline(__always)
    func with<Result>(_ index: Int, _ body: (Node) -> Result) -> Result {
        handles[index]._withUnsafeGuaranteedRef(body)
    }
}
