import Ripple

/// The read path of the property wrappers: an up-to-date value read a million times through a `Derivation`,
/// a local `@Derived`, and a `@Derived` stored property of a class whose body reads the object (Swift reaches it
/// through the wrapper's enclosing-instance subscript: a key-path projection, then a once-published slot load).
public enum RippleWrappers {
    public static let defaultReads = 1_000_000
    public static let defaultSamples = 5

    /// Nanoseconds per read, fastest sample, of each way in.
    public struct ReadCosts: Sendable {
        public var derivation = 0.0
        public var localWrapper = 0.0
        public var classProperty = 0.0
        public var failures: [String] = []
    }

    final class Model {
        @Atom var base = 20
        @Derived({ (model: Model) in model.base * 2 + 1 }) var derived: Int
    }

    public static func readCosts(reads: Int = defaultReads, samples: Int = defaultSamples) -> ReadCosts {
        withIsolatedRuntime(using: Runtime()) {
            var costs = ReadCosts()
            let verifier = Verifier()
            let base = atom(20)
            let derivation = derive { base.value * 2 + 1 }
            @Derived var localWrapper = base.value * 2 + 1
            let model = Model()
            costs.derivation = fastest(samples: samples, reads: reads) { derivation.value }
            costs.localWrapper = fastest(samples: samples, reads: reads) { localWrapper }
            costs.classProperty = fastest(samples: samples, reads: reads) { model.derived }
            verifier.expect(derivation.value == 41 && localWrapper == 41 && model.derived == 41, "wrong value")
            costs.failures = verifier.failures
            return costs
        }
    }

    /// The fastest of `samples` loops of `reads` reads, in nanoseconds per read; the sum is kept so the reads
    /// are not optimized away.
    private static func fastest(samples: Int, reads: Int, _ read: () -> Int) -> Double {
        var best = UInt64.max
        var sum = 0
        for _ in 0..<samples {
            let start = now()
            for _ in 0..<reads { sum &+= read() }
            best = min(best, now() - start)
        }
        precondition(sum == 41 * reads * samples, "ripple-bench: wrapper reads returned a wrong value")
        return Double(best) / Double(reads)
    }
}
