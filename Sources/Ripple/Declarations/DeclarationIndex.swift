import Synchronization

/// Hands each declaration and family a dense index at its creation: its slot in every runtime's store.
enum DeclarationIndex {
    private static let counter = Atomic<Int>(0)

    /// The next unused index.
    static func next() -> Int {
        counter.add(1, ordering: .relaxed).oldValue
    }
}
