import Dispatch
import RippleTesting
import Testing

@testable import Ripple

/// A cancelled run's `Send` does nothing whichever thread calls it: a run wrapping a callback API (here a dispatch
/// queue) calls it from a thread that is not the run's task and whose own task, if any, was never cancelled.
@Suite struct StoreCancelledRunTests {
    /// Each `.start(n)` runs work that hands a callback to a dispatch queue and waits for it; the callback waits
    /// until the test releases `releases[n]`, sends `.late(n)`, then opens `sent[n]` (the send has returned: an
    /// action a store reduces is reduced by then, one a test store takes is taken). `.stop` cancels the runs.
    struct CallbackJob: Reducer {
        enum Action: Equatable, Sendable {
            case start(Int)
            case stop
            case late(Int)
        }

        let releases: [DispatchSemaphore]
        let sent: [Gate<Void>]
        let cancelInFlight: Bool

        func reduce(into state: inout [String], action: Action) -> Work<Action> {
            state.append("\(action)")
            switch action {
            case .start(let number):
                return .run { send in
                    await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                        DispatchQueue.global().async {
                            releases[number].wait()
                            send(.late(number))
                            sent[number].open()
                            done.resume()
                        }
                    }
                }
                .cancellable(id: "callback", cancelInFlight: cancelInFlight)
            case .stop:
                return .cancel(id: "callback")
            case .late:
                return .none
            }
        }

        init(runs: Int, cancelInFlight: Bool = false) {
            releases = (0..<runs).map { _ in DispatchSemaphore(value: 0) }
            sent = (0..<runs).map { _ in Gate<Void>() }
            self.cancelInFlight = cancelInFlight
        }
    }

    @Test func aRunCancelledByIdSendsNothingFromItsCallbackQueue() async {
        await withIsolatedRuntime { () async in
            let job = CallbackJob(runs: 1)
            let store = Store(initialState: [String](), reducer: job)
            store.send(.start(0))
            store.send(.stop)
            job.releases[0].signal()
            await job.sent[0].wait()
            #expect(store.state == ["start(0)", "stop"])
        }
    }

    @Test func aRunReplacedByCancelInFlightSendsNothingFromItsCallbackQueue() async {
        await withIsolatedRuntime { () async in
            let job = CallbackJob(runs: 2, cancelInFlight: true)
            let store = Store(initialState: [String](), reducer: job)
            store.send(.start(0))
            store.send(.start(1))  // cancels the run of start(0)
            job.releases[0].signal()
            await job.sent[0].wait()
            #expect(store.state == ["start(0)", "start(1)"])
            job.releases[1].signal()
            await job.sent[1].wait()
            #expect(store.state == ["start(0)", "start(1)", "late(1)"])
        }
    }

    @Test func aTestStoreNeverReceivesTheSendOfACancelledRun() async {
        await withIsolatedRuntime { () async in
            let job = CallbackJob(runs: 2, cancelInFlight: true)
            let store = TestStore(initialState: [], reducer: job)
            store.send(.start(0)) { $0 = ["start(0)"] }
            store.send(.start(1)) { $0.append("start(1)") }
            job.releases[0].signal()
            await job.sent[0].wait()
            job.releases[1].signal()
            // The first action received is the second run's: the first run's late send was dropped.
            await store.receive(.late(1)) { $0.append("late(1)") }
            await store.finish()
        }
    }

    @Test func aRunNotCancelledStillSendsFromItsCallbackQueue() async {
        await withIsolatedRuntime { () async in
            let job = CallbackJob(runs: 1)
            let store = Store(initialState: [String](), reducer: job)
            store.send(.start(0))
            job.releases[0].signal()
            await job.sent[0].wait()
            #expect(store.state == ["start(0)", "late(0)"])
        }
    }
}
