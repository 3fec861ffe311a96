import Testing

@testable import Ripple

private let count = declare.atom { 0 }
private let doubled = declare.derived { count.value * 2 }
private let greeting = declare.atom { "Hello" }
private let shout = declare.derived { greeting.value.uppercased() + String(repeating: "!", count: count.value) }
private let baseScore = declare.atom { 100 }
private let startsFromAnotherDeclaration = declare.atom { baseScore.value + 1 }
private let score = declare.atomFamily { (player: String) in player.count }
private let scoreTimesTen = declare.derivedFamily { (player: String) in score(player).value * 10 }

/// Declarations (one instance per runtime, created on first use), their reads inside derivations and effects,
/// families, and looking instances up without creating them.
@Suite struct DeclaredStateTests {
    @Test func anInstanceIsCreatedOnFirstUseFromTheDefault() {
        withIsolatedRuntime {
            #expect(count.existingNode == nil)
            #expect(Runtime.current.declaredInstanceCount == 0)
            let node = count.node
            #expect(node.value == 0)
            #expect(count.existingNode === node)
            #expect(Runtime.current.declaredInstanceCount == 1)
        }
    }

    @Test func everyRuntimeHasItsOwnInstance() {
        let first = Runtime()
        let second = Runtime()
        let a = withIsolatedRuntime(using: first) { count.node }
        let b = withIsolatedRuntime(using: second) { count.node }
        #expect(a !== b)
        a.value = 5
        #expect(withIsolatedRuntime(using: first) { count.value } == 5)
        #expect(withIsolatedRuntime(using: second) { count.value } == 0)
        #expect(a.runtime === first)
        #expect(b.runtime === second)
    }

    @Test func aDeclaredDerivationTracksDeclarationsAndNodes() {
        withIsolatedRuntime {
            let held = count.node
            let log = RunLog<Int>()
            let show = Effect { log.values.append(doubled.value) }
            held.value = 2
            count.value = 3
            #expect(log.values == [0, 4, 6])
            _ = show
        }
    }

    @Test func declarationsAndNodesMixInOneGraph() {
        withIsolatedRuntime {
            let suffix = atom("?")
            let mixed = derive { shout.value + suffix.value }
            let log = RunLog<String>()
            let show = Effect { log.values.append(mixed.value) }
            suffix.value = "."
            greeting.value = "Hi"
            count.value = 2
            #expect(log.values == ["HELLO?", "HELLO.", "HI.", "HI!!."])
            _ = show
        }
    }

    @Test func aDefaultMayReadAnotherDeclaration() {
        withIsolatedRuntime {
            #expect(startsFromAnotherDeclaration.value == 101)
        }
        withIsolatedRuntime(overriding: baseScore.overridden(with: 7)) {
            #expect(startsFromAnotherDeclaration.value == 8)
        }
    }

    @Test func aFamilyHasOneInstancePerKey() {
        withIsolatedRuntime {
            let ada = score("ada")
            let grace = score("grace")
            #expect(ada !== grace)
            #expect(score("ada") === ada)
            #expect(ada.value == 3)
            #expect(grace.value == 5)
            ada.value = 42
            #expect(score("ada").value == 42)
            #expect(score.instanceCount == 2)
            #expect(score.existingNode(for: "linus") == nil)
            #expect(score.instanceCount == 2)
        }
    }

    @Test func aDerivedFamilyMemberTracksItsKeyOnly() {
        withIsolatedRuntime {
            let log = RunLog<String>()
            let show = Effect { log.values.append("ada \(scoreTimesTen("ada").value)") }
            score("grace").value = 1  // another key: nothing runs
            score("ada").value = 4
            #expect(log.values == ["ada 30", "ada 40"])
            #expect(scoreTimesTen.instanceCount == 1)
            _ = show
        }
    }

    @Test func lookingUpDoesNotCreate() {
        withIsolatedRuntime {
            #expect(doubled.existingNode == nil)
            #expect(scoreTimesTen.existingNode(for: "ada") == nil)
            #expect(Runtime.current.declaredInstanceCount == 0)
            let held = scoreTimesTen("ada")
            #expect(held.value == 30)
            #expect(scoreTimesTen.existingNode(for: "ada") === held)
            #expect(Runtime.current.declaredInstanceCount == 2)  // the member and the score it read
        }
    }
}
