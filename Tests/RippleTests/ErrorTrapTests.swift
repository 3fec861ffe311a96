import Testing
import Ripple

/// Programming errors trap with a message that names the nodes involved. Each
/// case runs in a child process (an exit test); its body builds everything it
/// uses, because exit-test bodies cannot capture.
@Suite struct ErrorTrapTests {
    /// What the child process wrote to standard error.
    static func standardError(_ result: ExitTest.Result?) -> String {
        String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    }

    @Test func derivationReadingItselfTrapsNamingTheCycle() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            withIsolatedRuntime {
                let selfish = Slot<Derivation<Int>>()
                selfish.value = derive(label: "selfish") { (selfish.value?.value ?? 0) + 1 }
                _ = selfish.value?.value
            }
        }
        let message = Self.standardError(result)
        #expect(message.contains("cycle"), "\(message)")
        #expect(message.contains("selfish"), "\(message)")
    }

    @Test func twoDerivationsReadingEachOtherTrapNamingBoth() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            withIsolatedRuntime {
                let ping = Slot<Derivation<Int>>()
                let pong = Slot<Derivation<Int>>()
                ping.value = derive(label: "ping") { (pong.value?.value ?? 0) + 1 }
                pong.value = derive(label: "pong") { (ping.value?.value ?? 0) + 1 }
                _ = ping.value?.value
            }
        }
        let message = Self.standardError(result)
        #expect(message.contains("cycle"), "\(message)")
        #expect(message.contains("ping"), "\(message)")
        #expect(message.contains("pong"), "\(message)")
    }

    @Test func cycleReachedFromAnEffectTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            withIsolatedRuntime {
                let useCycle = atom(false)
                let loop = Slot<Derivation<Int>>()
                loop.value = derive(label: "sometimes-circular") { useCycle.value ? (loop.value?.value ?? 0) + 1 : 0 }
                let effect = Effect(label: "watcher") { _ = loop.value?.value }
                useCycle.value = true
                withExtendedLifetime(effect) {}
            }
        }
        let message = Self.standardError(result)
        #expect(message.contains("cycle"), "\(message)")
        #expect(message.contains("sometimes-circular"), "\(message)")
    }

    @Test func effectThatNeverSettlesTrapsNamingIt() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            withIsolatedRuntime {
                let counter = atom(0)
                let effect = Effect(label: "runaway") {
                    counter.value = counter.value + 1
                }
                withExtendedLifetime(effect) {}
            }
        }
        let message = Self.standardError(result)
        #expect(message.contains("settle"), "\(message)")
        #expect(message.contains("runaway"), "\(message)")
    }

    @Test func effectsFeedingEachOtherForeverTrapWithTheSettleBound() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            withIsolatedRuntime(using: Runtime(settleBound: 10)) {
                let x = atom(0)
                let y = atom(0)
                let first = Effect(label: "feeds-y") { y.value = x.value + 1 }
                let second = Effect(label: "feeds-x") { x.value = y.value + 1 }
                withExtendedLifetime((first, second)) {}
            }
        }
        let message = Self.standardError(result)
        #expect(message.contains("settle"), "\(message)")
        #expect(message.contains("feeds-x"), "\(message)")
        #expect(message.contains("feeds-y"), "\(message)")
    }

    @Test func effectNeedingOneRunMoreThanTheSettleBoundTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            withIsolatedRuntime(using: Runtime(settleBound: 3)) {
                let a = atom(10)
                let effect = Effect(label: "one-too-many") {
                    let value = a.value
                    if value < 3 {
                        a.value = value + 1
                    }
                }
                // One write, then four runs in its flush (0, 1, 2, 3): one past the bound.
                a.value = 0
                withExtendedLifetime(effect) {}
            }
        }
        let message = Self.standardError(result)
        #expect(message.contains("one-too-many"), "\(message)")
    }

    @Test func nodeOfOneRuntimeReadInsideAnotherRuntimesEffectTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let home = Runtime()
            let away = Runtime()
            let stranger = withIsolatedRuntime(using: home) { atom(1, label: "stranger") }
            withIsolatedRuntime(using: away) {
                let effect = Effect(label: "visitor") { _ = stranger.value }
                withExtendedLifetime(effect) {}
            }
        }
        let message = Self.standardError(result)
        #expect(message.contains("stranger"), "\(message)")
        #expect(message.contains("visitor"), "\(message)")
    }

    @Test func nodeOfOneRuntimeReadInsideAnotherRuntimesDerivationTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let home = Runtime()
            let away = Runtime()
            let stranger = withIsolatedRuntime(using: home) { atom(1, label: "stranger") }
            withIsolatedRuntime(using: away) {
                let reader = derive(label: "curious reader") { stranger.value * 2 }
                _ = reader.value
            }
        }
        let message = Self.standardError(result)
        #expect(message.contains("stranger"), "\(message)")
        #expect(message.contains("curious reader"), "\(message)")
    }

    @Test func globalNodeCreatedInAnEarlierRuntimeTrapsSayingWhatHappened() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            withIsolatedRuntime { _ = lazilyCreatedGlobalCounter.value }  // an earlier test touches it first
            withIsolatedRuntime {
                let doubled = derive(label: "doubled") { lazilyCreatedGlobalCounter.value * 2 }
                _ = doubled.value
            }
        }
        let message = Self.standardError(result)
        #expect(message.contains("globalCounter"), "\(message)")
        #expect(message.contains("doubled"), "\(message)")
        #expect(message.contains("creates it lazily, on first use"), "\(message)")
        #expect(message.contains("an isolated runtime, perhaps an earlier test's"), "\(message)")
        #expect(message.contains("Fix: declare it instead (`let counter = declare.atom { 0 }`"), "\(message)")
    }

    @Test func ownerReadingDerivedOutsideAClassTrapsSayingWhereItWorks() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            final class Owner {}
            struct Settings {
                @Derived({ (_: Owner) in 1 }, label: "misplaced") var level: Int
            }
            withIsolatedRuntime { _ = Settings().level }
        }
        let message = Self.standardError(result)
        #expect(message.contains("misplaced"), "\(message)")
        #expect(message.contains("works only as a stored property of a class"), "\(message)")
    }

    @Test func derivedPropertyRecomputedAfterItsOwnerWentTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            final class Model {
                @Atom var count = 0
                @Derived({ (model: Model) in model.count * 2 }, label: "orphaned") var doubled: Int
            }
            withIsolatedRuntime {
                var model: Model? = Model()
                let count = model!.$count
                let doubled = model!.$doubled
                let display = Effect { _ = doubled.value }  // outlives the model
                model = nil
                count.value = 1  // the display re-validates `doubled`, whose owner is gone
                withExtendedLifetime(display) {}
            }
        }
        let message = Self.standardError(result)
        #expect(message.contains("orphaned"), "\(message)")
        #expect(message.contains("after the object that owns it was freed"), "\(message)")
    }

    @Test func onCleanupOutsideAnEffectTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            withIsolatedRuntime {
                onCleanup {}
            }
        }
        let message = Self.standardError(result)
        #expect(message.contains("onCleanup"), "\(message)")
    }

    @Test func anAsyncDerivationReadingItsOwnPhaseTrapsNamingTheCycle() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            await withIsolatedRuntime {
                let itself = Slot<AsyncDerivation<Int>>()
                let looping = derive(label: "looping") { () async -> Int in
                    _ = itself.value?.phase
                    return 1
                }
                itself.value = looping
                _ = try? await looping.value
            }
        }
        let message = Self.standardError(result)
        #expect(message.contains("cycle"), "\(message)")
        #expect(message.contains("looping"), "\(message)")
    }

    @Test func aSynchronousCleanupInsideAnAsyncBodyTrapsSayingWhatToWrite() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            @Sendable func registerFromSynchronousCode() { onCleanup {} }
            await withIsolatedRuntime {
                let loading = derive { () async -> Int in
                    registerFromSynchronousCode()
                    return 1
                }
                _ = try? await loading.value
            }
        }
        let message = Self.standardError(result)
        #expect(message.contains("await onCleanup"), "\(message)")
    }

    @Test func wellBehavedGraphDoesNotTrap() async {
        await #expect(processExitsWith: .success) {
            withIsolatedRuntime {
                let a = atom(0)
                let doubled = derive { a.value * 2 }
                let effect = Effect { _ = doubled.value }
                a.value = 1
                withExtendedLifetime(effect) {}
            }
        }
    }
}

/// A global node: Swift creates it on first use, in the runtime current then.
let lazilyCreatedGlobalCounter = atom(0, label: "globalCounter")
