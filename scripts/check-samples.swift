// scripts/check-samples.swift: the extractor of scripts/check-samples (read that script's header for the
// conventions). Run as `swift scripts/check-samples.swift OUT ROOT FILE...`: it reads every ```swift block of
// the given Markdown files, writes one target per block into the package folder OUT (Sources/<target>/main.swift
// or Tests/<target>/Sample.swift), the manifest OUT/Package.swift depending on the Ripple package at ROOT, the
// output each block promises (OUT/expected/<target>.txt) and one line per block in OUT/samples.tsv:
// target, kind (main, test, manifest, skip), where (file:line), a note. A manifest block goes to
// OUT/manifests/<target>/Package.swift. It fails on a marker it does not understand.
import Foundation

struct Marker {
    var options: [String: String] = [:]
    var hidden: [String] = []
}

struct Block {
    var file: String
    var line: Int
    var code: [String]
    var marker: Marker
    var target: String
    var outputBelow: [String]?
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("check-samples: \(message)\n".utf8))
    exit(1)
}

/// The options of a marker's first line: `word` or `key=value`, separated by `;` or spaces; `skip (reason)`.
func parseOptions(_ line: String, at place: String) -> [String: String] {
    var options: [String: String] = [:]
    var text = line
    if let skip = text.range(of: "skip") {
        guard let open = text[skip.upperBound...].firstIndex(of: "("), let close = text.lastIndex(of: ")"), open < close
        else { fail("\(place): `skip` needs a reason in parentheses") }
        options["skip"] = String(text[text.index(after: open)..<close])
        text.removeSubrange(skip.lowerBound...close)
    }
    let known: Set = ["main", "test", "manifest", "fragment", "id", "uses", "swiftui", "output", "known-issue"]
    for item in text.split(whereSeparator: { $0 == ";" || $0 == " " }) where !item.isEmpty {
        let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
        guard known.contains(parts[0]) else { fail("\(place): unknown sample option \(parts[0])") }
        options[parts[0]] = parts.count > 1 ? parts[1] : ""
    }
    return options
}

/// A target name from a file's name and the block's number in it: README_03, GettingStarted_10.
func targetName(file: String, index: Int) -> String {
    let stem = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
    let clean = String(stem.map { $0.isLetter || $0.isNumber ? $0 : "_" })
    return "\(clean)_\(index < 10 ? "0" : "")\(index)"
}

func blocks(of file: String, root: String) -> [Block] {
    guard let text = try? String(contentsOfFile: "\(root)/\(file)", encoding: .utf8) else {
        fail("cannot read \(file)")
    }
    let lines = text.components(separatedBy: "\n")
    var found: [Block] = []
    var marker: Marker?
    var index = 0
    var i = 0
    var wantsOutput: Int?  // the block whose output is the next plain fence
    while i < lines.count {
        let line = lines[i]
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("<!-- sample") {
            let place = "\(file):\(i + 1)"
            var first = String(trimmed.dropFirst("<!-- sample".count))
            first = first.hasPrefix(":") ? String(first.dropFirst()) : first
            var hidden: [String] = []
            var closed = first.hasSuffix("-->")
            if closed { first = String(first.dropLast(3)) }
            while !closed {
                i += 1
                guard i < lines.count else { fail("\(place): marker never closed") }
                if lines[i].trimmingCharacters(in: .whitespaces) == "-->" {
                    closed = true
                } else {
                    hidden.append(lines[i])
                }
            }
            let options = parseOptions(first.trimmingCharacters(in: .whitespaces), at: place)
            marker = Marker(options: options, hidden: hidden)
            i += 1
            continue
        }
        if trimmed.hasPrefix("```") {
            let info = trimmed.dropFirst(3).trimmingCharacters(in: .whitespaces)
            let indent = line.prefix { $0 == " " }.count
            var body: [String] = []
            let start = i + 1
            i += 1
            while i < lines.count, !lines[i].trimmingCharacters(in: .whitespaces).hasPrefix("```") {
                body.append(String(lines[i].dropFirst(min(indent, lines[i].prefix { $0 == " " }.count))))
                i += 1
            }
            i += 1
            if info == "swift" || info.hasPrefix("swift ") {
                index += 1
                let block = Block(file: file, line: start, code: body, marker: marker ?? Marker(),
                                  target: targetName(file: file, index: index), outputBelow: nil)
                wantsOutput = block.marker.options["output"] == "below" ? found.count : nil
                found.append(block)
            } else if let owner = wantsOutput {
                found[owner].outputBelow = body
                wantsOutput = nil
            }
            marker = nil
            continue
        }
        if !trimmed.isEmpty { marker = nil }
        i += 1
    }
    if let owner = wantsOutput { fail("\(file):\(found[owner].line): output=below, but no fence follows") }
    return found
}

/// The lines a block promises to print: `prints "text"` (any number per comment) or `prints: text` (the rest of
/// the line), in the comments of its visible code, in order.
func expectedOutput(_ code: [String]) -> [String] {
    var out: [String] = []
    for line in code {
        guard let comment = line.range(of: "//") else { continue }
        let text = String(line[comment.upperBound...])
        if let verbatim = text.range(of: "prints: ") {
            out.append(String(text[verbatim.upperBound...]))
            continue
        }
        var rest = Substring(text)
        while let match = rest.range(of: "prints \"") {
            let after = rest[match.upperBound...]
            guard let end = after.firstIndex(of: "\"") else { break }
            out.append(String(after[..<end]))
            rest = after[after.index(after: end)...]
        }
    }
    return out
}

let arguments = CommandLine.arguments
guard arguments.count >= 4 else { fail("usage: check-samples.swift OUT ROOT FILE...") }
let out = arguments[1]
let root = arguments[2]
let all = arguments.dropFirst(3).flatMap { blocks(of: $0, root: root) }

var byID: [String: Block] = [:]
for block in all {
    if let id = block.marker.options["id"] {
        guard byID[id] == nil else { fail("\(block.file):\(block.line): id \(id) used twice") }
        byID[id] = block
    }
}

let fileManager = FileManager.default
try? fileManager.removeItem(atPath: "\(out)/expected")
try? fileManager.removeItem(atPath: "\(out)/manifests")
try fileManager.createDirectory(atPath: "\(out)/expected", withIntermediateDirectories: true)
var kept: Set<String> = []

/// Writes a file only when its text changed, so that the next build recompiles only the samples that changed.
func write(_ text: String, to path: String) throws {
    if (try? String(contentsOfFile: path, encoding: .utf8)) != text {
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }
}

var manifestTargets: [String] = []
var table: [String] = []
let identity = URL(fileURLWithPath: root).lastPathComponent.lowercased()
/// Ripple's libraries besides the core, which a block gets when it imports them.
let optionalLibraries = ["RippleTesting", "RipplePersistence", "RippleSQLite", "RippleUndoManager", "RippleInspector"]
for block in all {
    let options = block.marker.options
    let place = "\(block.file):\(block.line)"
    if options["skip"] != nil {
        let reason = options["skip"] ?? ""
        table.append("\(block.target)\tskip\t\(place)\t\(reason)")
        continue
    }
    if options["manifest"] != nil {
        try fileManager.createDirectory(atPath: "\(out)/manifests/\(block.target)", withIntermediateDirectories: true)
        try write(block.code.joined(separator: "\n") + "\n", to: "\(out)/manifests/\(block.target)/Package.swift")
        table.append("\(block.target)\tmanifest\t\(place)\t")
        continue
    }
    var code: [String] = []
    for id in (options["uses"] ?? "").split(separator: ",").map(String.init) {
        guard let used = byID[id] else { fail("\(place): uses \(id), which no block declares") }
        code += used.marker.hidden + used.code
    }
    code += block.marker.hidden + block.code
    if !block.marker.hidden.isEmpty, options["fragment"] == nil {
        fail("\(place): hidden code without `fragment`: mark the block as a fragment")
    }
    let isTest = options["test"] != nil || (options["main"] == nil && block.code.contains { $0.contains("@Test") })
    let swiftUI = options["swiftui"] != nil
    if swiftUI { code = ["#if canImport(SwiftUI)"] + code + ["#endif"] }
    let source = "// \(place) (generated by scripts/check-samples)\n" + code.joined(separator: "\n") + "\n"
    let folder = isTest ? "Tests" : "Sources"
    try fileManager.createDirectory(atPath: "\(out)/\(folder)/\(block.target)", withIntermediateDirectories: true)
    try write(source, to: "\(out)/\(folder)/\(block.target)/\(isTest ? "Sample" : "main").swift")
    kept.insert("\(folder)/\(block.target)")
    let expected = block.outputBelow ?? expectedOutput(block.code)
    let promises = block.outputBelow != nil || !expected.isEmpty
    if promises {
        try (expected.joined(separator: "\n") + "\n").write(toFile: "\(out)/expected/\(block.target).txt",
                                                              atomically: true, encoding: .utf8)
    }
    // Ripple always; each optional library the block imports (RippleTesting for every test block too).
    let imported = Set(code.compactMap { line -> String? in
        let words = line.split(separator: " ")
        guard let index = words.firstIndex(of: "import"), index + 1 < words.count else { return nil }
        return String(words[index + 1])
    })
    var products = [".product(name: \"Ripple\", package: \"\(identity)\")"]
    for library in optionalLibraries where imported.contains(library) || (isTest && library == "RippleTesting") {
        products.append(".product(name: \"\(library)\", package: \"\(identity)\")")
    }
    let kind = isTest ? "testTarget" : "executableTarget"
    let dependencies = products.joined(separator: ", ")
    let path = "\(folder)/\(block.target)"
    manifestTargets.append(
        "        .\(kind)(name: \"\(block.target)\", dependencies: [\(dependencies)], path: \"\(path)\"),")
    let note = options["known-issue"].map { "known-issue \($0)" }
        ?? (swiftUI ? "swiftui" : (promises ? "\(expected.count) lines" : ""))
    table.append("\(block.target)\t\(isTest ? "test" : "main")\t\(place)\t\(note)")
}

// The targets of Examples/ (scripts/check-samples writes their declarations, from each example's own manifest).
if let extra = ProcessInfo.processInfo.environment["SAMPLES_EXTRA_TARGETS"],
   let lines = try? String(contentsOfFile: extra, encoding: .utf8) {
    manifestTargets += lines.split(separator: "\n").map { "        \($0)" }
}

let manifest = """
    // swift-tools-version:6.0
    // Generated by scripts/check-samples: one target per ```swift block of the README and the DocC articles, and the
    // targets of each package of Examples/ (Examples/<name> links to it).
    import PackageDescription

    let package = Package(
        name: "RippleSamples",
        platforms: [.macOS(.v14), .iOS(.v17), .tvOS(.v17), .watchOS(.v10), .visionOS(.v1)],
        dependencies: [.package(path: "\(root)")],
        targets: [
    \(manifestTargets.joined(separator: "\n"))
        ],
        swiftLanguageModes: [.v6]
    )

    """
try write(manifest, to: "\(out)/Package.swift")
for folder in ["Sources", "Tests"] where fileManager.fileExists(atPath: "\(out)/\(folder)") {
    for name in (try? fileManager.contentsOfDirectory(atPath: "\(out)/\(folder)")) ?? []
    where !kept.contains("\(folder)/\(name)") {
        try fileManager.removeItem(atPath: "\(out)/\(folder)/\(name)")  // a block removed or renumbered
    }
}
try (table.joined(separator: "\n") + "\n").write(toFile: "\(out)/samples.tsv", atomically: true, encoding: .utf8)
