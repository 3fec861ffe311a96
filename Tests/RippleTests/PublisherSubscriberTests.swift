import Testing
@_spi(Testing) import Ripple

/// User-defined types take part in the graph through `Runtime.register`,
/// `willRead`, `didMutate` and `unregister`.
@Suite @MainActor struct PublisherSubscriberTests {
    /// A user-defined source of values.
    final class Thermometer: Publisher {
        let runtime: Runtime
        private var storedReading: Int

        init(reading: Int, runtime: Runtime) {
            self.storedReading = reading
            self.runtime = runtime
        }

        var reading: Int {
            get {
                runtime.willRead(self)
                return storedReading
            }
            set {
                storedReading = newValue
                runtime.didMutate(self)
            }
        }

        deinit {
            runtime.unregister(publisher: self)
        }
    }

    /// A user-defined reader: `run()` records what it reads.
    final class Display: Subscriber {
        private let read: () -> String
        private(set) var shown: [String] = []

        init(_ read: @escaping () -> String) {
            self.read = read
        }

        func run() {
            shown.append(read())
        }
    }

    /// A reference type mutated in place, so only `didMutate` can announce it.
    final class Counter {
        var count = 0
    }

    @Test func registerRunsTheSubscriberOnceNow() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            let thermometer = Thermometer(reading: 20, runtime: runtime)
            let display = Display { "\(thermometer.reading)°" }
            runtime.register(display)
            #expect(display.shown == ["20°"])
        }
    }

    @Test func didMutateRerunsTheRegisteredSubscriber() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            let thermometer = Thermometer(reading: 20, runtime: runtime)
            let display = Display { "\(thermometer.reading)°" }
            runtime.register(display)
            thermometer.reading = 25
            thermometer.reading = 30
            #expect(display.shown == ["20°", "25°", "30°"])
        }
    }

    @Test func unregisteredSubscriberNoLongerRuns() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            let thermometer = Thermometer(reading: 20, runtime: runtime)
            let display = Display { "\(thermometer.reading)°" }
            runtime.register(display)
            runtime.unregister(subscriber: display)
            thermometer.reading = 25
            #expect(display.shown == ["20°"])
        }
    }

    @Test func registeredSubscriberIsHeldWeakly() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            let thermometer = Thermometer(reading: 20, runtime: runtime)
            var runs = 0
            var display: Display? = Display {
                runs += 1
                return "\(thermometer.reading)°"
            }
            weak let weakDisplay = display
            runtime.register(display!)
            release(&display)
            #expect(weakDisplay == nil)
            thermometer.reading = 25
            #expect(runs == 1)
        }
    }

    @Test func userPublisherFeedsDerivationsAndEffects() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            let thermometer = Thermometer(reading: 20, runtime: runtime)
            let fahrenheit = derive { thermometer.reading * 9 / 5 + 32 }
            var seen: [Int] = []
            let effect = Effect { seen.append(fahrenheit.value) }
            thermometer.reading = 100
            #expect(seen == [68, 212])
            #expect(fahrenheit.value == 212)
            withExtendedLifetime(effect) {}
        }
    }

    @Test func userSubscriberFollowsRippleAtomsAndDerivations() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            @Atom var name = "Ripple"
            @Derived var greeting = "Hello, \(name)"
            let display = Display { greeting }
            runtime.register(display)
            name = "World"
            name = "World"
            #expect(display.shown == ["Hello, Ripple", "Hello, World"])
        }
    }

    @Test func didMutateInsideABatchRunsTheSubscriberOnceAtTheEnd() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            let thermometer = Thermometer(reading: 20, runtime: runtime)
            let display = Display { "\(thermometer.reading)°" }
            runtime.register(display)
            batch {
                thermometer.reading = 21
                thermometer.reading = 22
                #expect(display.shown == ["20°"])
            }
            #expect(display.shown == ["20°", "22°"])
        }
    }

    @Test func unregisteringAUserPublisherAndSubscriberFreesTheirNodes() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            let baseline = runtime.liveNodeCount
            let thermometer = Thermometer(reading: 20, runtime: runtime)
            let display = Display { "\(thermometer.reading)°" }
            runtime.register(display)
            #expect(runtime.liveNodeCount == baseline + 2)

            runtime.unregister(subscriber: display)
            #expect(runtime.liveNodeCount == baseline + 1)
            runtime.unregister(publisher: thermometer)
            #expect(runtime.liveNodeCount == baseline)
            #expect(runtime.liveEdgeCount == 0)
            #expect(runtime.checkInvariants() == nil)
        }
    }

    @Test func willReadOnARippleNodeRecordsAReadOfThatNodeWithoutANewNode() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            let a = atom(1)
            var runs = 0
            let effect = Effect {
                runs += 1
                runtime.willRead(a)
            }
            #expect(runtime.liveNodeCount == 2)
            #expect(runtime.liveEdgeCount == 1)
            a.value = 2
            #expect(runs == 2)
            withExtendedLifetime(effect) {}
        }
    }

    @Test func didMutateOnARippleAtomAnnouncesAnInPlaceMutation() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            // By its own equality the mutated object equals itself: only
            // `didMutate` can announce the change.
            let counter = atom(Counter(), equals: { $0 === $1 })
            var seen: [Int] = []
            let effect = Effect { seen.append(counter.value.count) }
            counter.value.count = 5
            #expect(seen == [0])
            runtime.didMutate(counter)
            #expect(seen == [0, 5])
            #expect(runtime.liveNodeCount == 2)
            withExtendedLifetime(effect) {}
        }
    }

    @Test func unregisterPublisherOnARippleNodeDoesNothing() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            let a = atom(1)
            var seen: [Int] = []
            let effect = Effect { seen.append(a.value) }
            runtime.unregister(publisher: a)
            a.value = 2
            #expect(seen == [1, 2])
            #expect(runtime.liveNodeCount == 2)
            withExtendedLifetime(effect) {}
        }
    }

    @Test func unregisterSubscriberCancelsAnEffect() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            let a = atom(1)
            var seen: [Int] = []
            let effect = Effect { seen.append(a.value) }
            runtime.unregister(subscriber: effect)
            #expect(effect.isCancelled)
            a.value = 2
            #expect(seen == [1])
        }
    }
}
