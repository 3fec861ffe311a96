// RippleUndoManager: registers the steps of a Ripple UndoHistory with Foundation's UndoManager, so that the
// platform's Undo and Redo menu items, their keyboard shortcuts and shake-to-undo drive the history. A module of its
// own, so that `import Ripple` never brings Foundation in. `UndoManager` is in Apple's Foundation only (Linux's
// swift-corelibs-foundation has none): elsewhere this module holds the bridge's logic alone (UndoStepRegistration),
// which the tests check against a stand-in.
#if canImport(Foundation) && canImport(Darwin)
public import Foundation
@_spi(UndoManagerBridge) public import Ripple

/// Connects an ``Ripple/UndoHistory`` to an `UndoManager`: each new step of the history is registered with the
/// manager, under the step's label as its action name, and the manager's undo and redo call the history's.
///
/// ```swift
/// import Foundation
/// import Ripple
/// import RippleUndoManager
///
/// let text = atom("")
/// let history = UndoHistory()
/// let manager = UndoManager()
/// let bridge = UndoManagerBridge(history: history, manager: manager)
/// history.group("Type") { text.value = "Hello" }
/// print(manager.canUndo, manager.undoActionName)   // prints "true Type"
/// manager.undo()
/// print(text.value.isEmpty)                        // prints "true"
/// manager.redo()
/// print(text.value)                                // prints "Hello"
/// _ = bridge
/// ```
///
/// Once bridged, undo and redo through the manager (its menu items, or ``Foundation/UndoManager/undo()``): a
/// direct ``Ripple/UndoHistory/undo()`` would be registered as a new action. The bridge sets the manager's
/// `groupsByEvent` to false and groups each step itself, and its `levelsOfUndo` to the history's step limit.
///
/// Threading: `UndoManager` is not thread-safe: make the history's steps (the writes) and the manager's calls on
/// one thread, the main thread in an app. Lifetime: the manager keeps the bridge alive while it has actions
/// registered; the bridge keeps the history alive.
public final class UndoManagerBridge {
    /// The history whose steps are registered.
    ///
    /// ```swift
    /// import Foundation
    /// import Ripple
    /// import RippleUndoManager
    ///
    /// let bridge = UndoManagerBridge(history: UndoHistory(), manager: UndoManager())
    /// print(bridge.history.canUndo)                   // prints "false"
    /// ```
    public let history: UndoHistory

    /// The manager the steps are registered with.
    ///
    /// ```swift
    /// import Foundation
    /// import Ripple
    /// import RippleUndoManager
    ///
    /// let bridge = UndoManagerBridge(history: UndoHistory(), manager: UndoManager())
    /// print(bridge.manager.canUndo)                   // prints "false"
    /// ```
    public let manager: UndoManager

    /// Registers every step `history` makes from now on with `manager`.
    ///
    /// ```swift
    /// import Foundation
    /// import Ripple
    /// import RippleUndoManager
    ///
    /// let count = atom(0)
    /// let history = UndoHistory()
    /// let bridge = UndoManagerBridge(history: history, manager: UndoManager())
    /// count.value = 1
    /// bridge.manager.undo()
    /// print(count.value)                              // prints "0"
    /// ```
    ///
    /// - Parameters:
    ///   - history: the history to bridge.
    ///   - manager: the manager to register its steps with.
    public init(history: UndoHistory, manager: UndoManager) {
        self.history = history
        self.manager = manager
        registration = UndoStepRegistration(history: history, manager: FoundationUndoManager(manager))
    }

    /// What registers the steps; the manager keeps it alive while it has actions registered.
    private let registration: UndoStepRegistration<FoundationUndoManager>
}

// `history`, `manager` and `registration` never change after init; the manager is used as `UndoManager` requires
// (one thread, see the type's documentation), which the bridge cannot check.
extension UndoManagerBridge: @unchecked Sendable {}

/// Foundation's `UndoManager` as ``UndoManaging``: each call forwarded as it is.
final class FoundationUndoManager: UndoManaging {
    let manager: UndoManager

    init(_ manager: UndoManager) { self.manager = manager }

    var groupsByEvent: Bool {
        get { manager.groupsByEvent }
        set { manager.groupsByEvent = newValue }
    }

    var levelsOfUndo: Int {
        get { manager.levelsOfUndo }
        set { manager.levelsOfUndo = newValue }
    }

    var isUndoing: Bool { manager.isUndoing }
    var isRedoing: Bool { manager.isRedoing }
    func beginUndoGrouping() { manager.beginUndoGrouping() }
    func endUndoGrouping() { manager.endUndoGrouping() }

    func registerUndo<Target: AnyObject>(withTarget target: Target, handler: @escaping @Sendable (Target) -> Void) {
        manager.registerUndo(withTarget: target) { handler($0) }
    }

    func setActionName(_ actionName: String) { manager.setActionName(actionName) }
}

// `manager` never changes after init; it is used on one thread, as `UndoManager` requires.
extension FoundationUndoManager: @unchecked Sendable {}
#endif
