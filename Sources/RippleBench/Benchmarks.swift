import Foundation
import RippleBenchC
import RippleBenchShapes

struct Options {
    /// The row ids and groups named by `--shape` (any number); empty: every row.
    var shapes: [String] = []
    var samples: Int?
    var json = false
    var list = false
    /// `--compare DIR`: print the comparison of the reports in DIR instead of running anything.
    var compare: String?
    var c = true
    var floor = true
    var swift = true
    var observation = true

    func samples(_ standard: Int) -> Int { samples ?? standard }

    /// Observation's samples: its workloads are scaled down, and it is slow.
    func observationSamples(_ standard: Int) -> Int { min(samples ?? standard, 3) }
}

/// A shape of BENCHMARKS.md and how to measure it.
struct Benchmark {
    var id: String
    var group: String
    var title: String
    var run: (inout Row, Options) -> Void
}

/// Observation runs 1/scale of each workload (its full workloads take minutes);
/// the table scales its time back up and says so.
enum ObservationScale {
    static let kairo = 10
    static let grid = 10
    static let cellx = 10
}

func catalogue() -> [Benchmark] {
    var benchmarks: [Benchmark] = []

    for shape in KairoShape.allCases {
        benchmarks.append(
            Benchmark(id: shape.id, group: "kairo", title: "\(shape.id) \(shape.name)") { row, options in
                let samples = options.samples(KairoShape.defaultSamples)
                let calls = KairoShape.defaultCalls
                let kairo = rb_kairo_t(UInt32(shape.rawValue))
                if options.c { row.takeC(rb_kairo_run(kairo, RB_BACKEND_RIPPLE, Int32(samples), Int32(calls)), label: "C") }
                if options.floor { row.takeFloor(rb_kairo_run(kairo, RB_BACKEND_FLOOR, Int32(samples), Int32(calls))) }
                if options.swift { row.takeSwift(RippleKairo.run(shape, samples: samples, calls: calls)) }
                if options.observation {
                    #if canImport(Observation)
                    var result = ObservationKairo.run(
                        shape, samples: options.observationSamples(KairoShape.defaultSamples),
                        calls: calls / ObservationScale.kairo)
                    result.scale = Double(ObservationScale.kairo)
                    row.takeObservation(result)
                    #endif
                }
            })
    }

    for layers in [1000, 2500, 5000] {
        benchmarks.append(
            Benchmark(id: "cellx-\(layers)", group: "cellx", title: "cellx \(layers)") { row, options in
                let samples = options.samples(RippleCellx.defaultSamples)
                let graphs = RippleCellx.defaultGraphs
                if options.c { row.takeC(rb_cellx_run(Int32(layers), RB_BACKEND_RIPPLE, Int32(samples), Int32(graphs)), label: "C") }
                if options.floor { row.takeFloor(rb_cellx_run(Int32(layers), RB_BACKEND_FLOOR, Int32(samples), Int32(graphs))) }
                if options.swift { row.takeSwift(RippleCellx.run(layers: layers, samples: samples, graphs: graphs)) }
                if options.observation {
                    #if canImport(Observation)
                    var result = ObservationGraphs.cellx(
                        layers: layers, samples: options.observationSamples(RippleCellx.defaultSamples),
                        graphs: graphs / ObservationScale.cellx)
                    result.scale = Double(ObservationScale.cellx)
                    row.takeObservation(result)
                    #endif
                }
            })
    }

    for index in 0..<Int(RB_DYNAMIC_CONFIGS) {
        let config = dynamicConfig(index)
        let name = configName(config)
        let id = "dynamic-" + (name.split(separator: " ").first.map(String.init) ?? name)
        benchmarks.append(
            Benchmark(id: id, group: "dynamic", title: name) { row, options in
                let samples = options.samples(RippleDynamic.defaultSamples)
                withUnsafePointer(to: config) { pointer in
                    if options.c { row.takeC(rb_dynamic_run(pointer, RB_BACKEND_RIPPLE, Int32(samples), false), label: "C") }
                    if options.floor { row.takeFloor(rb_dynamic_run(pointer, RB_BACKEND_FLOOR, Int32(samples), false)) }
                }
                if options.swift { row.takeSwift(RippleDynamic.run(config, samples: samples)) }
                row.observationNote = "no lazy derived values"
                row.notes.append("sum \(formatSum(config.expected_sum)), count \(config.expected_count)")
            })
    }

    for width in [1, 10, 100] {
        for height in [1, 10, 100] {
            let operations = max(100, 1_000_000 / (width * (height + 1)))
            benchmarks.append(
                Benchmark(id: "propagate-\(width)x\(height)", group: "propagate", title: "propagate \(width)x\(height)") {
                    row, options in
                    let samples = options.samples(RippleGrid.defaultSamples)
                    if options.c {
                        let c = rb_grid_run(
                            Int32(width), Int32(height), Int32(operations), RB_BACKEND_RIPPLE, Int32(samples))
                        row.takeC(c, label: "C")
                        row.notes.append("\(operations) ops, C \(format(c.ms * 1e6 / Double(operations))) ns/op")
                    }
                    if options.floor {
                        row.takeFloor(
                            rb_grid_run(Int32(width), Int32(height), Int32(operations), RB_BACKEND_FLOOR, Int32(samples)))
                    }
                    if options.swift {
                        row.takeSwift(RippleGrid.run(width: width, height: height, operations: operations, samples: samples))
                    }
                    if options.observation {
                        #if canImport(Observation)
                        var result = ObservationGraphs.grid(
                            width: width, height: height, operations: max(1, operations / ObservationScale.grid),
                            samples: options.observationSamples(RippleGrid.defaultSamples))
                        result.scale = Double(operations) / Double(max(1, operations / ObservationScale.grid))
                        row.takeObservation(result)
                        #endif
                    }
                })
        }
    }

    benchmarks.append(
        Benchmark(id: "chain", group: "chain", title: "chain 1000x10k") { row, options in
            let samples = options.samples(RippleGrid.defaultSamples)
            if options.c { row.takeC(rb_chain_run(1000, 10_000, RB_BACKEND_RIPPLE, Int32(samples)), label: "C") }
            if options.floor { row.takeFloor(rb_chain_run(1000, 10_000, RB_BACKEND_FLOOR, Int32(samples))) }
            if options.swift { row.takeSwift(RippleGrid.chain(length: 1000, writes: 10_000, samples: samples)) }
            if options.observation {
                #if canImport(Observation)
                var result = ObservationGraphs.grid(
                    width: 1, height: 1000, operations: 10_000 / ObservationScale.grid,
                    samples: options.observationSamples(RippleGrid.defaultSamples), checkEveryWrite: true)
                result.scale = Double(ObservationScale.grid)
                row.takeObservation(result)
                #endif
            }
        })

    benchmarks.append(contentsOf: creationBenchmarks())
    benchmarks.append(contentsOf: memoryBenchmarks())
    benchmarks.append(wrapperReadBenchmark())
    benchmarks.append(contentsOf: threadBenchmarks())
    benchmarks.append(contentsOf: asyncBenchmarks())
    benchmarks.append(snapshotBenchmark())
    benchmarks.append(undoBenchmark())
    benchmarks.append(storeBenchmark())
    benchmarks.append(declaredBenchmark())
    benchmarks.append(contentsOf: listsBenchmarks())
    benchmarks.append(persistenceBenchmark())
    return benchmarks
}

func dynamicConfig(_ index: Int) -> rb_dynamic_config_t {
    withUnsafePointer(to: rb_dynamic_configs) {
        $0.withMemoryRebound(to: rb_dynamic_config_t.self, capacity: Int(RB_DYNAMIC_CONFIGS)) { $0[index] }
    }
}

/// Creation and teardown: one measurement, four rows.
private func creationBenchmarks() -> [Benchmark] {
    let count = RippleCreation.defaultCount
    let phases: [(id: String, title: String, c: (rb_creation_t) -> Double, swift: (CreationResult) -> Double)] = [
        ("create-atoms", "create 100k atoms", { $0.atoms_ms }, { $0.atoms }),
        ("create-derived", "create 100k derived", { $0.derived_ms }, { $0.derived }),
        ("create-effects", "create 100k effects", { $0.effects_ms }, { $0.effects }),
        ("teardown", "teardown 300k", { $0.teardown_ms }, { $0.teardown }),
    ]
    final class Cache: @unchecked Sendable {
        var c: rb_creation_t?
        var swift: CreationResult?
        var observation: CreationResult?
        var floor: CreationResult?
    }
    let cache = Cache()
    return phases.map { phase in
        Benchmark(id: phase.id, group: "create", title: phase.title) { row, options in
            let samples = options.samples(RippleCreation.defaultSamples)
            if cache.c == nil { cache.c = rb_creation_run(Int32(count), Int32(samples)) }
            if options.swift, cache.swift == nil {
                cache.swift = RippleCreation.run(count: count, samples: samples)
                cache.floor = SwiftRuntimeFloor.creation(count: count, samples: samples)
            }
            #if canImport(Observation)
            if options.observation, cache.observation == nil {
                cache.observation = ObservationGraphs.creation(
                    count: count, samples: options.observationSamples(RippleCreation.defaultSamples))
            }
            #endif
            let c = cache.c!
            row.cMilliseconds = phase.c(c)
            row.cAllocations = nil
            if c.failed != 0 {
                var message = c.message
                let text = withUnsafeBytes(of: &message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                row.failures.append("C: \(text)")
            }
            if let swift = cache.swift {
                row.swiftMilliseconds = phase.swift(swift)
                row.failures += swift.failures.map { "Swift: \($0)" }
            }
            if let observation = cache.observation {
                row.observationMilliseconds = phase.swift(observation)
                row.failures += observation.failures.map { "Observation: \($0)" }
            }
            row.notes.append("\(format(phase.c(c) * 1e6 / Double(phase.id == "teardown" ? 3 * count : count))) ns/node C")
            if let floor = cache.floor {
                // The Swift column also makes (or disposes of) the C column's engine nodes: on a heap both find
                // warm, Swift/C is at least 1 + this ratio.
                let floorMilliseconds = phase.swift(floor)
                row.notes.append(
                    "malloc and the Swift runtime alone \(format(floorMilliseconds)) ms "
                        + "(\(format(floorMilliseconds / phase.c(c)))x C)")
                row.failures += floor.failures.map { "Swift runtime floor: \($0)" }
            }
            if phase.id == "create-derived" { row.notes.append("lazy: created, not computed") }
        }
    }
}

/// The wrappers' read path (Swift only): the time is the class property's reads; the notes compare it with a
/// derivation read and a local `@Derived`.
private func wrapperReadBenchmark() -> Benchmark {
    Benchmark(id: "wrappers-read", group: "wrappers", title: "read @Derived of a class 1M") { row, options in
        guard options.swift else { return }
        let reads = RippleWrappers.defaultReads
        let costs = RippleWrappers.readCosts(reads: reads, samples: options.samples(RippleWrappers.defaultSamples))
        row.swiftMilliseconds = costs.classProperty * Double(reads) / 1e6
        row.failures += costs.failures.map { "Swift: \($0)" }
        row.notes.append(
            "ns/read: Derivation \(format(costs.derivation)), local @Derived \(format(costs.localWrapper)), "
                + "class @Derived \(format(costs.classProperty)) "
                + "(\(format(costs.classProperty / costs.derivation))x a Derivation read)")
        row.observationNote = "not applicable"
    }
}

/// Memory: engine accounting (C) and the process heap (Swift).
private func memoryBenchmarks() -> [Benchmark] {
    [
        Benchmark(id: "memory-grid", group: "memory", title: "memory grid 100x100") { row, options in
            if options.swift {
                let swift = RippleCreation.memory(count: 10_000, width: 100, height: 100)
                row.notes.append(
                    "Swift: \(format(swift.gridPerNode)) B/node heap, \(format(swift.residentPerNode)) B/node resident")
            }
            let c = rb_memory_grid(100, 100)
            row.notes.insert(
                "C: \(format(c.bytes_per_node)) B/node + \(format(c.bytes_per_edge)) B/edge in use, "
                    + "\(format(c.reserved_per_node)) B/node reserved (\(c.nodes) nodes, \(c.edges) edges)", at: 0)
            if c.failed != 0 { row.failures.append("C memory check failed") }
        },
        Benchmark(id: "memory-kinds", group: "memory", title: "memory 10k each kind") { row, options in
            let c = rb_memory_kinds(10_000)
            row.notes.append(
                "C: \(format(c.bytes_per_node)) B/node + \(format(c.bytes_per_edge)) B/edge in use, "
                    + "\(format(c.reserved_per_node)) B/node reserved")
            if options.swift {
                let swift = RippleCreation.memory(count: 10_000, width: 1, height: 1)
                // A kind's bytes: its object's block, its body's closure block, and the engine's share (the rest).
                func split(_ kind: String, _ total: Double, object: Int, body: Int?) -> String {
                    let engine = total - Double(object + (body ?? 0))
                    return "\(format(total)) B/\(kind) (object \(object), " + (body.map { "body \($0), " } ?? "")
                        + "engine \(format(engine)))"
                }
                let kinds = [
                    split("atom", swift.perAtom, object: swift.atomObject, body: nil),
                    split(
                        "derivation", swift.perDerivation, object: swift.derivationObject, body: swift.derivationBody),
                    split("effect", swift.perEffect, object: swift.effectObject, body: swift.effectBody),
                ]
                row.notes.append("Swift heap: " + kinds.joined(separator: ", ") + "; engine: node, edge, reserve")
            }
            if c.failed != 0 { row.failures.append("C memory check failed") }
        },
    ]
}

/// Async derivations (Swift only): bytes per async derivation, and a write to the `.success` an effect sees,
/// against the same written by hand (a task per write, an NSLock, a continuation) in the floor column.
private func asyncBenchmarks() -> [Benchmark] {
    [
        Benchmark(id: "async-memory", group: "async", title: "memory 10k async") { row, options in
            row.observationNote = "not applicable"
            guard options.swift else { return }
            let count = RippleAsync.defaultMemoryCount
            let memory = runBlocking { await RippleAsync.memory(count: count) }
            row.failures += memory.failures.map { "Swift: \($0)" }
            row.figures["heapBytesPerAsyncNode"] = memory.heapPerAsync
            row.figures["engineBytesPerAsyncNode"] = memory.enginePerAsync
            row.figures["residentBytesPerAsyncNode"] = memory.residentPerAsync
            row.figures["heapBytesPerDerivation"] = memory.heapPerDerivation
            row.figures["engineBytesPerDerivation"] = memory.enginePerDerivation
            row.notes.append(
                "Swift heap \(format(memory.heapPerAsync)) B/async node (object, engine node + edge, closure, settled run),"
                    + " engine \(format(memory.enginePerAsync)) B/node in use,"
                    + " resident \(format(memory.residentPerAsync)) B/node;"
                    + " a derivation: heap \(format(memory.heapPerDerivation)) B, engine \(format(memory.enginePerDerivation)) B")
        },
        Benchmark(id: "async-write", group: "async", title: "async write→success 10k") { row, options in
            row.observationNote = "not applicable"
            let samples = options.samples(RippleAsync.defaultSamples)
            let iterations = RippleAsync.defaultIterations
            var notes: [String] = []
            // Hand-written first, then Ripple: the same process, one after the other.
            if options.floor {
                let hand = runBlocking { await RippleAsync.handWritten(iterations: iterations, samples: samples) }
                let ns = row.takeHandWritten(hand, operations: iterations, figure: "handNsPerIteration")
                notes.append("by hand \(format(ns / 1000)) us")
            }
            if options.swift {
                let ripple = runBlocking { await RippleAsync.ripple(iterations: iterations, samples: samples) }
                let ns = row.takeSwift(ripple, operations: iterations, figure: "swiftNsPerIteration")
                notes.insert("Ripple \(format(ns / 1000)) us", at: 0)
            }
            row.takeSwiftOverHand(notes: &notes)
            row.notes.append("per write→success: " + notes.joined(separator: ", "))
        },
    ]
}

/// Snapshots (Swift only): capturing and restoring the values of 10,000 atoms, and the heap a snapshot holds.
/// The Swift column is the capture; the restore and the bytes are in the notes and figures.
private func snapshotBenchmark() -> Benchmark {
    Benchmark(id: "snapshot", group: "snapshot", title: "snapshot 10k atoms") { row, options in
        row.observationNote = "not applicable"
        guard options.swift else { return }
        let count = RippleSnapshots.defaultCount
        let figures = RippleSnapshots.run(count: count, samples: options.samples(RippleSnapshots.defaultSamples))
        row.swiftMilliseconds = figures.captureMilliseconds
        row.failures += figures.failures.map { "Swift: \($0)" }
        row.figures["captureMilliseconds"] = figures.captureMilliseconds
        row.figures["restoreMilliseconds"] = figures.restoreMilliseconds
        row.figures["snapshotBytesPerAtom"] = figures.bytesPerAtom
        row.notes.append(
            "capture \(format(figures.captureMilliseconds)) ms (\(format(figures.captureMilliseconds * 1e6 / Double(count)))"
                + " ns/atom), restore \(format(figures.restoreMilliseconds)) ms (all \(count) changed, one effect run),"
                + " \(format(figures.bytesPerAtom)) B/atom held")
    }
}

/// Undo (Swift only): a write's cost without a history, after one was released, and with one attached (a step per
/// write, and inside one batch); one undo of a step of 10,000 atoms against restoring a snapshot. The Swift column
/// is the undo; the rest is in the notes and figures.
private func undoBenchmark() -> Benchmark {
    Benchmark(id: "undo", group: "undo", title: "undo 10k atoms") { row, options in
        row.observationNote = "not applicable"
        guard options.swift else { return }
        let figures = RippleUndo.run(samples: options.samples(RippleUndo.defaultSamples))
        row.swiftMilliseconds = figures.undoMilliseconds
        row.failures += figures.failures.map { "Swift: \($0)" }
        row.figures["undoMilliseconds"] = figures.undoMilliseconds
        row.figures["restoreMilliseconds"] = figures.restoreMilliseconds
        row.figures["plainWriteNs"] = figures.plainWriteNanoseconds
        row.figures["releasedHistoryWriteNs"] = figures.releasedHistoryWriteNanoseconds
        row.figures["recordedStepWriteNs"] = figures.recordedStepWriteNanoseconds
        row.figures["plainBatchedWriteNs"] = figures.plainBatchedWriteNanoseconds
        row.figures["recordedBatchedWriteNs"] = figures.recordedBatchedWriteNanoseconds
        row.notes.append(
            "undo \(format(figures.undoMilliseconds)) ms vs restore \(format(figures.restoreMilliseconds)) ms"
                + " (10,000 atoms changed, one effect run each); per write: no history"
                + " \(format(figures.plainWriteNanoseconds)) ns, history released"
                + " \(format(figures.releasedHistoryWriteNanoseconds)) ns, history attached (a step per write)"
                + " \(format(figures.recordedStepWriteNanoseconds)) ns; in one batch: no history"
                + " \(format(figures.plainBatchedWriteNanoseconds)) ns, history"
                + " \(format(figures.recordedBatchedWriteNanoseconds)) ns")
    }
}

/// The store (Swift only): one action through the reducer, the state change and one observing effect, against the
/// same by hand (a lock, the reducer, a callback) in the floor column; and the cost of a store property read.
private func storeBenchmark() -> Benchmark {
    Benchmark(id: "store", group: "store", title: "store action→effect 100k") { row, options in
        row.observationNote = "not applicable"
        let samples = options.samples(RippleStore.defaultSamples)
        let actions = RippleStore.defaultActions
        var notes: [String] = []
        if options.floor {
            let hand = RippleStore.handWritten(actions: actions, samples: samples)
            let ns = row.takeHandWritten(hand, operations: actions, figure: "handNsPerAction")
            notes.append("by hand \(format(ns)) ns")
        }
        if options.swift {
            let ripple = RippleStore.ripple(actions: actions, samples: samples)
            let ns = row.takeSwift(ripple, operations: actions, figure: "swiftNsPerAction")
            notes.insert("Ripple \(format(ns)) ns", at: 0)
            let (read, failures) = RippleStore.readNanoseconds(samples: samples)
            row.failures += failures.map { "Swift read: \($0)" }
            row.figures["swiftNsPerPropertyRead"] = read
            notes.append("a store property read \(format(read)) ns")
            let (bare, bareFailures) = RippleStore.atomNanoseconds(actions: actions, samples: samples)
            row.failures += bareFailures.map { "Swift atom: \($0)" }
            row.figures["swiftNsPerAtomUpdate"] = bare
            notes.append("the same graph without a store (atom update→derivation→effect) \(format(bare)) ns")
        }
        row.takeSwiftOverHand(notes: &notes)
        row.notes.append("per action→effect: " + notes.joined(separator: ", "))
    }
}

/// Declared state (Swift only): a declaration's read against a node's (at most 1.5x inside a body), a family look-up, churn of
/// 1,000,000 family members read once each, and the memory a member costs and gives back. The Swift column is the
/// declaration read per 1,000,000 reads; the rest is in the notes and figures.
private func declaredBenchmark() -> Benchmark {
    Benchmark(id: "declared", group: "declared", title: "declared state") { row, options in
        row.observationNote = "not applicable"
        guard options.swift else { return }
        let figures = RippleDeclared.run(samples: options.samples(RippleDeclared.defaultSamples))
        row.swiftMilliseconds = figures.declarationReadNs * Double(RippleDeclared.defaultReads) / 1e6
        row.failures += figures.failures.map { "Swift: \($0)" }
        // The bound is on reads inside derivations and effects, where the runtime comes from the thread's
        // evaluation record. A top-level read also looks up Runtime.current (a task-local): shown, not bounded.
        if figures.readRatioInBody > 1.5 {
            row.failures.append(
                "a declaration read in a body costs \(format(figures.readRatioInBody))x a node read: more than 1.5x")
        }
        row.figures["nodeReadNs"] = figures.nodeReadNs
        row.figures["declarationReadNs"] = figures.declarationReadNs
        row.figures["nodeReadInBodyNs"] = figures.nodeReadInBodyNs
        row.figures["declarationReadInBodyNs"] = figures.declarationReadInBodyNs
        row.figures["familyReadNs"] = figures.familyReadNs
        row.figures["churnNsPerMember"] = figures.churnNs
        row.figures["residentBytesBeforeChurn"] = Double(figures.residentBeforeChurn)
        row.figures["residentBytesAfterChurn"] = Double(figures.residentAfterChurn)
        row.figures["bytesPerInstance"] = figures.bytesPerInstance
        let mib = { (bytes: Int) in format(Double(bytes) / 1_048_576) }
        row.notes.append(
            "read: node \(format(figures.nodeReadNs)) ns, declaration \(format(figures.declarationReadNs)) ns"
                + " (\(format(figures.readRatio))x); in a body \(format(figures.nodeReadInBodyNs)) vs"
                + " \(format(figures.declarationReadInBodyNs)) ns (\(format(figures.readRatioInBody))x);"
                + " family look-up \(format(figures.familyReadNs)) ns; churn \(format(figures.churnNs)) ns/member;"
                + " resident \(mib(figures.residentBeforeChurn)) → \(mib(figures.residentAfterChurn)) MiB over"
                + " \(figures.churnKeys) keys; \(format(figures.bytesPerInstance)) B/member")
    }
}

/// Runs `body` in a task and blocks the calling thread (the main thread, never one of the cooperative pool's)
/// until it returns.
func runBlocking<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let box = ResultBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        box.value = await body()
        done.signal()
    }
    done.wait()
    return box.value!
}

/// Written by the task before it signals, read by the blocked thread after: the semaphore orders the two.
private final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}

/// One graph shared by threads: reads by 1 and 2 threads (one measurement, two rows, so that the 2-thread row
/// can say how it scales), and writes by one thread with 0, 1 and 2 readers (one measurement, three rows).
private func threadBenchmarks() -> [Benchmark] {
    final class Cache: @unchecked Sendable {
        var reads: [String: [Int: Row]] = [:]
        var writes: [Int: Row]?
    }
    let cache = Cache()
    let readers = [1, 2]
    /// The floor runs this many times the reads (a bare atomic load is so fast that the threads' start times
    /// would otherwise weigh in its figure); its milliseconds are scaled back to the row's reads.
    let floorScale = 16

    func measureReads(_ subject: rb_threads_subject_t, options: Options) -> [Int: Row] {
        let samples = options.samples(RippleThreads.defaultSamples)
        let reads = RippleThreads.defaultReads
        var rows: [Int: Row] = [:]
        for count in readers {
            var row = Row(id: "", group: "threads", title: "")
            if options.c {
                let c = rb_threads_read_run(subject, RB_BACKEND_RIPPLE, Int32(count), Int32(reads), Int32(samples))
                row.takeC(c.result, label: "C")
                row.threads["c"] = ThreadFigures(c)
            }
            if options.floor {
                let floor = rb_threads_read_run(
                    subject, RB_BACKEND_FLOOR, Int32(count), Int32(reads * floorScale), Int32(samples))
                row.takeFloor(floor.result)
                row.floorMilliseconds = floor.result.ms / Double(floorScale)
                var figures = ThreadFigures(floor)
                figures.scale = floorScale
                row.threads["floor"] = figures
            }
            if options.swift {
                let (swift, figures) = RippleThreads.read(subject, readers: count, reads: reads, samples: samples)
                row.takeSwift(swift)
                row.threads["swift"] = figures
            }
            row.cEvaluations = nil
            rows[count] = row
        }
        for (column, one) in rows[1]?.threads ?? [:] where one.readsPerSecond > 0 {
            guard let two = rows[2]?.threads[column] else { continue }
            rows[2]?.threads[column]?.overOneThread = two.readsPerSecond / one.readsPerSecond
        }
        return rows
    }

    func measureWrites(options: Options) -> [Int: Row] {
        let samples = options.samples(RippleThreads.defaultSamples)
        let writes = RippleThreads.defaultWrites
        var rows: [Int: Row] = [:]
        for count in [0] + readers {
            var row = Row(id: "", group: "threads", title: "")
            if options.c {
                let c = rb_threads_write_run(Int32(count), Int32(writes), Int32(samples))
                row.takeC(c.result, label: "C")
                row.threads["c"] = ThreadFigures(c)
            }
            if options.swift {
                let (swift, figures) = RippleThreads.write(readers: count, writes: writes, samples: samples)
                row.takeSwift(swift)
                row.threads["swift"] = figures
            }
            row.cEvaluations = nil
            rows[count] = row
        }
        for (column, alone) in rows[0]?.threads ?? [:] {
            guard let aloneRate = alone.writesPerSecond else { continue }
            for count in readers {
                guard let rate = rows[count]?.threads[column]?.writesPerSecond else { continue }
                rows[count]?.threads[column]?.writesOverAlone = rate / aloneRate
            }
        }
        return rows
    }

    /// Copies a measured row's figures into the row being filled (which keeps its id and title).
    func fill(_ row: inout Row, from measured: Row?, note: String) {
        guard let measured else { return }
        row.cMilliseconds = measured.cMilliseconds
        row.cOperations = measured.cOperations
        row.cAllocations = measured.cAllocations
        row.floorMilliseconds = measured.floorMilliseconds
        row.swiftMilliseconds = measured.swiftMilliseconds
        row.threads = measured.threads
        row.failures += measured.failures
        row.notes.append(note)
        row.notes += threadNotes(row.threads)
        row.observationNote = "not run on threads"
    }

    var benchmarks: [Benchmark] = []
    for (subject, name) in [(RB_THREADS_ATOM, "atom"), (RB_THREADS_DERIVED, "derived")] {
        for count in readers {
            benchmarks.append(
                Benchmark(
                    id: "threads-\(name)-\(count)", group: "threads",
                    title: "read \(name), \(count) thread\(count == 1 ? "" : "s")"
                ) { row, options in
                    if cache.reads[name] == nil { cache.reads[name] = measureReads(subject, options: options) }
                    let note = "\(RippleThreads.defaultReads / 1_000_000)M reads/thread"
                    fill(&row, from: cache.reads[name]?[count], note: note)
                })
        }
    }
    for count in [0] + readers {
        benchmarks.append(
            Benchmark(
                id: "threads-write-\(count)", group: "threads",
                title: count == 0 ? "write, no reader" : "write, \(count) reader\(count == 1 ? "" : "s") of derived"
            ) { row, options in
                if cache.writes == nil { cache.writes = measureWrites(options: options) }
                fill(&row, from: cache.writes?[count], note: "\(RippleThreads.defaultWrites / 1000)k writes")
            })
    }
    return benchmarks
}

/// The notes of a threads row: per column, reads per second (total, then per thread), how that scales from one
/// thread, writes per second and how they compare with the writer alone, and the derivation's recomputes.
private func threadNotes(_ threads: [String: ThreadFigures]) -> [String] {
    [("c", "C"), ("floor", "floor"), ("swift", "Swift")].compactMap { key, label in
        guard let figures = threads[key] else { return nil }
        var parts: [String] = []
        if let writes = figures.writesPerSecond {
            var text = "\(formatRate(writes)) writes/s"
            if let ratio = figures.writesOverAlone { text += " (\(format(ratio))x alone)" }
            parts.append(text)
        }
        if !figures.reads.isEmpty {
            var text = "\(formatRate(figures.readsPerSecond)) reads/s"
            if figures.reads.count > 1 {
                text += " (" + figures.readsPerSecondPerThread.map(formatRate).joined(separator: " + ") + ")"
            }
            if let ratio = figures.overOneThread { text += ", \(format(ratio))x 1 thread" }
            parts.append(text)
        }
        if figures.writes > 0 { parts.append("\(figures.computes) recompute\(figures.computes == 1 ? "" : "s")") }
        return "\(label) " + parts.joined(separator: ", ")
    }
}

/// 93400000 -> "93.4M", 1610000000 -> "1.61G", 512000 -> "512k".
func formatRate(_ value: Double) -> String {
    switch value {
    case 1e9...: return format(value / 1e9) + "G"
    case 1e6...: return format(value / 1e6) + "M"
    case 1e3...: return format(value / 1e3) + "k"
    default: return format(value)
    }
}

func format(_ value: Double) -> String {
    if value >= 100 { return String(Int(value.rounded())) }
    if value >= 10 { return String(Double(Int((value * 10).rounded())) / 10) }
    return String(Double(Int((value * 100).rounded())) / 100)
}

func formatSum(_ value: Double) -> String {
    value < 1e18 ? String(Int64(value)) : "\(value)"
}
