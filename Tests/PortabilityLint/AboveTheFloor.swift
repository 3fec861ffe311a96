// scripts/lint-portability --self-test: each line marked "found" must be reported, no other. Never compiled.
import Synchronization  // found: no use in this file is gated

// Atomic<Int> in a comment is not code
let message = "Mutex<Int> in a string is not code"
let counter = Atomic<Int>(0)  // found
final class Box {
    let lock = Mutex<[Int]>([])  // found
    let word = Synchronization.Atomic<Bool>(false)  // found
}

@available(macOS 15, *)  // not enough: iOS, tvOS, watchOS and visionOS fall back to the floor
final class HalfGated {
    let word = Atomic<Int>(0)  // found
}

@available(macOS 14, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)  // macOS below Synchronization's 15
struct TooLow {
    let word = Atomic<Int>(0)  // found
}

func choose() {
    if #available(macOS 15, iOS 17, tvOS 18, watchOS 11, visionOS 2, *) {  // iOS below Synchronization's 18
        _ = Atomic<Int>(0)  // found
    }
}

let after = Mutex(0)  // found: the gates above closed with their braces
