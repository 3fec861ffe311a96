import Foundation
@testable import RippleTesting
import Testing

@testable import Ripple

/// The test store's failures, each captured as a known issue and checked word for word: an unasserted or wrongly
/// asserted change (with the diff), an action received other than the one expected, an action never received, an
/// action sent before the ones received, nothing to receive, work still running at the end, and leftovers found
/// when a test store is freed without finishing.
@Suite struct TestStoreTests {
    /// Runs `body` and returns the messages of the issues it recorded, in order.
    func issues(in body: () async -> Void) async -> [String] {
        let messages = Recorder<String>()
        await withKnownIssue(isIntermittent: true) {
            await body()
        } matching: { issue in
            messages.append(issue.comments.map(\.rawValue).joined(separator: "\n"))
            return true
        }
        return messages.values
    }

    @Test func anUnassertedChangeIsReportedWithTheDiff() async {
        await withIsolatedRuntime { () async in
            let messages = await issues {
                let store = TestStore(initialState: Counter.State(), reducer: Counter(fetchScore: { 1 }))
                store.send(.increase)
                await store.finish()
            }
            #expect(
                messages == [
                    """
                    State changed after sending .increase, but no change was asserted:
                      Counter.State(
                    −   count: 0
                    +   count: 1
                      )
                    (− expected, + actual)
                    """
                ])
        }
    }

    @Test func aWrongAssertionIsReportedWithTheDiff() async {
        await withIsolatedRuntime { () async in
            let messages = await issues {
                let store = TestStore(initialState: TwoCounters.State(), reducer: TwoCounters(fetchScore: { 1 }))
                store.send(.first(.increase)) { $0.first.count = 2 }
                await store.finish()
            }
            #expect(
                messages == [
                    """
                    State after sending .first(.increase) differs from the expected state:
                      TwoCounters.State(
                        first: Counter.State(
                    −     count: 2
                    +     count: 1
                        )
                        second: Counter.State(
                          count: 0
                        )
                    −   log: []
                    +   log: [
                    +     "first increase → 1"
                    +   ]
                      )
                    (− expected, + actual)
                    """
                ])
        }
    }

    @Test func anActionNeverReceivedIsReportedByFinish() async {
        await withIsolatedRuntime { () async in
            let messages = await issues {
                let store = TestStore(initialState: Counter.State(), reducer: Counter(fetchScore: { 1 }))
                store.send(.decrease) { $0.count = -1 }
                await store.finish()
            }
            #expect(
                messages == [
                    "1 action(s) sent by work were never received: .increase. Receive each with await "
                        + "store.receive(...)."
                ])
        }
    }

    @Test func anotherActionThanTheOneExpectedIsReportedAndReducedAllTheSame() async {
        await withIsolatedRuntime { () async in
            let messages = await issues {
                let store = TestStore(initialState: Counter.State(), reducer: Counter(fetchScore: { 1 }))
                store.send(.decrease) { $0.count = -1 }
                await store.receive(.decrease) { $0.count = 0 }
                await store.finish()
            }
            #expect(
                messages == [
                    """
                    Received an action other than the one expected:
                    − .decrease
                    + .increase
                    (− expected, + received)
                    """
                ])
        }
    }

    @Test func sendingBeforeReceivingIsReported() async {
        await withIsolatedRuntime { () async in
            let messages = await issues {
                let store = TestStore(initialState: Counter.State(), reducer: Counter(fetchScore: { 1 }))
                store.send(.decrease) { $0.count = -1 }
                await store.finish()  // the run has sent .increase and ended
                store.send(.increase) { $0.count = 0 }
                await store.receive(.increase) { $0.count = 1 }
                await store.finish()
            }
            #expect(
                messages == [
                    "1 action(s) sent by work were never received: .increase. Receive each with await "
                        + "store.receive(...).",
                    "Sent .increase while 1 action(s) sent by work were not received: .increase. Receive them "
                        + "(await store.receive(...)) before sending another action.",
                ])
        }
    }

    @Test func receivingWhenNoWorkIsRunningIsReported() async {
        await withIsolatedRuntime { () async in
            let messages = await issues {
                let store = TestStore(initialState: Counter.State(), reducer: Counter(fetchScore: { 1 }))
                store.send(.increase) { $0.count = 1 }
                await store.receive(.increase) { $0.count = 2 }
                await store.finish()
            }
            #expect(messages == ["Expected to receive .increase, but no action was received and no work is running."])
        }
    }

    @Test func workStillRunningAtTheEndIsReported() async {
        await withIsolatedRuntime { () async in
            let started = Gate<Void>()
            let messages = await issues {
                let store = TestStore(initialState: Counter.State(), reducer: Counter(fetchScore: {
                    started.open()
                    try await Task.sleep(for: .seconds(3600))  // never ends by itself; cancelled when freed
                    return 1
                }))
                store.send(.decrease) { $0.count = -1 }
                await started.wait()
                await store.receive(.increase, timeout: .milliseconds(20))
                await store.finish(timeout: .milliseconds(20))
            }
            #expect(
                messages == [
                    "Expected to receive .increase, but no action was received within 0.02 seconds; work is still "
                        + "running, started by .decrease.",
                    "1 run(s) of work still running at the end of the test, started by .decrease. Let them finish, "
                        + "or cancel them (Work.cancel(id:)), before the test ends.",
                ])
        }
    }

    @Test func aTestStoreFreedWithoutFinishingReportsWhatWasLeft() async {
        await withIsolatedRuntime { () async in
            let messages = await issues {
                let store = TestStore(initialState: Counter.State(), reducer: Counter(fetchScore: { 1 }))
                store.send(.decrease) { $0.count = -1 }
                await store.receive(.increase) { $0.count = 0 }
                store.send(.decrease) { $0.count = -1 }
                // Not finished: freeing it waits for the run, then reports the action it sent.
            }
            #expect(
                messages == [
                    "1 action(s) sent by work were never received: .increase. Receive each with await "
                        + "store.receive(...)."
                ])
        }
    }

    @Test func theDiffListsOnlyWhatDiffersBetweenUnchangedLines() {
        #expect(StateDiff.lines(expected: [1, 2, 3], actual: [1, 5, 3]) == "  [\n    1\n−   2\n+   5\n    3\n  ]")
        #expect(StateDiff.lines(expected: Optional<Int>.none, actual: 4) == "− nil\n+ 4")
    }
}
