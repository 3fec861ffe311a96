import Foundation
import Testing
import Ripple

/// Bodies keep the isolation of the code that creates them. Created on the main actor, an effect runs there:
/// at once when the change happens there (as a synchronous effect would), as a job on the main actor when another
/// thread writes. A derivation created on the main actor is computed only there. Created outside any actor, a
/// body is Sendable (the compiler checks it) and runs on the writer's thread. `scripts/compile-checks` holds the
/// misuses the compiler rejects.
@Suite struct IsolationTests {
    /// Stands in for a UIKit label: main-actor state.
    @MainActor final class Label {
        var text = ""
        var renders = 0
    }

    @MainActor @Test func mainActorEffectRunsAtOnceWhenWrittenOnTheMainActor() {
        withIsolatedRuntime {
            let count = atom(0)
            let label = Label()
            var seen: [Int] = []  // main-actor state the body mutates
            let render = Effect {
                label.text = "Count: \(count.value)"
                seen.append(count.value)
            }
            #expect(seen == [0])  // the first run happened inside init
            count.value = 1
            #expect(seen == [0, 1])  // and this one inside the write
            count.value = 1
            #expect(label.text == "Count: 1")
            withExtendedLifetime(render) {}
        }
    }

    /// The README's case: an effect that renders main-actor state, written from a detached task. Before bodies
    /// kept their isolation, this ran the body on the writer's thread (and `preconditionIsolated` trapped).
    @MainActor @Test func mainActorEffectWrittenFromAnotherThreadRunsOnTheMainActor() async {
        let runtime = Runtime()
        let count = withIsolatedRuntime(using: runtime) { atom(0) }
        let label = Label()
        var finished: CheckedContinuation<Void, Never>?
        let render = withIsolatedRuntime(using: runtime) {
            Effect {
                MainActor.preconditionIsolated("the body must run on the main actor")
                label.renders += 1
                label.text = "Count: \(count.value)"
                if count.value == 1_000 {
                    finished?.resume()
                    finished = nil
                }
            }
        }
        await withCheckedContinuation { continuation in
            finished = continuation  // before any job can run: this closure runs on the main actor, synchronously
            Task.detached {
                for _ in 0..<1_000 { count.update { $0 += 1 } }
            }
        }
        #expect(label.text == "Count: 1000")
        #expect(label.renders >= 2 && label.renders <= 1_001)  // writes from another thread coalesce
        withExtendedLifetime(render) {}
    }

    @Test func nonisolatedEffectRunsOnTheWritersThreadBeforeTheWriteReturns() async {
        let runtime = Runtime()
        let count = withIsolatedRuntime(using: runtime) { atom(0) }
        let seen = Locked<[Int]>([])
        let effect = withIsolatedRuntime(using: runtime) {
            Effect { let value = count.value; seen.withLock { $0.append(value) } }
        }
        let sawItsOwnWrite = await runOnThread(stackSize: StackSize.small) {
            count.value = 7
            return seen.withLock { $0.last == 7 }
        }
        #expect(sawItsOwnWrite)
        #expect(seen.withLock { $0 } == [0, 7])
        withExtendedLifetime(effect) {}
    }

    /// An actor's own state, read by an effect it created.
    actor Tally {
        var total = 0
        var runs = 0
        private var effect: Effect?
        private var waiter: (condition: @Sendable (Int, Int) -> Bool, continuation: CheckedContinuation<Void, Never>)?

        func watch(_ amount: AtomObject<Int>, runtime: Runtime) {
            effect = withIsolatedRuntime(using: runtime) {
                Effect {
                    self.runs += 1  // the actor's state, without `await`: the body is isolated to the actor
                    self.total = amount.value
                    self.resumeIfDone()
                }
            }
        }

        /// Waits until `condition(total, runs)` holds.
        func wait(until condition: @escaping @Sendable (Int, Int) -> Bool) async {
            if condition(total, runs) { return }
            await withCheckedContinuation { waiter = (condition, $0) }
        }

        private func resumeIfDone() {
            guard let waiter, waiter.condition(total, runs) else { return }
            self.waiter = nil
            waiter.continuation.resume()
        }
    }

    @Test func actorEffectRunsOnItsActor() async {
        let runtime = Runtime()
        let amount = withIsolatedRuntime(using: runtime) { atom(0) }
        let tally = Tally()
        await tally.watch(amount, runtime: runtime)
        await tally.wait { _, runs in runs == 1 }  // the first run is a job on the actor too
        amount.value = 5
        await tally.wait { total, _ in total == 5 }
        #expect(await tally.runs == 2)
    }

    @MainActor @Test func mainActorDerivationIsComputedOnTheMainActor() {
        withIsolatedRuntime {
            let base = atom(2)
            var computes = 0
            let doubled = derive {
                computes += 1  // main-actor state
                return base.value * 2
            }
            #expect(doubled.value == 4)
            base.value = 3
            #expect(doubled.value == 6)
            #expect(computes == 2)
        }
    }

    @Test func mainActorDerivationComputedOffTheMainActorTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let runtime = Runtime()
            let doubled = await MainActor.run {
                withIsolatedRuntime(using: runtime) {
                    let base = atom(2)
                    return derive(label: "main-only") { base.value * 2 }
                }
            }
            _ = await Task.detached { doubled.value }.value
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("derivation main-only was created on the main actor"), "\(message)")
        #expect(message.contains("Read it on the main actor only"), "\(message)")
    }

    @Test func runningAMainActorEffectFromAnotherThreadTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let runtime = Runtime()
            let effect = await MainActor.run {
                withIsolatedRuntime(using: runtime) { Effect(label: "renderer") {} }
            }
            await Task.detached { effect.run() }.value
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("Effect renderer was created on the main actor"), "\(message)")
        #expect(message.contains("Call run() on the main actor"), "\(message)")
    }

    @Test func ownerReadingDerivedPropertyAssignedInAMainActorInitializerIsComputedOnlyThere() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            @MainActor final class Profile {
                @Atom var name = "Ada"
                @Derived var title: String

                init() {
                    // Assigned in the main-actor initializer: the wrapper learns the class's actor (a property
                    // attribute's closure does not tell it).
                    _title = Derived({ (profile: Profile) in "Profile of \(profile.name)" }, label: "profile title")
                }
            }
            let runtime = Runtime()
            let (profile, title) = await MainActor.run {
                withIsolatedRuntime(using: runtime) {
                    let profile = Profile()
                    return (profile, profile.$title)
                }
            }
            _ = await Task.detached { title.value }.value
            withExtendedLifetime(profile) {}
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains("derivation profile title was created on the main actor"), "\(message)")
    }

    /// Ripple calls an `@isolated(any)` body as a plain function where its isolation holds: the two function
    /// types must have one layout.
    @Test func isolatedAnyFunctionHasThePlainFunctionLayout() {
        typealias Isolated = @isolated(any) @Sendable () -> Int
        typealias Plain = @Sendable () -> Int
        #expect(MemoryLayout<Isolated>.size == MemoryLayout<Plain>.size)
        #expect(MemoryLayout<Isolated>.alignment == MemoryLayout<Plain>.alignment)
        #expect(MemoryLayout<Isolated>.stride == MemoryLayout<Plain>.stride)
    }
}
