import Testing

@testable import Ripple

private let releases = RunCount()
private let tracked = declare.atom(lifecycle: Lifecycle(released: { releases.increment() })) { 1 }
private let trackedTwice = declare.derived { tracked.value * 2 }
private let kept = declare.atom(keepAlive: true) { 10 }
private let user = declare.atomFamily { (id: Int) in "user \(id)" }
private let slowLoadStarted = Gate<Void>()
private let slowLoadCancelled = Gate<Void>()
private let slowLoad = declare.derived(lifecycle: Lifecycle(released: { releases.increment() })) {
    () async -> Int in
    slowLoadStarted.open()
    await withTaskCancellationHandler {
        try? await Task.sleep(for: .seconds(3_600))  // stands for long work: only cancellation ends it
    } onCancel: {
        slowLoadCancelled.open()
    }
    return 1
}

/// When instances of declarations are released: when the last caller or live reader lets go of them (unless
/// declared keep-alive, or written and not reset since), and that the next use starts afresh.
@Suite(.serialized) struct DeclaredLifetimeTests {
    @Test func anUnwrittenInstanceNobodyHoldsIsReleasedAndStartsAgainFromItsDefault() {
        withIsolatedRuntime {
            let before = releases.value
            #expect(tracked.value == 1)  // created for the read, released as it returns
            #expect(tracked.existingNode == nil)
            #expect(releases.value == before + 1)
            tracked.value = 5  // written: kept, although nobody holds it
            #expect(tracked.existingNode?.value == 5)
            #expect(releases.value == before + 1)
            tracked.reset()  // unwritten again, and nobody holds it
            #expect(tracked.existingNode == nil)
            #expect(releases.value == before + 2)
            #expect(tracked.value == 1)
            #expect(releases.value == before + 3)
        }
    }

    @Test func aHeldInstanceNeverWrittenLivesUntilItsHolderGoes() {
        withIsolatedRuntime {
            let before = releases.value
            var node: AtomObject<Int>? = tracked.node
            let weak = WeakBox(node)
            #expect(tracked.value == 1)
            #expect(releases.value == before)
            release(&node)
            #expect(weak.object == nil)
            #expect(tracked.existingNode == nil)
            #expect(releases.value == before + 1)
            #expect(Runtime.current.declaredInstanceCount == 0)
        }
    }

    @Test func aWrittenInstanceOutlivesItsHolderUntilItsReset() {
        withIsolatedRuntime {
            let before = releases.value
            var node: AtomObject<Int>? = tracked.node
            let weak = WeakBox(node)
            node?.value = 5
            release(&node)
            #expect(weak.object != nil)
            #expect(tracked.value == 5)
            #expect(releases.value == before)
            tracked.reset()
            #expect(weak.object == nil)
            #expect(releases.value == before + 1)
            #expect(Runtime.current.declaredInstanceCount == 0)
        }
    }

    @Test func aLiveEffectHoldsWhatItReadsAndReleasesItWhenItGoes() {
        withIsolatedRuntime {
            let before = releases.value
            var effect: Effect? = Effect { _ = trackedTwice.value }
            let atomNode = WeakBox(tracked.existingNode)
            let derivedNode = WeakBox(trackedTwice.existingNode)
            #expect(atomNode.object != nil)
            #expect(derivedNode.object != nil)
            #expect(trackedTwice.existingNode?.value == 2)
            #expect(releases.value == before)
            effect?.cancel()
            effect = nil
            #expect(atomNode.object == nil)
            #expect(derivedNode.object == nil)
            #expect(releases.value == before + 1)
            #expect(Runtime.current.declaredInstanceCount == 0)
        }
    }

    @Test func aKeepAliveInstanceStaysWhileItsRuntimeLives() {
        let runtime = Runtime()
        withIsolatedRuntime(using: runtime) {
            kept.value = 11
            #expect(kept.value == 11)
            #expect(Runtime.current.declaredInstanceCount == 1)
        }
        withIsolatedRuntime(using: runtime) {
            #expect(kept.value == 11)
        }
    }

    @Test func releasedFamilyMembersLeaveTheTable() {
        withIsolatedRuntime {
            for id in 0..<1_000 { _ = user(id).value }
            #expect(user.instanceCount == 0)
            let held = user(7)
            held.value = "seven"
            for id in 0..<1_000 { _ = user(id).value }
            #expect(user.instanceCount == 1)
            #expect(user(7).value == "seven")
        }
    }

    @Test func theAsyncWorkOfAReleasedInstanceIsCancelled() async throws {
        try await withIsolatedRuntime { () async throws in
            let before = releases.value
            var holder: AsyncDerivation<Int>? = slowLoad.node
            let weak = WeakBox(holder)
            #expect(holder?.phase == .suspending)
            await slowLoadStarted.wait()
            release(&holder)
            #expect(weak.object == nil)
            #expect(slowLoad.existingNode == nil)
            await slowLoadCancelled.wait()  // the run's task was cancelled when the instance went
            #expect(releases.value == before + 1)
        }
    }
}
