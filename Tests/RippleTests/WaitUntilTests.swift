import Testing

@_spi(Testing) import Ripple

/// `waitUntil(timeout:_:)`: the condition is evaluated now and after each change of what it read (no polling),
/// the wait ends at the first true, times out naming its place, and leaves no observer behind.
@Suite struct WaitUntilTests {
    @Test func returnsAtOnceWhenTheConditionHolds() async throws {
        let runtime = Runtime()
        let count = withIsolatedRuntime(using: runtime) { atom(3) }
        let evaluations = RunCount()
        try await waitUntil(in: runtime) {
            evaluations.increment()
            return count.value == 3
        }
        #expect(evaluations.value == 1)
        #expect(runtime.liveNodeCount == 1)  // the observer is gone
    }

    @Test func evaluatesAfterEachChangeOfWhatItReadUntilItHolds() async throws {
        try await withIsolatedRuntime { () async throws in
            let count = atom(0)
            let unrelated = atom(0)
            let seen = Recorder<Int>()
            let started = Gate<Void>()
            let writer = Task.detached {
                await started.wait()
                unrelated.value = 1  // not read by the condition: no evaluation
                for step in 1...3 { count.value = step }
            }
            try await waitUntil {
                seen.append(count.value)
                started.open()
                return count.value >= 3
            }
            #expect(seen.values == [0, 1, 2, 3])
            await writer.value
        }
    }

    @Test func aTimeoutNamesThePlaceOfTheCall() async throws {
        try await withIsolatedRuntime { () async throws in
            let count = atom(0)
            var timeout: WaitTimeout?
            do {
                try await waitUntil(timeout: .milliseconds(20)) { count.value > 0 }
            } catch let error as WaitTimeout {
                timeout = error
            }
            let line = #line - 4
            #expect(timeout?.awaited == "the condition at RippleTests/WaitUntilTests.swift:\(line)")
            #expect(timeout?.timeout == .milliseconds(20))
        }
    }

    @Test func cancellingTheWaitingTaskThrowsCancellationErrorAndRemovesTheObserver() async throws {
        let runtime = Runtime()
        let count = withIsolatedRuntime(using: runtime) { atom(0) }
        let evaluated = Gate<Void>()
        let waiting = Task {
            try await waitUntil(timeout: .seconds(600), in: runtime) {
                evaluated.open()
                return count.value > 0
            }
        }
        await evaluated.wait()
        waiting.cancel()
        await #expect(throws: CancellationError.self) { try await waiting.value }
        #expect(runtime.liveNodeCount == 1)
    }
}
