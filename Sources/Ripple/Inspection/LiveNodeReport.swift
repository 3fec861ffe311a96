// The live-node report: which nodes a runtime still has, and where each was created, so that a test can assert
// that nothing leaked and say what did. Made from the same inspection as the graph description.

/// One live node of a runtime, as the live-node report shows it: its label, kind, creation site and value.
///
/// ```swift
/// let runtime = Runtime()
/// let count = withIsolatedRuntime(using: runtime) { atom(3, label: "count") }
/// let node = runtime.liveNodeReport()[0]
/// print(node.label, node.kind, node.valueDescription ?? "")   // count atom 3
/// print(node)           // atom "count" = 3 (created at MyAppTests/CartTests.swift:12)
/// withExtendedLifetime(count) {}
/// ```
///
/// Threading: a value, `Sendable`; it does not refer to the node, so holding it keeps nothing alive.
public struct LiveNode: Sendable, Equatable, CustomStringConvertible {
    /// The node's ``RippleNode/label``: the label given at creation, else `"<fileID>:<line>"` of its creation.
    ///
    /// ```swift
    /// #expect(runtime.liveNodeReport().map(\.label) == ["count", "total"])
    /// ```
    public let label: String

    /// What kind of node it is: `"atom"`, `"derivation"`, `"async derivation"` or `"effect"` for the nodes a
    /// program creates; `"values observer"` (the observer behind one iteration of a ``NodeValues`` sequence),
    /// `"publisher"` or `"subscriber"` (the nodes standing for a user-defined ``Publisher`` or ``Subscriber``) for
    /// the nodes Ripple makes for itself.
    ///
    /// ```swift
    /// let effects = runtime.liveNodeReport().filter { $0.kind == "effect" }
    /// ```
    public let kind: String

    /// Where the node was created, as `"<fileID>:<line>"`, or nil for a node Ripple made for itself (see
    /// ``kind``): the same as ``RippleNode/creationSite``.
    ///
    /// ```swift
    /// for node in runtime.liveNodeReport() { print(node.creationSite ?? "made by Ripple") }
    /// ```
    public let creationSite: String?

    /// The node's value as text, when it has one and its type is `CustomStringConvertible`: an atom's value, the
    /// value a derivation last computed (nil before its first computation; a derivation whose inputs changed
    /// since shows its previous value: inspection never brings it up to date), an async derivation's
    /// ``AsyncPhase``. Nil for effects and the nodes Ripple makes for itself.
    ///
    /// ```swift
    /// #expect(runtime.liveNodeReport().map(\.valueDescription) == ["3", nil])
    /// ```
    public let valueDescription: String?

    /// The node in one line: kind, quoted label, value, and where it was created when the label does not say it
    /// already, or "made by Ripple" for Ripple's own nodes.
    ///
    /// ```swift
    /// print(node)       // atom "count" = 3 (created at MyAppTests/CartTests.swift:12)
    /// ```
    public var description: String {
        var text = "\(kind) \(String(reflecting: label))"
        if let valueDescription { text += " = \(valueDescription)" }
        switch creationSite {
        case nil: text += " (made by Ripple)"
        case label?: break
        case let site?: text += " (created at \(site))"
        }
        return text
    }
}

/// The live nodes of a runtime, in creation order: what ``Runtime/liveNodeReport()`` returns, so that a test can
/// assert that nothing leaked and, when something did, print what.
///
/// A collection of ``LiveNode``s whose description lists them one per line.
///
/// ```swift
/// @Test func closingTheCartFreesItsNodes() {
///     let runtime = Runtime()
///     withIsolatedRuntime(using: runtime) {
///         let cart = Cart()
///         cart.close()
///     }
///     let report = runtime.liveNodeReport()
///     #expect(report.isEmpty, "\(report)")
///     // when it fails:
///     // 1 live node:
///     // - effect "autosave" (created at MyApp/Cart.swift:31)
/// }
/// ```
///
/// Threading: a value, `Sendable`. Lifetime: it keeps no node alive.
public struct LiveNodeReport: RandomAccessCollection, Sendable, Equatable, CustomStringConvertible {
    /// The nodes, in creation order.
    let nodes: [LiveNode]

    /// The position of the first node: 0.
    ///
    /// ```swift
    /// let first = report[report.startIndex]
    /// ```
    public var startIndex: Int { nodes.startIndex }

    /// One past the position of the last node: the number of nodes.
    ///
    /// ```swift
    /// let count = report.endIndex
    /// ```
    public var endIndex: Int { nodes.endIndex }

    /// The node at `position`, in creation order.
    ///
    /// ```swift
    /// #expect(report[0].label == "count")
    /// ```
    public subscript(position: Int) -> LiveNode { nodes[position] }

    /// "no live nodes", or how many there are followed by one line per node, in creation order.
    ///
    /// ```swift
    /// print(runtime.liveNodeReport())
    /// // 2 live nodes:
    /// // - atom "count" = 3 (created at MyAppTests/CartTests.swift:12)
    /// // - effect "logger" (created at MyAppTests/CartTests.swift:13)
    /// ```
    public var description: String {
        if nodes.isEmpty { return "no live nodes" }
        let heading = nodes.count == 1 ? "1 live node:" : "\(nodes.count) live nodes:"
        return ([heading] + nodes.map { "- \($0)" }).joined(separator: "\n")
    }
}

extension Runtime {
    /// Every live node of this runtime, in creation order, with its label, kind, creation site and value: what a
    /// test asserts is empty once everything it made should be gone.
    ///
    /// A node is live from its creation until its last reference goes (an effect until it is cancelled or its
    /// last reference goes). Something that keeps a node after the test (a stored reference, a retain cycle
    /// through an effect's body) shows up here with the place where it was created.
    ///
    /// ```swift
    /// @Test func theCartLeavesNothingBehind() {
    ///     let runtime = Runtime()
    ///     withIsolatedRuntime(using: runtime) {
    ///         let cart = Cart()
    ///         cart.add("tea")
    ///     }
    ///     let report = runtime.liveNodeReport()
    ///     #expect(report.isEmpty, "\(report)")
    /// }
    /// ```
    ///
    /// Ripple's own nodes are included, marked "made by Ripple" (nil ``LiveNode/creationSite``): the observer of
    /// a `values` iteration that has not ended, and the nodes standing for a user-defined ``Publisher`` that was
    /// never unregistered or a ``Subscriber`` still registered. Each of those is something left running or
    /// registered, which a leak check should see.
    ///
    /// Threading: from any thread; it holds the graph exclusively while it looks
    /// (like ``batch(_:)``, so other threads wait a moment). It reads no node through the graph: no dependency is
    /// recorded and no derivation is brought up to date. Lifetime: the report keeps no node alive.
    public func liveNodeReport() -> LiveNodeReport {
        LiveNodeReport(nodes: inspectGraph().nodes)
    }
}
