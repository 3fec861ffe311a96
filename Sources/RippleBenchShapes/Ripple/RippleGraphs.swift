import Ripple
import RippleBenchC

/// A node whose value can be read: lets one generic builder take a row of
/// atoms or a row of derivations (specialized for each, so a read is a direct
/// call).
protocol ReadableNode<Value>: AnyObject, Sendable {
    associatedtype Value
    var value: Value { get }
}

extension AtomObject: ReadableNode {}
extension Derivation: ReadableNode {}

/// Releases nodes from the last created to the first, so that no release
/// cascades down a long chain on the machine stack.
func releaseInReverse(_ nodes: inout [AnyObject]) {
    while !nodes.isEmpty { nodes.removeLast() }
}

// MARK: - cellx

/// The cellx layers through Ripple's Swift API.
public enum RippleCellx {
    public static let defaultGraphs = CellxCheck.defaultGraphs
    public static let defaultSamples = CellxCheck.defaultSamples

    public static func run(layers: Int, samples: Int = defaultSamples, graphs: Int = defaultGraphs) -> ShapeResult {
        CellxCheck.measure(layers: layers, samples: samples, graphs: graphs) { runGraph(layers: layers) }
    }

    static func layer<P: ReadableNode<Int>>(_ previous: [P], nodes: inout [AnyObject]) -> [Derivation<Int>] {
        let (a, b, c, d) = (previous[0], previous[1], previous[2], previous[3])
        let next = [
            derive { b.value },
            derive { a.value - c.value },
            derive { b.value + d.value },
            derive { c.value },
        ]
        for node in next {
            nodes.append(node)
            nodes.append(Effect { _ = node.value })
        }
        for node in next { _ = node.value }
        return next
    }

    /// Builds one graph and times its update.
    static func runGraph(layers: Int) -> (nanoseconds: UInt64, before: [Int], after: [Int]) {
        let runtime = Runtime()
        return withIsolatedRuntime(using: runtime) {
            var nodes: [AnyObject] = []
            let start = (1...4).map { atom($0) }
            var end = layer(start, nodes: &nodes)
            for _ in 1..<layers { end = layer(end, nodes: &nodes) }

            let t0 = now()
            let before = end.map(\.value)
            runtime.batch {
                for (index, source) in start.enumerated() { source.value = 4 - index }
            }
            let after = end.map(\.value)
            let elapsed = now() - t0

            end = []
            releaseInReverse(&nodes)
            return (elapsed, before, after)
        }
    }
}

// MARK: - dynamic graphs

/// The dynamic graphs through Ripple's Swift API; the layout (which nodes are
/// static, which leaves are read) comes from the C side's xmur3a/sfc32.
public enum RippleDynamic {
    public static let defaultSamples = 5

    final class Graph {
        var nodes: [AnyObject] = []
        var sources: [AtomObject<Double>] = []
        var leaves = NodeList<Derivation<Double>>([])
        let computes = Counter()
    }

    static func row<P: ReadableNode<Double>>(
        _ previous: [P], config: rb_dynamic_config_t, isStatic: ArraySlice<Bool>, counter: Counter
    ) -> [Derivation<Double>] {
        let width = previous.count
        return (0..<width).map { j in
            let inputs = NodeList((0..<Int(config.sources)).map { previous[(j + $0) % width] })
            if isStatic[isStatic.startIndex + j] {
                return derive {
                    counter.count += 1
                    var sum = 0.0
                    for k in 0..<inputs.count { sum += inputs.with(k) { $0.value } }
                    return sum
                }
            }
            let tail = inputs.count - 1
            return derive {
                counter.count += 1
                var sum = inputs.with(0) { $0.value }
                let drop = Int64(sum) & 1 != 0
                let dropIndex = sum.truncatingRemainder(dividingBy: Double(tail))
                for index in 0..<tail where !(drop && Double(index) == dropIndex) {
                    sum += inputs.with(index + 1) { $0.value }
                }
                return sum
            }
        }
    }

    static func build(_ config: rb_dynamic_config_t) -> Graph {
        let graph = Graph()
        let width = Int(config.width)
        var config = config
        var isStatic = [Bool](repeating: false, count: width * Int(config.layers - 1))
        var leafIndices = [Int](repeating: 0, count: width)
        var readCount = 0
        isStatic.withUnsafeMutableBufferPointer { flags in
            leafIndices.withUnsafeMutableBufferPointer { leaves in
                rb_dynamic_layout(&config, flags.baseAddress!, leaves.baseAddress!, &readCount)
            }
        }
        graph.sources = (0..<width).map { atom(Double($0)) }
        graph.nodes.append(contentsOf: graph.sources)
        var current = row(graph.sources, config: config, isStatic: isStatic[0..<width], counter: graph.computes)
        graph.nodes.append(contentsOf: current)
        for layer in 1..<Int(config.layers - 1) {
            let flags = isStatic[(layer * width)..<((layer + 1) * width)]
            current = row(current, config: config, isStatic: flags, counter: graph.computes)
            graph.nodes.append(contentsOf: current)
        }
        let leaves = NodeList(leafIndices[0..<readCount].map { current[$0] })
        graph.leaves = leaves
        graph.nodes.append(Effect { for l in 0..<leaves.count { leaves.with(l) { _ = $0.value } } })
        return graph
    }

    static func run(_ graph: Graph, config: rb_dynamic_config_t, runtime: Runtime) -> Double {
        let width = Int(config.width)
        let sources = graph.sources, leaves = graph.leaves
        for i in 0..<Int(config.iterations) {
            let index = i % width
            runtime.batch { sources[index].value = Double(i + index) }
            for l in 0..<leaves.count { leaves.with(l) { _ = $0.value } }
        }
        var total = 0.0
        for l in 0..<leaves.count { total = leaves.with(l) { $0.value } + total }
        return total
    }

    static func check(_ config: rb_dynamic_config_t, sum: Double, count: Int, verifier: Verifier) {
        let name = configName(config)
        verifier.expect(sum == config.expected_sum, "\(name): sum == \(sum), expected \(config.expected_sum)")
        verifier.expect(
            count == Int(config.expected_count), "\(name): count == \(count), expected \(config.expected_count)")
    }

    /// Runs once, then times `samples` runs (or, `fresh`, one run on a fresh
    /// graph whose count includes the first build: the small cases).
    public static func run(_ config: rb_dynamic_config_t, samples: Int = defaultSamples, fresh: Bool = false)
        -> ShapeResult
    {
        let runtime = Runtime()
        return withIsolatedRuntime(using: runtime) {
            let verifier = Verifier()
            var result = ShapeResult()
            let graph = build(config)
            if fresh {
                result.value = run(graph, config: config, runtime: runtime)
                result.count = graph.computes.count
                check(config, sum: result.value, count: result.count, verifier: verifier)
            } else {
                _ = run(graph, config: config, runtime: runtime)
                var best = UInt64.max
                for _ in 0..<max(samples, 1) {
                    let computes = graph.computes.count
                    let t0 = now()
                    let sum = run(graph, config: config, runtime: runtime)
                    let elapsed = now() - t0
                    let count = graph.computes.count - computes
                    check(config, sum: sum, count: count, verifier: verifier)
                    if elapsed < best {
                        best = elapsed
                        result.value = sum
                        result.count = count
                    }
                }
                result.milliseconds = Double(best) / 1e6
            }
            result.operations = Int(config.iterations)
            result.failures = verifier.failures
            graph.leaves = NodeList([])
            graph.sources = []
            releaseInReverse(&graph.nodes)
            return result
        }
    }
}

/// The name of a dynamic configuration.
public func configName(_ config: rb_dynamic_config_t) -> String {
    guard let name = config.name else { return "?" }
    let bytes = UnsafeRawPointer(name).assumingMemoryBound(to: UInt8.self)
    var length = 0
    while bytes[length] != 0 { length += 1 }
    return String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self)
}

// MARK: - propagation grid and chain

/// The propagation grid and the long chain through Ripple's Swift API.
public enum RippleGrid {
    public static let defaultSamples = GridCheck.defaultSamples

    /// `width` chains of `height` +1 derivations over one atom, an effect per
    /// chain; each operation is `source = source + 1` in a batch.
    public static func run(
        width: Int, height: Int, operations: Int, samples: Int = defaultSamples, checkEveryWrite: Bool = false
    ) -> ShapeResult {
        let runtime = Runtime()
        return withIsolatedRuntime(using: runtime) {
            var nodes: [AnyObject] = []
            var grid: GridInstance? = build(width: width, height: height, runtime: runtime, nodes: &nodes)
            let result = GridCheck.measure(
                grid!, width: width, height: height, operations: operations, samples: samples,
                checkEveryWrite: checkEveryWrite)
            grid = nil  // before the chains, so that no release cascades down one
            releaseInReverse(&nodes)
            return result
        }
    }

    /// One atom, `length` chained +1 derivations, one effect; `writes` writes,
    /// each checked (last == head + length).
    public static func chain(length: Int, writes: Int, samples: Int = defaultSamples) -> ShapeResult {
        run(width: 1, height: length, operations: writes, samples: samples, checkEveryWrite: true)
    }

    /// Builds the grid; `nodes` keeps every node (release it in reverse).
    static func build(width: Int, height: Int, runtime: Runtime, nodes: inout [AnyObject]) -> GridInstance {
        let counter = Counter()
        let source = atom(0)
        var ends: [Derivation<Int>] = []
        for _ in 0..<width {
            var current = derive { source.value + 1 }
            nodes.append(current)
            for _ in 1..<height {
                let previous = current
                current = derive { previous.value + 1 }
                nodes.append(current)
            }
            let end = current
            nodes.append(Effect { _ = end.value; counter.count += 1 })
            ends.append(end)
        }
        let list = NodeList(ends)
        return GridInstance(
            increment: { runtime.batch { source.value += 1 } },
            source: { source.value },
            end: { index in list.with(index) { $0.value } },
            counter: counter)
    }
}
