/// When a family of atoms gives up members that were written.
///
/// A written member of an ``AtomFamily`` stays, with its value, even while nothing holds or reads it: a write is
/// never lost. By default (``never``) it stays until ``AtomFamily/remove(_:)``, ``AtomFamily/reset(_:)`` or an
/// override writes its default back, or its runtime ends. A family used with an unbounded set of keys (a draft per
/// post, a cache per URL) declares a bound instead: ``keepingAtMost(_:)``.
///
/// An evicted member is not dropped silently: it becomes an unwritten member again, released like one as soon as
/// nothing holds or reads it, and then its `released` lifecycle hook runs and it leaves the live-node report
/// (``Runtime/liveNodeReport()``). A member still in use stays, with its value, until that use ends.
///
/// ```swift
/// let draft = declare.atomFamily(evicting: .keepingAtMost(2)) { (postID: Int) in "" }
/// withIsolatedRuntime {
///     draft(1).value = "first"
///     draft(2).value = "second"
///     draft(3).value = "third"                         // gives up the draft of post 1
///     print(draft(1).value, draft(2).value)           // "" second
/// }
/// ```
///
/// Threading: a value; declare it anywhere.
public struct FamilyEviction: Sendable, Equatable {
    /// The most written members kept; nil: all of them.
    let writtenLimit: Int?

    /// Keeps every written member until it is removed, reset or overridden, or its runtime ends.
    ///
    /// ```swift
    /// let score = declare.atomFamily(evicting: .never) { (player: String) in 0 }
    /// ```
    public static var never: FamilyEviction { FamilyEviction(writtenLimit: nil) }

    /// Keeps at most `count` written members: the first write of one more gives up the member whose first write
    /// is the oldest (written first since its creation or its reset).
    ///
    /// ```swift
    /// let thumbnail = declare.atomFamily(evicting: .keepingAtMost(100)) { (url: String) in Data() }
    /// ```
    ///
    /// - Parameter count: how many written members to keep, at least 1.
    public static func keepingAtMost(_ count: Int) -> FamilyEviction {
        precondition(count >= 1, "Ripple: a family keeps at least one written member (keepingAtMost(\(count))).")
        return FamilyEviction(writtenLimit: count)
    }
}
