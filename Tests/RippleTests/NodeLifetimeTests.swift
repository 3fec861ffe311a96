import Testing
@_spi(Testing) import Ripple

/// Nodes are freed synchronously when their last reference goes, and the
/// engine's accounting returns to where it started.
@Suite @MainActor struct NodeLifetimeTests {
    @Test func atomIsFreedWhenItsLastReferenceGoes() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            var a: AtomObject<Int>? = atom(1)
            weak let weakA = a
            #expect(runtime.liveNodeCount == 1)
            release(&a)
            #expect(weakA == nil)
            #expect(runtime.liveNodeCount == 0)
        }
    }

    @Test func readDerivationIsFreedWithItsEdges() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            let a = atom(1)
            let b = atom(2)
            var sum: Derivation<Int>? = derive { a.value + b.value }
            weak let weakSum = sum
            #expect(sum?.value == 3)
            #expect(runtime.liveNodeCount == 3)

            release(&sum)
            #expect(weakSum == nil)
            #expect(runtime.liveNodeCount == 2)
            #expect(runtime.liveEdgeCount == 0)
            #expect(runtime.checkInvariants() == nil)
        }
    }

    @Test func wholeGraphReturnsToTheBaseline() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            let baselineNodes = runtime.liveNodeCount
            let baselineEdges = runtime.liveEdgeCount
            weak var weakAtom: AtomObject<Int>?
            weak var weakDerivation: Derivation<Int>?
            weak var weakEffect: Effect?
            var seen: [Int] = []

            do {
                let a = atom(1)
                let b = atom(2)
                let left = derive { a.value * 10 }
                let right = derive { a.value + b.value }
                let effect = Effect { seen.append(left.value + right.value) }
                weakAtom = a
                weakDerivation = right
                weakEffect = effect
                // left reads a; right reads a and b; the effect reads left and right.
                #expect(runtime.liveNodeCount == baselineNodes + 5)
                #expect(runtime.liveEdgeCount == baselineEdges + 5)
                a.value = 2
                #expect(seen == [13, 24])
                #expect(runtime.checkInvariants() == nil)
            }

            #expect(weakAtom == nil)
            #expect(weakDerivation == nil)
            #expect(weakEffect == nil)
            #expect(runtime.liveNodeCount == baselineNodes)
            #expect(runtime.liveEdgeCount == baselineEdges)
            #expect(runtime.checkInvariants() == nil)
        }
    }

    @Test func unobservedDerivationDoesNotKeepItsReadersSourceAlive() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            var a: AtomObject<Int>? = atom(1)
            weak let weakA = a
            var doubled: Derivation<Int>? = { [a] in
                let a = a!
                return derive { a.value * 2 }
            }()
            #expect(doubled?.value == 2)
            release(&a)
            // The derivation holds its source.
            #expect(weakA != nil)
            release(&doubled)
            #expect(weakA == nil)
            #expect(runtime.liveNodeCount == 0)
            #expect(runtime.liveEdgeCount == 0)
        }
    }

    @Test func sourcesHoldTheirReadersWeakly() {
        withIsolatedRuntime {
            let a = atom(1)
            var doubled: Derivation<Int>? = derive { a.value * 2 }
            weak let weakDoubled = doubled
            #expect(doubled?.value == 2)
            release(&doubled)
            #expect(weakDoubled == nil)
            a.value = 3
            #expect(Runtime.current.liveNodeCount == 1)
        }
    }

    @Test func nodesOfAnEffectThatWasReleasedAreFreedInTurn() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            let a = atom(1)
            var effect: Effect? = {
                let doubled = derive { a.value * 2 }
                let tripled = derive { doubled.value * 3 }
                return Effect { _ = tripled.value }
            }()
            #expect(runtime.liveNodeCount == 4)
            #expect(runtime.liveEdgeCount == 3)
            release(&effect)
            #expect(runtime.liveNodeCount == 1)
            #expect(runtime.liveEdgeCount == 0)
        }
    }

    @Test func runtimeIsFreedWhenItsNodesAndScopeAreGone() {
        var runtime: Runtime? = Runtime()
        weak let weakRuntime = runtime
        withIsolatedRuntime(using: runtime!) {
            let a = atom(1)
            let doubled = derive { a.value * 2 }
            let effect = Effect { _ = doubled.value }
            a.value = 2
            withExtendedLifetime(effect) {}
        }
        release(&runtime)
        #expect(weakRuntime == nil)
    }

    @Test func manyNodesCreatedAndDroppedLeaveNothingBehind() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            let a = atom(0)
            for round in 0..<50 {
                let derivations = (0..<20).map { index in derive { a.value + index } }
                let effect = Effect { _ = derivations.reduce(0) { $0 + $1.value } }
                a.value = round + 1
                withExtendedLifetime(effect) {}
            }
            #expect(runtime.liveNodeCount == 1)
            #expect(runtime.liveEdgeCount == 0)
            #expect(runtime.checkInvariants() == nil)
        }
    }

    /// A derivation keeps a small value (at most 16 bytes, aligned to at most 8) in its own object and a larger or
    /// more aligned one apart: either way a recomputation releases the value it replaces, and the derivation's
    /// deinit releases the last one.
    @Test func cachedValuesOfEverySizeAreReleasedWhenReplacedAndWithTheirDerivation() {
        withIsolatedRuntime {
            expectCachedValueLifetime { Payload($0) } payload: { $0 }  // 8 bytes
            expectCachedValueLifetime { (Payload($0), $0) } payload: { $0.0 }  // 16 bytes
            expectCachedValueLifetime { (Payload($0), $0, $0) } payload: { $0.0 }  // 24 bytes
            expectCachedValueLifetime { (Payload($0), SIMD2<Double>(1, 2)) } payload: { $0.0 }  // aligned to 16
        }
    }

    private func expectCachedValueLifetime<Value>(
        _ make: @escaping @Sendable (Int) -> Value, payload: (Value) -> Payload,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let source = atom(1)
        var derivation: Derivation<Value>? = derive { make(source.value) }
        weak let first = payload(derivation!.value)
        #expect(first?.id == 1, sourceLocation: sourceLocation)
        source.value = 2
        weak let second = payload(derivation!.value)
        #expect(first == nil, "the recomputation released the value it replaced", sourceLocation: sourceLocation)
        #expect(second?.id == 2, sourceLocation: sourceLocation)
        release(&derivation)
        #expect(second == nil, "the derivation's deinit released its value", sourceLocation: sourceLocation)
    }
}

/// An object whose release a weak reference shows.
private final class Payload: Sendable {
    let id: Int
    init(_ id: Int) { self.id = id }
}
