import RippleBenchShapes
import Testing

/// The benchmark's lists shapes (scripts/bench --shape lists), small: each checks itself against its model, and one
/// operation runs the effects the benchmark's notes print.
@Suite struct ListsBenchmarkShapeTests {
    @Test(arguments: RippleLists.Operation.allCases)
    func eachWayMatchesTheModel(_ operation: RippleLists.Operation) {
        #expect(RippleLists.keyed(operation, rows: 300, samples: 1).failures == [])
        #expect(RippleLists.arrayAtom(operation, rows: 300, samples: 1).failures == [])
        #expect(RippleLists.handWritten(operation, rows: 300, samples: 1).failures == [])
        #if canImport(Observation)
        #expect(ObservationLists.run(operation, rows: 300, samples: 1).failures == [])
        #endif
    }

    @Test func anEditRunsOneRowEffectAndAnInsertOrAMoveTheListsEffectAlone() {
        let runs = RippleLists.Operation.allCases.map { RippleLists.keyedRuns($0, rows: 1_000) }
        #expect(runs.map(\.rowEffects) == [1, 0, 0, 1] as [Int])
        #expect(runs.map(\.list) == [0, 1, 1, 0] as [Int])
    }
}
