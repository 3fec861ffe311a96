import Testing

@testable import Ripple

/// Async derivations (SEMANTICS.md, "Async derivations"): phases in exact order, cancellation of stale runs,
/// tracking across awaits, laziness and release. Every body waits on a gate the test opens, so each sequence is
/// deterministic; the suites are nonisolated, so effects run on the thread that resolves a run.
@Suite struct AsyncDerivationTests {
    @Test func theFirstReadIsSuspendingThenTheResult() async throws {
        try await withIsolatedRuntime { () async throws in
            let gate = Gate<Void>()
            let runs = RunCount()
            let number = derive { () async -> Int in
                runs.increment()
                await gate.wait()
                return 1
            }
            #expect(number.currentRunTask == nil)  // lazy: nothing started before the first read
            #expect(number.phase == .suspending)
            #expect(number.lastValue == nil)
            gate.open()
            #expect(try await number.value == 1)
            #expect(number.phase == .success(1))
            #expect(number.lastValue == 1)
            #expect(runs.value == 1)
        }
    }

    @Test func anEffectSeesEachPhaseOnceInOrder() async throws {
        try await withIsolatedRuntime { () async throws in
            let (gates, input, number) = gatedAsyncDerivation()
            let log = AwaitableLog<AsyncPhase<Int>>()
            let render = Effect { log.append(number.phase) }
            #expect(log.values == [.suspending])
            gates[1].open()
            await log.waitUntil(count: 2)
            input.value = 2
            #expect(log.values == [.suspending, .success(1), .suspending])
            #expect(number.lastValue == 1)  // kept while the new run is in flight
            gates[2].open()
            #expect(try await number.value == 2)
            await log.waitUntil(count: 4)
            #expect(log.values == [.suspending, .success(1), .suspending, .success(2)])
            _ = render
        }
    }

    @Test func aFailureIsAPhaseAndValueRethrowsIt() async throws {
        struct Offline: Error, Equatable {}
        try await withIsolatedRuntime { () async throws in
            let gate = Gate<Void>()
            let failing = derive { () async throws -> Int in
                await gate.wait()
                throw Offline()
            }
            #expect(failing.phase.isSuspending)
            gate.open()
            await #expect(throws: Offline.self) { try await failing.value }
            #expect(failing.phase.error is Offline)
            #expect(failing.lastValue == nil)
        }
    }

    @Test func aStaleRunIsCancelledAndItsLateResultNeverApplies() async throws {
        for _ in 0..<100 {
            try await withIsolatedRuntime { () async throws in
                let gates = [Gate<Void>(), Gate<Void>(), Gate<Void>()]
                let sawCancellation = Slot<Bool>()
                let firstRunRead = Gate<Void>()
                let input = atom(1)
                let number = derive { () async -> Int in
                    let value = input.value
                    if value == 1 { firstRunRead.open() }
                    await gates[value].wait()
                    if value == 1 { sawCancellation.value = Task.isCancelled }
                    return value  // ignores cancellation: finishes anyway
                }
                let log = AwaitableLog<AsyncPhase<Int>>()
                let render = Effect { log.append(number.phase) }
                let firstRun = try #require(number.currentRunTask)
                await firstRunRead.wait()  // run 1 read its input: the write below makes it stale
                input.value = 2  // observed: the flush cancels run 1 and starts run 2
                gates[2].open()
                #expect(try await number.value == 2)
                gates[1].open()
                await firstRun.value  // run 1 finished, and offered its result
                #expect(sawCancellation.value == true)
                #expect(number.phase == .success(2))
                #expect(log.values == [.suspending, .success(2)])
                _ = render
            }
        }
    }

    @Test func readsAfterAwaitsAndInChildTasksAreDependencies() async throws {
        try await withIsolatedRuntime { () async throws in
            let gate = Gate<Void>()
            let first = atom(1), second = atom(10), third = atom(100)
            let runs = RunCount()
            let sum = derive { () async -> Int in
                runs.increment()
                let a = first.value
                await gate.wait()
                let b = second.value
                async let c = third.value
                return a + b + (await c)
            }
            let log = AwaitableLog<AsyncPhase<Int>>()
            let render = Effect { log.append(sum.phase) }
            gate.open()
            #expect(try await sum.value == 111)
            for (node, expected) in [(first, 112), (second, 113), (third, 114)] {
                node.value += 1
                #expect(try await sum.value == expected)
            }
            #expect(runs.value == 4)
            await log.waitUntil(count: 8)
            #expect(log.values == [
                .suspending, .success(111), .suspending, .success(112), .suspending, .success(113), .suspending,
                .success(114),
            ])
            _ = render
        }
    }

    @Test func readsInTaskGroupsAreDependenciesAndReadsInDetachedTasksAreNot() async throws {
        try await withIsolatedRuntime { () async throws in
            let grouped = atom(1), detached = atom(10)
            let runs = RunCount()
            let sum = derive { () async -> Int in
                runs.increment()
                let fromGroup = await withTaskGroup(of: Int.self) { group in
                    group.addTask { grouped.value }
                    return await group.next()!
                }
                let fromDetached = await Task.detached { detached.value }.value
                return fromGroup + fromDetached
            }
            let log = AwaitableLog<AsyncPhase<Int>>()
            let render = Effect { log.append(sum.phase) }
            #expect(try await sum.value == 11)
            detached.value = 20  // not a dependency: nothing runs
            grouped.value = 2
            #expect(try await sum.value == 22)
            #expect(runs.value == 2)
            await log.waitUntil(count: 4)
            #expect(log.values == [.suspending, .success(11), .suspending, .success(22)])
            _ = render
        }
    }

    @Test func aChainOfAsyncDerivationsUpdatesEndToEnd() async throws {
        try await withIsolatedRuntime { () async throws in
            let id = atom(1)
            let user = derive { () async -> String in "user\(id.value)" }
            let greeting = derive { () async throws -> String in "hello \(try await user.value)" }
            let log = AwaitableLog<AsyncPhase<String>>()
            let render = Effect { log.append(greeting.phase) }
            #expect(try await greeting.value == "hello user1")
            id.value = 2
            #expect(try await greeting.value == "hello user2")
            await log.waitUntil(count: 4)
            #expect(log.values.first == .suspending)
            #expect(log.values.filter { !$0.isSuspending } == [.success("hello user1"), .success("hello user2")])
            _ = render
        }
    }

    @Test func aDerivationOverThePhaseIsGlitchFree() async throws {
        try await withIsolatedRuntime { () async throws in
            let (gates, input, number) = gatedAsyncDerivation()
            let label = derive { number.phase.map { "n=\($0)" }.value ?? "loading" }
            let seen = AwaitableLog<String>()
            let render = Effect { seen.append("\(label.value) \(number.phase)") }
            gates[1].open()
            await seen.waitUntil(count: 2)
            input.value = 2
            gates[2].open()
            await seen.waitUntil(count: 4)
            #expect(seen.values == ["loading suspending", "n=1 success(1)", "loading suspending", "n=2 success(2)"])
            _ = render
        }
    }

    @Test func anUnobservedDerivationStartsNothingUntilReadAgain() async throws {
        try await withIsolatedRuntime { () async throws in
            let input = atom(1)
            let runs = RunCount()
            let number = derive { () async -> Int in
                runs.increment()
                return input.value
            }
            #expect(try await number.value == 1)
            await number.currentRunTask?.value  // the run's task has ended
            input.value = 2
            input.value = 3
            // No new run: none in flight, and (checked second) none that already finished.
            #expect(number.currentRunTask == nil)
            #expect(runs.value == 1)
            #expect(try await number.value == 3)
            #expect(runs.value == 2)
        }
    }

    @Test func refreshRunsTheBodyAgainWithTheSameInputs() async throws {
        try await withIsolatedRuntime { () async throws in
            let runs = RunCount()
            let number = derive { () async -> Int in
                runs.increment()
                return runs.value
            }
            let log = AwaitableLog<AsyncPhase<Int>>()
            let render = Effect { log.append(number.phase) }
            await log.waitUntil(count: 2)
            await number.refresh()
            #expect(number.phase == .success(2))
            await log.waitUntil(count: 4)
            #expect(log.values == [.suspending, .success(1), .suspending, .success(2)])
            _ = render
        }
    }

    @Test func cancellingACallerOfValueThrowsCancellationErrorAndLeavesTheRunGoing() async throws {
        try await withIsolatedRuntime { () async throws in
            let gate = Gate<Void>()
            let started = Gate<Void>()
            let number = derive { () async -> Int in
                started.open()
                await gate.wait()
                return 7
            }
            let caller = Task { try await number.value }
            await started.wait()
            caller.cancel()
            await #expect(throws: CancellationError.self) { try await caller.value }
            gate.open()
            #expect(try await number.value == 7)  // the run was not cancelled with its caller
        }
    }

    @Test func freeingTheDerivationCancelsItsRunAndRunsItsCleanups() async throws {
        try await withIsolatedRuntime { () async throws in
            let gate = Gate<Void>()
            let cancelled = Gate<Bool>()
            let cleanups = RunCount()
            var number: AsyncDerivation<Int>? = derive { () async -> Int in
                await onCleanup { cleanups.increment() }
                await gate.wait()
                cancelled.open(Task.isCancelled)
                return 1
            }
            #expect(number?.phase == .suspending)
            let run = try #require(number?.currentRunTask)
            weak let weakNumber = number
            number = nil
            #expect(weakNumber == nil)  // the run does not keep it alive
            gate.open()
            #expect(await cancelled.wait() == true)
            await run.value
            #expect(cleanups.value == 1)
        }
    }

    @Test func cleanupsOfARunRunBeforeTheNextRun() async throws {
        try await withIsolatedRuntime { () async throws in
            let input = atom(1)
            let events = AwaitableLog<String>()
            let number = derive { () async -> Int in
                let value = input.value
                events.append("run \(value)")
                await onCleanup { events.append("cleanup \(value)") }
                return value
            }
            #expect(try await number.value == 1)
            input.value = 2
            #expect(try await number.value == 2)
            #expect(events.values == ["run 1", "cleanup 1", "run 2"])
        }
    }

    @Test func aSyncDerivationsCleanupsRunBeforeItsNextRunAndWhenFreed() {
        withIsolatedRuntime {
            let input = atom(1)
            let events = Recorder<String>()
            var doubled: Derivation<Int>? = derive {
                let value = input.value
                events.append("run \(value)")
                onCleanup { events.append("cleanup \(value)") }
                return value * 2
            }
            #expect(doubled?.value == 2)
            input.value = 2
            #expect(doubled?.value == 4)
            doubled = nil
            #expect(events.values == ["run 1", "cleanup 1", "run 2", "cleanup 2"])
        }
    }

    @Test func anAsyncSequenceIsFollowedElementByElement() async throws {
        try await withIsolatedRuntime { () async throws in
            let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
            let latest = AsyncDerivation(following: stream)
            let log = AwaitableLog<AsyncPhase<Int>>()
            let render = Effect { log.append(latest.phase) }
            #expect(log.values == [.suspending])
            continuation.yield(1)
            await log.waitUntil(count: 2)
            continuation.yield(1)  // equal: no change
            continuation.yield(2)
            await log.waitUntil(count: 3)
            continuation.finish()
            #expect(try await latest.value == 2)
            #expect(log.values == [.suspending, .success(1), .success(2)])
            _ = render
        }
    }

    @Test func aThrowingSequenceEndsInAFailure() async throws {
        struct Broken: Error {}
        try await withIsolatedRuntime { () async throws in
            let (stream, continuation) = AsyncThrowingStream.makeStream(of: Int.self)
            let latest = AsyncDerivation(following: stream)
            #expect(latest.phase == .suspending)
            continuation.yield(5)
            #expect(try await latest.value == 5)
            continuation.finish(throwing: Broken())
            let log = AwaitableLog<AsyncPhase<Int>>()
            let render = Effect { log.append(latest.phase) }
            await log.waitUntil(count: 2)
            #expect(log.values.last?.error is Broken)
            #expect(latest.lastValue == 5)
            _ = render
        }
    }

    @Test func writersOnSeveralThreadsEndOnTheFinalInput() async throws {
        try await withIsolatedRuntime { () async throws in
            let input = atom(0)
            let echo = derive { () async -> Int in
                let value = input.value
                await Task.yield()
                return value
            }
            let log = AwaitableLog<AsyncPhase<Int>>()
            let render = Effect { log.append(echo.phase) }
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        for _ in 0..<50 { input.update { $0 += 1 } }
                    }
                }
            }
            #expect(input.value == 200)
            #expect(try await echo.value == 200)
            #expect(echo.phase == .success(200))
            let phases = log.values
            for (earlier, later) in zip(phases, phases.dropFirst()) {
                #expect(earlier != later, "a phase repeated: \(phases)")  // every recorded run was a change
            }
            _ = render
        }
    }
}
