import RippleBenchC
import RippleBenchShapes

/// One line of the table: a shape measured four ways.
struct Row: Encodable {
    var id: String
    var group: String
    var title: String

    var cMilliseconds: Double?
    var cEvaluations: UInt64?
    var cOperations: UInt64?
    var cAllocations: UInt64?
    var floorMilliseconds: Double?
    var swiftMilliseconds: Double?
    var observationMilliseconds: Double?
    /// Observation ran 1/scale of the workload; its time is scaled back up.
    var observationScale: Double?
    /// Why there is no Observation figure, when there is none.
    var observationNote: String?
    var notes: [String] = []
    var failures: [String] = []
    /// The threads rows' figures, per column ("c", "floor", "swift").
    var threads: [String: ThreadFigures] = [:]
    /// Named figures of rows that do not fit the columns (the async rows: bytes per node, ns per iteration).
    var figures: [String: Double] = [:]

    init(id: String, group: String, title: String) {
        self.id = id
        self.group = group
        self.title = title
    }

    var nsPerEvaluation: Double? {
        guard let ms = cMilliseconds, let evaluations = cEvaluations, evaluations > 0 else { return nil }
        return ms * 1e6 / Double(evaluations)
    }

    var cOverFloor: Double? { ratio(cMilliseconds, floorMilliseconds) }
    /// Rows whose floor is a Swift baseline (async-write: the same written by hand).
    var swiftOverFloor: Double? { ratio(swiftMilliseconds, floorMilliseconds) }
    var swiftOverC: Double? { ratio(swiftMilliseconds, cMilliseconds) }
    var observationOverSwift: Double? { ratio(observationMilliseconds, swiftMilliseconds) }

    private func ratio(_ a: Double?, _ b: Double?) -> Double? {
        guard let a, let b, b > 0 else { return nil }
        return a / b
    }

    mutating func takeC(_ result: rb_result_t, label: String) {
        cMilliseconds = result.ms
        cEvaluations = result.evaluations
        cOperations = result.operations
        cAllocations = result.allocations
        take(result, label: label)
        if result.allocations != 0 {
            failures.append("\(label): the engine made \(result.allocations) allocations during the timed samples")
        }
    }

    mutating func takeFloor(_ result: rb_result_t) {
        floorMilliseconds = result.ms
        take(result, label: "floor")
    }

    private mutating func take(_ result: rb_result_t, label: String) {
        guard result.failed != 0 else { return }
        var message = result.message
        let text = withUnsafeBytes(of: &message) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
        failures.append("\(label): \(text) (\(result.failed) failed checks)")
    }

    mutating func takeSwift(_ result: ShapeResult) {
        swiftMilliseconds = result.milliseconds
        failures += result.failures.map { "Swift: \($0)" }
    }

    mutating func takeObservation(_ result: ShapeResult) {
        observationMilliseconds = result.milliseconds * result.scale
        if result.scale != 1 { observationScale = result.scale }
        failures += result.failures.map { "Observation: \($0)" }
    }
}

extension Row {
    private enum CodingKeys: String, CodingKey {
        case id, group, title, cMilliseconds, cEvaluations, cOperations, cAllocations, floorMilliseconds
        case swiftMilliseconds, observationMilliseconds, observationScale, observationNote, notes, failures, threads
        case figures
        case nsPerEvaluation, cOverFloor, swiftOverC, observationOverSwift
    }

    /// Every stored figure and the derived ones (ns/eval and the three ratios).
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(group, forKey: .group)
        try container.encode(title, forKey: .title)
        try container.encodeIfPresent(cMilliseconds, forKey: .cMilliseconds)
        try container.encodeIfPresent(cEvaluations, forKey: .cEvaluations)
        try container.encodeIfPresent(cOperations, forKey: .cOperations)
        try container.encodeIfPresent(cAllocations, forKey: .cAllocations)
        try container.encodeIfPresent(floorMilliseconds, forKey: .floorMilliseconds)
        try container.encodeIfPresent(swiftMilliseconds, forKey: .swiftMilliseconds)
        try container.encodeIfPresent(observationMilliseconds, forKey: .observationMilliseconds)
        try container.encodeIfPresent(observationScale, forKey: .observationScale)
        try container.encodeIfPresent(observationNote, forKey: .observationNote)
        try container.encode(notes, forKey: .notes)
        try container.encode(failures, forKey: .failures)
        if !threads.isEmpty { try container.encode(threads, forKey: .threads) }
        if !figures.isEmpty { try container.encode(figures, forKey: .figures) }
        try container.encodeIfPresent(nsPerEvaluation, forKey: .nsPerEvaluation)
        try container.encodeIfPresent(cOverFloor, forKey: .cOverFloor)
        try container.encodeIfPresent(swiftOverC, forKey: .swiftOverC)
        try container.encodeIfPresent(observationOverSwift, forKey: .observationOverSwift)
    }
}
