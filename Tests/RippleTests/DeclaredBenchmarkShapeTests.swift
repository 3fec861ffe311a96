import RippleBenchShapes
import Testing

/// The declared benchmark shape, small: every value and counter it checks holds (what `scripts/bench --shape
/// declared` relies on), and family churn leaves no member behind.
@Suite struct DeclaredBenchmarkShapeTests {
    @Test func theDeclaredShapeVerifiesItsValuesAndCounts() {
        let figures = RippleDeclared.run(reads: 2_000, churnKeys: 2_000, samples: 1)
        #expect(figures.failures == [])
        #expect(figures.churnKeys == 2_000)
    }
}
