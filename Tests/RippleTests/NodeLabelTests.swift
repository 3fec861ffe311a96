import Testing
import Ripple

/// Every node has a label: the one given, else where it was created.
@Suite struct NodeLabelTests {
    @Test func givenLabelsAreKept() {
        withIsolatedRuntime {
            let a = atom(1, label: "count")
            let tolerant = atom(1.0, equals: { $0 == $1 }, label: "tolerant")
            let d = derive(label: "doubled") { a.value * 2 }
            let custom = derive(equals: { $0 == $1 }, label: "custom") { a.value }
            let e = Effect(label: "logger") { _ = d.value }
            #expect(a.label == "count")
            #expect(tolerant.label == "tolerant")
            #expect(d.label == "doubled")
            #expect(custom.label == "custom")
            #expect(e.label == "logger")
        }
    }

    @Test func defaultLabelsNameTheFileAndLine() {
        withIsolatedRuntime {
            let a = atom(1)
            let aLine = #line - 1
            let d = derive { a.value * 2 }
            let dLine = #line - 1
            let e = Effect { _ = d.value }
            let eLine = #line - 1
            #expect(a.label == "\(#fileID):\(aLine)")
            #expect(d.label == "\(#fileID):\(dLine)")
            #expect(e.label == "\(#fileID):\(eLine)")
            #expect(a.label.hasPrefix("RippleTests/NodeLabelTests.swift:"))
        }
    }

    @Test func wrapperLabelsNameTheFileAndLineOrTheGivenLabel() {
        withIsolatedRuntime {
            @Atom var count = 1
            let countLine = #line - 1
            @Derived var doubled = count * 2
            let doubledLine = #line - 1
            @Atom(label: "named") var named = 0
            #expect($count.label == "\(#fileID):\(countLine)")
            #expect($doubled.label == "\(#fileID):\(doubledLine)")
            #expect($named.label == "named")
            #expect(doubled == 2 && named == 0)
        }
    }

    /// The line shares a word with the node's traits: lines up to 268,435,455 are kept, larger ones clamped.
    @Test func aLineBeyondTheLimitIsClamped() {
        withIsolatedRuntime {
            let kept = atom(1, fileID: "App/Big.swift", line: 268_435_455)
            let clamped = derive(fileID: "App/Big.swift", line: 300_000_000) { kept.value }
            #expect(kept.creationSite == "App/Big.swift:268435455")
            #expect(clamped.creationSite == "App/Big.swift:268435455")
            #expect(clamped.value == 1)
        }
    }
}
