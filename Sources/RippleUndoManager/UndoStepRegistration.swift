@_spi(UndoManagerBridge) import Ripple

/// Registers each new step of an ``Ripple/UndoHistory`` with an undo manager: its action undoes the step (from the
/// undo stack) or redoes it (from the redo stack), named by the step's label. What `UndoManagerBridge` does, for any
/// ``UndoManaging`` manager. Not API.
package final class UndoStepRegistration<Manager: UndoManaging> {
    package let history: UndoHistory
    package let manager: Manager

    /// Registers every step `history` makes from now on with `manager`, which groups no event itself and keeps as
    /// many groups as the history keeps steps.
    package init(history: UndoHistory, manager: Manager) {
        self.history = history
        self.manager = manager
        manager.groupsByEvent = false
        manager.levelsOfUndo = history.limit.steps
        history.observeSteps { [weak self] destination, label in
            self?.register(destination, label: label)
        }
    }

    /// Registers the step that just went onto `destination`: its action undoes it (from the undo stack) or redoes
    /// it (from the redo stack), and the history's next step registers the opposite action. A step made by the
    /// manager's own undo or redo goes into the group the manager opened for it; any other is a group of its own
    /// (the manager groups no event).
    private func register(_ destination: UndoHistory.StepDestination, label: String?) {
        let grouped = !manager.isUndoing && !manager.isRedoing
        if grouped { manager.beginUndoGrouping() }
        manager.registerUndo(withTarget: self) { registration in
            switch destination {
            case .undoStack: registration.history.undo()
            case .redoStack: registration.history.redo()
            }
        }
        if let label { manager.setActionName(label) }
        if grouped { manager.endUndoGrouping() }
    }
}

// `history` and `manager` never change after init; the manager is used as `UndoManager` requires (one thread, see
// the type's documentation), which the registration cannot check.
extension UndoStepRegistration: @unchecked Sendable {}
