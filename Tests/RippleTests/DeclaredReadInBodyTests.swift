import Testing

@testable import Ripple

private let reading = declare.atom { 1 }
private let readingTimesTen = declare.derived { reading.value * 10 }
private let gate = declare.atom { false }
private let announcements = Recorder<String>()
private let announced = declare.atom(lifecycle: Lifecycle(initialized: { announcements.append("initialized") })) { 5 }
private let gated = declare.derived { gate.value ? announced.value : 0 }
private let ping: DeclaredDerivation<Int> = declare.derived(label: "ping") { pong.value + 1 }
private let pong: DeclaredDerivation<Int> = declare.derived(label: "pong") { ping.value + 1 }

/// A declaration read inside a derivation's or an effect's body, the read path that takes its runtime from the
/// thread's evaluation and finds the instance in that runtime's slot table on every read: it reads the evaluating
/// runtime's instance whatever `Runtime.current` is, finds a new instance after the old one went, sees resets and
/// overrides at once, reads through the table after its own reads grew it, reports a cycle through declarations,
/// and leaves the lifecycle hooks it causes for the end of the outermost operation.
@Suite(.serialized) struct DeclaredReadInBodyTests {
    @Test func aBodyReadsTheInstanceOfTheRuntimeEvaluatingIt() {
        let first = Runtime()
        let second = Runtime()
        let firstNode = withIsolatedRuntime(using: first) { reading.node }
        let secondNode = withIsolatedRuntime(using: second) { reading.node }
        firstNode.value = 2
        secondNode.value = 3
        let inFirst = withIsolatedRuntime(using: first) { derive { reading.value + readingTimesTen.value } }
        // Read with the second runtime current: the body runs in the first one, and reads its instances.
        withIsolatedRuntime(using: second) {
            #expect(inFirst.value == 22)
            #expect(reading.value == 3)
            #expect(readingTimesTen.value == 30)
        }
        firstNode.value = 4
        #expect(withIsolatedRuntime(using: second) { inFirst.value } == 44)
        #expect(withIsolatedRuntime(using: second) { readingTimesTen.value } == 30)
        withExtendedLifetime((firstNode, secondNode)) {}
    }

    @Test func aBodyFindsTheNewInstanceAfterTheOldOneWent() {
        withIsolatedRuntime {
            var held: AtomObject<Int>? = reading.node
            var first: Derivation<Int>? = derive { reading.value * 2 }
            held?.value = 7
            #expect(first?.value == 14)
            release(&held)
            #expect(first?.value == 14)  // the derivation holds what it read
            release(&first)
            #expect(reading.existingNode?.value == 7)  // written: kept
            reading.reset()  // unwritten again, and nothing holds it
            #expect(reading.existingNode == nil)
            let second = derive { reading.value * 2 }
            #expect(second.value == 2)  // a new instance, from the default
            reading.value = 8  // the instance `second` holds
            #expect(second.value == 16)
            #expect(Runtime.current.declaredInstanceCount == 1)
        }
    }

    @Test func aBodyReadsThroughTheTableItsOwnReadsGrew() {
        let runtime = Runtime()
        withIsolatedRuntime(using: runtime) {
            let held = reading.node
            held.value = 4
            let capacity = runtime.declarations.slotCapacity
            // Newer than `reading`, so each has a larger index: the last one is past the table's capacity.
            let added = (0...capacity).map { value in declare.atom { value } }
            let body = derive { () -> [Int] in
                let before = reading.value  // the table as it was
                let values = added.map(\.value)  // creates the instances: the table grows by copy
                return [before] + values + [reading.value]  // read in the grown table
            }
            #expect(body.value == [4] + Array(0...capacity) + [4])
            #expect(runtime.declarations.slotCapacity > capacity)
            #expect(runtime.declaredInstanceCount == capacity + 2)
            held.value = 6
            #expect(body.value == [6] + Array(0...capacity) + [6])
        }
    }

    @Test func aBodySeesResetsAndOverridesAtOnce() {
        withIsolatedRuntime {
            let log = RunLog<Int>()
            let show = Effect { log.values.append(readingTimesTen.value + reading.value) }
            reading.value = 3
            reading.reset()
            Runtime.current.override(reading.overridden(with: 9))
            Runtime.current.override(readingTimesTen.overridden { reading.value * 100 })
            reading.value = 2
            #expect(log.values == [11, 33, 11, 99, 909, 202])
            _ = show
        }
    }

    @Test func aBodyReadingADeclarationItIsComputingTrapsWithTheCycle() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            withIsolatedRuntime { _ = ping.value }  // ping's body reads pong, whose body reads ping
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("Ripple: cycle: derivation reads itself: ping -> pong -> ping."), "\(message)")
    }

    @Test func hooksCausedByAReadInABodyRunWhenTheOutermostOperationEnds() {
        announcements.removeAll()
        withIsolatedRuntime {
            let gateNode = gate.node
            let gatedNode = gated.node  // held: the effect's reads find it in the slot table
            let seen = RunLog<[String]>()
            let log = RunLog<Int>()
            let show = Effect {
                log.values.append(gated.value)  // recomputes `gated`, whose body creates `announced` once open
                seen.values.append(announcements.values)
            }
            #expect(announcements.values == [])
            gateNode.value = true
            #expect(log.values == [0, 5])
            #expect(seen.values == [[], []])  // queued inside the body: not run there
            #expect(announcements.values == ["initialized"])  // run when the write returned
            withExtendedLifetime((gatedNode, show)) {}
        }
    }
}
