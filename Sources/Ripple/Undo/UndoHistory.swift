// Undo and redo for a runtime, built on the change log: the history is a change hook (Runtime+Changes.swift) that
// groups the changes of each outermost batch into one step (UndoStep.swift), closed when the batch of the thread
// that opened it ends (UndoRecorders.swift). An undo writes the step's values before back in one batch, through
// the atoms' ordinary write path, and the changes it makes are recorded as the step a redo applies. Transactions
// (Transaction.swift) hand the hooks only their committed changes, so a rolled-back write is never a step.
internal import CRipple
internal import CRippleThreadState

/// An undo history of a runtime's atoms: each outermost batch, transaction, store action or ``group(_:_:)`` is one
/// step that ``undo()`` takes back and ``redo()`` makes again.
///
/// Create one for a runtime (by default ``Runtime/current``) and keep it: it records every change of an atom's
/// value from then on, while you hold it. ``canUndo``, ``canRedo``, ``undoLabel`` and ``redoLabel`` are tracked
/// reads, so a menu item's enabled state can be an ``Effect`` or a SwiftUI view.
///
/// ```swift
/// import Ripple
///
/// let runtime = Runtime()
/// withIsolatedRuntime(using: runtime) {
///     let text = atom("", label: "text")
///     let history = UndoHistory()
///     text.value = "Hello"
///     history.group("Add world") { text.value += ", world" }
///     print(history.undoLabel ?? "-")     // prints "Add world"
///     history.undo()
///     print(text.value)                   // prints "Hello"
///     history.redo()
///     print(text.value)                   // prints "Hello, world"
/// }
/// ```
///
/// - One step is the changes of one outermost batch (a write outside any batch is a batch of its own), of a
///   ``Runtime/transaction(_:)`` that commits (one that rolls back leaves nothing), of one action of a ``Store``,
///   or of a ``group(_:_:)``. Writes that effects make in reaction belong to the step of the batch that triggered
///   them.
/// - ``undo()`` writes the values before back in one batch: each effect runs once, each derivation recomputes at
///   most once. A new step after an undo clears the redo stack.
/// - Atoms with ``AtomObject/isRestorable`` false are neither recorded nor restored. An atom freed since its step
///   is skipped; a step whose atoms have all been freed is skipped as a whole; both are in the ``UndoReport``.
/// - Coalescing is opt-in: steps of a ``group(_:coalescing:_:)`` with one key merge while they follow each other
///   within the history's window (typing in a field).
/// - The history keeps at most ``Limit/steps`` undo steps and, if set, about ``Limit/bytes`` bytes of values
///   (an estimate, ``estimatedBytes``): the oldest steps are dropped first.
///
/// Threading: from any thread. Writers on other threads may go on while one thread undoes: their steps are
/// recorded in the order the writes take the graph. An undo or redo inside a batch ends the step open on this
/// thread first (the batch's writes so far become a step of their own); the writes made after it in that batch
/// join the undo's step. Lifetime: the history keeps its runtime alive, not the atoms; releasing it stops the
/// recording.
public final class UndoHistory {
    /// The bound on what a history keeps: at most `steps` undo steps, and about `bytes` bytes of recorded values
    /// if set. The oldest steps go first; the newest step is always kept.
    ///
    /// ```swift
    /// import Ripple
    ///
    /// let history = UndoHistory(limit: UndoHistory.Limit(steps: 50, bytes: 1 << 20))
    /// print(history.limit.steps)              // prints "50"
    /// ```
    public struct Limit: Sendable, Equatable {
        /// The most undo steps kept (at least 1).
        ///
        /// ```swift
        /// import Ripple
        ///
        /// print(UndoHistory.Limit().steps)        // prints "100"
        /// ```
        public var steps: Int

        /// About how many bytes of recorded values are kept, or nil for no bound on bytes (see
        /// ``UndoHistory/estimatedBytes``).
        ///
        /// ```swift
        /// import Ripple
        ///
        /// print(UndoHistory.Limit().bytes as Any)     // prints "nil"
        /// ```
        public var bytes: Int?

        /// A bound of `steps` steps and, if given, about `bytes` bytes.
        ///
        /// ```swift
        /// import Ripple
        ///
        /// let limit = UndoHistory.Limit(steps: 20)
        /// print(limit.steps, limit.bytes as Any)      // prints "20 nil"
        /// ```
        ///
        /// - Parameters:
        ///   - steps: the most undo steps kept; values below 1 count as 1.
        ///   - bytes: the estimate of recorded bytes kept, or nil.
        public init(steps: Int = 100, bytes: Int? = nil) {
            self.steps = max(1, steps)
            self.bytes = bytes
        }
    }

    /// The counts and labels of the stacks, in one atom written when they change.
    struct Status: Equatable {
        var undoCount = 0
        var redoCount = 0
        var undoLabel: String?
        var redoLabel: String?
    }

    /// The runtime whose atoms the history records.
    ///
    /// ```swift
    /// import Ripple
    ///
    /// let history = UndoHistory()
    /// print(history.runtime === Runtime.current)  // prints "true"
    /// ```
    public let runtime: Runtime

    /// The bound on the steps kept.
    ///
    /// ```swift
    /// import Ripple
    ///
    /// print(UndoHistory().limit.steps)            // prints "100"
    /// ```
    public let limit: Limit

    /// How close (from the end of one to the start of the next) two steps of a ``group(_:coalescing:_:)`` with
    /// the same key must follow each other to merge.
    ///
    /// ```swift
    /// import Ripple
    ///
    /// print(UndoHistory().coalescingWindow)       // prints "1.0 seconds"
    /// ```
    public let coalescingWindow: Duration

    private let lock = ParkingLock()
    // The state below is read and written only under `lock`: no exclusivity check (a recorded change made three,
    // about 250 instructions).
    @exclusivity(unchecked) private var undoStack: [UndoStep] = []
    @exclusivity(unchecked) private var redoStack: [UndoStep] = []
    @exclusivity(unchecked) private var open: OpenUndoStep?
    /// False after an undo or a redo: the next step does not merge into the one on top.
    @exclusivity(unchecked) private var topMayCoalesce = false
    @exclusivity(unchecked) private var bytesKept = 0
    private var hook: ChangeHook?
    private let status: AtomObject<Status>
    /// What the tracked properties read: one derivation each, so that a reader runs again only when its own
    /// property changes (equality cut-off), not at every change of the stacks.
    private let canUndoNode: Derivation<Bool>
    private let canRedoNode: Derivation<Bool>
    private let undoLabelNode: Derivation<String?>
    private let redoLabelNode: Derivation<String?>
    private let undoCountNode: Derivation<Int>
    private let redoCountNode: Derivation<Int>
    /// Called with each new step closed onto a stack (the Foundation bridge registers it with an `UndoManager`).
    @exclusivity(unchecked) private var stepObservers: [@Sendable (StepDestination, String?) -> Void] = []

    /// A history recording every change of `runtime`'s atoms from now on.
    ///
    /// ```swift
    /// import Ripple
    ///
    /// let history = UndoHistory(limit: UndoHistory.Limit(steps: 10), coalescingWindow: .milliseconds(500))
    /// print(history.canUndo)                      // prints "false"
    /// ```
    ///
    /// - Parameters:
    ///   - runtime: the runtime to record, by default ``Runtime/current``.
    ///   - limit: the bound on the steps kept.
    ///   - coalescingWindow: how close two steps of a coalescing group must be to merge.
    ///
    /// Threading: from any thread; it waits for a batch in progress to end.
    public init(runtime: Runtime = .current, limit: Limit = Limit(), coalescingWindow: Duration = .seconds(1)) {
        self.runtime = runtime
        self.limit = limit
        self.coalescingWindow = coalescingWindow
        let status = RippleContext.$runtimeOverride.withValue(runtime) {
            AtomObject(Status(), label: "UndoHistory.status")
        }
        self.status = status
        (canUndoNode, canRedoNode, undoLabelNode, redoLabelNode, undoCountNode, redoCountNode) =
            RippleContext.$runtimeOverride.withValue(runtime) {
                (
                    derive(label: "UndoHistory.canUndo") { status.value.undoCount != 0 },
                    derive(label: "UndoHistory.canRedo") { status.value.redoCount != 0 },
                    derive(label: "UndoHistory.undoLabel") { status.value.undoLabel },
                    derive(label: "UndoHistory.redoLabel") { status.value.redoLabel },
                    derive(label: "UndoHistory.undoCount") { status.value.undoCount },
                    derive(label: "UndoHistory.redoCount") { status.value.redoCount }
                )
            }
        status.isRestorable = false  // neither recorded (`record(_:)`) nor captured by snapshots
        runtime.undoRecorders.add(self)
        hook = runtime.onChange { [weak self] change in self?.record(change) }
    }

    deinit {
        hook?.cancel()
        lock.withLock { if open != nil { ripple_counter_add(runtime.pendingHooksCount, -1) } }
        lock.deallocate()
    }

    // MARK: Reading the state

    /// Whether there is a step to undo. A tracked read: an effect or a derivation reading it runs again when it
    /// changes.
    ///
    /// ```swift
    /// import Ripple
    ///
    /// let count = atom(0)
    /// let history = UndoHistory()
    /// let menu = Effect { print("Undo enabled:", history.canUndo) }   // prints "Undo enabled: false"
    /// count.value = 1                                                 // prints "Undo enabled: true"
    /// _ = menu
    /// ```
    public var canUndo: Bool { canUndoNode.value }

    /// Whether there is a step to redo. A tracked read, like ``canUndo``.
    ///
    /// ```swift
    /// import Ripple
    ///
    /// let count = atom(0)
    /// let history = UndoHistory()
    /// count.value = 1
    /// history.undo()
    /// print(history.canRedo)                      // prints "true"
    /// ```
    public var canRedo: Bool { canRedoNode.value }

    /// The label of the step ``undo()`` would take back (see ``group(_:_:)``), or nil when it has none or there
    /// is none. A tracked read.
    ///
    /// ```swift
    /// import Ripple
    ///
    /// let name = atom("")
    /// let history = UndoHistory()
    /// history.group("Rename") { name.value = "Ada" }
    /// print(history.undoLabel ?? "-")             // prints "Rename"
    /// ```
    public var undoLabel: String? { undoLabelNode.value }

    /// The label of the step ``redo()`` would make again, or nil. A tracked read.
    ///
    /// ```swift
    /// import Ripple
    ///
    /// let name = atom("")
    /// let history = UndoHistory()
    /// history.group("Rename") { name.value = "Ada" }
    /// history.undo()
    /// print(history.redoLabel ?? "-")             // prints "Rename"
    /// ```
    public var redoLabel: String? { redoLabelNode.value }

    /// How many steps ``undo()`` can take back. A tracked read.
    ///
    /// ```swift
    /// import Ripple
    ///
    /// let count = atom(0)
    /// let history = UndoHistory()
    /// count.value = 1
    /// count.value = 2
    /// print(history.undoCount)                    // prints "2"
    /// ```
    public var undoCount: Int { undoCountNode.value }

    /// How many steps ``redo()`` can make again. A tracked read.
    ///
    /// ```swift
    /// import Ripple
    ///
    /// let count = atom(0)
    /// let history = UndoHistory()
    /// count.value = 1
    /// history.undo()
    /// print(history.redoCount)                    // prints "1"
    /// ```
    public var redoCount: Int { redoCountNode.value }

    /// The estimate of the bytes the recorded values of the undo and redo steps hold: each value's inline size,
    /// plus a string's UTF-8 bytes or a collection's elements, plus a fixed cost per change. Copy-on-write
    /// storage shared with the atoms is counted as if it were not shared. Not tracked. With a bound on bytes
    /// (``Limit/bytes``) the history keeps the sum as it goes; without one, reading this adds up every step.
    ///
    /// ```swift
    /// import Ripple
    ///
    /// let history = UndoHistory()
    /// print(history.estimatedBytes)               // prints "0"
    /// ```
    public var estimatedBytes: Int {
        lock.withLock {
            if limit.bytes != nil { return bytesKept }
            return (undoStack + redoStack).reduce(0) { total, step in
                step.entries.reduce(total) { $0 + $1.estimatedBytes }
            }
        }
    }

    // MARK: Grouping

    /// Runs `body` in one batch whose changes are one step labelled `label` (the text of an Undo menu item).
    ///
    /// Inside another batch or group, the changes join that batch's step, and the label is kept if the step has
    /// none yet.
    ///
    /// ```swift
    /// import Ripple
    ///
    /// let x = atom(0), y = atom(0)
    /// let history = UndoHistory()
    /// history.group("Move") {
    ///     x.value = 10
    ///     y.value = 20
    /// }
    /// history.undo()                              // both back to 0, in one batch
    /// print(x.value, y.value)                     // prints "0 0"
    /// ```
    ///
    /// - Parameters:
    ///   - label: the step's label (``undoLabel``, ``redoLabel``).
    ///   - body: the writes of the step.
    /// - Returns: what `body` returns; its error is rethrown (the writes made before stay, as in a batch: use
    ///   ``Runtime/transaction(_:)`` inside the group for all or nothing).
    ///
    /// Threading: from any thread, like a batch.
    @discardableResult
    public func group<T>(_ label: String, _ body: () throws -> T) rethrows -> T {
        try grouping(label, coalescingKey: nil, body)
    }

    /// Runs `body` as ``group(_:_:)`` does, and merges the step into the previous one when that one was a group
    /// with the same `key` that ended at most ``coalescingWindow`` before this one began, and nothing was undone
    /// or redone in between: typing in a field becomes one step per burst of keystrokes.
    ///
    /// ```swift
    /// import Ripple
    ///
    /// let text = atom("")
    /// let history = UndoHistory(coalescingWindow: .seconds(60))
    /// for letter in ["a", "b", "c"] {
    ///     history.group("Typing", coalescing: "text field") { text.value += letter }
    /// }
    /// print(history.undoCount)                    // prints "1"
    /// history.undo()
    /// print(text.value.isEmpty)                   // prints "true"
    /// ```
    ///
    /// - Parameters:
    ///   - label: the step's label.
    ///   - key: what the steps that may merge share (a field's identity, for instance).
    ///   - body: the writes of the step.
    /// - Returns: what `body` returns; its error is rethrown.
    @discardableResult
    public func group<T>(_ label: String, coalescing key: some Hashable & Sendable, _ body: () throws -> T) rethrows
        -> T
    {
        try grouping(label, coalescingKey: AnyHashable(key), body)
    }

    private func grouping<T>(_ label: String, coalescingKey: AnyHashable?, _ body: () throws -> T) rethrows -> T {
        try runtime.batch {
            // The graph is held: a step another thread left open is over.
            let finished = lock.withLock { () -> Status? in
                if let step = open, step.isOwnedByThisThread {
                    if open?.label == nil { open?.label = label }
                    if open?.coalescingKey == nil { open?.coalescingKey = coalescingKey }
                    return nil
                }
                let status = closeOpenStep()
                openStep(OpenUndoStep(kind: .record, label: label, coalescingKey: coalescingKey))
                return status
            }
            publish(finished)
            return try body()
        }
    }

    // MARK: Undo and redo

    /// Takes the last step back: writes the values its atoms had before it, newest change first, in one batch.
    ///
    /// Each effect that reads the atoms runs once and each derivation recomputes at most once. The step moves to
    /// the redo stack. A step whose atoms have all been freed is skipped (counted in ``UndoReport/skippedSteps``)
    /// and the one before it is undone instead; freed atoms of the step undone are listed in
    /// ``UndoReport/freed``.
    ///
    /// ```swift
    /// import Ripple
    ///
    /// let count = atom(1)
    /// let log = Effect { print("count", count.value) }    // prints "count 1"
    /// let history = UndoHistory()
    /// batch { count.value = 2; count.value = 3 }          // prints "count 3"
    /// let report = history.undo()                         // prints "count 1", once
    /// print(report.applied)                               // prints "true"
    /// _ = log
    /// ```
    ///
    /// - Returns: what was undone; ``UndoReport/applied`` is false when there was nothing to undo.
    ///
    /// Threading: from any thread; atomic, like a batch.
    @discardableResult
    public func undo() -> UndoReport {
        apply(from: .undo)
    }

    /// Makes the last undone step again, in one batch, as ``undo()`` takes one back. The step moves back to the
    /// undo stack.
    ///
    /// ```swift
    /// import Ripple
    ///
    /// let count = atom(1)
    /// let history = UndoHistory()
    /// count.value = 2
    /// history.undo()
    /// history.redo()
    /// print(count.value)                          // prints "2"
    /// ```
    ///
    /// - Returns: what was redone; ``UndoReport/applied`` is false when there was nothing to redo.
    ///
    /// Threading: from any thread; atomic, like a batch.
    @discardableResult
    public func redo() -> UndoReport {
        apply(from: .redo)
    }

    /// Undoes (`kind` `.undo`) or redoes (`.redo`) the top step of the matching stack.
    private func apply(from kind: OpenUndoStep.Kind) -> UndoReport {
        runtime.batch {
            var skipped = 0
            var freed: [Snapshot.AtomRecord] = []
            while true {
                let (finished, popped) = lock.withLock { () -> (Status?, UndoStep?) in
                    let status = closeOpenStep()
                    let step = kind == .undo ? undoStack.popLast() : redoStack.popLast()
                    if let step {
                        bytesKept -= step.bytes
                        topMayCoalesce = false
                        openStep(OpenUndoStep(kind: kind, label: step.label))
                    }
                    return (status, step)
                }
                publish(finished)
                guard let step = popped else {
                    publish(lock.withLock { currentStatus() })
                    return UndoReport(applied: false, label: nil, skippedSteps: skipped, freed: freed)
                }
                var written = 0
                var freedHere: [Snapshot.AtomRecord] = []
                for entry in step.entries.reversed() {
                    guard let node = runtime.retainedNode(entry.atom.handle) else {
                        if !freedHere.contains(entry.atom) { freedHere.append(entry.atom) }
                        continue
                    }
                    if node.isSkippedBySnapshots { continue }  // opted out since: not restored
                    node.writeBack(entry.before)
                    written += 1
                }
                freed += freedHere
                if written == 0 && !freedHere.isEmpty {
                    skipped += 1  // every atom of the step is gone: try the one before
                    continue
                }
                return UndoReport(applied: true, label: step.label, skippedSteps: skipped, freed: freed)
            }
        }
    }

    // MARK: Recording

    /// The change hook: adds `change` to this thread's open step, opening one if needed. Runs while the graph is
    /// held.
    private func record(_ change: AtomChange) {
        if change.atom.isSkippedBySnapshots { return }  // not restorable (this history's own status too)
        let finished = lock.withLock { () -> Status? in
            var status: Status?
            // Tested in place (`open.map` would copy the step, its entries and its key, and destroy the copy).
            if !(open?.isOwnedByThisThread ?? false) {
                // Another thread's step is over (this thread holds the graph), or none is open.
                status = closeOpenStep()
                openStep(OpenUndoStep(kind: .record, label: nil))
            }
            // Made where it is appended: an entry (or its atom's record) made outside the lock is copied into the
            // closure, then again into the array, and destroyed twice.
            let record = Snapshot.AtomRecord(change.atom, handle: change.atom.handle)
            open?.entries.append(UndoEntry(atom: record, before: change.oldValue, after: change.newValue))
            return status
        }
        publish(finished)
    }

    /// Called by the runtime's recorders when the calling thread has left its outermost batch: closes the step
    /// this thread opened.
    func outermostBatchEnded() {
        let finished = lock.withLock { () -> Status? in
            guard let step = open, step.isOwnedByThisThread else { return nil }
            return closeOpenStep()
        }
        publish(finished)
    }

    /// Opens `step`, counting it in the runtime's counter so that batch ends report to the recorders. Under the
    /// lock, with no step open.
    private func openStep(_ step: OpenUndoStep) {
        open = step
        ripple_counter_add(runtime.pendingHooksCount, 1)
    }

    /// Closes the open step onto its stack (under the lock). Returns the status to publish, or nil when no step was
    /// open.
    private func closeOpenStep() -> Status? {
        guard let step = open else { return nil }
        open = nil
        ripple_counter_add(runtime.pendingHooksCount, -1)
        let now = ContinuousClock.now
        // The estimate asks each value's type (dynamic casts, about a microsecond a change): made only under a
        // bound on bytes; without one, ``estimatedBytes`` adds the steps up when asked.
        let bytes = limit.bytes == nil ? 0 : step.entries.reduce(0) { $0 + $1.estimatedBytes }
        switch step.kind {
        case .record:
            if step.entries.isEmpty { return currentStatus() }
            redoStack.removeAll()
            if let key = step.coalescingKey, topMayCoalesce, let top = undoStack.last, top.coalescingKey == key,
                top.finished.advanced(by: coalescingWindow) >= now
            {
                undoStack[undoStack.count - 1].entries += step.entries
                undoStack[undoStack.count - 1].finished = now
                undoStack[undoStack.count - 1].bytes += bytes
                bytesKept += bytes
                trim()
                return currentStatus()  // merged: no new step to tell the observers about
            } else {
                undoStack.append(
                    UndoStep(
                        entries: step.entries, label: step.label, coalescingKey: step.coalescingKey, finished: now,
                        bytes: bytes))
            }
            topMayCoalesce = true
        case .undo:
            if step.entries.isEmpty { return currentStatus() }
            redoStack.append(UndoStep(entries: step.entries, label: step.label, finished: now, bytes: bytes))
        case .redo:
            if step.entries.isEmpty { return currentStatus() }
            undoStack.append(UndoStep(entries: step.entries, label: step.label, finished: now, bytes: bytes))
        }
        bytesKept += bytes
        trim()
        for observer in stepObservers { observer(step.kind == .undo ? .redoStack : .undoStack, step.label) }
        return currentStatus()
    }

    /// Drops the oldest undo steps beyond the limit, keeping the newest. Under the lock.
    private func trim() {
        var dropped = 0
        while undoStack.count - dropped > 1 {
            let overSteps = undoStack.count - dropped > limit.steps
            let overBytes = limit.bytes.map { bytesKept > $0 } ?? false
            if !overSteps && !overBytes { break }
            bytesKept -= undoStack[dropped].bytes
            dropped += 1
        }
        if dropped != 0 { undoStack.removeFirst(dropped) }
    }

    private func currentStatus() -> Status {
        Status(
            undoCount: undoStack.count, redoCount: redoStack.count, undoLabel: undoStack.last?.label,
            redoLabel: redoStack.last?.label)
    }

    /// Writes `status` (outside the lock: the write reaches the change hooks) when given.
    private func publish(_ new: Status?) {
        if let new { status.value = new }
    }

    /// The stack a new step went onto: the undo stack (a recorded step, or one redone), or the redo stack (one
    /// undone). For the Foundation bridge (RippleUndoManager), not API.
    @_spi(UndoManagerBridge)
    public enum StepDestination: Sendable {
        /// The step can be undone.
        case undoStack
        /// The step can be redone.
        case redoStack
    }

    /// Registers `observer`, called with each new step closed onto a stack, and its label (a step merged into the
    /// one before by coalescing is not new). It is called on the thread whose batch made the step, under the
    /// history's lock: it must not call back into the history. For the Foundation bridge, not API.
    ///
    /// - Parameter observer: receives the step's stack and label.
    @_spi(UndoManagerBridge)
    public func observeSteps(_ observer: @escaping @Sendable (StepDestination, String?) -> Void) {
        lock.withLock { stepObservers.append(observer) }
    }
}

// The stacks, the open step and the observers are read and written only under `lock` (a spin lock whose word is
// allocated once and freed in deinit); `runtime`, `limit`, `coalescingWindow` and `status` never change after init,
// and `status` is an `AtomObject` of a Sendable value, safe to share. The hook is set in init and only cancelled.
extension UndoHistory: @unchecked Sendable {}

/// What ``UndoHistory/undo()`` or ``UndoHistory/redo()`` did.
///
/// ```swift
/// import Ripple
///
/// let history = UndoHistory()
/// let report = history.undo()
/// print(report.applied, report.skippedSteps, report.freed.count)    // prints "false 0 0"
/// ```
///
/// Threading and lifetime: an immutable value.
public struct UndoReport: Sendable {
    /// Whether a step was undone (or redone); false when there was none.
    ///
    /// ```swift
    /// import Ripple
    ///
    /// print(UndoHistory().redo().applied)         // prints "false"
    /// ```
    public let applied: Bool

    /// The label of the step applied, if it had one.
    ///
    /// ```swift
    /// import Ripple
    ///
    /// let flag = atom(false)
    /// let history = UndoHistory()
    /// history.group("Toggle") { flag.value.toggle() }
    /// print(history.undo().label ?? "-")          // prints "Toggle"
    /// ```
    public let label: String?

    /// How many steps were skipped first because every atom they changed had been freed.
    ///
    /// ```swift
    /// import Ripple
    ///
    /// print(UndoHistory().undo().skippedSteps)    // prints "0"
    /// ```
    public let skippedSteps: Int

    /// The atoms, of the skipped steps and of the step applied, that had been freed and so were not written, in
    /// the order the steps were tried.
    ///
    /// ```swift
    /// import Ripple
    ///
    /// print(UndoHistory().undo().freed.map(\.label))   // prints "[]"
    /// ```
    public let freed: [Snapshot.AtomRecord]
}
