import Ripple
import RippleBenchC

/// What the declared-state row measured.
public struct DeclaredFigures: Sendable, Equatable {
    /// Nanoseconds per read of a held atom node's value, and of a declared atom's value (its instance alive),
    /// outside any evaluation (the runtime comes from the task-local) and inside a derivation's body.
    public var nodeReadNs = 0.0
    public var declarationReadNs = 0.0
    public var nodeReadInBodyNs = 0.0
    public var declarationReadInBodyNs = 0.0
    /// Nanoseconds per read of a family member alive in the table (`family(key).value`).
    public var familyReadNs = 0.0
    /// Nanoseconds per family member created, read once and released.
    public var churnNs = 0.0
    /// Resident bytes before and after reading `churnKeys` distinct family keys once each.
    public var residentBeforeChurn = 0
    public var residentAfterChurn = 0
    public var churnKeys = 0
    /// Heap bytes per live family member (atom instance and its table entry).
    public var bytesPerInstance = 0.0
    public var failures: [String] = []

    public init() {}

    /// Declaration read over node read, outside and inside evaluations.
    public var readRatio: Double { declarationReadNs / nodeReadNs }
    public var readRatioInBody: Double { declarationReadInBodyNs / nodeReadInBodyNs }
}

private let benchCount = declare.atom { 0 }
private let benchFamily = declare.atomFamily { (key: Int) in key }

/// Declared state: the read path of a declaration against the same read of a node, a family look-up, churn of
/// family members (create, read, release), and the memory one member costs and gives back.
public enum RippleDeclared {
    public static let defaultSamples = 5
    public static let defaultReads = 1_000_000
    public static let defaultChurnKeys = 1_000_000

    public static func run(
        reads: Int = defaultReads, churnKeys: Int = defaultChurnKeys, samples: Int = defaultSamples
    ) -> DeclaredFigures {
        var figures = DeclaredFigures()
        let verifier = Verifier()
        let runtime = Runtime()
        withIsolatedRuntime(using: runtime) {
            let node = atom(7)
            let declared = benchCount.node  // holds the instance: every read below finds it
            declared.value = 7

            var sink = 0
            func perRead(_ milliseconds: Double) -> Double { milliseconds * 1e6 / Double(reads) }
            for _ in 0..<2 {  // the second round is the one kept: the first warms caches and the slots
                figures.nodeReadNs = perRead(fastest(samples: samples) {
                    for _ in 0..<reads { sink &+= node.value }
                })
                figures.declarationReadNs = perRead(fastest(samples: samples) {
                    for _ in 0..<reads { sink &+= benchCount.value }
                })
            }
            verifier.expect(sink == 7 * reads * samples * 4, "read \(sink)")

            // Inside a body: the runtime comes from the thread's evaluation record, not the task-local.
            let nodeBody = derive { () -> Int in
                var total = 0
                for _ in 0..<reads { total &+= node.value }
                return total
            }
            let declarationBody = derive { () -> Int in
                var total = 0
                for _ in 0..<reads { total &+= benchCount.value }
                return total
            }
            for _ in 0..<2 {
                figures.nodeReadInBodyNs = perRead(fastest(samples: samples) {
                    nodeBody.refresh()
                    verifier.expect(nodeBody.value == 7 * reads, "node body \(nodeBody.value)")
                })
                figures.declarationReadInBodyNs = perRead(fastest(samples: samples) {
                    declarationBody.refresh()
                    verifier.expect(declarationBody.value == 7 * reads, "declaration body \(declarationBody.value)")
                })
            }

            do {  // the members held here go at the end of the block
                // Family look-ups of members alive in the table.
                let keys = 1_000
                let held = (0..<keys).map { benchFamily($0) }
                var familySink = 0
                figures.familyReadNs = fastest(samples: samples) {
                    for round in 0..<(reads / keys) {
                        for key in 0..<keys { familySink &+= benchFamily(key).value &+ round & 0 }
                    }
                } * 1e6 / Double(reads / keys * keys)
                verifier.expect(familySink == samples * (reads / keys) * (keys * (keys - 1) / 2), "family \(familySink)")

                // Memory per live member: heap before and after holding 10,000 more.
                let extra = 10_000
                let heapBefore = RippleCreation.heapInUse()
                let more = (keys..<(keys + extra)).map { benchFamily($0) }
                figures.bytesPerInstance = Double(RippleCreation.heapInUse() - heapBefore) / Double(extra)
                verifier.expect(benchFamily.instanceCount == keys + extra, "members \(benchFamily.instanceCount)")
                withExtendedLifetime((held, more)) {}
            }
            verifier.expect(benchFamily.instanceCount == 0, "members left \(benchFamily.instanceCount)")

            // Churn: every key read once; nothing holds the members, so each goes as its read returns.
            figures.churnKeys = churnKeys
            figures.residentBeforeChurn = RippleCreation.residentBytes()
            var churnSink = 0
            let start = now()
            for key in 0..<churnKeys { churnSink &+= benchFamily(key + 1_000_000_000).value & 1 }
            figures.churnNs = Double(now() - start) / Double(churnKeys)
            figures.residentAfterChurn = RippleCreation.residentBytes()
            verifier.expect(churnSink == churnKeys / 2, "churn \(churnSink)")
            verifier.expect(benchFamily.instanceCount == 0, "members after churn \(benchFamily.instanceCount)")
            verifier.expect(runtime.declaredInstanceCount == 1, "instances \(runtime.declaredInstanceCount)")
            withExtendedLifetime((node, declared)) {}
        }
        figures.failures = verifier.failures
        return figures
    }
}
