#if canImport(Observation)
import Observation

// What a Swift user would build on Swift's Observation module to run these
// shapes: values in `@Observable` classes, and observers that run their body
// under `withObservationTracking` and register again every time they run.
//
// Observation has no derived values and no scheduler of its own: `onChange`
// fires once, inside the setter (before the new value is stored), and the
// tracking is gone afterwards. So a derived value here is an observer that
// recomputes eagerly and stores its result in an observable cell (only when it
// differs: that is the equality cut-off), and observers that fired are queued
// and run at the end of the batch in creation order (a heap), which keeps the
// shapes glitch-free: everything is created in topological order.

/// An observable value. The cells are concrete (non-generic) `@Observable`
/// classes, as a Swift user's models are: the key path each accessor hands to
/// the registrar is then a constant, where a generic class's must be
/// instantiated at run time on every access (over half of the time in a
/// profile).
protocol ObservedCell: AnyObject {
    associatedtype Value
    init(_ value: Value)
    var value: Value { get set }
}

@Observable
final class IntCell: ObservedCell {
    var value: Int

    init(_ value: Int) {
        self.value = value
    }
}

@Observable
final class IntArrayCell: ObservedCell {
    var value: [Int]

    init(_ value: [Int]) {
        self.value = value
    }
}

/// The queue of observers whose tracked values changed.
///
/// `@unchecked Sendable`: `withObservationTracking` requires a `@Sendable`
/// onChange closure, and that closure captures the observer and this
/// scheduler. The benchmark uses one scheduler from one thread only, so no two
/// accesses ever overlap.
final class ObservationScheduler: @unchecked Sendable {
    private var heap: [ObservationObserver] = []
    private var nextOrder = 0
    private var batchDepth = 0
    private var flushing = false

    func makeOrder() -> Int {
        nextOrder += 1
        return nextOrder
    }

    func enqueue(_ observer: ObservationObserver) {
        if observer.queued { return }
        observer.queued = true
        heap.append(observer)
        var index = heap.count - 1
        while index > 0 {
            let parent = (index - 1) / 2
            if heap[parent].order <= observer.order { break }
            heap.swapAt(parent, index)
            index = parent
        }
    }

    private func popFirst() -> ObservationObserver? {
        guard let first = heap.first else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var index = 0
            while true {
                var child = 2 * index + 1
                if child >= heap.count { break }
                if child + 1 < heap.count && heap[child + 1].order < heap[child].order { child += 1 }
                if heap[child].order >= heap[index].order { break }
                heap.swapAt(child, index)
                index = child
            }
        }
        return first
    }

    /// Runs every queued observer, in creation order, until none is left.
    func flush() {
        if flushing { return }
        flushing = true
        while let observer = popFirst() {
            observer.queued = false
            observer.run()
        }
        flushing = false
    }

    /// Writes made in `body` run the observers once, after it.
    func batch(_ body: () -> Void) {
        batchDepth += 1
        body()
        batchDepth -= 1
        if batchDepth == 0 { flush() }
    }
}

/// Runs `body` under `withObservationTracking`, and again (from the scheduler)
/// after anything it read changed.
///
/// `@unchecked Sendable`: see ``ObservationScheduler``.
final class ObservationObserver: @unchecked Sendable {
    let order: Int
    unowned let scheduler: ObservationScheduler
    let body: () -> Void
    var queued = false

    init(scheduler: ObservationScheduler, body: @escaping () -> Void) {
        self.scheduler = scheduler
        self.order = scheduler.makeOrder()
        self.body = body
        run()
    }

    func run() {
        withObservationTracking(body) { [unowned self] in
            scheduler.enqueue(self)
        }
    }
}

/// A derived value: an observer that recomputes eagerly and stores a changed
/// result in an observable cell.
final class ObservedDerivation<Cell: ObservedCell> {
    /// Created by the first run.
    private(set) var cell: Cell!
    /// The last result, outside Observation, so that comparing is not a read.
    private var last: Cell.Value?
    private var observer: ObservationObserver!

    init(
        scheduler: ObservationScheduler, equals: @escaping (Cell.Value, Cell.Value) -> Bool,
        _ compute: @escaping () -> Cell.Value
    ) {
        observer = ObservationObserver(scheduler: scheduler) { [unowned self] in
            let value = compute()
            guard let cell else {
                cell = Cell(value)
                last = value
                return
            }
            if let last, equals(last, value) { return }
            last = value
            cell.value = value
        }
    }

    var value: Cell.Value { cell.value }
}
#endif
