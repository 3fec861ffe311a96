import Foundation
@_spi(Inspector) public import Ripple

extension Runtime {
    /// Writes the inspector page of this runtime and `trace` to `url`: one self-contained HTML file (its script,
    /// style and data inlined; no network, no server) that any current browser opens offline.
    ///
    /// ```swift
    /// import Foundation
    /// import Ripple
    /// import RippleInspector
    ///
    /// let trace = CausalTrace()
    /// Runtime.current.startTracing(trace)
    /// let quantity = atom(4, label: "quantity")
    /// let total = derive(label: "total") { quantity.value * 2 }
    /// let display = Effect(label: "display") { print(total.value) }   // prints 8
    /// quantity.value = 5                                               // prints 10
    /// let url = FileManager.default.temporaryDirectory.appendingPathComponent("ripple-inspector.html")
    /// try Runtime.current.writeInspector(to: url, trace: trace)
    /// withExtendedLifetime(display) {}
    /// ```
    ///
    /// The page shows the dependency graph as a picture (nodes by kind with their live values; the edges the
    /// last write's causes travelled highlighted), the timeline of every write with its tree of causes, the
    /// change log, and a slider that shows every atom's value after each write (from the recorded writes). Open
    /// it at `#step=N` to start at the N-th write.
    ///
    /// - Parameters:
    ///   - url: a file URL; the file is written whole or not at all (atomically).
    ///   - trace: the trace installed with ``Runtime/startTracing(_:)-(CausalTrace)``; its events so far are
    ///     the timeline.
    /// - Throws: the error of encoding the session or of writing the file (then no file is left half-written).
    ///
    /// Threading: from any thread; the graph is taken in one hold, as ``Runtime/graphDescription()`` takes it.
    public func writeInspector(to url: URL, trace: CausalTrace) throws {
        try Data(inspectorPage(trace: trace).utf8).write(to: url, options: .atomic)
    }

    /// The inspector page of this runtime and `trace`, as HTML text: what ``writeInspector(to:trace:)`` writes.
    ///
    /// ```swift
    /// import Ripple
    /// import RippleInspector
    ///
    /// let trace = CausalTrace()
    /// Runtime.current.startTracing(trace)
    /// let count = atom(0, label: "count")
    /// count.value = 1
    /// print(try Runtime.current.inspectorPage(trace: trace).hasPrefix("<!DOCTYPE html>"))  // prints true
    /// ```
    ///
    /// - Parameter trace: the trace whose events the timeline shows.
    /// - Returns: the page, one HTML document.
    /// - Throws: the error of encoding the session (none for the strings, numbers and flags it holds).
    public func inspectorPage(trace: CausalTrace) throws -> String {
        let session = InspectorSession(graph: inspectorGraph(), events: trace.events)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]  // the same session, the same text
        let json = String(decoding: try encoder.encode(session), as: UTF8.self)
        // Inside <script>, "</" could end the element: JSON allows "<\/" for it.
        return InspectorPage.html(data: json.replacingOccurrences(of: "</", with: "<\\/"))
    }
}
