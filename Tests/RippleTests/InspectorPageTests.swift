import Foundation
import Ripple
import RippleInspector
import Testing

/// The inspector page: the session it inlines (nodes, edges, events with their causes), exact; text that could end
/// the page's script kept inside it; the file written whole. What the page's script shows of it is checked in a
/// browser by scripts/inspector-check.
@Suite struct InspectorPageTests {
    /// Where a node made on the caller's line was created.
    private func site(_ line: Int = #line) -> String { "RippleTests/InspectorPageTests.swift:\(line)" }

    /// The JSON between the page's session tag and the end of that script.
    private func session(in page: String) -> String? {
        guard let start = page.range(of: "<script id=\"session\" type=\"application/json\">"),
            let end = page.range(of: "</script>", range: start.upperBound..<page.endIndex)
        else { return nil }
        return String(page[start.upperBound..<end.lowerBound])
    }

    @Test func thePageInlinesTheGraphAndEveryEventWithItsCause() throws {
        try withIsolatedRuntime {
            let trace = CausalTrace()
            Runtime.current.startTracing(trace)
            let (count, countSite) = (atom(1, label: "count"), site())
            let (doubled, doubledSite) = (derive(label: "doubled") { count.value * 2 }, site())
            let (show, showSite) = (Effect(label: "show") { _ = doubled.value }, site())
            count.value = 2
            let page = try Runtime.current.inspectorPage(trace: trace)
            #expect(page.hasPrefix("<!DOCTYPE html>\n<html lang=\"en\">"))
            #expect(!page.contains("http://") && !page.contains("https://"))  // nothing fetched
            let nodes = """
                {"kind":"atom","label":"count","site":"\(countSite)","value":"2"},\
                {"kind":"derivation","label":"doubled","site":"\(doubledSite)","value":"4"},\
                {"kind":"effect","label":"show","site":"\(showSite)"}
                """
            let events = """
                {"changed":true,"kind":"run","label":"show","line":"show ran","node":2,"parent":-1},\
                {"changed":true,"kind":"recompute","label":"doubled","line":"doubled computed → 2","node":1,\
                "parent":0,"value":"2"},\
                {"changed":true,"kind":"write","label":"count","line":"write count 1 → 2","node":0,"parent":-1,\
                "previous":"1","value":"2"},\
                {"changed":true,"kind":"commit","label":"count","line":"commit count → 2","node":0,\
                "parent":2,"value":"2"},\
                {"changed":true,"kind":"recompute","label":"doubled","line":"doubled recomputed: count changed → 4",\
                "node":1,"parent":2,"value":"4"},\
                {"changed":true,"kind":"run","label":"show","line":"show ran: doubled changed","node":2,"parent":4}
                """
            #expect(session(in: page) == #"{"edges":[[0,1],[1,2]],"events":["# + events + #"],"nodes":["# + nodes + "]}")
            _ = show
        }
    }

    @Test func textThatWouldEndTheScriptStaysInsideIt() throws {
        try withIsolatedRuntime {
            let trace = CausalTrace()
            let name = atom("</script><b>", label: "</script>")
            let page = try Runtime.current.inspectorPage(trace: trace)
            #expect(session(in: page)?.contains(#""label":"<\/script>""#) == true)
            #expect(session(in: page)?.contains(#""value":"<\/script><b>""#) == true)
            _ = name
        }
    }

    @Test func writeInspectorWritesThePageWhole() throws {
        try withIsolatedRuntime {
            let trace = CausalTrace()
            Runtime.current.startTracing(trace)
            let count = atom(1, label: "count")
            count.value = 2
            let url = FileManager.default.temporaryDirectory
                .appendingPathComponent("ripple-inspector-\(UUID().uuidString).html")
            defer { try? FileManager.default.removeItem(at: url) }
            try Runtime.current.writeInspector(to: url, trace: trace)
            #expect(try String(contentsOf: url, encoding: .utf8) == Runtime.current.inspectorPage(trace: trace))
        }
    }
}
