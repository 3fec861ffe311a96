import Dispatch
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

    /// The place is kept once per file and line (`CreationSites`), whole: a line beyond what a word's bits held
    /// before (268,435,455) is kept as it is.
    @Test func largeLinesAreKeptWhole() {
        withIsolatedRuntime {
            let kept = atom(1, fileID: "App/Big.swift", line: 268_435_455)
            let larger = derive(fileID: "App/Big.swift", line: 300_000_000) { kept.value }
            #expect(kept.creationSite == "App/Big.swift:268435455")
            #expect(larger.creationSite == "App/Big.swift:300000000")
            #expect(larger.label == "App/Big.swift:300000000")
            #expect(larger.value == 1)
        }
    }

    /// Nodes created at many places, in turns and from several threads at once, each name their own place; a
    /// file given as a string built at run time is the same place as the literal.
    @Test func manyPlacesFromSeveralThreadsEachKeepTheirOwn() {
        let runtime = Runtime()
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            withIsolatedRuntime(using: runtime) {
                for round in 0..<200 {
                    let line = 1 + round % 50
                    let file = "App/Thread\(thread).swift"
                    let a = atom(round, fileID: file, line: line)
                    let d = derive(fileID: "App/Shared.swift", line: line) { a.value }
                    let e = Effect(fileID: file, line: line + 1_000) { _ = d.value }
                    #expect(a.creationSite == "\(file):\(line)")
                    #expect(d.label == "App/Shared.swift:\(line)")
                    #expect(e.creationSite == "\(file):\(line + 1_000)")
                }
            }
        }
        withIsolatedRuntime(using: runtime) {
            let built = ["App", "Built.swift"].joined(separator: "/")
            let first = atom(0, fileID: "App/Built.swift", line: 7)
            let second = atom(0, fileID: built, line: 7)
            #expect(first.label == "App/Built.swift:7")
            #expect(second.label == "App/Built.swift:7")
        }
    }
}
