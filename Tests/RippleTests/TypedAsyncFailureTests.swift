import Testing

@testable import Ripple

/// The only errors the typed bodies below throw.
private enum FetchError: Error, Equatable {
    case noData
    case offline
    /// What a body throws when it sees its run cancelled; never shown in a phase.
    case cancelled
}

/// An untyped body's error.
private struct Offline: Error, Equatable {}

/// What the declared bodies below read: how many runs have started, one counter per runtime (kept while nobody
/// holds it, so that it counts across runs).
private let declaredRuns = declare.atom(equals: { $0 === $1 }, keepAlive: true) { RunCount() }

/// Fails with `.noData` on its first run in a runtime, then returns the run's number.
private let shelf = declare.derived { () async throws(FetchError) -> Int in
    let runs = untracked { declaredRuns.value }
    runs.increment()
    if runs.value == 1 { throw .noData }
    return runs.value
}

/// Member `key` fails with `.noData` on its first run in a runtime, then returns `key * 10` plus the run's number.
private let shelves = declare.derivedFamily { (key: Int) async throws(FetchError) -> Int in
    let runs = untracked { declaredRuns.value }
    runs.increment()
    if runs.value == 1 { throw .noData }
    return key * 10 + runs.value
}

private let untypedShelf = declare.derived { () async throws -> Int in throw Offline() }
private let untypedShelves = declare.derivedFamily { (key: Int) async throws -> Int in key }
private let plainShelf = declare.derived { () async -> Int in 8 }
private let plainShelves = declare.derivedFamily { (key: Int) async -> Int in key * 2 }

/// Code written before typed failures: it takes the untyped phase and switches over it.
private func describe(_ phase: AsyncPhase<Int>) -> String {
    switch phase {
    case .suspending: "suspending"
    case .success(let value): "success \(value)"
    case .failure(let error): error is Offline ? "offline" : "failure \(error)"
    }
}

/// Bodies declared `throws(E)`: their phases' errors are `E?` (compared without a cast), `refresh()` returns the
/// typed phase, a cancelled run reports nothing; untyped bodies keep `AsyncPhase<Value>`.
@Suite struct TypedAsyncFailureTests {
    @Test func aTypedBodysPhaseErrorIsItsOwnType() async throws {
        try await withIsolatedRuntime { () async throws in
            let source = atom(0)
            let books = derive { () async throws(FetchError) -> Int in
                if source.value == 0 { throw .noData }
                return source.value
            }
            await #expect(throws: FetchError.noData) { try await books.value }
            let phase: TypedAsyncPhase<Int, FetchError> = books.phase
            #expect(phase.error == .noData)
            #expect(phase == .failure(.noData))
            #expect(phase.value == nil)
            #expect(throws: FetchError.noData) { try phase.get() }
            #expect(phase.map { $0 * 2 }.error == .noData)
            source.value = 5
            #expect(try await books.value == 5)
            #expect(books.phase.error == nil)
            #expect(books.phase == .success(5))
        }
    }

    @Test func refreshReturnsTheTypedPhaseItProduced() async throws {
        try await withIsolatedRuntime { () async throws in
            let runs = RunCount()
            let books = derive { () async throws(FetchError) -> Int in
                runs.increment()
                if runs.value == 1 { throw .offline }
                return runs.value
            }
            await #expect(throws: FetchError.offline) { try await books.value }
            let phase: TypedAsyncPhase<Int, FetchError> = await books.refresh()
            #expect(phase == .success(2))
            #expect(phase.error == nil)
            #expect(runs.value == 2)
        }
    }

    @Test func aDeclaredTypedBodysPhaseErrorIsItsOwnType() async throws {
        try await withIsolatedRuntime { () async throws in
            let node = shelf.node
            await #expect(throws: FetchError.noData) { try await node.value }
            #expect(shelf.phase.error == .noData)
            let refreshed: TypedAsyncPhase<Int, FetchError>? = await shelf.refresh()
            #expect(refreshed == .success(2))
            #expect(shelf.phase.value == 2)
            withExtendedLifetime(node) {}
        }
    }

    @Test func aDeclaredTypedBodysOverrideThrowsTheSameType() async throws {
        let failing = shelf.overridden { () async throws(FetchError) -> Int in throw .offline }
        try await withIsolatedRuntime(overriding: failing) { () async throws in
            let node = shelf.node
            await #expect(throws: FetchError.offline) { try await node.value }
            #expect(shelf.phase.error == .offline)
            withExtendedLifetime(node) {}
        }
    }

    @Test func anAsyncFamilyMembersPhaseErrorIsItsOwnType() async throws {
        try await withIsolatedRuntime { () async throws in
            let member = shelves(3)
            await #expect(throws: FetchError.noData) { try await member.value }
            #expect(member.phase.error == .noData)
            #expect(shelves(3).phase.error == .noData)
            let refreshed: TypedAsyncPhase<Int, FetchError>? = await shelves.refresh(3)
            #expect(refreshed == .success(32))
            #expect(member.phase == .success(32))
            #expect(await shelves.refresh(4) == nil)  // no member for 4: nothing refreshed
            withExtendedLifetime(member) {}
        }
    }

    @Test func untypedBodiesKeepAsyncPhase() async throws {
        try await withIsolatedRuntime { () async throws in
            let failing = derive { () async throws -> Int in throw Offline() }
            let plain = derive { () async -> Int in 4 }
            let annotated: AsyncDerivation<Int> = derive { () async throws in 6 }
            await #expect(throws: Offline.self) { try await failing.value }
            #expect(try await plain.value == 4)
            #expect(try await annotated.value == 6)
            #expect(describe(failing.phase) == "offline")
            #expect(describe(plain.phase) == "success 4")
            #expect(describe(await annotated.refresh()) == "success 6")

            let declared: DeclaredAsyncDerivation<Int> = untypedShelf
            let node = declared.node
            await #expect(throws: Offline.self) { try await node.value }
            #expect(describe(untypedShelf.phase) == "offline")
            let family: AsyncDerivationFamily<Int, Int> = untypedShelves
            let member = family(2)
            #expect(try await member.value == 2)
            #expect(describe(untypedShelves(2).phase) == "success 2")
            let refreshed: AsyncPhase<Int>? = await untypedShelves.refresh(2)
            #expect(refreshed.map(describe) == "success 2")

            // Bodies that throw nothing, declared without a type: AsyncPhase too (not a phase whose failure is Never).
            let plainNode = plainShelf.node
            #expect(try await plainNode.value == 8)
            #expect(describe(plainShelf.phase) == "success 8")
            let plainMember = plainShelves(3)
            #expect(try await plainMember.value == 6)
            #expect(describe(plainShelves(3).phase) == "success 6")
            withExtendedLifetime((node, member, plainNode, plainMember)) {}
        }
    }

    @Test func aCancelledTypedRunReportsNothingAndTheNextRunsResultShows() async throws {
        try await withIsolatedRuntime { () async throws in
            let gates = [Gate<Void>(), Gate<Void>(), Gate<Void>()]
            let firstRunRead = Gate<Void>()
            let thrown = AwaitableLog<String>()
            let input = atom(1)
            let books = derive { () async throws(FetchError) -> Int in
                let value = input.value
                if value == 1 { firstRunRead.open() }
                await gates[value].wait()
                if Task.isCancelled {
                    thrown.append("run \(value) threw cancelled")
                    throw .cancelled
                }
                return value * 10
            }
            let log = AwaitableLog<TypedAsyncPhase<Int, FetchError>>()
            let render = Effect { log.append(books.phase) }
            let firstRun = try #require(books.currentRunTask)
            await firstRunRead.wait()
            input.value = 2  // observed: the flush cancels run 1 and starts run 2
            gates[1].open()
            await firstRun.value  // run 1 threw `.cancelled`, and its result was refused
            #expect(thrown.values == ["run 1 threw cancelled"])
            #expect(books.phase == .suspending)
            #expect(log.values == [.suspending])

            // A caller awaiting the value is cancelled with a CancellationError, never a FetchError.
            let caller = Task { try await books.value }
            caller.cancel()
            await #expect(throws: CancellationError.self) { try await caller.value }

            gates[2].open()
            #expect(try await books.value == 20)
            await log.waitUntil(count: 2)
            #expect(log.values == [.suspending, .success(20)])
            #expect(thrown.values == ["run 1 threw cancelled"])
            _ = render
        }
    }
}
