import Foundation

/// The table: one line per shape, every figure the fastest sample.
func renderTable(_ rows: [Row], machine: String, observationAvailable: Bool) -> String {
    let header = [
        "shape", "C ms", "ns/eval", "floor ms", "Swift ms", "Obs ms", "C/floor", "Swift/C", "Obs/Swift", "notes",
    ]
    var lines: [[String]] = []
    var scaled = false
    for row in rows {
        var observation = "-"
        if let ms = row.observationMilliseconds {
            observation = format(ms) + (row.observationScale != nil ? "*" : "")
            if row.observationScale != nil { scaled = true }
        }
        var notes = row.notes
        if let note = row.observationNote { notes.append("Observation: \(note)") }
        if !row.failures.isEmpty { notes.insert("FAILED", at: 0) }
        lines.append([
            row.title,
            row.cMilliseconds.map(format) ?? "-",
            row.nsPerEvaluation.map(format) ?? "-",
            row.floorMilliseconds.map(format) ?? "-",
            row.swiftMilliseconds.map(format) ?? "-",
            observation,
            row.cOverFloor.map { format($0) + "x" } ?? "-",
            row.swiftOverC.map { format($0) + "x" } ?? "-",
            row.observationOverSwift.map { format($0) + "x" } ?? "-",
            notes.joined(separator: "; "),
        ])
    }
    let measured = rows.filter { $0.cAllocations != nil }
    if !measured.isEmpty {
        let allocations = measured.reduce(UInt64(0)) { $0 + ($1.cAllocations ?? 0) }
        lines.append([
            "allocations/update", "\(allocations)", "-", "-", "-", "-", "-", "-", "-",
            "engine allocator calls during all timed C samples (\(measured.count) shapes); must be 0",
        ])
    }

    var widths = header.map(\.count)
    for line in lines {
        for (index, cell) in line.enumerated() where index < header.count - 1 {
            widths[index] = max(widths[index], cell.count)
        }
    }
    func render(_ cells: [String]) -> String {
        var text = ""
        for (index, cell) in cells.enumerated() {
            if index == cells.count - 1 {
                text += cell
            } else if index == 0 {
                text += cell.padding(toLength: widths[index], withPad: " ", startingAt: 0) + "  "
            } else {
                text += String(repeating: " ", count: widths[index] - cell.count) + cell + "  "
            }
        }
        return text
    }
    var output = "Ripple benchmarks on \(machine)\n"
    output += "Fastest sample of each; ns/eval = C ms per node evaluation (compute or effect run).\n"
    output += "C/floor: Ripple C / floor; Swift/C: Ripple Swift / Ripple C; Obs/Swift: Observation / Ripple Swift.\n"
    if !observationAvailable { output += "Observation is not available on this toolchain: its column is empty.\n" }
    if rows.contains(where: { $0.group == "threads" }) {
        output += """
            threads: one graph shared by OS threads. ms = wall time of the reads (read rows: every thread its reads) \
            or the writer's time (write rows);
              reads/s = all readers over the wall time (each reader over its own time in parentheses); \
            Nx 1 thread = reads/s / the 1-thread row's;
              writes/s, each a batch of its own; Nx alone = writes/s / those of the writer with no reader; \
            the floor is a C11 atomic load.

            """
    }
    if rows.contains(where: { $0.group == "async" }) {
        output += """
            async: Swift only. async write→success: ms = the fastest sample of 10k iterations, each an atom write \
            and the wait (a continuation) until an effect saw .success of the new run;
              floor = the same written by hand (a Task per write cancelling the previous one, an NSLock, a continuation); \
            Ripple/hand in the notes.

            """
    }
    output += "\n" + render(header) + "\n"
    output += render(widths.enumerated().map { String(repeating: "-", count: $0.offset == header.count - 1 ? 5 : $0.element) })
        + "\n"
    for line in lines { output += render(line) + "\n" }
    if scaled {
        output += "* Observation ran a tenth of the workload (its full workloads take minutes); its time is scaled up.\n"
    }
    return output
}

/// The CPU model, the number of processors, the kernel, and the toolchain
/// (which scripts/bench passes in RIPPLE_BENCH_TOOLCHAIN).
func machineDescription() -> String {
    var model = "unknown CPU"
    if let cpuinfo = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
        let line = cpuinfo.split(separator: "\n").first(where: { $0.hasPrefix("model name") }),
        let name = line.split(separator: ":", maxSplits: 1).last
    {
        model = name.trimmingCharacters(in: .whitespaces)
    }
    var system = utsname()
    uname(&system)
    let release = withUnsafeBytes(of: &system.release) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    var description = "\(model), \(ProcessInfo.processInfo.activeProcessorCount) processors, Linux \(release)"
    if let toolchain = ProcessInfo.processInfo.environment["RIPPLE_BENCH_TOOLCHAIN"], !toolchain.isEmpty {
        description += ", \(toolchain)"
    }
    return description
}
