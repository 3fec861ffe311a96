/// Waits until `condition` holds: it is evaluated now, then again each time something it read changes, with no
/// polling.
///
/// The condition runs as an effect of `runtime`: its reads are tracked, so a write to any node it read makes it
/// run again (in that write's flush, on the writer's thread). The wait ends at the first run that returns true.
///
/// ```swift
/// @Test func loadsThreeItems() async throws {
///     try await withIsolatedRuntime { () async throws in
///         let items = atom([Int]())
///         Task.detached { for item in 1...3 { items.value.append(item) } }
///         try await waitUntil { items.value.count == 3 }
///         #expect(items.value == [1, 2, 3])
///     }
/// }
/// ```
///
/// - Parameters:
///   - timeout: how long to wait; one second by default.
///   - runtime: the runtime of the nodes the condition reads; ``Runtime/current`` by default.
///   - fileID: the file of the call, named by a timeout (leave the default).
///   - line: the line of the call, named by a timeout (leave the default).
///   - condition: reads nodes and says whether the wait is over. It runs inside flushes, on writers' threads,
///     so it must be quick and must not write nodes.
/// - Throws: ``WaitTimeout`` naming the place of the call and the timeout when the condition did not hold in time;
///   `CancellationError` when the waiting task is cancelled.
///
/// Threading: from any task; never blocks a thread. Lifetime: the condition is observed until the wait ends.
public func waitUntil(
    timeout: Duration = .seconds(1), in runtime: Runtime = .current, fileID: String = #fileID, line: Int = #line,
    _ condition: @escaping @Sendable () -> Bool
) async throws {
    try Task.checkCancellation()
    let waiter = OneShotWaiter<Void>()
    let observer = ObserverSlot()
    defer { observer.cancel() }
    let timedOut = WaitTimeout(awaited: "the condition at \(fileID):\(line)", timeout: timeout)
    try await waiter.wait(timeout: timeout, timedOut: timedOut) {
        observer.keep(Effect(observingIn: runtime, label: "waitUntil at \(fileID):\(line)") {
            if condition() { waiter.finish(.success(())) }
        })
    }
}

/// The observer effect of one `waitUntil`, created inside the continuation's closure and cancelled by the waiting
/// task once the wait is over (never from the cancellation handler, which must not wait for the graph).
private final class ObserverSlot: @unchecked Sendable {
    // Written once by the waiting task before it suspends and read by the same task after it resumes: the
    // continuation's resumption orders the two.
    private var effect: Effect?

    func keep(_ effect: Effect) {
        self.effect = effect
    }

    func cancel() {
        effect?.cancel()
        effect = nil
    }
}
