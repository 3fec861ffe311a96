// Snapshots: the values of every atom of a runtime, captured by reference (copy-on-write values are not copied),
// written back in one batch, compared atom by atom. Built on `Runtime.liveNodesWithHandles()` and on each atom's
// `captureValue()` / `restoreValue(_:)` (RippleNode overrides: the generic AtomObject boxes and unboxes its own
// value). A snapshot names atoms by their engine handle, whose generation tells a freed atom from a new one in
// its slot, so it keeps no atom alive.
internal import CRipple

/// An atom's captured value, type-erased. The box is made by the atom (`AtomObject.captureValue()`), which is
/// the only code that knows the value's type; it also carries the atom's equality, to compare two captures.
class CapturedValue {
    /// The value, as `Any`.
    var anyValue: Any { preconditionFailure("Ripple: internal error: CapturedValue is abstract.") }

    /// Whether `other` (a capture of the same atom) holds an equal value, by the atom's equality.
    func isEqual(to other: CapturedValue) -> Bool {
        preconditionFailure("Ripple: internal error: CapturedValue is abstract.")
    }
}

/// The box of an `AtomObject<Value>`'s value.
final class CapturedAtomValue<Value>: CapturedValue {
    let value: Value
    let equals: (Value, Value) -> Bool

    init(_ value: Value, equals: @escaping (Value, Value) -> Bool) {
        self.value = value
        self.equals = equals
    }

    override var anyValue: Any { value }

    override func isEqual(to other: CapturedValue) -> Bool {
        // Both boxes were made by the same atom (the caller matched their handles), so `other` holds a `Value`.
        equals(value, unsafeDowncast(other, to: CapturedAtomValue<Value>.self).value)
    }
}

/// The values of every atom of a runtime at one moment, to restore later or to compare with another snapshot.
///
/// Capture one with ``Runtime/snapshot()``, write it back with ``Runtime/restore(_:)``, compare two with
/// ``changes(since:)``. Capturing copies each value the way an assignment does: arrays, dictionaries, strings
/// and your own copy-on-write types share their storage with the atom until one side is mutated, so a snapshot of
/// 10,000 atoms costs about a box per atom, not a deep copy.
///
/// ```swift
/// let runtime = Runtime()
/// withIsolatedRuntime(using: runtime) {
///     let name = atom("Ada", label: "name")
///     let before = runtime.snapshot()
///     name.value = "Grace"
///     print(runtime.snapshot().changes(since: before).map(\.description))   // ["name: Ada → Grace"]
///     runtime.restore(before)
///     print(name.value)                                                       // "Ada"
/// }
/// ```
///
/// Atoms that opted out with ``AtomObject/isRestorable`` are not captured: they are listed in ``skipped``.
///
/// Threading: a snapshot is an immutable value; it is not `Sendable` (the values may not be), so use it on one
/// task at a time. Lifetime: it keeps its runtime alive, not its atoms.
public struct Snapshot {
    /// Names one atom of a snapshot: its label and creation site, and its identity (two records are equal when
    /// they name the same atom).
    ///
    /// ```swift
    /// let count = atom(0, label: "count")
    /// let snapshot = Runtime.current.snapshot()
    /// print(snapshot.entries.map(\.atom.label))     // ["count"]
    /// _ = count
    /// ```
    ///
    /// Threading and lifetime: an immutable value that keeps nothing alive.
    public struct AtomRecord: Hashable, Sendable, CustomStringConvertible {
        /// The atom's ``RippleNode/label``.
        ///
        /// ```swift
        /// let snapshot = Runtime.current.snapshot()
        /// print(snapshot.skipped.map(\.label))
        /// ```
        public var label: String { explicitLabel ?? "\(fileID):\(line)" }

        /// Where the atom was created: see ``RippleNode/creationSite``.
        ///
        /// ```swift
        /// let snapshot = Runtime.current.snapshot()
        /// print(snapshot.entries.compactMap(\.atom.creationSite))
        /// ```
        public var creationSite: String? { fileID.isEmpty ? nil : "\(fileID):\(line)" }

        /// The node's label parts, kept as they are (strings shared with the node): the texts are built only
        /// when asked for, so that a capture builds no string.
        let explicitLabel: String?
        let fileID: String
        let line: Int

        /// The engine's slot and generation of the atom: its identity within the runtime. With the graph's tag,
        /// they make the handle that finds the atom again, or reports it freed.
        let slot: UInt32
        let generation: UInt32
        let graphTag: UInt32

        /// `handle` is the one the engine listed the node with: `node.handle` may not be stored yet when another
        /// thread has just created the atom (`Runtime.liveNodesWithHandles()`).
        init(_ node: RippleNode, handle: rp_node_t) {
            explicitLabel = node.explicitLabel
            (fileID, line) = node.creationPlace
            slot = handle.slot
            generation = handle.generation
            graphTag = handle.graph_tag
        }

        /// The engine's handle of the atom.
        var handle: rp_node_t { rp_node_t(slot: slot, generation: generation, graph_tag: graphTag) }

        /// The label, as ``label``.
        ///
        /// ```swift
        /// let snapshot = Runtime.current.snapshot()
        /// print(snapshot.entries.map(\.atom.description))
        /// ```
        public var description: String { label }

        /// Two records are equal when they name the same atom, whatever their labels.
        ///
        /// ```swift
        /// let count = atom(0)
        /// let first = Runtime.current.snapshot(), second = Runtime.current.snapshot()
        /// assert(first.entries[0].atom == second.entries[0].atom)
        /// _ = count
        /// ```
        ///
        /// - Parameters:
        ///   - lhs: a record.
        ///   - rhs: another record.
        public static func == (lhs: AtomRecord, rhs: AtomRecord) -> Bool {
            lhs.slot == rhs.slot && lhs.generation == rhs.generation
        }

        /// Hashes the atom's identity.
        ///
        /// ```swift
        /// let snapshot = Runtime.current.snapshot()
        /// let atoms = Set(snapshot.entries.map(\.atom))
        /// _ = atoms
        /// ```
        ///
        /// - Parameter hasher: the hasher to feed.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(slot)
            hasher.combine(generation)
        }
    }

    /// One captured atom and its value.
    ///
    /// ```swift
    /// let count = atom(7, label: "count")
    /// let entry = Runtime.current.snapshot().entries[0]
    /// print(entry.atom.label, entry.value(as: Int.self) ?? 0)     // "count 7"
    /// _ = count
    /// ```
    ///
    /// Threading and lifetime: an immutable value; it keeps the captured value alive, not the atom.
    public struct Entry {
        /// The atom.
        ///
        /// ```swift
        /// let entry = Runtime.current.snapshot().entries.first
        /// print(entry?.atom.label ?? "no atoms")
        /// ```
        public let atom: AtomRecord

        /// The captured value, boxed by the atom.
        let captured: CapturedValue

        /// The captured value, type-erased.
        ///
        /// ```swift
        /// let entry = Runtime.current.snapshot().entries.first
        /// print(entry?.value ?? "no atoms")
        /// ```
        public var value: Any { captured.anyValue }

        /// The captured value as a `T`, or nil when the atom's value type is not `T`.
        ///
        /// ```swift
        /// let entry = Runtime.current.snapshot().entries.first
        /// print(entry?.value(as: Int.self) ?? 0)
        /// ```
        ///
        /// - Parameter type: the atom's value type.
        public func value<T>(as type: T.Type) -> T? { captured.anyValue as? T }
    }

    /// What differs for one atom between two snapshots: see ``Snapshot/changes(since:)``.
    ///
    /// ```swift
    /// let count = atom(1, label: "count")
    /// let before = Runtime.current.snapshot()
    /// count.value = 2
    /// let change = Runtime.current.snapshot().changes(since: before)[0]
    /// print(change)                       // "count: 1 → 2"
    /// ```
    ///
    /// Threading and lifetime: an immutable value; it keeps the values alive, not the atom.
    public struct Change: CustomStringConvertible {
        /// The atom.
        ///
        /// ```swift
        /// let before = Runtime.current.snapshot()
        /// print(Runtime.current.snapshot().changes(since: before).map(\.atom.label))
        /// ```
        public let atom: AtomRecord

        /// Its value in the earlier snapshot, or nil when the earlier snapshot did not capture it (created since,
        /// or not restorable then).
        ///
        /// ```swift
        /// let before = Runtime.current.snapshot()
        /// print(Runtime.current.snapshot().changes(since: before).map { $0.oldValue as Any })
        /// ```
        public let oldValue: Any?

        /// Its value in the later snapshot, or nil when the later snapshot did not capture it (freed since, or
        /// no longer restorable).
        ///
        /// ```swift
        /// let before = Runtime.current.snapshot()
        /// print(Runtime.current.snapshot().changes(since: before).map { $0.newValue as Any })
        /// ```
        public let newValue: Any?

        /// `"<label>: <old> → <new>"`, with "(none)" for a value a snapshot did not capture.
        ///
        /// ```swift
        /// let before = Runtime.current.snapshot()
        /// print(Runtime.current.snapshot().changes(since: before).map(\.description))
        /// ```
        public var description: String {
            func text(_ value: Any?) -> String { value.map { String(describing: $0) } ?? "(none)" }
            return "\(atom.label): \(text(oldValue)) → \(text(newValue))"
        }
    }

    /// Every captured atom with its value, in creation order.
    ///
    /// ```swift
    /// let a = atom(1, label: "a"), b = atom("x", label: "b")
    /// for entry in Runtime.current.snapshot().entries { print(entry.atom.label, entry.value) }  // a 1, b x
    /// _ = (a, b)
    /// ```
    public let entries: [Entry]

    /// The atoms left out because they opted out (``AtomObject/isRestorable`` false), in creation order.
    ///
    /// ```swift
    /// let token = atom("s3cr3t", label: "token")
    /// token.isRestorable = false
    /// print(Runtime.current.snapshot().skipped.map(\.label))       // ["token"]
    /// ```
    public let skipped: [AtomRecord]

    /// The runtime the atoms belong to.
    let runtime: Runtime

    /// The value `atom` had when the snapshot was captured, or nil when it was not captured (created later, not
    /// restorable, or of another runtime). Looks through ``entries``: linear in their number.
    ///
    /// ```swift
    /// let count = atom(1)
    /// let before = Runtime.current.snapshot()
    /// count.value = 2
    /// print(before.value(of: count) ?? 0)     // 1
    /// ```
    ///
    /// - Parameter atom: an atom of the snapshot's runtime.
    ///
    /// Threading: from any thread while you hold the atom (its handle is immutable).
    public func value<T>(of atom: AtomObject<T>) -> T? {
        guard atom.runtime === runtime else { return nil }
        let record = AtomRecord(atom, handle: atom.handle)  // the caller holds the atom: its handle is stored
        guard let entry = entries.first(where: { $0.atom == record }) else { return nil }
        return (entry.captured as? CapturedAtomValue<T>)?.value
    }

    /// The atoms whose values differ between `earlier` and this snapshot, in this snapshot's creation order,
    /// then those only `earlier` captured. Values are compared with each atom's own equality; an atom captured by
    /// only one of the two is a change with nil on the other side.
    ///
    /// ```swift
    /// let quantity = atom(4, label: "quantity"), price = atom(5, label: "price")
    /// let before = Runtime.current.snapshot()
    /// quantity.value = 5
    /// let after = Runtime.current.snapshot()
    /// print(after.changes(since: before).map(\.description))     // ["quantity: 4 → 5"]
    /// _ = price
    /// ```
    ///
    /// - Parameter earlier: a snapshot of the same runtime (of another runtime, every atom differs).
    /// - Returns: one ``Change`` per atom that differs.
    public func changes(since earlier: Snapshot) -> [Change] {
        var before: [AtomRecord: Entry] = [:]
        if earlier.runtime === runtime {
            before.reserveCapacity(earlier.entries.count)
            for entry in earlier.entries { before[entry.atom] = entry }
        }
        var changes: [Change] = []
        for entry in entries {
            if let old = before.removeValue(forKey: entry.atom) {
                if !entry.captured.isEqual(to: old.captured) {
                    changes.append(Change(atom: entry.atom, oldValue: old.value, newValue: entry.value))
                }
            } else {
                changes.append(Change(atom: entry.atom, oldValue: nil, newValue: entry.value))
            }
        }
        let onlyBefore = earlier.runtime === runtime ? earlier.entries.filter { before[$0.atom] != nil } : earlier.entries
        for entry in onlyBefore {
            changes.append(Change(atom: entry.atom, oldValue: entry.value, newValue: nil))
        }
        return changes
    }
}

/// What ``Runtime/restore(_:)`` did: how many atoms it wrote back and which ones it could not, because they were
/// freed after the capture.
///
/// ```swift
/// let runtime = Runtime()
/// let before = runtime.snapshot()
/// let report = runtime.restore(before)
/// print(report.restored, report.freed)        // 0 []
/// ```
///
/// Threading and lifetime: an immutable value.
public struct RestoreReport: Sendable {
    /// How many atoms were written back (a write of an equal value included: it does nothing).
    ///
    /// ```swift
    /// let report = Runtime.current.restore(Runtime.current.snapshot())
    /// print(report.restored)
    /// ```
    public let restored: Int

    /// The captured atoms that no longer exist, in creation order: skipped.
    ///
    /// ```swift
    /// let report = Runtime.current.restore(Runtime.current.snapshot())
    /// print(report.freed.map(\.label))            // []
    /// ```
    public let freed: [Snapshot.AtomRecord]
}

extension Runtime {
    /// Captures the value of every atom of this runtime (plain atoms and `@Atom` properties alike), in one
    /// atomic step.
    ///
    /// Each value is copied as an assignment copies it: copy-on-write storage is shared, not duplicated, so
    /// capturing is cheap (see the `snapshot` row of the benchmark). Atoms with ``AtomObject/isRestorable``
    /// false are not captured, only listed in ``Snapshot/skipped``. Derivations and effects are not captured:
    /// they follow from the atoms.
    ///
    /// ```swift
    /// let count = atom(1, label: "count")
    /// let snapshot = Runtime.current.snapshot()
    /// count.value = 2
    /// Runtime.current.restore(snapshot)
    /// print(count.value)                          // 1
    /// ```
    ///
    /// - Returns: the snapshot, whose entries are in the atoms' creation order.
    ///
    /// Threading: from any thread; it holds the graph while it captures, so the values are those between two
    /// writes (inside a batch or a body, the values written so far). Lifetime: the snapshot keeps this runtime
    /// alive, not the atoms.
    public func snapshot() -> Snapshot {
        batch {
            let nodes = liveNodesWithHandles()
            var entries: [Snapshot.Entry] = []
            entries.reserveCapacity(nodes.count)
            var skipped: [Snapshot.AtomRecord] = []
            for (node, handle) in nodes {
                if let captured = node.captureValue() {
                    entries.append(Snapshot.Entry(atom: Snapshot.AtomRecord(node, handle: handle), captured: captured))
                } else if node.isSkippedBySnapshots {
                    skipped.append(Snapshot.AtomRecord(node, handle: handle))
                }
            }
            return Snapshot(entries: entries, skipped: skipped, runtime: self)
        }
    }

    /// Writes every value of `snapshot` back into its atom, in one ``batch(_:)``: each effect that depends on the
    /// restored atoms runs once, after all of them are written, and each derivation recomputes at most once.
    ///
    /// An atom whose value equals the captured one is left alone, as for any write of an equal value. Atoms
    /// freed since the capture are skipped and listed in the report; atoms created since, and atoms the snapshot
    /// skipped, keep their values. Each write that changes a value is reported to the change hooks
    /// (``onChange(_:)``), so a log sees a restore as the writes it is.
    ///
    /// ```swift
    /// let count = atom(1)
    /// let runs = Effect { print("count is", count.value) }     // prints "count is 1"
    /// let snapshot = Runtime.current.snapshot()
    /// batch { count.value = 2; count.value = 3 }                // prints "count is 3"
    /// Runtime.current.restore(snapshot)                         // prints "count is 1", once
    /// _ = runs
    /// ```
    ///
    /// - Parameter snapshot: a snapshot of this runtime. A snapshot of another runtime is a programming error:
    ///   Ripple traps.
    /// - Returns: how many atoms were written back and which ones had been freed.
    ///
    /// Threading: from any thread; atomic, like a batch. Inside a batch, the effects run when the outermost batch
    /// ends.
    @discardableResult
    public func restore(_ snapshot: Snapshot) -> RestoreReport {
        precondition(
            snapshot.runtime === self,
            "Ripple: restore(_:) was given a snapshot of another runtime. A snapshot names atoms of the runtime it "
                + "was captured from: restore it with that runtime's restore(_:).")
        return batch {
            var restored = 0
            var freed: [Snapshot.AtomRecord] = []
            for entry in snapshot.entries {
                guard let node = retainedNode(entry.atom.handle) else {
                    freed.append(entry.atom)
                    continue
                }
                node.restoreValue(entry.captured)
                restored += 1
            }
            return RestoreReport(restored: restored, freed: freed)
        }
    }
}
