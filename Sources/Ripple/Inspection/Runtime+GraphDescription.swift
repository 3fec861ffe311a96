// The dependency graph as Graphviz DOT: every live node (or one node and its connections) with its label, kind
// and value, and an edge from each node to each of its readers, in read order. Made from `inspectGraph()`.

extension Runtime {
    /// The dependency graph of every live node of this runtime, in Graphviz DOT: render it with
    /// `dot -Tsvg graph.dot -o graph.svg`, or paste it into any Graphviz viewer.
    ///
    /// ```swift
    /// let runtime = Runtime()
    /// withIsolatedRuntime(using: runtime) {
    ///     let price = atom(4, label: "price")
    ///     let total = derive(label: "total") { price.value * 2 }
    ///     let display = Effect(label: "display") { print(total.value) }
    ///     print(runtime.graphDescription())
    ///     withExtendedLifetime(display) {}
    /// }
    /// ```
    /// prints
    /// ```
    /// digraph ripple {
    ///     // an edge points from a node to a node that read it; a reader's edges are in the order it read them
    ///     rankdir=LR;
    ///     node [fontname="Helvetica", fontsize=11];
    ///     n0 [label="price\natom = 4", shape=ellipse];
    ///     n1 [label="total\nderivation = 8", shape=box];
    ///     n2 [label="display\neffect", shape=hexagon];
    ///     n0 -> n1;
    ///     n1 -> n2;
    /// }
    /// ```
    ///
    /// - **Nodes**, in creation order, named `n0`, `n1`, ... in that order, so the same program gives the same
    ///   text. Each is labelled with its ``RippleNode/label`` and, on a second line, its kind and its value when
    ///   it has one and the type is `CustomStringConvertible` (cut to 60 characters, ending with "…"). The value is
    ///   the stored one: an atom's value, the value a derivation last computed (none before its first
    ///   computation), an async derivation's ``AsyncPhase``.
    /// - **Shapes**: atoms are ellipses, derivations boxes, async derivations double boxes, effects hexagons.
    ///   Ripple's own nodes are drawn dashed: a `values` observer and a registered ``Subscriber`` as dashed
    ///   hexagons, a user ``Publisher`` as a dashed ellipse. They are shown, not hidden, because they are live
    ///   and read or are read like any other node (the same rule as ``liveNodeReport()``).
    /// - **Edges** point the way changes flow: from a node to each node that read it in its last run (so atoms
    ///   are on the left, effects on the right). The edges into one reader are listed in the order it read
    ///   its dependencies; a read made inside ``untracked(_:)`` is no edge.
    ///
    /// Threading: from any thread. Everything is taken in one exclusive hold of the graph (as ``batch(_:)``
    /// holds it), so the text is one consistent moment: other threads wait meanwhile. It reads no node through the
    /// graph: it records no dependency and brings no derivation up to date, so describing a graph never runs
    /// anything. Lifetime: it keeps no node alive; a node whose last reference is going is left out.
    public func graphDescription() -> String {
        let inspected = inspectGraph()
        return inspected.dot(showing: Array(inspected.nodes.indices))
    }
}

extension RippleNode {
    /// This node, everything it reads directly or not (upstream) and everything that reads it directly or not
    /// (downstream), in Graphviz DOT, in the format of ``Runtime/graphDescription()``, with this node drawn bold.
    ///
    /// ```swift
    /// let price = atom(4, label: "price")
    /// let tax = atom(1, label: "tax")
    /// let total = derive(label: "total") { price.value * 2 }
    /// let display = Effect(label: "display") { print(total.value) }
    /// print(total.graphDescription())   // price, total (bold) and display; not tax, which nothing here reads
    /// ```
    ///
    /// Nodes are numbered `n0`, `n1`, ... in creation order among those shown; an edge is drawn between any two
    /// of them when one read the other. A node that has left the graph (a cancelled ``Effect``) gives a graph
    /// with no nodes.
    ///
    /// Threading and lifetime: as for ``Runtime/graphDescription()``.
    public func graphDescription() -> String {
        let inspected = runtime.inspectGraph(focusingOn: self)
        return inspected.dot(showing: inspected.focusAndItsConnections())
    }
}

extension InspectedGraph {
    /// A value longer than this is cut, so that one large value does not swamp the picture.
    static let maximumValueLength = 60

    /// The DOT text of the nodes at `shown` (positions in creation order) and the edges between them.
    func dot(showing shown: [Int]) -> String {
        var identifiers: [Int: String] = [:]
        for (number, position) in shown.enumerated() { identifiers[position] = "n\(number)" }
        var lines = [
            "digraph ripple {",
            "    // an edge points from a node to a node that read it; a reader's edges are in the order it read them",
            "    rankdir=LR;",
            "    node [fontname=\"Helvetica\", fontsize=11];",
        ]
        for position in shown {
            let node = nodes[position]
            var attributes = "label=\(Self.quoted(Self.caption(of: node))), \(Self.shape(of: node.kind))"
            if position == focus { attributes += ", penwidth=2.5" }
            lines.append("    \(identifiers[position]!) [\(attributes)];")
        }
        for reader in shown {
            for dependency in dependencies[reader] {
                guard let from = identifiers[dependency] else { continue }
                lines.append("    \(from) -> \(identifiers[reader]!);")
            }
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The label, then the kind and the value (cut), on two lines.
    static func caption(of node: LiveNode) -> String {
        guard let value = node.valueDescription else { return "\(node.label)\n\(node.kind)" }
        let shown = value.count > maximumValueLength ? value.prefix(maximumValueLength - 1) + "…" : value[...]
        return "\(node.label)\n\(node.kind) = \(shown)"
    }

    /// The Graphviz attributes that mark a kind. Ripple's own nodes are dashed; a kind this does not know (one
    /// added later) is drawn as a plain box rather than refused.
    static func shape(of kind: String) -> String {
        switch kind {
        case "atom": "shape=ellipse"
        case "publisher": "shape=ellipse, style=dashed"
        case "derivation": "shape=box"
        case "async derivation": "shape=box, peripheries=2"
        case "effect": "shape=hexagon"
        case "values observer", "subscriber": "shape=hexagon, style=dashed"
        default: "shape=box, style=dotted"
        }
    }

    /// `text` as a DOT string: in quotes, with quotes and backslashes escaped (a backslash would otherwise start
    /// a Graphviz escape such as `\N`) and each line break as DOT's `\n`.
    static func quoted(_ text: String) -> String {
        var result = "\""
        for character in text {
            switch character {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n", "\r\n", "\r": result += "\\n"
            default: result.append(character)
            }
        }
        return result + "\""
    }
}
