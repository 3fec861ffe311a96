import Foundation

/// `ripple-bench --compare DIR`: the table of scripts/bench-compare.
///
/// DIR holds `base/` and `current/`, each with the `--json` reports of one binary's runs (any number of rounds
/// and shapes, one file each) and a `label` file naming the revision. Per row and column (C, floor, Swift,
/// Observation: whichever the runs measured), each side's figure is the fastest over its rounds (each round's
/// figure is already the fastest of its samples). Rows that only one side has are skipped and listed.
enum Comparison {
    /// The part of a `--json` report the comparison reads (older binaries write the same keys).
    struct Report: Decodable {
        var machine: String
        var rows: [ReportRow]
        var failures: [String]
    }

    struct ReportRow: Decodable {
        var id: String
        var title: String
        var cMilliseconds: Double?
        var floorMilliseconds: Double?
        var swiftMilliseconds: Double?
        var observationMilliseconds: Double?
    }

    static var columns: [(key: String, label: String, figure: (ReportRow) -> Double?)] {
        [
            ("c", "C", \.cMilliseconds),
            ("floor", "floor", \.floorMilliseconds),
            ("swift", "Swift", \.swiftMilliseconds),
            ("observation", "Obs", \.observationMilliseconds),
        ]
    }

    /// One side's runs: every round's figure per row and column, in the order rows first appeared.
    struct Side {
        var label = ""
        var machine = ""
        var order: [String] = []
        var titles: [String: String] = [:]
        var figures: [String: [String: [Double]]] = [:]
        var failures: [String] = []
        var files = 0

        init(directory: URL) throws {
            label = (try? String(contentsOf: directory.appendingPathComponent("label"), encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? directory.lastPathComponent
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
                .filter { $0.hasSuffix(".json") }.sorted()
            for name in names {
                let data = try Data(contentsOf: directory.appendingPathComponent(name))
                let report = try JSONDecoder().decode(Report.self, from: data)
                files += 1
                machine = report.machine
                failures += report.failures.map { "\(name): \($0)" }
                for row in report.rows {
                    if titles[row.id] == nil {
                        order.append(row.id)
                        titles[row.id] = row.title
                    }
                    for column in columns {
                        guard let value = column.figure(row) else { continue }
                        figures[row.id, default: [:]][column.key, default: []].append(value)
                    }
                }
            }
        }
    }

    struct Cell: Encodable {
        var base: Double
        var current: Double
        var ratio: Double
        var baseRounds: [Double]
        var currentRounds: [Double]
    }

    struct Line: Encodable {
        var id: String
        var title: String
        var columns: [String: Cell]
        /// The slowest round over the fastest, the largest of the row's figures: how far apart rounds landed.
        var spread: Double
    }

    struct Output: Encodable {
        var base: String
        var current: String
        var machine: String
        var rows: [Line]
        var geometricMeans: [String: Double]
        var skipped: [String]
        var failures: [String]
    }

    /// Prints the comparison; returns the exit status (1 when a run failed a check, 2 when DIR cannot be read).
    static func run(directory path: String, json: Bool) -> Int32 {
        let directory = URL(fileURLWithPath: path)
        let base: Side, current: Side
        do {
            base = try Side(directory: directory.appendingPathComponent("base"))
            current = try Side(directory: directory.appendingPathComponent("current"))
        } catch {
            FileHandle.standardError.write(Data("ripple-bench --compare: cannot read \(path): \(error)\n".utf8))
            return 2
        }

        var lines: [Line] = []
        var skipped: [String] = []
        for id in current.order {
            guard let baseFigures = base.figures[id], let currentFigures = current.figures[id] else {
                skipped.append("\(id) (not in base)")
                continue
            }
            var cells: [String: Cell] = [:]
            var spread = 1.0
            for column in columns {
                guard let old = baseFigures[column.key], let new = currentFigures[column.key],
                    let oldBest = old.min(), let newBest = new.min(), oldBest > 0
                else { continue }
                cells[column.key] = Cell(
                    base: oldBest, current: newBest, ratio: newBest / oldBest, baseRounds: old, currentRounds: new)
                spread = max(spread, old.max()! / oldBest, newBest > 0 ? new.max()! / newBest : 1)
            }
            if cells.isEmpty {
                skipped.append("\(id) (no column measured by both)")
                continue
            }
            lines.append(Line(id: id, title: current.titles[id] ?? id, columns: cells, spread: spread))
        }
        for id in base.order where current.titles[id] == nil { skipped.append("\(id) (not in current)") }

        let shown = columns.filter { column in lines.contains { $0.columns[column.key] != nil } }
        var means: [String: Double] = [:]
        for column in shown {
            let ratios = lines.compactMap { $0.columns[column.key]?.ratio }
            means[column.key] = exp(ratios.map { log($0) }.reduce(0, +) / Double(ratios.count))
        }
        let failures = base.failures.map { "base \($0)" } + current.failures.map { "current \($0)" }

        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let output = Output(
                base: base.label, current: current.label, machine: current.machine, rows: lines,
                geometricMeans: means, skipped: skipped, failures: failures)
            guard let data = try? encoder.encode(output) else { return 2 }
            print(String(decoding: data, as: UTF8.self))
            return failures.isEmpty ? 0 : 1
        }

        var header = ["shape"]
        for column in shown { header += ["\(column.label) base", "\(column.label) now", "now/base"] }
        header.append("spread")
        var table: [[String]] = []
        for line in lines {
            var cells = [line.title]
            for column in shown {
                if let cell = line.columns[column.key] {
                    cells += [format(cell.base), format(cell.current), format(cell.ratio) + "x"]
                } else {
                    cells += ["-", "-", "-"]
                }
            }
            cells.append(format(line.spread) + "x")
            table.append(cells)
        }
        var mean = ["geometric mean"]
        for column in shown { mean += ["", "", means[column.key].map { format($0) + "x" } ?? "-"] }
        mean.append("")
        table.append(mean)

        let rounds = max(
            current.figures.values.flatMap(\.values).map(\.count).max() ?? 0,
            base.figures.values.flatMap(\.values).map(\.count).max() ?? 0)
        var output = "Ripple benchmarks, before and after, on \(current.machine)\n"
        output += "base: \(base.label)\nnow:  \(current.label)\n"
        output += "ms: the fastest of \(rounds) round\(rounds == 1 ? "" : "s") (each the fastest of its samples), the "
            + "two binaries run alternately; now/base < 1 is faster now.\n"
        output += "spread: the slowest round / the fastest, the largest over the row's figures (how noisy the row is).\n\n"
        output += renderColumns(header: header, lines: table)
        if !skipped.isEmpty { output += "Skipped: " + skipped.joined(separator: ", ") + "\n" }
        if failures.isEmpty {
            output += "All expected values and counters verified in every run.\n"
        } else {
            output += "FAILED CHECKS:\n" + failures.map { "  \($0)\n" }.joined()
        }
        print(output, terminator: "")
        return failures.isEmpty ? 0 : 1
    }

    /// A plain table: the first column left-aligned, the others right-aligned.
    static func renderColumns(header: [String], lines: [[String]]) -> String {
        var widths = header.map(\.count)
        for line in lines {
            for (index, cell) in line.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        func render(_ cells: [String]) -> String {
            cells.enumerated().map { index, cell in
                index == 0
                    ? cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[index] - cell.count) + cell
            }.joined(separator: "  ").replacingOccurrences(of: "\\s+$", with: "", options: .regularExpression) + "\n"
        }
        return render(header) + render(widths.map { String(repeating: "-", count: $0) }) + lines.map(render).joined()
    }
}
