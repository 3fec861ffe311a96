import Testing
@_spi(Testing) import Ripple

/// Evaluations of several runtimes nested on one thread, in any order: each one reads its own nodes, registers
/// cleanups with its own running effect, and leaves the thread's record of the innermost runtime as it found it.
@Suite struct NestedRuntimeEvaluationTests {
    /// Runtime 1's effect writes into runtime 2, whose effect runs another effect of runtime 1: runtime 1 evaluates
    /// again while it is already evaluating further up the stack, with runtime 2 in between.
    @Test func runtimeEvaluatingInsideAnotherRuntimesEffectReadsItsOwnNodes() {
        let first = Runtime()
        let second = Runtime()
        let (trigger, own) = withIsolatedRuntime(using: first) { (atom(0), atom(10)) }
        let relay = withIsolatedRuntime(using: second) { atom(0) }
        let log = RunLog<String>()
        let inner = withIsolatedRuntime(using: first) {
            Effect {
                log.values.append("inner \(own.value)")
                onCleanup { log.values.append("inner cleanup") }
            }
        }
        let middle = withIsolatedRuntime(using: second) {
            Effect {
                let relayed = relay.value
                log.values.append("middle \(relayed)")
                if relayed > 0 { inner.run() }
                // Back in runtime 2's effect: the cleanup must go to this effect, not to runtime 1's.
                onCleanup { log.values.append("middle cleanup \(relayed)") }
            }
        }
        let outer = withIsolatedRuntime(using: first) {
            Effect {
                let value = trigger.value
                relay.value = value  // runs `middle` now, on this thread, inside this run
                log.values.append("outer \(value) after the relay")
                onCleanup { log.values.append("outer cleanup \(value)") }
            }
        }
        #expect(log.values == ["inner 10", "middle 0", "outer 0 after the relay"])
        log.values = []

        trigger.value = 1
        #expect(
            log.values == [
                "outer cleanup 0", "middle cleanup 0", "middle 1", "inner cleanup", "inner 10",
                "outer 1 after the relay",
            ])
        log.values = []

        // The nested run recorded the read of `own` as a dependency of `inner`, in runtime 1.
        own.value = 11
        #expect(log.values == ["inner cleanup", "inner 11"])
        #expect(first.checkInvariants() == nil)
        #expect(second.checkInvariants() == nil)
        withExtendedLifetime((inner, middle, outer)) {}
    }

    /// A derivation of runtime 1 recomputed inside runtime 1's effect, run by runtime 2's effect, itself run inside
    /// runtime 1's effect.
    @Test func derivationRecomputedUnderAnotherRuntimesEffectReadsItsOwnNodes() {
        let first = Runtime()
        let second = Runtime()
        let (trigger, base) = withIsolatedRuntime(using: first) { (atom(0), atom(3)) }
        let tripledRuns = RunLog<Int>()
        let tripled = withIsolatedRuntime(using: first) {
            derive {
                let value = base.value * 3
                tripledRuns.values.append(value)
                return value
            }
        }
        let relay = withIsolatedRuntime(using: second) { atom(0) }
        let seen = RunLog<Int>()
        // Created last, so that the flush runs outer (and through it, middle) before inner's own turn.
        let innerSlot = Slot<Effect>()
        let middle = withIsolatedRuntime(using: second) { Effect { if relay.value > 0 { innerSlot.value?.run() } } }
        let outer = withIsolatedRuntime(using: first) { Effect { relay.value = trigger.value } }
        let inner = withIsolatedRuntime(using: first) { Effect { seen.values.append(tripled.value) } }
        innerSlot.value = inner
        first.batch {
            base.value = 4  // tripled is stale; the batch defers the flush
            trigger.value = 1
        }
        // The flush runs outer, whose write to relay runs middle, which runs inner: tripled recomputes there, three
        // evaluations deep. Inner's own turn then finds it up to date.
        #expect(seen.values == [9, 12])
        #expect(tripledRuns.values == [9, 12])
        #expect(first.checkInvariants() == nil)
        #expect(second.checkInvariants() == nil)
        withExtendedLifetime((inner, middle, outer)) {}
    }
}
