import RippleBenchC
import RippleBenchShapes
import Testing

/// The shapes ripple-bench times, run small and checked exactly (no timing):
/// the three dynamic sanity cases of BENCHMARKS.md on every backend, and one
/// small instance of each shape through the Swift API (and through the
/// Observation driver the benchmark compares against).
@Suite struct BenchmarkShapesTests {
    /// The small dynamic cases: name, expected sum, expected count (the first
    /// build included: one run on a fresh graph).
    static let sanityCases: [(index: Int, sum: Double, count: Int)] = [(0, 16, 11), (1, 72, 41), (2, 72, 22)]

    static func smallConfig(_ index: Int) -> rb_dynamic_config_t {
        withUnsafePointer(to: rb_dynamic_small) {
            $0.withMemoryRebound(to: rb_dynamic_config_t.self, capacity: Int(RB_DYNAMIC_SMALL)) { $0[index] }
        }
    }

    @Test(arguments: sanityCases)
    func dynamicSanityCasesGiveTheirSumAndCountThroughTheSwiftAPI(_ sanity: (index: Int, sum: Double, count: Int)) {
        let result = RippleDynamic.run(Self.smallConfig(sanity.index), fresh: true)
        #expect(result.failures == [])
        #expect(result.value == sanity.sum)
        #expect(result.count == sanity.count)
    }

    @Test(arguments: sanityCases)
    func dynamicSanityCasesGiveTheirSumAndCountThroughTheCAPIAndTheReference(
        _ sanity: (index: Int, sum: Double, count: Int)
    ) {
        var config = Self.smallConfig(sanity.index)
        for backend in [RB_BACKEND_RIPPLE, RB_BACKEND_FLOOR] {
            let result = rb_dynamic_run(&config, backend, 1, true)
            #expect(result.failed == 0)
            #expect(result.value == sanity.sum)
            #expect(result.count == UInt64(sanity.count))
        }
    }

    @Test func dynamicLayoutDrawsStaticNodesAndReadLeavesFromTheSeededGenerator() {
        // "2-3x3 reading 2 of 3 leaves" removes round(3 * (1 - 2/3)) = 1 leaf.
        var config = Self.smallConfig(1)
        var isStatic = [Bool](repeating: false, count: 6)
        var leaves = [Int](repeating: -1, count: 3)
        var count = 0
        rb_dynamic_layout(&config, &isStatic, &leaves, &count)
        #expect(isStatic == [true, true, true, true, true, true])
        #expect(count == 2)
        #expect(Set(leaves[0..<count]).count == 2)
        var rng = rb_rng_seeded("seed")
        let first = rb_rng_next(&rng)
        #expect(first >= 0 && first < 1)
    }

    /// The value iter() checks last, and the effect counter after one iter().
    static let kairoExpectations: [(shape: KairoShape, value: Double, counter: Int)] = [
        (.deep, 99, 50), (.broad, 99, 2500), (.diamond, 2500, 500), (.triangle, 1035, 100),
        (.mux, 19, 18), (.repeated, 2970, 100), (.unstable, 3960, 100), (.avoidable, 6, 0),
    ]

    @Test(arguments: kairoExpectations)
    func kairoShapeGivesItsValuesAndCountersThroughTheSwiftAPI(_ expected: (shape: KairoShape, value: Double, counter: Int)) {
        let result = RippleKairo.run(expected.shape, samples: 1, calls: 1)
        #expect(result.failures == [])
        #expect(result.value == expected.value)
        #expect(result.count == expected.counter)
    }

    @Test func cellxThousandLayersEndsAtTheExpectedValues() {
        // The four end values before and after are checked inside; after[0] is -2.
        let result = RippleCellx.run(layers: 1000, samples: 1, graphs: 1)
        #expect(result.failures == [])
        #expect(result.value == -2)
    }

    @Test func propagationGridUpdatesEveryChainAndRunsEveryEffectOnce() {
        // 10 warm-up writes, then 5: the source is 15, each chain ends at 25.
        let result = RippleGrid.run(width: 10, height: 10, operations: 5, samples: 1)
        #expect(result.failures == [])
        #expect(result.value == 25)
        #expect(result.count == 50)
    }

    @Test func longChainEndsAtHeadPlusLengthAfterEveryWrite() {
        // 10 warm-up writes, then 20: the head is 30, the last link 130.
        let result = RippleGrid.chain(length: 100, writes: 20, samples: 1)
        #expect(result.failures == [])
        #expect(result.value == 130)
        #expect(result.count == 20)
    }

    @Test func creationRunsEveryEffectOnceAndTeardownReleasesEverything() {
        let result = RippleCreation.run(count: 1000, samples: 1)
        #expect(result.failures == [])
    }

    /// The creation rows' Swift runtime floor times the node objects' own heap blocks: each stand-in takes the
    /// block of the node object it stands for (a node object that grows or shrinks fails this until its stand-in
    /// follows).
    @Test func runtimeFloorStandInsTakeTheNodeObjectsHeapBlocks() {
        let result = SwiftRuntimeFloor.creation(count: 1000, samples: 1)
        #expect(result.failures == [])
        #expect(result.atoms > 0 && result.derived > 0 && result.effects > 0 && result.teardown > 0)
    }

    /// A derivation's and an effect's body closure each capture one atom: the same context, read from the closure.
    @Test func bodyClosuresOfDerivationsAndEffectsTakeOneContextBlockEach() {
        let bytes = SwiftRuntimeFloor.bodyBytes()
        #expect(bytes.derivation >= 32)
        #expect(bytes.derivation == bytes.effect)
    }

    /// The async rows, small: 1 + 200 warm-up + 20 timed writes, each waited for until `.success` was seen; the
    /// last input is 220, so the last value is 2 * 220 + 1.
    @Test func asyncWriteToSuccessSeesEveryResultThroughRippleAndByHand() async {
        let ripple = await RippleAsync.ripple(iterations: 20, samples: 1)
        #expect(ripple.failures == [])
        #expect(ripple.value == 441)
        #expect(ripple.count == 221)
        let hand = await RippleAsync.handWritten(iterations: 20, samples: 1)
        #expect(hand.failures == [])
        #expect(hand.value == 441)
        #expect(hand.count == 221)
    }

    @Test func asyncMemorySettlesEveryDerivationAndCountsItsNodesAndEdges() async {
        let memory = await RippleAsync.memory(count: 100)
        #expect(memory.failures == [])
        // Heap figures are not checked here: tests run in parallel in one process, and share its heap.
        #expect(memory.enginePerAsync > 0)
    }

    #if canImport(Observation)
    @Test(arguments: kairoExpectations)
    func kairoShapeGivesTheSameValuesAndCountersThroughObservation(
        _ expected: (shape: KairoShape, value: Double, counter: Int)
    ) {
        let result = ObservationKairo.run(expected.shape, samples: 1, calls: 1)
        #expect(result.failures == [])
        #expect(result.value == expected.value)
        #expect(result.count == expected.counter)
    }

    @Test func observationGridAndChainAreGlitchFree() {
        let grid = ObservationGraphs.grid(width: 10, height: 10, operations: 5, samples: 1)
        #expect(grid.failures == [])
        #expect(grid.value == 25)
        #expect(grid.count == 50)
        let chain = ObservationGraphs.grid(width: 1, height: 100, operations: 20, samples: 1, checkEveryWrite: true)
        #expect(chain.failures == [])
        #expect(chain.value == 130)
    }
    #endif

    @Test func snapshotShapeCapturesAndRestoresEveryAtomWithOneEffectRun() {
        let figures = RippleSnapshots.run(count: 100, samples: 2)
        #expect(figures.failures == [])  // every value captured and restored, one effect run per restore
        // No heap figure is checked here: tests run in parallel in one process, and share its heap.
    }
}
