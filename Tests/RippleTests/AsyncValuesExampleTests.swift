import Foundation
import Ripple
import Testing

// The README's "Async values" example, as written there (with a fake API), and the test the article describes.

private struct User: Equatable, Sendable {
    let id: Int
    let name: String
}

private protocol UserAPI: Sendable {
    func user(id: Int) async throws -> User
}

@MainActor
private final class ProfileModel {
    let userID = atom(1)
    let user: AsyncDerivation<User>
    private(set) var title = ""
    private var render: Effect?

    init(api: some UserAPI) {
        let userID = self.userID
        user = derive { () async throws -> User in
            try await api.user(id: userID.value)  // a dependency, read before the await
        }
        render = Effect { [unowned self] in  // created on the main actor: runs there
            switch self.user.phase {
            case .suspending: title = self.user.lastValue.map { "\($0.name)…" } ?? "Loading…"
            case .success(let user): title = user.name
            case .failure(let error): title = "Could not load: \(error)"
            }
        }
    }
}

/// Answers each request when the test says so: `respond(_:)` opens the gate of that user's id.
private final class FakeUserAPI: UserAPI, @unchecked Sendable {
    // `gates` and `requested` are guarded by `lock`.
    private let lock = NSLock()
    private var gates: [Int: Gate<User>] = [:]
    private var requested: [Int] = []

    var requests: [Int] { lock.withLock { requested } }

    func user(id: Int) async throws -> User {
        let answer = lock.withLock {
            requested.append(id)
            return gate(for: id)
        }
        return await answer.wait()
    }

    func respond(_ user: User) {
        lock.withLock { gate(for: user.id) }.open(user)
    }

    private func gate(for id: Int) -> Gate<User> {
        if let gate = gates[id] { return gate }
        let gate = Gate<User>()
        gates[id] = gate
        return gate
    }
}

@MainActor
@Suite struct AsyncValuesExampleTests {
    @Test func theProfileModelShowsEachPhaseOfEachUser() async throws {
        try await withIsolatedRuntime { () async throws in
            let api = FakeUserAPI()
            let model = ProfileModel(api: api)
            #expect(model.title == "Loading…")
            api.respond(User(id: 1, name: "Ada"))
            #expect(try await model.user.value == User(id: 1, name: "Ada"))
            #expect(model.title == "Ada")  // the effect ran with the result, on the main actor
            model.userID.value = 2
            #expect(model.title == "Ada…")  // the last success stays while user 2 loads
            api.respond(User(id: 2, name: "Grace"))
            #expect(try await model.user.value.name == "Grace")
            #expect(model.title == "Grace")
            #expect(api.requests == [1, 2])
        }
    }

    @Test func aBodyWrittenOnTheMainActorRunsThere() async throws {
        try await withIsolatedRuntime { () async throws in
            let onMain = derive { () async -> Bool in
                MainActor.assertIsolated()
                return true
            }
            #expect(try await onMain.value)
        }
    }
}
