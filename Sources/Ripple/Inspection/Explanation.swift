/// Why a node did or did not run or recompute after the writes a ``CausalTrace`` recorded: what
/// ``Runtime/explain(_:since:)`` answers.
///
/// ```swift
/// let quantity = atom(4, label: "quantity")
/// let price = atom(4, label: "price")
/// let display = Effect(label: "display") { print(price.value) }
/// let trace = CausalTrace()
/// Runtime.current.startTracing(trace)
/// quantity.value = 5
/// print(Runtime.current.explain(display, since: trace))
/// // display (MyApp/Cart.swift:3) did not run: it does not depend on what was written (quantity …); it reads price …
/// ```
///
/// Threading: a plain value, `Sendable`.
public struct Explanation: Sendable, Equatable, CustomStringConvertible {
    /// The reason, with the nodes involved, each named by its label and where it was created.
    ///
    /// More reasons may be added: a `switch` over it needs a `default`.
    public enum Reason: Sendable, Equatable {
        /// It did run or recompute: `cause` is the line ``CausalTrace/render()`` shows for its last run.
        case ran(cause: String)
        /// Nothing was written since the trace started.
        case nothingWritten
        /// The writes are inside a batch that has not ended: nothing they cause runs before the outermost batch
        /// ends. `writes` names the atoms written and not yet committed.
        case batchNotEnded(writes: [String])
        /// The effect was cancelled (by ``Effect/cancel()`` or because its last reference went).
        case cancelled
        /// None of the written atoms is upstream of the node; `reads` names what it read in its last run.
        case independent(written: [String], reads: [String])
        /// An atom was written back to the value its readers saw: no change.
        case writtenBack(atom: String, value: String)
        /// The writes upstream were made in a ``Runtime/transaction(_:)`` that threw: it rolled them back, and
        /// their readers saw no change. `writes` names the atoms rolled back.
        case rolledBack(writes: [String])
        /// An equality cut-off upstream stopped the change: `node` recomputed to a value equal to its value before.
        case equalityCutOff(node: String, oldValue: String, newValue: String)
        /// A derivation no effect observes (directly or not): it is lazy, and recomputes on its next read.
        case unobserved
        /// An effect bound to a scheduler: its run is pending on that scheduler.
        case pendingOnScheduler
        /// A run of an async derivation started for one write was superseded by its run for a later write
        /// before it delivered.
        case superseded(by: String)
        /// Nothing recorded explains it (a node created after the writes, a tracer started late).
        case unknown
    }

    /// The node asked about, named by its label and where it was created.
    public let node: String
    /// Why.
    public let reason: Reason

    /// One line: the node, then the reason.
    public var description: String {
        switch reason {
        case .ran(let cause):
            return "\(node) ran; the trace shows: \(cause)"
        case .nothingWritten:
            return "\(node) did not run: nothing was written since the trace started"
        case .batchNotEnded(let writes):
            return "\(node) did not run yet: the writes of \(writes.joined(separator: ", ")) are inside a batch that "
                + "has not ended; what they cause runs when the outermost batch ends"
        case .cancelled:
            return "\(node) did not run: it was cancelled (by cancel() or because its last reference went)"
        case .independent(let written, let reads):
            let read = reads.isEmpty ? "it read nothing in its last run" : "it reads " + reads.joined(separator: ", ")
            return "\(node) did not run: it does not depend on what was written (\(written.joined(separator: ", "))); "
                + "\(read) (a read inside untracked { } or of a captured value is no dependency)"
        case .writtenBack(let atom, let value):
            return "\(node) did not run: \(atom) was written back to \(value), the value its readers saw: no change"
        case .rolledBack(let writes):
            return "\(node) did not run: the writes of \(writes.joined(separator: ", ")) were rolled back by a "
                + "transaction that threw: its readers saw no change"
        case .equalityCutOff(let cut, let oldValue, let newValue):
            return "\(node) did not run: an equality cut-off at \(cut) stopped the change "
                + "(\(oldValue) → \(newValue), equal)"
        case .unobserved:
            return "\(node) did not recompute: no effect observes it, so it is lazy and recomputes on its next read"
        case .pendingOnScheduler:
            return "\(node) did not run yet: it is bound to a scheduler, and its run is pending there"
        case .superseded(let write):
            return "\(node) did not deliver: its run was superseded by the run for \(write)"
        case .unknown:
            return "\(node) did not run, and nothing the trace recorded explains it"
        }
    }
}
