import Testing

@_spi(Testing) import Ripple

/// `recordChanges()`: every value a node commits after recording starts, one per flush, in order, none dropped
/// however fast the writers; timeouts that name the node; cancellation.
@Suite struct ChangeRecordingTests {
    @Test func recordsEveryWriteMadeOnAnotherTaskInOrder() async throws {
        try await withIsolatedRuntime { () async throws in
            let count = atom(0)
            let changes = count.recordChanges()
            let writer = Task.detached {
                for step in 1...200 { count.value = step }
            }
            var received: [Int] = []
            for _ in 1...200 { received.append(try await changes.next()) }
            #expect(received == Array(1...200))
            await writer.value
        }
    }

    @Test func startsAtTheNextChangeNotTheCurrentValue() async throws {
        try await withIsolatedRuntime { () async throws in
            let count = atom(5)
            count.value = 6
            let changes = count.recordChanges()
            count.value = 7
            #expect(try await changes.next() == 7)
        }
    }

    @Test func aBatchIsOneValueAndEqualWritesAreNone() async throws {
        try await withIsolatedRuntime { () async throws in
            let count = atom(0)
            let changes = count.recordChanges()
            batch {
                count.value = 1
                count.value = 2
                count.value = 3
            }
            count.value = 3
            batch {
                count.value = 4
                count.value = 3  // written back: no change
            }
            count.value = 4
            #expect(try await changes.next() == 3)
            #expect(try await changes.next() == 4)
            await #expect(throws: WaitTimeout.self) { try await changes.next(timeout: .milliseconds(20)) }
        }
    }

    @Test func aDerivationRecordsOnlyValuesThatChanged() async throws {
        try await withIsolatedRuntime { () async throws in
            let count = atom(0)
            let parity = derive { count.value % 2 }
            let changes = parity.recordChanges()
            count.value = 2
            count.value = 3
            count.value = 5
            count.value = 6
            #expect(try await changes.next() == 1)
            #expect(try await changes.next() == 0)
            await #expect(throws: WaitTimeout.self) { try await changes.next(timeout: .milliseconds(20)) }
        }
    }

    @Test func anAsyncDerivationRecordsEachPhase() async throws {
        try await withIsolatedRuntime { () async throws in
            let (gates, input, number) = gatedAsyncDerivation(returning: { $0 * 10 })
            let changes = number.recordChanges()  // starts the first run: suspending is not a change
            gates[1].open()
            #expect(try await changes.next() == .success(10))
            input.value = 2
            #expect(try await changes.next() == .suspending)
            gates[2].open()
            #expect(try await changes.next() == .success(20))
        }
    }

    @Test func aTimeoutNamesTheNodeAndTheDuration() async throws {
        try await withIsolatedRuntime { () async throws in
            let count = atom(0, label: "count")
            let changes = count.recordChanges()
            let error = await #expect(throws: WaitTimeout.self) {
                try await changes.next(timeout: .milliseconds(20))
            }
            #expect(error == WaitTimeout(awaited: "the next change of count", timeout: .milliseconds(20)))
            #expect(error?.description == "Ripple: timed out after 0.02 seconds waiting for the next change of count.")
        }
    }

    @Test func aValueThatComesAfterATimeoutIsKeptForTheNextCall() async throws {
        try await withIsolatedRuntime { () async throws in
            let count = atom(0)
            let changes = count.recordChanges()
            await #expect(throws: WaitTimeout.self) { try await changes.next(timeout: .milliseconds(10)) }
            count.value = 1
            count.value = 2
            #expect(try await changes.next() == 1)
            #expect(try await changes.next() == 2)
        }
    }

    @Test func cancellingTheWaitingTaskThrowsCancellationError() async throws {
        try await withIsolatedRuntime { () async throws in
            let count = atom(0)
            let changes = count.recordChanges()
            let waiting = Task { try await changes.next(timeout: .seconds(600)) }
            waiting.cancel()
            await #expect(throws: CancellationError.self) { try await waiting.value }
            count.value = 1  // not taken by the cancelled wait
            #expect(try await changes.next() == 1)
        }
    }

    @Test func stoppingRemovesTheObserverAndRecordsNothingMore() async throws {
        let runtime = Runtime()
        let count = withIsolatedRuntime(using: runtime) { atom(0) }
        let changes = count.recordChanges()
        #expect(runtime.liveNodeCount == 2)  // the atom and the observer
        count.value = 1
        changes.stop()
        #expect(runtime.liveNodeCount == 1)
        count.value = 2
        #expect(try await changes.next() == 1)
        await #expect(throws: WaitTimeout.self) { try await changes.next(timeout: .milliseconds(10)) }
    }
}
