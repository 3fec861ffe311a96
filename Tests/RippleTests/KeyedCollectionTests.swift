import Foundation
import Testing

@testable import Ripple

/// The keyed collection: which readers an edit of one element, an insert, a removal and a move re-run (exact run
/// counts at 10,000 rows), its views (filter, sorted, map) staying incremental, and its use with snapshots, the
/// store and declared state.
@Suite struct KeyedCollectionTests {
    struct Row: Identifiable, Equatable, Sendable {
        let id: Int
        var value: Int
    }

    static func rows(_ count: Int) -> [Row] {
        (0..<count).map { Row(id: $0, value: $0) }
    }

    /// An effect per row reading that row, counting each row's runs.
    final class RowEffects: @unchecked Sendable {
        // One slot per row, written only by that row's effect (run by the engine one at a time), read after.
        var runs: [Int]
        var effects: [Effect] = []

        init(_ collection: KeyedCollection<Row, Int>, count: Int) {
            runs = Array(repeating: 0, count: count)
            for id in 0..<count {
                effects.append(Effect { [unowned self] in
                    _ = collection[id]
                    self.runs[id] += 1
                })
            }
        }
    }

    @Test func anEditOfOneRowOfTenThousandRunsThatRowsEffectAndNoStructureReader() {
        withIsolatedRuntime {
            let collection = KeyedCollection(Self.rows(10_000))
            let rows = RowEffects(collection, count: 10_000)
            let countRuns = RunCount(), idsRuns = RunCount()
            let counter = Effect { _ = collection.count; countRuns.increment() }
            let order = Effect { _ = collection.ids; idsRuns.increment() }
            #expect(rows.runs.allSatisfy { $0 == 1 })
            collection.update(4_321) { $0.value = -1 }
            #expect(rows.runs[4_321] == 2)
            #expect(rows.runs.reduce(0, +) == 10_001)
            #expect([countRuns.value, idsRuns.value] == [1, 1] as [Int])
            #expect(collection[4_321] == Row(id: 4_321, value: -1))
            collection.update(4_321) { $0.value = -1 }  // equal: nothing runs
            #expect(rows.runs.reduce(0, +) == 10_001)
            _ = (counter, order)
        }
    }

    @Test func insertRemoveAndMoveRunTheStructureReadersAndThoseRowsReadersOnly() {
        withIsolatedRuntime {
            let collection = KeyedCollection(Self.rows(100))
            let rows = RowEffects(collection, count: 100)
            let countRuns = RunCount(), newRowRuns = RunCount()
            let counter = Effect { _ = collection.count; countRuns.increment() }
            let newRow = Effect { _ = collection[100]; newRowRuns.increment() }  // not held yet: reads the order
            collection.insert(Row(id: 100, value: 7), at: 50)
            #expect(rows.runs.reduce(0, +) == 100)
            #expect([countRuns.value, newRowRuns.value] == [2, 2] as [Int])
            #expect(collection.index(of: 100) == 50)
            #expect(collection.remove(3) == Row(id: 3, value: 3))
            #expect(rows.runs[3] == 2)
            #expect(rows.runs.reduce(0, +) == 101)
            #expect([countRuns.value, newRowRuns.value] == [3, 2] as [Int])  // row 100's reader now reads row 100 alone
            #expect(collection[3] == nil)
            #expect(collection.move(10, to: 0))
            #expect(rows.runs.reduce(0, +) == 101)  // a move changes no element's value
            #expect([countRuns.value, newRowRuns.value] == [4, 2] as [Int])
            #expect(collection.ids.prefix(3) == [10, 0, 1])
            collection.append(Row(id: 3, value: 33))  // back again: the reader of row 3 learns of it
            #expect(rows.runs[3] == 3)
            #expect(rows.runs.reduce(0, +) == 102)
            #expect(collection.ids.last == 3)
            collection.update(100) { $0.value = 8 }
            #expect([countRuns.value, newRowRuns.value] == [5, 3] as [Int])
            _ = (counter, newRow)
        }
    }

    @Test func aFilteredViewRunsItsPredicateOnceForAnEditAndItsReadersOnlyWhenItsIDsChange() {
        withIsolatedRuntime {
            let collection = KeyedCollection(Self.rows(10_000))
            let tests = RunCount(), readerRuns = RunCount()
            let even = collection.filter { tests.increment(); return $0.value % 2 == 0 }
            let reader = Effect { _ = even.ids; readerRuns.increment() }
            #expect(tests.value == 10_000)
            #expect(even.count == 5_000)
            collection.update(7) { $0.value = 9 }  // still odd: the view's ids are the same
            #expect(tests.value == 10_001)
            #expect(readerRuns.value == 1)
            collection.update(7) { $0.value = 8 }  // enters the view
            #expect(tests.value == 10_002)
            #expect(readerRuns.value == 2)
            #expect(even.ids.prefix(5) == [0, 2, 4, 6, 7])
            _ = reader
        }
    }

    @Test func aSortedViewMovesTheEditedElementAlone() {
        withIsolatedRuntime {
            let collection = KeyedCollection(Self.rows(1_000))
            let comparisons = RunCount()
            let descending = collection.sorted { comparisons.increment(); return $0.value > $1.value }
            #expect(descending.ids.prefix(2) == [999, 998])
            let before = comparisons.value
            collection.update(0) { $0.value = 5_000 }
            #expect(descending.ids.prefix(2) == [0, 999])
            // Two binary searches (its old place among 1,000, its new one among 999), one comparison to confirm the
            // old place: no sort.
            #expect(comparisons.value - before == 21)
        }
    }

    @Test func aMapTransformsEachElementOnceAndAgainOnlyWhenItChanges() {
        withIsolatedRuntime {
            let collection = KeyedCollection(Self.rows(100))
            let transforms = RunCount()
            let doubled = collection.map { transforms.increment(); return $0.value * 2 }
            let runs = RunCount()
            let reader = Effect { _ = doubled[5]; runs.increment() }
            #expect(doubled[5] == 10)
            #expect(transforms.value == 1)
            collection.update(6) { $0.value = 0 }
            #expect([transforms.value, runs.value] == [1, 1] as [Int])
            collection.update(5) { $0.value = 50 }
            #expect([transforms.value, runs.value] == [2, 2] as [Int])
            #expect(doubled[5] == 100)
            #expect(doubled.elements.count == 100)
            #expect(transforms.value == 101)
            _ = reader
        }
    }

    @Test func theNodesOfRemovedElementsGoOnceTheyOutnumberTheElementsAndNothingHoldsThem() {
        withIsolatedRuntime {
            let collection = KeyedCollection(Self.rows(10))
            let reader = Effect { _ = collection[100] }  // holds row 100's node: it stays
            for id in 100..<1_100 {
                collection.append(Row(id: id, value: 0))
                collection.remove(id)
            }
            // A sweep once more than 64 removed nodes are kept (64 > 10 elements) keeps row 100's node alone, which
            // counts as removed after it: sweeps at removals 65, 129, ..., 961 (65 + 14 * 64), and the 39 removed
            // since stay with the 10 elements and row 100's node.
            #expect(collection.rows.count == 10 + 1 + 39)
            _ = reader
        }
    }

    @Test func randomEditsMatchAPlainArray() {
        // RIPPLE_SEED re-runs the edits of a printed seed; RIPPLE_LIST_STEPS makes more steps (2,000 by default).
        let environment = ProcessInfo.processInfo.environment
        let seed = environment["RIPPLE_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 0...UInt64.max)
        let steps = environment["RIPPLE_LIST_STEPS"].flatMap { Int($0) } ?? 2_000
        print("KeyedCollectionTests.randomEditsMatchAPlainArray seed: \(seed), steps: \(steps)")
        withIsolatedRuntime {
            var generator = SplitMix64(seed: seed)
            var model = Self.rows(40)
            var nextID = 40
            let collection = KeyedCollection(model)
            // Chunks of about √count elements (6 at 40): inserts split them, removals merge them.
            collection.minimumChunk = 2
            let filtered = collection.filter { $0.value % 3 != 0 }
            let sorted = collection.sorted { ($0.value, $0.id) < ($1.value, $1.id) }
            let both = collection.filter { $0.value % 2 == 0 }.sorted { ($0.value, $0.id) > ($1.value, $1.id) }
            let mapped = collection.map { $0.value + 1 }
            let filteredMap = filtered.map { $0.value * 2 }
            let watched = Effect { _ = (filtered.ids, sorted.ids, both.ids) }
            var saved: (snapshot: Snapshot, model: [Row])?
            for step in 0..<steps {
                let operation = Int.random(in: 0..<12, using: &generator)
                switch operation {
                case 0..<4 where !model.isEmpty:
                    let index = Int.random(in: 0..<model.count, using: &generator)
                    let value = Int.random(in: 0..<100, using: &generator)
                    model[index].value = value
                    collection.update(model[index].id) { $0.value = value }
                case 4..<6 where model.count < 64:  // about 64 elements at most: the checks stay short
                    let index = Int.random(in: 0...model.count, using: &generator)
                    let row = Row(id: nextID, value: Int.random(in: 0..<100, using: &generator))
                    nextID += 1
                    model.insert(row, at: index)
                    collection.insert(row, at: index)
                case 4..<8 where !model.isEmpty:
                    let index = Int.random(in: 0..<model.count, using: &generator)
                    let row = model.remove(at: index)
                    #expect(collection.remove(row.id) == row, "seed \(seed), step \(step)")
                case 8..<10 where !model.isEmpty:
                    let from = Int.random(in: 0..<model.count, using: &generator)
                    let to = Int.random(in: 0..<model.count, using: &generator)
                    let row = model.remove(at: from)
                    model.insert(row, at: to)
                    #expect(collection.move(row.id, to: to), "seed \(seed), step \(step)")
                case 10:
                    // A snapshot, or back to the last one: the order restored is one the hints do not describe.
                    if let kept = saved, Bool.random(using: &generator) {
                        _ = Runtime.current.restore(kept.snapshot)
                        model = kept.model
                        saved = nil
                    } else {
                        saved = (Runtime.current.snapshot(), model)
                    }
                default:
                    // A removed id back, a move and an edit of the same element, or a batch of two edits.
                    collection.runtime.batch {
                        if let row = model.first {
                            model[0].value += 1
                            collection.update(row.id) { $0.value += 1 }
                        }
                        if model.count > 2 {
                            let row = model.remove(at: 1)
                            let to = model.count / 2
                            model.insert(row, at: to)
                            collection.move(row.id, to: to)
                            model[to].value += 3
                            collection.update(row.id) { $0.value += 3 }
                        }
                        let row = Row(id: nextID, value: step % 100)
                        nextID += 1
                        model.append(row)
                        collection.append(row)
                    }
                }
                let context: Comment = "seed \(seed), step \(step)"
                #expect(collection.elements == model, context)
                #expect(collection.ids == model.map(\.id), context)
                if !model.isEmpty {
                    let index = Int.random(in: 0..<model.count, using: &generator)
                    #expect(collection.index(of: model[index].id) == index, context)
                }
                let passing = model.filter { $0.value % 3 != 0 }
                #expect(filtered.ids == passing.map(\.id), context)
                #expect(sorted.ids == model.sorted { ($0.value, $0.id) < ($1.value, $1.id) }.map(\.id), context)
                #expect(
                    both.ids
                        == model.filter { $0.value % 2 == 0 }.sorted { ($0.value, $0.id) > ($1.value, $1.id) }
                        .map(\.id), context)
                #expect(mapped.elements == model.map { $0.value + 1 }, context)
                #expect(filteredMap.elements == passing.map { $0.value * 2 }, context)
            }
            _ = watched
        }
    }

    @Test func anElementEnteringOrLeavingAFilteredViewTakesItsPlaceWithoutAPassOverTheCollection() {
        withIsolatedRuntime {
            let collection = KeyedCollection(Self.rows(10_000))
            let tests = RunCount(), readerRuns = RunCount()
            let even = collection.filter { tests.increment(); return $0.value % 2 == 0 }
            let reader = Effect { _ = even.ids; readerRuns.increment() }
            #expect(tests.value == 10_000)
            #expect(even.state.fullPasses == 1)
            collection.update(5_001) { $0.value = 0 }  // enters between 5,000 and 5,002
            #expect(tests.value == 10_001)
            #expect(even.ids[2_499...2_502] == [4_998, 5_000, 5_001, 5_002])
            collection.update(4_000) { $0.value = 1 }  // leaves
            #expect(tests.value == 10_002)
            #expect(even.ids[1_998...2_000] == [3_996, 3_998, 4_002])
            collection.insert(Row(id: 20_000, value: 2), at: 3)  // a new member, after 2
            #expect(tests.value == 10_003)
            #expect(even.ids.prefix(4) == [0, 2, 20_000, 4])
            collection.move(9_998, to: 0)  // a member moved first: tested once more
            #expect(tests.value == 10_004)
            #expect(even.ids.prefix(3) == [9_998, 0, 2])
            collection.move(9_999, to: 1)  // not a member: the ids are the same
            #expect(tests.value == 10_005)
            collection.remove(2)  // a member removed: nothing to test
            #expect(tests.value == 10_005)
            #expect(even.ids.prefix(3) == [9_998, 0, 20_000])
            #expect(even.count == 5_000)
            #expect(readerRuns.value == 6)
            #expect(even.state.fullPasses == 1)
            let expected = collection.elements.filter { $0.value % 2 == 0 }.map(\.id)
            #expect(even.ids == expected)
            _ = reader
        }
    }

    @Test func insertsAndMovesAtTenThousandRowsKeepTheOrderInChunksOfAboutTheSquareRoot() {
        withIsolatedRuntime {
            var model = Self.rows(10_000)
            let collection = KeyedCollection(model)
            for step in 0..<2_000 {
                let row = Row(id: 10_000 + step, value: 0)
                let at = model.count / 2
                model.insert(row, at: at)
                collection.insert(row, at: at)
            }
            for step in 0..<1_000 {
                let from = (step * 7_919) % model.count
                let to = (step * 104_729 + 1) % model.count
                let row = model.remove(at: from)
                model.insert(row, at: to)
                collection.move(row.id, to: to)
            }
            let order = collection.order.value
            #expect(collection.ids == model.map(\.id))
            // 12,000 elements: chunks of 109 (√12,000), split once they pass 218.
            #expect(order.chunks.allSatisfy { $0.places.count <= 218 })
            #expect(order.chunks.count >= 12_000 / 218 && order.chunks.count <= 2 * 12_000 / 109 + 1)
            #expect(order.count == 12_000)
            #expect(Set(order.chunks.map(\.tag)).count == order.chunks.count)
            // Every hint names the chunk that holds its element.
            var wrongHints = 0
            for chunk in order.chunks {
                for place in chunk.places where collection.rows[place.id]?.chunk != chunk.tag { wrongHints += 1 }
            }
            #expect(wrongHints == 0)
        }
    }

    @Test func aSnapshotBringsBackTheElementsTheOrderAndTheViews() {
        withIsolatedRuntime {
            let collection = KeyedCollection(Self.rows(5), label: "rows")
            let even = collection.filter { $0.value % 2 == 0 }
            #expect(even.ids == [0, 2, 4])
            let snapshot = Runtime.current.snapshot()
            collection.update(1) { $0.value = 10 }
            collection.remove(2)
            collection.move(4, to: 0)
            collection.append(Row(id: 9, value: 9))
            #expect(collection.ids == [4, 0, 1, 3, 9])
            #expect(even.ids == [4, 0, 1])
            let nineRuns = RunCount()
            let nine = Effect { _ = collection[9]; nineRuns.increment() }
            _ = Runtime.current.restore(snapshot)
            #expect(collection.elements == Self.rows(5))
            #expect(collection[9] == nil)
            #expect(nineRuns.value == 2)
            collection.append(Row(id: 9, value: 90))
            #expect(nineRuns.value == 3)
            #expect(collection.ids == [0, 1, 2, 3, 4, 9])
            collection.remove(9)
            #expect(even.ids == [0, 2, 4])
            collection.update(3) { $0.value = 8 }
            #expect(even.ids == [0, 2, 3, 4])
            _ = nine
        }
    }

    @Test func undoTakesBackInsertsMovesAndRemovalsWithTheirElementsAndRedoMakesThemAgain() {
        withIsolatedRuntime {
            let collection = KeyedCollection(Self.rows(200))
            let even = collection.filter { $0.value % 2 == 0 }
            let history = UndoHistory()
            collection.insert(Row(id: 500, value: 4), at: 100)
            collection.move(3, to: 0)
            collection.remove(50)
            collection.update(7) { $0.value = 8 }
            #expect(history.undoCount == 4)
            let edited = collection.elements
            #expect(edited.count == 200)
            #expect(even.ids.prefix(3) == [0, 2, 4])
            history.undo()
            #expect(collection[7]?.value == 7)
            history.undo()
            #expect(collection[50] == Row(id: 50, value: 50))
            #expect(collection.index(of: 50) == 50)
            history.undo()
            #expect(collection.index(of: 3) == 3)
            history.undo()
            #expect(collection.elements == Self.rows(200))
            #expect(collection[500] == nil)
            #expect(even.ids == Array(stride(from: 0, to: 200, by: 2)))
            for _ in 0..<4 { history.redo() }
            #expect(collection.elements == edited)
            #expect(collection.index(of: 500) == 99)
            #expect(even.ids == edited.filter { $0.value % 2 == 0 }.map(\.id))
            collection.insert(Row(id: 501, value: 0), at: 0)  // an edit after the redo finds its places again
            #expect(collection.ids.prefix(3) == [501, 3, 0])
            #expect(collection.index(of: 199) == 200)
        }
    }

    struct Board: Sendable {
        let rows = KeyedCollection(KeyedCollectionTests.rows(1_000))
    }

    enum BoardAction: Sendable {
        case set(id: Int, value: Int)
    }

    @Test func aStoreStateHoldingACollectionReRunsOnlyTheEditedRow() {
        withIsolatedRuntime {
            let store = Store(initialState: Board()) {
                Reduce<Board, BoardAction> { state, action in
                    switch action {
                    case .set(let id, let value): state.rows.update(id) { $0.value = value }
                    }
                    return .none
                }
            }
            let rows = RowEffects(store.state.rows, count: 1_000)
            store.send(.set(id: 12, value: -12))
            #expect(rows.runs[12] == 2)
            #expect(rows.runs.reduce(0, +) == 1_001)
            #expect(store.state.rows[12]?.value == -12)
        }
    }

    @Test func aDeclaredCollectionIsOnePerRuntime() {
        let first = withIsolatedRuntime {
            declaredRows.value.update(1) { $0.value = 100 }
            return declaredRows.value[1]?.value
        }
        let second = withIsolatedRuntime { declaredRows.value[1]?.value }
        #expect([first, second] == [100, 1])
    }
}

private let declaredRows = declare.atom(equals: { $0 === $1 }, keepAlive: true) {
    KeyedCollection(KeyedCollectionTests.rows(3))
}
