// RippleTesting: a test store for Ripple's Store, reporting through Swift Testing. A separate library so that apps
// importing Ripple never link the Testing framework.
public import Ripple
public import Testing
import Foundation

/// A store for tests: every action's state change must be asserted, and every action its work sends back must be
/// received and asserted, in order.
///
/// ``send(_:assert:sourceLocation:)`` reduces an action and compares the state after it with the state before,
/// changed by the assertion closure; ``receive(_:timeout:assert:sourceLocation:)`` waits for the next action the
/// store's work sent, checks it is the one expected, reduces it and compares the state the same way. Each mismatch
/// is a test issue (`Issue.record`) with a line-by-line diff: `−` lines are the expected value's, `+` lines the
/// actual one's. ``finish(timeout:sourceLocation:)`` ends the test: it waits for the work still running, then
/// reports every action that was sent and never received, and every run still going.
///
/// ```swift
/// @Test func decreaseFetchesAScore() async {
///     let store = TestStore(initialState: Counter.State()) {
///         Counter(fetchScore: { 5 })
///     }
///     store.send(.increase) { $0.count = 1 }
///     store.send(.decrease) { $0.count = 0 }         // starts the run that fetches a score
///     await store.receive(.increase) { $0.count = 1 } // the run sent it
///     await store.finish()
/// }
/// ```
///
/// The underlying ``store`` is a real `Store`: derivations and effects can read it while the test runs. Actions
/// sent by its work are held for `receive` instead of being reduced.
///
/// Threading: from any thread or task, one call at a time (a test's own flow). Lifetime: freeing a test store that
/// was not finished reports, as ``finish(timeout:sourceLocation:)`` does, the actions never received and the work
/// still running (after waiting up to five seconds for runs about to end); its store then cancels that work.
public final class TestStore<State: Equatable & Sendable, Action: Equatable & Sendable>: Sendable {
    /// The store under test: read it, or make derivations and effects that read it.
    ///
    /// ```swift
    /// let doubled = derive { store.store.count * 2 }
    /// ```
    public let store: Store<State, Action>
    private let received: ReceivedActions<Action>
    private let creation: SourceLocation
    private let finished = Flag()

    /// Creates a test store holding `initialState`, changed by `reducer`.
    ///
    /// ```swift
    /// let store = TestStore(initialState: Counter.State(), reducer: Counter(fetchScore: { 5 }))
    /// ```
    ///
    /// - Parameters:
    ///   - initialState: the state before any action.
    ///   - reducer: the reducer under test.
    ///   - sourceLocation: where issues found when the store is freed are reported (leave the default).
    public init<R: Reducer & Sendable>(
        initialState: State, reducer: R, sourceLocation: SourceLocation = #_sourceLocation
    ) where R.State == State, R.Action == Action {
        let received = ReceivedActions<Action>()
        self.received = received
        creation = sourceLocation
        store = Store(
            initialState: initialState, reducer: reducer,
            hooks: StoreHooks(receive: { received.append($0) }, runsChanged: { received.changed() }),
            fileID: sourceLocation.fileID, line: sourceLocation.line)
    }

    /// Creates a test store holding `initialState`, changed by the reducers `reducer` builds.
    ///
    /// ```swift
    /// let store = TestStore(initialState: Counter.State()) { Counter(fetchScore: { 5 }) }
    /// ```
    ///
    /// - Parameters:
    ///   - initialState: the state before any action.
    ///   - sourceLocation: where issues found when the store is freed are reported (leave the default).
    ///   - reducer: builds the reducer under test.
    public convenience init<R: Reducer & Sendable>(
        initialState: State, sourceLocation: SourceLocation = #_sourceLocation,
        @ReducerBuilder<State, Action> reducer: () -> R
    ) where R.State == State, R.Action == Action {
        self.init(initialState: initialState, reducer: reducer(), sourceLocation: sourceLocation)
    }

    deinit {
        if finished.value { return }
        let store = self.store
        // The wait ends as soon as the work does; the bound only matters for work that never ends. It is longer
        // than `receive`'s default because nothing can pass a longer one to a deinit, and a loaded machine (a
        // test run beside others on two cores) can keep work that already finished its job from returning for
        // more than a second.
        _ = received.waitBlocking(timeout: .seconds(5)) { store.runningWorkOrigins.isEmpty }
        reportLeftovers(at: creation)
    }

    /// The store's current state.
    ///
    /// ```swift
    /// #expect(store.state.count == 1)
    /// ```
    public var state: State {
        store.state
    }

    /// Sends `action` and checks the state after it: the state before, changed by `updateExpectedState`, must
    /// equal the state the reducer left. Without a closure the action must not change the state.
    ///
    /// Issues: a state that differs from the expected one (with the diff), and actions sent by work that were not
    /// received before this one.
    ///
    /// ```swift
    /// store.send(.increase) { $0.count = 1 }
    /// store.send(.noop)                       // asserts that nothing changed
    /// ```
    ///
    /// - Parameters:
    ///   - action: the action to reduce.
    ///   - updateExpectedState: changes the state before the action into the expected state after it.
    ///   - sourceLocation: where issues are reported (leave the default).
    public func send(
        _ action: Action, assert updateExpectedState: ((inout State) -> Void)? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let unreceived = received.pending
        if !unreceived.isEmpty {
            record(
                "Sent \(describe(action)) while \(unreceived.count) action(s) sent by work were not received: "
                    + "\(unreceived.map(describe).joined(separator: ", ")). Receive them (await store.receive(...)) "
                    + "before sending another action.", at: sourceLocation)
        }
        reduce(action, describedAs: "sending \(describe(action))", updateExpectedState, at: sourceLocation)
    }

    /// Waits for the next action the store's work sent, checks that it is `expected`, reduces it and checks the
    /// state after it as ``send(_:assert:sourceLocation:)`` does.
    ///
    /// Waits until an action arrives, or no work is running (then nothing can arrive), or `timeout` passes.
    /// Issues: no action received (saying whether work is still running), an action other than `expected` (with
    /// the diff; it is reduced all the same), and a state that differs from the expected one.
    ///
    /// ```swift
    /// store.send(.decrease) { $0.count = -1 }
    /// await store.receive(.increase) { $0.count = 0 }
    /// ```
    ///
    /// - Parameters:
    ///   - expected: the action the work should have sent next.
    ///   - timeout: how long to wait for it while work is running.
    ///   - updateExpectedState: changes the state before the action into the expected state after it.
    ///   - sourceLocation: where issues are reported (leave the default).
    public func receive(
        _ expected: Action, timeout: Duration = .seconds(1), assert updateExpectedState: ((inout State) -> Void)? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let store = self.store
        _ = await received.wait(timeout: timeout) { count in count > 0 || store.runningWorkOrigins.isEmpty }
        guard let action = received.takeFirst() else {
            let running = store.runningWorkOrigins
            record(
                "Expected to receive \(describe(expected)), but no action was received"
                    + (running.isEmpty
                        ? " and no work is running."
                        : " within \(timeout); work is still running, started by "
                            + "\(running.map(describe).joined(separator: ", ")).") ,
                at: sourceLocation)
            return
        }
        if action != expected {
            record(
                "Received an action other than the one expected:\n"
                    + StateDiff.lines(expected: expected, actual: action) + "\n(− expected, + received)",
                at: sourceLocation)
        }
        reduce(action, describedAs: "receiving \(describe(action))", updateExpectedState, at: sourceLocation)
    }

    /// Ends the test: waits up to `timeout` for the store's work to end, then reports the actions sent by work that
    /// were never received and the work still running.
    ///
    /// ```swift
    /// await store.receive(.increase) { $0.count = 1 }
    /// await store.finish()
    /// ```
    ///
    /// - Parameters:
    ///   - timeout: how long to wait for running work to end.
    ///   - sourceLocation: where issues are reported (leave the default).
    public func finish(timeout: Duration = .seconds(1), sourceLocation: SourceLocation = #_sourceLocation) async {
        finished.value = true
        let store = self.store
        _ = await received.wait(timeout: timeout) { _ in store.runningWorkOrigins.isEmpty }
        reportLeftovers(at: sourceLocation)
    }

    /// Reduces `action` through the store and compares the state after it with the expected one.
    private func reduce(
        _ action: Action, describedAs what: String, _ updateExpectedState: ((inout State) -> Void)?,
        at sourceLocation: SourceLocation
    ) {
        let before = store.state
        store.send(action)
        let actual = store.state
        var expected = before
        updateExpectedState?(&expected)
        guard expected != actual else { return }
        let summary =
            updateExpectedState == nil
            ? "State changed after \(what), but no change was asserted:"
            : "State after \(what) differs from the expected state:"
        record(summary + "\n" + StateDiff.lines(expected: expected, actual: actual) + "\n(− expected, + actual)", at: sourceLocation)
    }

    /// Reports the actions never received and the work still running.
    private func reportLeftovers(at sourceLocation: SourceLocation) {
        let unreceived = received.pending
        if !unreceived.isEmpty {
            record(
                "\(unreceived.count) action(s) sent by work were never received: "
                    + "\(unreceived.map(describe).joined(separator: ", ")). Receive each with await store.receive(...).",
                at: sourceLocation)
        }
        let running = store.runningWorkOrigins
        if !running.isEmpty {
            record(
                "\(running.count) run(s) of work still running at the end of the test, started by "
                    + "\(running.map(describe).joined(separator: ", ")). Let them finish, or cancel them "
                    + "(Work.cancel(id:)), before the test ends.", at: sourceLocation)
        }
    }

    private func record(_ message: String, at sourceLocation: SourceLocation) {
        Issue.record(Comment(rawValue: message), sourceLocation: sourceLocation)
    }

    private func describe(_ action: Action) -> String {
        StateDiff.layout(action).joined(separator: " ")
    }
}

/// A flag set once, read from any thread.
private final class Flag: @unchecked Sendable {
    // Read and written only under the lock.
    private let lock = NSLock()
    private var storage = false

    var value: Bool {
        get { lock.withLock { storage } }
        set { lock.withLock { storage = newValue } }
    }
}
