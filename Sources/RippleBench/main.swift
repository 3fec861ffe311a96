// ripple-bench: every shape of BENCHMARKS.md against Ripple's C API, the
// floor, Ripple's Swift API and Swift's Observation, in one table.
//
//   ripple-bench [--shape NAME]... [--samples N] [--json] [--columns c,floor,swift,observation] [--list]
//   ripple-bench --compare DIR [--json]
//
// NAME is a row id (K1, cellx-1000, dynamic-3-5x500, propagate-10x100, chain,
// create-atoms, memory-grid, threads-derived-2, ...) or a group (kairo, cellx,
// dynamic, propagate, chain, create, memory, threads, async, snapshot, undo,
// store, lists, persistence); repeat --shape to run several (in the
// catalogue's order). Every expected value and counter is checked; a failed
// check makes the run exit with status 1.
// --columns picks what to run (all four by default), for profiling one of
// them. --compare prints the table of scripts/bench-compare from the reports
// it saved in DIR (see Compare.swift). With RIPPLE_BENCH_TRACKS_OBSERVABLE_READS set,
// the Kairo shapes' Swift API column runs in a Runtime(tracksObservableReads: true).
import Foundation
import RippleBenchShapes

func usage() -> Never {
    FileHandle.standardError.write(
        Data(
            """
            usage: ripple-bench [--shape NAME]... [--samples N] [--json] [--columns c,floor,swift,observation] [--list]
                   ripple-bench --compare DIR [--json]

            """.utf8))
    exit(2)
}

var options = Options()
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--shape":
        guard let name = arguments.popFirst() else { usage() }
        options.shapes.append(name)
    case "--samples":
        guard let text = arguments.popFirst(), let samples = Int(text), samples > 0 else { usage() }
        options.samples = samples
    case "--json": options.json = true
    case "--compare":
        guard let directory = arguments.popFirst() else { usage() }
        options.compare = directory
    case "--list": options.list = true
    case "--columns":
        guard let list = arguments.popFirst() else { usage() }
        let columns = Set(list.split(separator: ",").map { $0.lowercased() })
        guard columns.isSubset(of: ["c", "floor", "swift", "observation"]) else { usage() }
        options.c = columns.contains("c")
        options.floor = columns.contains("floor")
        options.swift = columns.contains("swift")
        options.observation = columns.contains("observation")
    case "-h", "--help": usage()
    default: usage()
    }
}

if let directory = options.compare {
    exit(Comparison.run(directory: directory, json: options.json))
}

let all = catalogue()
if options.list {
    for benchmark in all { print("\(benchmark.id)\t\(benchmark.group)\t\(benchmark.title)") }
    exit(0)
}
func matches(_ benchmark: Benchmark, _ name: String) -> Bool {
    benchmark.id.lowercased() == name.lowercased() || benchmark.group == name.lowercased()
}
let unknown = options.shapes.filter { name in !all.contains { matches($0, name) } }
if !unknown.isEmpty {
    FileHandle.standardError.write(Data("ripple-bench: no shape named \(unknown.joined(separator: ", "))\n".utf8))
    exit(2)
}
let selected = all.filter { benchmark in options.shapes.isEmpty || options.shapes.contains { matches(benchmark, $0) } }

let observationAvailable = observationIsAvailable
if !observationAvailable { options.observation = false }

// Memory first, while the process heap is fresh (its resident size then grows
// with what the rows allocate); the table keeps the catalogue's order.
var rows = selected.map { Row(id: $0.id, group: $0.group, title: $0.title) }
func measuresMemory(_ benchmark: Benchmark) -> Bool { benchmark.group == "memory" || benchmark.id == "async-memory" }
let order = selected.indices.sorted { (measuresMemory(selected[$0]) ? 0 : 1) < (measuresMemory(selected[$1]) ? 0 : 1) }
for index in order {
    let benchmark = selected[index]
    FileHandle.standardError.write(Data("running \(benchmark.title)...\n".utf8))
    benchmark.run(&rows[index], options)
    if !observationAvailable, rows[index].observationNote == nil, !measuresMemory(benchmark) {
        rows[index].observationNote = "Observation unavailable"
    }
}

let failures = rows.flatMap { row in row.failures.map { "\(row.title): \($0)" } }
let machine = machineDescription()
if options.json {
    struct Report: Encodable {
        var machine: String
        var observationAvailable: Bool
        var rows: [Row]
        var failures: [String]
    }
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
    let data = try encoder.encode(
        Report(machine: machine, observationAvailable: observationAvailable, rows: rows, failures: failures))
    print(String(decoding: data, as: UTF8.self))
} else {
    print(renderTable(rows, machine: machine, observationAvailable: observationAvailable))
    if failures.isEmpty {
        print("All expected values and counters verified.")
    } else {
        print("FAILED CHECKS:")
        for failure in failures { print("  \(failure)") }
    }
}
exit(failures.isEmpty ? 0 : 1)
