import Foundation
import Testing

@testable import Ripple

/// A repeating timer the test drives: `fire()` runs every scheduled tick, on the calling thread, in the order the
/// timers were scheduled. No sleeps: a tick happens when the test says so.
private final class ManualTimers: @unchecked Sendable {
    private let lock = NSLock()
    private var ticks: [(id: Int, tick: @Sendable () -> Void)] = []
    private var lastID = 0

    func schedule(_ tick: @escaping @Sendable () -> Void) -> Int {
        lock.withLock {
            lastID += 1
            ticks.append((lastID, tick))
            return lastID
        }
    }

    func cancel(_ id: Int) {
        lock.withLock { ticks.removeAll { $0.id == id } }
    }

    var running: Int { lock.withLock { ticks.count } }

    func fire() {
        for tick in lock.withLock({ ticks.map(\.tick) }) { tick() }
    }
}

private let events = Recorder<String>()
private let timers = ManualTimers()
private let writeErrors = Recorder<LifecycleContextError>()

/// The Atoms README's counting timer (`CountTimerEffect`), with a context: `watched` starts a timer that adds one
/// every tick, writing through the context (no global, no look-up, no `[weak node]`), and the cleanup it registers
/// stops the timer when the last reader goes.
private func countingTimer() -> Lifecycle<Int> {
    Lifecycle(
        initialized: { events.append("initialized") },
        watched: { context in
            events.append("watched at \(context.value.map(String.init) ?? "nil")")
            let timer = timers.schedule {
                do throws(LifecycleContextError) { try context.update { $0 += 1 } } catch { writeErrors.append(error) }
            }
            context.onUnwatched {
                timers.cancel(timer)
                events.append("timer stopped")
            }
        },
        updated: { old, new in events.append("updated \(old) → \(new)") },
        unwatched: { context in events.append("unwatched at \(context.value.map(String.init) ?? "nil")") },
        released: { events.append("released") })
}

private let seconds = declare.atom(label: "seconds", lifecycle: countingTimer()) { 0 }

/// The hooks of a derivation, to compare a plain one with a declared one.
private func derivationHooks() -> Lifecycle<Int> {
    Lifecycle(
        initialized: { events.append("d initialized") },
        watched: { context in events.append("d watched at \(context.value.map(String.init) ?? "nil")") },
        updated: { old, new in events.append("d updated \(old) → \(new)") },
        unwatched: { _ in events.append("d unwatched") },
        released: { events.append("d released") })
}

private let source = declare.atom(keepAlive: true) { 1 }
private let tenfold = declare.derived(lifecycle: derivationHooks()) { source.value * 10 }

/// An atom whose `watched` hook writes it through its context: it starts at 10 whenever it is watched.
private let startsAtTen = declare.atom(lifecycle: Lifecycle(watched: { context in
    do throws(LifecycleContextError) { try context.set(10) } catch { writeErrors.append(error) }
})) { 0 }

/// Contexts kept past their instance's release, for the misuse tests.
private let keptContexts = Recorder<LifecycleContext<Int>>()

/// Lifecycle hooks with a context, on declared and plain nodes: the Atoms timer, writes through the context, the
/// same hook order whichever way a node is made, and late writes reported.
@Suite(.serialized) struct LifecycleContextTests {
    @Test func theAtomsTimerCountsWhileWatchedAndStopsWhenItsLastReaderGoes() {
        events.removeAll()
        writeErrors.removeAll()
        withIsolatedRuntime {
            let shown = Recorder<Int>()
            var show: Effect? = Effect { shown.append(seconds.value) }
            #expect(events.values == ["initialized", "watched at 0"])
            #expect(timers.running == 1)
            timers.fire()
            timers.fire()
            #expect(shown.values == [0, 1, 2])
            release(&show)
            #expect(timers.running == 0)
            #expect(events.values == [
                "initialized", "watched at 0", "updated 0 → 1", "updated 1 → 2", "timer stopped", "unwatched at 2",
            ])
            // Written: the runtime keeps it (no write is lost) until its reset.
            weak let instance = seconds.existingNode
            #expect(instance?.value == 2)
            events.removeAll()
            seconds.reset()
            #expect(events.values == ["updated 2 → 0", "released"])
            #expect(instance == nil)
            timers.fire()  // no timer left: nothing writes
            #expect(writeErrors.values == [])
        }
    }

    @Test func aTickOnAnotherThreadWritesTheInstanceOfItsOwnRuntime() {
        events.removeAll()
        withIsolatedRuntime {
            let node = seconds.node
            let shown = Recorder<Int>()
            let show = Effect { shown.append(node.value) }
            // The tick runs on a thread that has no task-local runtime: Runtime.current there is another one.
            let isolated = Runtime.current
            let tickSawAnotherRuntime = Recorder<Bool>()
            let done = DispatchSemaphore(value: 0)
            let thread = Thread {
                tickSawAnotherRuntime.append(Runtime.current !== isolated)
                timers.fire()
                done.signal()
            }
            thread.start()
            done.wait()
            #expect(tickSawAnotherRuntime.values == [true])
            #expect(shown.values == [0, 1])
            #expect(seconds.value == 1)
            _ = show
        }
        #expect(timers.running == 0)
        #expect(seconds.existingNode == nil)  // nothing was written outside the isolated runtime
    }

    @Test func aPlainAtomWithTheSameLifecycleRunsTheSameHooksInTheSameOrder() {
        func run(_ makeNode: () -> AtomObject<Int>, reset: (AtomObject<Int>) -> Void) -> [String] {
            events.removeAll()
            return withIsolatedRuntime {
                var node: AtomObject<Int>? = makeNode()
                weak let instance = node
                do {
                    let held = node.unsafelyUnwrapped
                    var show: Effect? = Effect { _ = held.value }
                    timers.fire()
                    release(&show)
                }
                reset(node.unsafelyUnwrapped)
                release(&node)
                #expect(instance == nil)
                return events.values
            }
        }
        // A declared atom resets through its declaration, which also stops keeping it for its write.
        let declared = run({ seconds.node }, reset: { _ in seconds.reset() })
        let plain = run({ atom(0, label: "seconds", lifecycle: countingTimer()) }, reset: { $0.reset() })
        #expect(declared == [
            "initialized", "watched at 0", "updated 0 → 1", "timer stopped", "unwatched at 1", "updated 1 → 0",
            "released",
        ])
        #expect(plain == declared)
    }

    @Test func aPlainDerivationWithTheSameLifecycleRunsTheSameHooksInTheSameOrder() {
        func run(_ makeNode: () -> Derivation<Int>) -> [String] {
            events.removeAll()
            return withIsolatedRuntime {
                var node: Derivation<Int>? = makeNode()
                weak let instance = node
                do {
                    let held = node.unsafelyUnwrapped
                    var show: Effect? = Effect { _ = held.value }
                    source.value = 2
                    release(&show)
                }
                release(&node)
                #expect(instance == nil)
                return events.values
            }
        }
        let declared = run { tenfold.node }
        let plain = run { derive(lifecycle: derivationHooks()) { source.value * 10 } }
        #expect(declared == [
            "d initialized", "d watched at 10", "d updated 10 → 20", "d unwatched", "d released",
        ])
        #expect(plain == declared)
    }

    @Test func aContextWritesTheAtomInsideItsWatchedHook() {
        writeErrors.removeAll()
        withIsolatedRuntime {
            let shown = Recorder<Int>()
            let show = Effect { shown.append(startsAtTen.value) }
            // The hook runs when the effect's creation returns: the effect saw 0, then the write.
            #expect(shown.values == [0, 10])
            #expect(startsAtTen.value == 10)
            _ = show
        }
        #expect(writeErrors.values == [])
    }

    @Test func aWriteThroughAContextAfterTheReleaseIsReportedAndChangesNothing() throws {
        keptContexts.removeAll()
        events.removeAll()
        var counter: AtomObject<Int>? = atom(
            5, label: "counter",
            lifecycle: Lifecycle(
                initialized: { context in keptContexts.append(context) }, released: { events.append("released") }))
        weak let instance = counter
        let context = try #require(keptContexts.values.first)
        #expect(context.label == "counter")
        #expect(context.value == 5)
        try context.update { $0 += 1 }
        #expect(counter?.value == 6)
        #expect(!context.isReleased)
        // The context holds no reference to the atom: it goes with its last holder.
        release(&counter)
        #expect(instance == nil)
        #expect(events.values == ["released"])
        #expect(context.isReleased)
        #expect(context.value == nil)
        #expect(throws: LifecycleContextError.released(label: "counter")) { try context.set(7) }
        var ran = false
        #expect(throws: LifecycleContextError.released(label: "counter")) { try context.update { _ in ran = true } }
        #expect(!ran)
        // A cleanup registered after the release runs at once.
        context.onRelease { events.append("late cleanup") }
        #expect(events.values == ["released", "late cleanup"])
    }

    @Test func aDerivationsContextReadsButDoesNotWrite() throws {
        keptContexts.removeAll()
        let base = atom(4)
        let doubled = derive(label: "doubled", lifecycle: Lifecycle(initialized: { context in
            keptContexts.append(context)
        })) { base.value * 2 }
        let context = try #require(keptContexts.values.first)
        #expect(context.value == 8)
        #expect(throws: LifecycleContextError.notAnAtom(label: "doubled")) { try context.set(1) }
        #expect(doubled.value == 8)
        #expect(
            LifecycleContextError.released(label: "counter").description.hasPrefix(
                "Ripple: a write through the lifecycle context of counter came after counter was released"))
    }

    @Test func cleanupsRunBeforeTheirHookInRegistrationOrderAndReleaseRunsTheRest() {
        events.removeAll()
        var node: AtomObject<Int>? = atom(0, lifecycle: Lifecycle(
            initialized: { context in
                context.onRelease { events.append("release cleanup") }
                context.onUnwatched { events.append("unwatched cleanup while unwatched") }  // runs at once
            },
            watched: { context in
                context.onUnwatched { events.append("first") }
                context.onUnwatched { events.append("second") }
                context.onRelease { events.append("release cleanup from watched") }
            },
            unwatched: { _ in events.append("unwatched") },
            released: { events.append("released") }))
        do {
            let held = node.unsafelyUnwrapped
            var show: Effect? = Effect { _ = held.value }
            release(&show)
        }
        #expect(events.values == [
            "unwatched cleanup while unwatched", "first", "second", "unwatched",
        ])
        events.removeAll()
        release(&node)
        #expect(events.values == ["release cleanup", "release cleanup from watched", "released"])
    }

    @Test func hooksAWatchCausedRunWhenTheReadOrTheEffectsCreationReturns() {
        events.removeAll()
        let base = atom(1, lifecycle: Lifecycle(
            watched: { context in events.append("watched at \(context.value ?? 0)") },
            unwatched: { _ in events.append("unwatched") }))
        // A derivation read at the top level links its source: the hook runs before the read returns.
        var doubled: Derivation<Int>? = derive { base.value * 2 }
        #expect(doubled?.value == 2)
        #expect(events.values == ["watched at 1"])
        release(&doubled)
        #expect(events.values == ["watched at 1", "unwatched"])
        // An effect's first run: the hook runs before the effect's creation returns.
        var show: Effect? = Effect { _ = base.value }
        #expect(events.values == ["watched at 1", "unwatched", "watched at 1"])
        // Inside a batch: when the batch ends.
        release(&show)
        batch {
            show = Effect { _ = base.value }
            #expect(events.values == ["watched at 1", "unwatched", "watched at 1", "unwatched"])
        }
        #expect(events.values == ["watched at 1", "unwatched", "watched at 1", "unwatched", "watched at 1"])
        _ = show
    }

    @Test func anEmptyLifecycleGivesANodeNoRecord() {
        let plain = atom(1, lifecycle: Lifecycle())
        #expect(plain.lifecycle == nil)
        #expect(!plain.hasExtras)
        let withHooks = atom(1, lifecycle: Lifecycle(released: {}))
        #expect(withHooks.lifecycle != nil)
    }
}
