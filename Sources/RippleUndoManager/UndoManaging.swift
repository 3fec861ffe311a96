// What the bridge uses of an undo manager, by the names Foundation's `UndoManager` gives them: so that the bridge's
// logic (UndoStepRegistration.swift) compiles everywhere and is tested on Linux, whose swift-corelibs-foundation has
// no `UndoManager`, against a stand-in that follows Apple's documented behaviour (Tests/RippleTests). On Apple
// platforms `UndoManager` is reached through `FoundationUndoManager`, which forwards each call as it is.

/// The calls the bridge makes to an undo manager, named and behaving as `UndoManager`'s. Sendable as
/// `UndoManager` is: used on one thread, as it requires. Not API.
package protocol UndoManaging: AnyObject, Sendable {
    /// Whether the manager opens a group around each pass of the run loop (`UndoManager.groupsByEvent`).
    var groupsByEvent: Bool { get set }
    /// The most top-level groups kept, 0 for no limit (`UndoManager.levelsOfUndo`).
    var levelsOfUndo: Int { get set }
    /// Whether an undo is running (`UndoManager.isUndoing`): a registration then goes to the redo stack.
    var isUndoing: Bool { get }
    /// Whether a redo is running (`UndoManager.isRedoing`).
    var isRedoing: Bool { get }
    /// Opens a group (`UndoManager.beginUndoGrouping()`).
    func beginUndoGrouping()
    /// Closes the innermost group (`UndoManager.endUndoGrouping()`).
    func endUndoGrouping()
    /// Registers `handler`, called with `target` to undo (`UndoManager.registerUndo(withTarget:handler:)`).
    func registerUndo<Target: AnyObject>(withTarget target: Target, handler: @escaping @Sendable (Target) -> Void)
    /// Names the group being registered (`UndoManager.setActionName(_:)`).
    func setActionName(_ actionName: String)
}
