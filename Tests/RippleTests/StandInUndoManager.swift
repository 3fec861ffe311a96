import RippleUndoManager

/// Foundation's `UndoManager` as Apple documents it, for the bridge's tests on Linux, whose
/// swift-corelibs-foundation has no `UndoManager` (a program using it fails to compile there: "cannot find
/// 'UndoManager' in scope"). Modelled on developer.apple.com/documentation/foundation/undomanager and the pages of
/// the members used here:
/// - `groupsByEvent` (default true): a group is opened around each pass of the run loop; turned off, groups must be
///   opened and closed explicitly, and registering outside one is an error (NSInternalInconsistencyException; here
///   a recorded ``violations`` entry). A pass of the run loop is ``endEvent()`` here.
/// - `beginUndoGrouping()`/`endUndoGrouping()` nest; closing the top-level group puts it on the undo stack (the redo
///   stack while undoing); an empty group is dropped. `endUndoGrouping()` with no group open is an error.
/// - `registerUndo(withTarget:handler:)` adds to the open group; outside an undo or a redo it clears the redo stack.
/// - `undo()` closes the top-level group if needed, then undoes the top group, whose registrations (made while
///   `isUndoing`) form a group on the redo stack; `redo()` the reverse, onto the undo stack.
/// - `setActionName(_:)` names the group being registered; `undoActionName`, `undoMenuItemTitle` ("Undo" alone
///   without a name, else "Undo <name>"), and the redo counterparts read the stacks' tops.
/// - `levelsOfUndo` (default 0, no limit): closing a group that makes the undo stack longer drops the oldest;
///   lowering it drops them at once.
final class StandInUndoManager: UndoManaging, @unchecked Sendable {
    // @unchecked: used on one thread, as `UndoManager` requires (each test's own).
    private struct Group {
        var actions: [() -> Void] = []
        var name = ""
    }

    private var undoStack: [Group] = []
    private var redoStack: [Group] = []
    private var open: [Group] = []
    private(set) var isUndoing = false
    private(set) var isRedoing = false
    /// The errors Foundation would raise, in order.
    private(set) var violations: [String] = []

    var groupsByEvent = true

    var levelsOfUndo = 0 {
        didSet { trim() }
    }

    var groupingLevel: Int { open.count }
    var canUndo: Bool { !undoStack.isEmpty || (open.first.map { !$0.actions.isEmpty } ?? false) }
    var canRedo: Bool { !redoStack.isEmpty }
    var undoActionName: String { undoStack.last?.name ?? "" }
    var redoActionName: String { redoStack.last?.name ?? "" }
    var undoMenuItemTitle: String { undoActionName.isEmpty ? "Undo" : "Undo \(undoActionName)" }
    var redoMenuItemTitle: String { redoActionName.isEmpty ? "Redo" : "Redo \(redoActionName)" }
    var undoCount: Int { undoStack.count }

    func beginUndoGrouping() {
        open.append(Group())
    }

    func endUndoGrouping() {
        guard let group = open.popLast() else {
            violations.append("endUndoGrouping without beginUndoGrouping")
            return
        }
        if !open.isEmpty {
            open[open.count - 1].actions += group.actions
            if !group.name.isEmpty { open[open.count - 1].name = group.name }
            return
        }
        if group.actions.isEmpty { return }
        if isUndoing {
            redoStack.append(group)
        } else {
            undoStack.append(group)
            trim()
        }
    }

    func registerUndo<Target: AnyObject>(withTarget target: Target, handler: @escaping @Sendable (Target) -> Void) {
        if open.isEmpty {
            guard groupsByEvent else {
                violations.append("registerUndo outside a group with groupsByEvent false")
                return
            }
            beginUndoGrouping()  // the run loop pass's group, closed by endEvent()
        }
        if !isUndoing && !isRedoing { redoStack.removeAll() }
        open[open.count - 1].actions.append { handler(target) }
    }

    func setActionName(_ actionName: String) {
        if open.isEmpty { violations.append("setActionName outside a group") } else {
            open[open.count - 1].name = actionName
        }
    }

    /// The end of a pass of the run loop: closes the group `groupsByEvent` opened.
    func endEvent() {
        if groupsByEvent, open.count == 1 { endUndoGrouping() }
    }

    func undo() {
        if groupsByEvent, open.count == 1 { endUndoGrouping() }
        guard open.isEmpty else { return violations.append("undo with a group open") }
        guard let group = undoStack.popLast() else { return }
        isUndoing = true
        beginUndoGrouping()
        for action in group.actions.reversed() { action() }
        // The redo group keeps the undone group's name unless its registrations named it.
        if open[0].name.isEmpty { open[0].name = group.name }
        endUndoGrouping()
        isUndoing = false
    }

    func redo() {
        guard open.isEmpty else { return violations.append("redo with a group open") }
        guard let group = redoStack.popLast() else { return }
        isRedoing = true
        beginUndoGrouping()
        for action in group.actions.reversed() { action() }
        if open[0].name.isEmpty { open[0].name = group.name }
        endUndoGrouping()
        isRedoing = false
    }

    private func trim() {
        if levelsOfUndo > 0, undoStack.count > levelsOfUndo { undoStack.removeFirst(undoStack.count - levelsOfUndo) }
    }
}
