// Transactions: a batch whose writes are all kept or all undone. Built on the change log (Runtime+Changes.swift):
// while a transaction is open, every write of an atom takes the reporting path (`Runtime.updateChangeHookCount`),
// and `Runtime.reportChange` keeps the change, with its value before, in the runtime's journal instead of handing
// it to the hooks. A body that returns commits: the outermost transaction hands the journal to the hooks, in write
// order. A body that throws rolls back: its changes are written back, newest first, through the atoms' ordinary
// write path, before the batch ends. Nothing outside the transaction sees them: the batch holds the graph, so other
// threads wait; effects run when the batch ends, and by then each atom holds its value from before (a write
// followed by a write of the earlier value is no change, SEMANTICS.md); hooks, and the lifecycle hooks and undo
// histories built on them, only ever see the journal of a commit.

/// The changes of the open transactions of one runtime, oldest first. Touched only while the graph is held (the
/// transactions' batch).
struct TransactionJournal {
    /// How many transactions are open (nested) on the thread holding the graph.
    var depth = 0

    /// The changes made since the outermost transaction began, in write order.
    var changes: [AtomChange] = []

    /// True while a rollback writes values back: those writes are not changes to keep.
    var isRollingBack = false

    /// Keeps `change` for a rollback or for the commit's report.
    mutating func record(_ change: AtomChange) {
        if !isRollingBack { changes.append(change) }
    }
}

extension Runtime {
    /// Runs `body` as one all-or-nothing batch: if it returns, its writes are committed exactly as by
    /// ``batch(_:)``; if it throws, every write it made is rolled back and the error is rethrown.
    ///
    /// A rolled-back write is invisible: the atoms hold their values from before, derivations read afterwards
    /// (inside the transaction too) compute from those, no change hook (``onChange(_:)``), lifecycle hook or
    /// ``UndoHistory`` is told about it, and no effect runs for it when nothing inside the transaction
    /// re-validated a node that reads the atoms written (an effect that reads a derivation or an atom that the
    /// transaction's body itself read after writing it runs once afterwards, and sees the values from before).
    /// This covers every kind of state that is an atom: plain atoms, `@Atom` properties, declared state and a
    /// ``Store``'s state.
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
            closeTransaction(rollingBackTo: savepoint)
            endMarkedBatch(restoring: outer)
            throw error
        }
        closeTransaction(rollingBackTo: nil)
        endMarkedBatch(restoring: outer)
        return result
    }

    /// Opens a transaction in the batch the caller began: returns its savepoint, the journal's length.
    private func openTransaction() -> Int {
        transactionJournal.depth += 1
        if transactionJournal.depth == 1 { updateChangeHookCount() }
        return transactionJournal.changes.count
    }

    /// Closes the innermost transaction: rolls its changes back when `savepoint` is given, then, if it was the
    /// outermost, reports the journal's changes to the hooks (a rollback to the very start leaves none).
    private func closeTransaction(rollingBackTo savepoint: Int?) {
        if let savepoint {
            transactionJournal.isRollingBack = true
            // Newest first: an atom written twice gets the value before its first write last.
            while transactionJournal.changes.count > savepoint {
                let change = transactionJournal.changes.removeLast()
                change.atom.writeBack(change.oldValue)
            }
            transactionJournal.isRollingBack = false
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
