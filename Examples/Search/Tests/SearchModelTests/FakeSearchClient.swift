import SearchModel

/// A search service that answers when the test says so: each request waits until `respond(to:with:)` answers it
/// or its task is cancelled. The test awaits `nextRequest()` and `nextCancellation()` instead of sleeping.
actor FakeSearchClient: SearchClient {
    private var waiting: [String: CheckedContinuation<[SearchResult], any Error>] = [:]
    private let requests = Arrivals<String>()
    private let cancellations = Arrivals<String>()

    func search(_ query: String) async throws -> [SearchResult] {
        await requests.put(query)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { waiting[query] = $0 }
        } onCancel: {
            Task { await self.cancel(query) }
        }
    }

    /// Answers the request for `query`, which must be waiting.
    func respond(to query: String, with results: [SearchResult]) {
        waiting.removeValue(forKey: query)?.resume(returning: results)
    }

    /// The next query searched for, in order.
    func nextRequest() async -> String { await requests.next() }

    /// The next query whose search was cancelled, in order.
    func nextCancellation() async -> String { await cancellations.next() }

    private func cancel(_ query: String) async {
        guard let continuation = waiting.removeValue(forKey: query) else { return }
        continuation.resume(throwing: CancellationError())
        await cancellations.put(query)
    }
}

/// Values that arrive in order, for a test to await one by one (a latch per value, no polling).
actor Arrivals<Element: Sendable> {
    private var arrived: [Element] = []
    private var waiters: [CheckedContinuation<Element, Never>] = []

    func put(_ element: Element) {
        if waiters.isEmpty { arrived.append(element) } else { waiters.removeFirst().resume(returning: element) }
    }

    func next() async -> Element {
        if !arrived.isEmpty { return arrived.removeFirst() }
        return await withCheckedContinuation { waiters.append($0) }
    }
}
