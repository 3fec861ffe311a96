/// A readable, line by line difference of two values: what a test store prints when a state (or an action) is not
/// the one a test expected. Each value is laid out one property per line (nested values indented), then the lines
/// are compared: unchanged lines start with two spaces, the expected value's with "−", the actual value's with "+".
enum StateDiff {
    /// The diff of `expected` and `actual`, unchanged lines included for context.
    static func lines<Value>(expected: Value, actual: Value) -> String {
        let old = layout(expected), new = layout(actual)
        return diff(old, new).joined(separator: "\n")
    }

    /// `value` as lines: containers open a line, list their parts indented, and close one.
    static func layout(_ value: Any, label: String? = nil, indent: String = "") -> [String] {
        let prefix = indent + (label.map { "\($0): " } ?? "")
        let mirror = Mirror(reflecting: value)
        if mirror.children.isEmpty, mirror.displayStyle != .enum, mirror.displayStyle != .optional {
            return [prefix + String(reflecting: value)]
        }
        switch mirror.displayStyle {
        case .optional:
            guard let wrapped = mirror.children.first?.value else { return [prefix + "nil"] }
            return layout(wrapped, label: label, indent: indent)
        case .struct, .class, .tuple:
            let name = mirror.displayStyle == .tuple ? "" : typeName(mirror.subjectType)
            return [prefix + name + "("]
                + mirror.children.flatMap { layout($0.value, label: $0.label, indent: indent + "  ") }
                + [indent + ")"]
        case .collection, .set:
            return [prefix + "["] + mirror.children.flatMap { layout($0.value, indent: indent + "  ") } + [indent + "]"]
        case .dictionary:
            return [prefix + "["]
                + mirror.children.flatMap { entry -> [String] in
                    let pair = Array(Mirror(reflecting: entry.value).children)
                    guard pair.count == 2 else { return layout(entry.value, indent: indent + "  ") }
                    return layout(pair[1].value, label: String(reflecting: pair[0].value), indent: indent + "  ")
                } + [indent + "]"]
        case .enum:
            guard let payload = mirror.children.first else { return [prefix + ".\(value)"] }
            let inner = layout(payload.value, indent: indent + "  ")
            if inner.count == 1 {
                return [prefix + ".\(payload.label ?? "")(\(inner[0].trimmingLeadingSpaces))"]
            }
            return [prefix + ".\(payload.label ?? "")("] + inner + [indent + ")"]
        default:
            return [prefix + String(reflecting: value)]
        }
    }

    /// The type's name without its module: `Counter.State`.
    static func typeName(_ type: Any.Type) -> String {
        let qualified = String(reflecting: type)
        guard let dot = qualified.firstIndex(of: ".") else { return qualified }
        return String(qualified[qualified.index(after: dot)...])
    }

    /// The lines of a longest-common-subsequence diff of `old` and `new`.
    static func diff(_ old: [String], _ new: [String]) -> [String] {
        // lengths[i][j]: the longest common subsequence of old[i...] and new[j...].
        var lengths = Array(repeating: Array(repeating: 0, count: new.count + 1), count: old.count + 1)
        for i in stride(from: old.count - 1, through: 0, by: -1) {
            for j in stride(from: new.count - 1, through: 0, by: -1) {
                lengths[i][j] =
                    old[i] == new[j] ? lengths[i + 1][j + 1] + 1 : max(lengths[i + 1][j], lengths[i][j + 1])
            }
        }
        var result: [String] = []
        var i = 0, j = 0
        while i < old.count || j < new.count {
            if i < old.count, j < new.count, old[i] == new[j] {
                result.append("  " + old[i])
                i += 1
                j += 1
            } else if i < old.count, j == new.count || lengths[i + 1][j] >= lengths[i][j + 1] {
                result.append("− " + old[i])
                i += 1
            } else {
                result.append("+ " + new[j])
                j += 1
            }
        }
        return result
    }
}

extension String {
    fileprivate var trimmingLeadingSpaces: Substring { drop { $0 == " " } }
}
