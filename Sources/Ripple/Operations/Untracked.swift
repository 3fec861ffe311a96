internal import CRipple

extension Runtime {
    /// Runs `body` without recording the reads it makes of this runtime's nodes, and returns its value.
    ///
    /// Inside a derivation or effect, values read in `body` do not become dependencies: changing them does not
    /// re-run the reader. Reads still bring derivations up to date.
    ///
    /// ```swift
    /// let effect = Effect {
    ///     let name = user.value                              // tracked
    ///     let theme = Runtime.current.untracked { theme.value }   // not tracked
    ///     render(name, theme)
    /// }
    /// ```
    ///
    /// Threading: from any thread. Untracked sections nest; an error thrown by `body` is rethrown.
    public func untracked<T>(_ body: () throws -> T) rethrows -> T {
        let status = rp_untracked_begin(graph)
        if _slowPath(status != .RP_OK) { fail(status, "beginning an untracked section", node: nil) }
        defer {
            let status = rp_untracked_end(graph)
            if _slowPath(status != .RP_OK) { fail(status, "ending an untracked section", node: nil) }
        }
        return try body()
    }
}

/// Runs `body` without recording the reads it makes of ``Runtime/current``'s nodes, and returns its value.
///
/// ```swift
/// @Atom var count = 0
/// @Atom var step = 1
/// let log = Effect {
///     print(count, untracked { step })      // re-runs when count changes, not when step does
/// }
/// _ = log
/// ```
///
/// Threading: from any thread. See ``Runtime/untracked(_:)``.
public func untracked<T>(_ body: () throws -> T) rethrows -> T {
    try Runtime.current.untracked(body)
}
