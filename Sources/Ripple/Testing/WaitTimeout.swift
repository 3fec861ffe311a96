/// The error ``ChangeRecording/next(timeout:)`` and ``waitUntil(timeout:in:fileID:line:_:)`` throw when what they
/// wait for did not happen in time.
///
/// Its description names what was awaited (the node's label, or where the condition was written) and the
/// timeout, so that a failing test says which wait gave up.
///
/// ```swift
/// let count = atom(0, label: "count")
/// let changes = count.recordChanges()
/// do {
///     _ = try await changes.next(timeout: .milliseconds(10))
/// } catch let timeout as WaitTimeout {
///     print(timeout)   // Ripple: timed out after 0.01 seconds waiting for the next change of count.
/// }
/// ```
///
/// Threading: a plain value, `Sendable`.
public struct WaitTimeout: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was awaited: "the next change of <label>", or "the condition at <fileID>:<line>".
    public let awaited: String
    /// How long the wait lasted.
    public let timeout: Duration

    /// A timeout of a wait for `awaited`.
    ///
    /// ```swift
    /// let error = WaitTimeout(awaited: "the next change of count", timeout: .seconds(1))
    /// ```
    ///
    /// - Parameters:
    ///   - awaited: what the wait was for, as the description shows it.
    ///   - timeout: how long the wait lasted.
    public init(awaited: String, timeout: Duration) {
        self.awaited = awaited
        self.timeout = timeout
    }

    /// "Ripple: timed out after <timeout> waiting for <awaited>."
    public var description: String {
        "Ripple: timed out after \(timeout) waiting for \(awaited)."
    }
}
