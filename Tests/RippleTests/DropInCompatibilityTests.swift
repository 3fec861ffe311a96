import Testing
import Ripple

/// The forms users of the original Ripple write, compiled and run unchanged: the synchronous
/// `withIsolatedRuntime` inside async tests, the public `AtomObject` initializer, and the wrappers and factories
/// mixed freely.
@Suite @MainActor struct DropInCompatibilityTests {
    @Test func synchronousIsolatedRuntimeNeedsNoAwaitInsideAnAsyncTest() async {
        let sum: Int = withIsolatedRuntime {
            @Atom var x = 1
            @Atom var y = 2
            @Derived var s = x + y
            x = 10
            return s
        }
        #expect(sum == 12)
    }

    @Test func isolatedRuntimeUsingAGivenRuntimeNeedsNoAwaitInsideAnAsyncTest() async {
        let runtime = Runtime()
        let count = withIsolatedRuntime(using: runtime) { atom(1) }
        let doubled = withIsolatedRuntime(using: runtime) { derive { count.value * 2 } }
        count.value = 21
        #expect(doubled.value == 42)
        #expect(count.runtime === runtime && doubled.runtime === runtime)
    }

    @Test func asynchronousBodyStillPicksTheAsyncOverload() async {
        let value: Int = await withIsolatedRuntime {
            let a = atom(20)
            await Task.yield()
            return a.value + 1
        }
        #expect(value == 21)
    }

    @Test func atomObjectInitializerIsPublic() {
        withIsolatedRuntime {
            let temperature = AtomObject(72)
            var seen: [Int] = []
            let effect = Effect { seen.append(temperature.value) }
            temperature.value = 73
            temperature.value = 73
            #expect(seen == [72, 73])
            #expect(temperature.runtime === Runtime.current)
            withExtendedLifetime(effect) {}
        }
    }

    @Test func atomObjectInitializerTakesAnEquality() {
        struct Reading { var celsius: Double }  // not Equatable
        withIsolatedRuntime {
            let reading = AtomObject(Reading(celsius: 20), equals: { abs($0.celsius - $1.celsius) < 0.5 })
            var runs = 0
            let effect = Effect { _ = reading.value; runs += 1 }
            reading.value = Reading(celsius: 20.2)  // "equal": nothing runs
            reading.value = Reading(celsius: 21)
            #expect(runs == 2)
            #expect(reading.value.celsius == 21)
            withExtendedLifetime(effect) {}
        }
    }

    @Test func atomWrapperTakesAnEqualityForValuesThatAreNotEquatable() {
        struct Point { var x = 0, y = 0 }  // not Equatable
        withIsolatedRuntime {
            @Atom(equals: { $0.x == $1.x && $0.y == $1.y }) var origin = Point()
            var seen: [Int] = []
            let effect = Effect { seen.append(origin.x) }
            origin = Point(x: 0, y: 0)  // equal: nothing runs
            origin = Point(x: 3, y: 0)
            #expect(seen == [0, 3])
            withExtendedLifetime(effect) {}
        }
    }

    @Test func wrappersAndFactoriesMix() {
        withIsolatedRuntime {
            @Atom var a = 1
            let b = atom(2)
            @Derived var sum = a + b.value
            let product = derive { sum * $a.value }
            var seen: [Int] = []
            let effect = Effect { seen.append(product.value) }
            a = 2
            b.value = 5
            #expect(seen == [3, 8, 14])
            #expect($sum.value == 7)
            withExtendedLifetime(effect) {}
        }
    }

    @Test func derivedProjectionIsTheDerivation() {
        withIsolatedRuntime {
            @Atom var count = 1
            @Derived var title = "Count: \(count)"
            let node: Derivation<String> = $title
            count = 2
            #expect(node.value == "Count: 2")
        }
    }

    /// The original's tests do not read an unread derivation's body eagerly: Ripple's derivations are lazy, so
    /// the body runs at the first read, not at declaration.
    @Test func derivedBodyRunsAtTheFirstReadNotAtDeclaration() {
        withIsolatedRuntime {
            @Atom var x = 1
            var computes = 0
            @Derived var c: Int = {
                computes += 1
                return x * 3
            }()
            #expect(computes == 0)
            #expect(c == 3)
            #expect(computes == 1)
            x = 2
            #expect(computes == 1)
            #expect(c == 6)
            #expect(computes == 2)
        }
    }
}
