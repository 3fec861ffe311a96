// scripts/lint-portability --self-test: nothing here may be reported. Never compiled.
import Synchronization

@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
final class Gated {
    let word = Atomic<Int>(0)

    func next() -> Int {
        word.wrappingAdd(1, ordering: .relaxed).newValue
    }
}

@available(macOS 16, iOS 19, tvOS 19, watchOS 12, visionOS 3, *) struct Newer { let lock = Mutex(0) }

func choose() -> Int {
    if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
        let local = Mutex(1)
        return local.withLock { $0 }
    }
    return 0
}
