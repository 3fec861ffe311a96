internal import CRipple

// Transactions: a batch whose writes are all kept or all undone. Built on the change log (Runtime+Changes.swift):
// while a transaction is open, every write of an atom takes the reporting path (`Runtime.updateChangeHookCount`),
// and `Runtime.reportChange` keeps the change, with its value before, in the runtime's journal instead of handing
// it to the hooks. Each transaction is also a savepoint of the engine (rp_savepoint_begin, ripple.h). A body that
// returns commits: it releases its savepoint, and the outermost transaction hands the journal to the hooks, in
// write order. A body that throws rolls back: its changes are written back, newest first, through the atoms'
// ordinary write path, then the engine rolls the graph back to the savepoint: reads inside the body may have
// brought derivations up to date from the writes and queued effects; the engine unqueues those effects, gives the
// derivations it recomputed their values from before (the copies the runtime kept for it, `copies`, or a
// recompute from the restored values when the derivation read other nodes since) and commits the atoms' restored
// values, so that nothing counts as a change. Nothing outside the transaction sees any of it: the batch holds the
// graph, so other threads wait; no effect runs for it; hooks, and the lifecycle hooks and undo histories built on
// them, only ever see the journal of a commit.

/// The changes of the open transactions of one runtime, oldest first. Touched only while the graph is held (the
/// transactions' batch).
struct TransactionJournal {
    /// How many transactions are open (nested) on the thread holding the graph.
    var depth = 0

    /// The changes made since the outermost transaction began, in write order.
    var changes: [AtomChange] = []

    /// True while a rollback writes values back: those writes are not changes to keep.
    var isRollingBack = false

    /// The derivations' values the engine asked the runtime to keep for the open savepoints (its `save`
    /// callback), oldest first; its `restore` callback takes them back newest first (Runtime+Callbacks.swift).
    var copies: [Any] = []

    /// Keeps `change` for a rollback or for the commit's report.
    mutating func record(_ change: AtomChange) {
        if !isRollingBack { changes.append(change) }
    }
}

/// Where a transaction began: the engine's savepoint and the length of the journal.
struct TransactionSavepoint {
    let engine: rp_savepoint_t
    let journalLength: Int
}

extension Runtime {
    /// Runs `body` as one all-or-nothing batch: if it returns, its writes are committed exactly as by
    /// ``batch(_:)``; if it throws, every write it made is rolled back and the error is rethrown.
    ///
    /// A rolled-back write is invisible: the atoms hold their values from before, derivations read afterwards
    /// (inside the transaction too) compute from those, no change hook (``onChange(_:)``), lifecycle hook or
    /// ``UndoHistory`` is told about it, and no effect runs for it, even when the body read what it wrote (a
    /// derivation read inside the body after a write gets its value from before back, without recomputing when
    /// it reads the same nodes as before). This covers every kind of state that is an atom: plain atoms, `@Atom`
    /// properties, declared state and a ``Store``'s state.
    ///
    /// Transactions nest: an inner transaction that throws rolls back to its own start (a savepoint), and the
    /// outer one keeps its earlier writes; an inner one that returns becomes part of the outer one, and is
    /// rolled back with it if the outer one throws. A transaction inside a plain ``batch(_:)`` rolls back only
    /// its own writes.
    ///
    /// ```swift
    /// import Ripple
    ///
    /// struct Invalid: Error {}
    /// let runtime = Runtime()
    /// withIsolatedRuntime(using: runtime) {
    ///     let balance = atom(100)
    ///     let log = Effect { print("balance", balance.value) }    // prints "balance 100"
    ///     do {
    ///         try runtime.transaction {
    ///             let next = balance.value - 150
    ///             balance.value = next
    ///             if next < 0 { throw Invalid() }             // the effect does not run
    ///         }
    ///     } catch {
    ///         print("rolled back:", balance.value)                // prints "rolled back: 100"
    ///     }
    ///     _ = log
    /// }
    /// ```
    ///
    /// What cannot be rolled back: an in-place mutation announced with ``didMutate(_:)`` (its value before is
    /// gone; it stays, and is reported when the transaction commits or rolls back), and anything that is not an
    /// atom's value (nodes created or freed, hooks installed).
    ///
    /// - Parameter body: the writes to make all together. It runs once, on the calling thread.
    /// - Returns: what `body` returns.
    ///
    /// Threading: from any thread. Like a batch, it holds the graph from begin to end: a reader on another thread
    /// waits, and sees either the committed writes or none of them, never the values of a transaction that rolls
    /// back. Keep it short, and never wait inside it for another thread that uses the runtime.
    public func transaction<T>(_ body: () throws -> T) rethrows -> T {
        let outer = beginMarkedBatch()
        let savepoint = openTransaction()
        let result: T
        do {
            result = try body()
        } catch {
            closeTransaction(savepoint, rollingBack: true)
            endMarkedBatch(restoring: outer)
            throw error
        }
        closeTransaction(savepoint, rollingBack: false)
        endMarkedBatch(restoring: outer)
        return result
    }

    /// Opens a transaction in the batch the caller began: its savepoint in the engine, and the journal's length.
    private func openTransaction() -> TransactionSavepoint {
        transactionJournal.depth += 1
        if transactionJournal.depth == 1 { updateChangeHookCount() }
        var engine = rp_savepoint_t()
        let status = rp_savepoint_begin(graph, &engine)
        precondition(status == .RP_OK, "Ripple: internal error: a transaction's savepoint failed (\(status)).")
        return TransactionSavepoint(engine: engine, journalLength: transactionJournal.changes.count)
    }

    /// Closes the innermost transaction: rolls it back to `savepoint` when one is given (its changes written back,
    /// then the engine's savepoint rolled back), or releases the savepoint; then, if it was the outermost, reports
    /// the journal's changes to the hooks (a rollback to the very start leaves none).
    private func closeTransaction(_ opened: TransactionSavepoint, rollingBack: Bool) {
        var engine = opened.engine
        if rollingBack {
            transactionJournal.isRollingBack = true
            // Newest first: an atom written twice gets the value before its first write last.
            while transactionJournal.changes.count > opened.journalLength {
                let change = transactionJournal.changes.removeLast()
                change.atom.writeBack(change.oldValue)
            }
            transactionJournal.isRollingBack = false
            // Not RP_OK only when a derivation's recompute failed: the engine left it dirty, its readers marked,
            // and a later read recomputes it (and reports its error).
            _ = rp_savepoint_rollback(graph, &engine)
        } else {
            let status = rp_savepoint_release(graph, &engine)
            precondition(status == .RP_OK, "Ripple: internal error: a transaction's savepoint failed (\(status)).")
        }
        transactionJournal.depth -= 1
        if transactionJournal.depth != 0 { return }
        let committed = transactionJournal.changes
        transactionJournal.changes = []
        updateChangeHookCount()
        for change in committed { reportChange(change) }
    }
}

/// Runs `body` as one all-or-nothing batch of ``Runtime/current``: its writes are committed together when it
/// returns, and all rolled back when it throws (the error is rethrown).
///
/// ```swift
/// import Ripple
///
/// struct Form {
///     @Atom var name = ""
///     @Atom var age = 0
/// }
/// struct InvalidAge: Error {}
/// let form = Form()
/// do {
///     try transaction {
///         form.name = "Ada"
///         form.age = -1
///         if form.age < 0 { throw InvalidAge() }
///     }
/// } catch {
///     print(form.name.isEmpty, form.age)      // prints "true 0": both writes rolled back
/// }
/// ```
///
/// Threading: from any thread. See ``Runtime/transaction(_:)``.
public func transaction<T>(_ body: () throws -> T) rethrows -> T {
    try Runtime.current.transaction(body)
}
