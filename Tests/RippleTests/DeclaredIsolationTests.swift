import Testing

@testable import Ripple

private let sharedCounter = declare.atom { 0 }
private let sharedCounterLabel = declare.derived { "count \(sharedCounter.value)" }
private let sharedTags = declare.atomFamily { (id: Int) in [String]() }
private let sharedKept = declare.atom(keepAlive: true) { [Int]() }

/// The same global declarations used by many tests at once, each in its own runtime, each seeing only its own
/// state: what `withIsolatedRuntime` gives every test without passing anything around.
@Suite struct DeclaredIsolationTests {
    @Test(arguments: 0..<32)
    func eachTestSeesOnlyItsOwnInstances(test: Int) async throws {
        try await withIsolatedRuntime { () async throws in
            let counter = sharedCounter.node
            let tags = sharedTags(1)
            #expect(counter.value == 0)
            #expect(tags.value == [])
            #expect(sharedKept.value == [])
            for step in 1...20 {
                counter.value = test * 1_000 + step
                tags.value.append("\(test)-\(step)")
                sharedKept.value.append(test)
                await Task.yield()  // let the other tests interleave
                #expect(sharedCounterLabel.value == "count \(test * 1_000 + step)")
            }
            #expect(tags.value.count == 20)
            #expect(tags.value.allSatisfy { $0.hasPrefix("\(test)-") })
            #expect(sharedKept.value == Array(repeating: test, count: 20))
            #expect(Runtime.current.declaredInstanceCount == 3)
        }
    }

    @Test func theSharedRuntimeIsUntouchedByIsolatedTests() {
        withIsolatedRuntime {
            sharedKept.value = [1]
        }
        #expect(withIsolatedRuntime(using: Runtime.shared) { sharedKept.existingNode } == nil)
    }
}
