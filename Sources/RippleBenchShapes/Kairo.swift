/// The eight Kairo shapes of BENCHMARKS.md.
public enum KairoShape: Int, CaseIterable, Sendable {
    case deep = 1, broad, diamond, triangle, mux, repeated, unstable, avoidable

    /// "K1" ... "K8".
    public var id: String { "K\(rawValue)" }

    public var name: String {
        switch self {
        case .deep: "deep"
        case .broad: "broad"
        case .diamond: "diamond"
        case .triangle: "triangle"
        case .mux: "mux"
        case .repeated: "repeated observers"
        case .unstable: "unstable"
        case .avoidable: "avoidable"
        }
    }

    /// BENCHMARKS.md: 10 samples of 500 calls of iter(), after 3 warm-up calls.
    public static let defaultSamples = 10
    public static let defaultCalls = 500
}

/// A built Kairo shape: its nodes (kept alive), and iter(), which returns the
/// writes it made. `counter` is the effect counter (K8: re-runs of c3, c4, c5
/// and the effect); `last` the last value iter() checked.
final class KairoInstance {
    var nodes: [AnyObject] = []
    var iter: () -> Int = { 0 }
    let counter = Counter()
    let last = Counter()
}

/// Warms a built shape up (3 calls) and times `samples` samples of `calls`
/// calls; the same protocol for every framework.
func measureKairo(_ instance: KairoInstance, verifier: Verifier, samples: Int, calls: Int) -> ShapeResult {
    for _ in 0..<3 { _ = instance.iter() }
    var result = ShapeResult()
    var writes = 0
    result.milliseconds = fastest(samples: samples) {
        writes = 0
        for _ in 0..<calls { writes += instance.iter() }
    }
    result.operations = writes
    result.value = Double(instance.last.count)
    result.count = instance.counter.count
    result.failures = verifier.failures
    return result
}

/// The checks of one iter(), the same for every framework.
enum KairoCheck {
    static func expected(_ shape: KairoShape, write i: Int) -> Int {
        switch shape {
        case .deep: 50 + i
        case .broad: i + 50
        case .diamond: 5 * (i + 1)
        case .triangle: 45 + 10 * i
        case .mux: i + 1
        case .repeated: 30 * i
        case .unstable: i % 2 != 0 ? 40 * i : -20 * i
        case .avoidable: 6
        }
    }

    /// Writes per iter() after the first write (K5: 10 heads, 2 writes each).
    static func writes(_ shape: KairoShape) -> Int {
        switch shape {
        case .deep, .broad: 50
        case .diamond: 500
        case .triangle, .repeated, .unstable: 100
        case .mux: 10
        case .avoidable: 1000
        }
    }

    /// The value after the first write (head = 1), where BENCHMARKS.md checks it.
    static func afterFirstWrite(_ shape: KairoShape) -> Int? {
        switch shape {
        case .diamond: 10
        case .triangle: 55
        case .repeated: 30
        case .unstable: 40
        case .avoidable: 6
        default: nil
        }
    }

    /// The effect counter after one iter().
    static func counter(_ shape: KairoShape) -> Int {
        switch shape {
        case .deep: 50
        case .broad: 2500
        case .diamond: 500
        case .triangle, .repeated, .unstable: 100
        case .mux: 18
        case .avoidable: 0
        }
    }
}

extension KairoInstance {
    /// Installs iter() as BENCHMARKS.md states it, on top of a framework's
    /// batched write (`write(head, value)`; K5 has 100 heads, the others one)
    /// and read (`read(k)`: K5's split[k], the others' checked node).
    func install(
        _ shape: KairoShape,
        verifier: Verifier,
        write: @escaping (Int, Int) -> Void,
        read: @escaping (Int) -> Int
    ) {
        let counter = counter, last = last
        let writes = KairoCheck.writes(shape)
        let expectedCounter = KairoCheck.counter(shape)
        if shape == .mux {
            iter = {
                counter.count = 0
                for i in 0..<10 {
                    write(i, i)
                    last.count = read(i)
                    verifier.expect(last.count == i + 1, "K5: split[\(i)] == \(last.count), expected \(i + 1)")
                    write(i, 2 * i)
                    last.count = read(i)
                    verifier.expect(last.count == 2 * i + 1, "K5: split[\(i)] == \(last.count), expected \(2 * i + 1)")
                }
                verifier.expect(counter.count == 18, "K5: effects ran \(counter.count) times, expected 18")
                return 20
            }
            return
        }
        let afterFirst = KairoCheck.afterFirstWrite(shape)
        iter = {
            if shape == .avoidable { counter.count = 0 }
            write(0, 1)
            if let afterFirst {
                let value = read(0)
                verifier.expect(value == afterFirst, "\(shape.id): \(value) after head = 1, expected \(afterFirst)")
            }
            if shape != .avoidable { counter.count = 0 }
            for i in 0..<writes {
                write(0, i)
                last.count = read(0)
                let expected = KairoCheck.expected(shape, write: i)
                verifier.expect(last.count == expected, "\(shape.id): \(last.count) after head = \(i), expected \(expected)")
            }
            verifier.expect(
                counter.count == expectedCounter,
                "\(shape.id): counter == \(counter.count), expected \(expectedCounter)"
            )
            return writes + 1
        }
    }
}
