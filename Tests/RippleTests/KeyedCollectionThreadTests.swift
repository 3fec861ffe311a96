import Testing

@testable import Ripple

/// A keyed collection edited from several threads at once, with a sorted view and a map read meanwhile: no edit
/// lost, the view and the map equal to the collection at the end (run under ThreadSanitizer by scripts/test).
@Suite struct KeyedCollectionThreadTests {
    typealias Row = KeyedCollectionTests.Row

    @Test func editsInsertsAndRemovalsFromFourThreadsAreAllKept() async {
        let runtime = Runtime()
        let (collection, sorted, doubled) = withIsolatedRuntime(using: runtime) {
            let collection = KeyedCollection(KeyedCollectionTests.rows(400))
            return (
                collection, collection.sorted { ($0.value, $0.id) < ($1.value, $1.id) },
                collection.map { $0.value * 2 }
            )
        }
        await withTaskGroup(of: Void.self) { group in
            for thread in 0..<4 {
                group.addTask {
                    for index in 0..<100 {
                        let id = thread * 100 + index
                        collection.update(id) { $0.value = 1_000 - id }
                        _ = sorted.ids.count
                        _ = doubled[id]
                        if index % 10 == 0 {
                            collection.append(Row(id: 10_000 + id, value: id))
                            collection.remove(id)
                        }
                    }
                }
            }
        }
        var model: [Int: Int] = [:]
        for id in 0..<400 where id % 100 % 10 != 0 { model[id] = 1_000 - id }
        for id in 0..<400 where id % 100 % 10 == 0 { model[10_000 + id] = id }
        let elements = collection.elements
        #expect(elements.count == model.count)
        #expect(Dictionary(uniqueKeysWithValues: elements.map { ($0.id, $0.value) }) == model)
        #expect(sorted.ids == elements.sorted { ($0.value, $0.id) < ($1.value, $1.id) }.map(\.id))
        #expect(doubled.elements == elements.map { $0.value * 2 })
    }
}
