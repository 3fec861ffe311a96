internal import CRippleThreadState

/// Hands each declaration and family a dense index at its creation: its slot in every runtime's store.
enum DeclarationIndex {
    /// The next index, incremented atomically; allocated once and never freed.
    nonisolated(unsafe) private static let counter: UnsafeMutablePointer<CLong> = {
        let counter = UnsafeMutablePointer<CLong>.allocate(capacity: 1)
        counter.initialize(to: 0)
        return counter
    }()

    /// The next unused index.
    static func next() -> Int {
        ripple_counter_increment(counter)
    }
}
