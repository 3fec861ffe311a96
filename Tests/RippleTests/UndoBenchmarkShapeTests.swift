import RippleBenchShapes
import Testing

/// The `undo` row of scripts/bench, run small: the undo and the restore each write every atom back with one effect
/// run, as the row checks (no timing is checked).
@Suite struct UndoBenchmarkShapeTests {
    @Test func theUndoAndTheRestoreEachWriteEveryAtomBackWithOneEffectRun() {
        let figures = RippleUndo.run(count: 50, writes: 100, samples: 2)
        #expect(figures.failures == [])
    }
}
