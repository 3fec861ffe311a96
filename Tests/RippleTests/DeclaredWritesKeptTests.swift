import Testing

@testable import Ripple

// The README's "Declared state" section, as written there: its types and declarations, and its first test.
private struct Todo: Equatable, Sendable {
    var text: String
    var isCompleted: Bool

    init(_ text: String, isCompleted: Bool = false) {
        self.text = text
        self.isCompleted = isCompleted
    }
}

private enum Filter: Sendable {
    case all, completed, active

    func includes(_ todo: Todo) -> Bool {
        switch self {
        case .all: true
        case .completed: todo.isCompleted
        case .active: !todo.isCompleted
        }
    }
}

private let todos = declare.atom { [Todo]() }
private let filter = declare.atom { Filter.all }
private let filteredTodos = declare.derived { todos.value.filter(filter.value.includes) }

@Test func filters() {
    withIsolatedRuntime {
        let list = todos.node                      // holds this runtime's instance
        list.value = [Todo("Milk"), Todo("Tests", isCompleted: true)]
        filter.value = .completed
        #expect(filteredTodos.value.map(\.text) == ["Tests"])
    }
}

private let writes = Recorder<String>()
private let count = declare.atom(lifecycle: Lifecycle(released: { writes.append("count released") })) { 0 }
private let kept = declare.atom(keepAlive: true) { 0 }
private let draft = declare.atomFamily(lifecycle: { (post: Int) in
    Lifecycle(released: { writes.append("draft(\(post)) released") })
}) { (post: Int) in "" }
private let recent = declare.atomFamily(
    label: "recent", evicting: .keepingAtMost(2),
    lifecycle: { (post: Int) in Lifecycle(released: { writes.append("recent(\(post)) released") }) }
) { (post: Int) in "" }

/// A write to a declared atom is never lost: a written instance keeps its value until it is reset, overridden or
/// its runtime ends (a family member: until removed, reset, overridden or evicted by its family's policy), whether
/// or not anything holds or reads it. Unwritten instances and derivations are still released when unused.
@Suite(.serialized) struct DeclaredWritesKeptTests {
    init() {
        writes.removeAll()
    }

    @Test func aWrittenInstanceNobodyHoldsKeepsItsValue() {
        withIsolatedRuntime {
            count.value = 5
            #expect(count.existingNode?.value == 5)
            #expect(count.value == 5)
            #expect(Runtime.current.declaredInstanceCount == 1)
            #expect(writes.values == [])
        }
        #expect(writes.values == ["count released"])  // the runtime ended
    }

    @Test func everyWayOfWritingKeepsTheInstance() {
        withIsolatedRuntime {
            count.node.value = 1
            #expect(count.value == 1)
            count.reset()
            count.update { $0 += 2 }
            #expect(count.value == 2)
            count.reset()
            Runtime.current.batch { count.value = 3 }
            #expect(count.value == 3)
            count.reset()
            count.node.set(4)
            #expect(count.value == 4)
            #expect(writes.values == ["count released", "count released", "count released"])
        }
    }

    @Test func anUnwrittenInstanceIsStillReleasedWhenUnused() {
        withIsolatedRuntime {
            #expect(count.value == 0)
            #expect(count.existingNode == nil)
            count.value = 0  // equal to the default: no write
            #expect(count.existingNode == nil)
            #expect(writes.values == ["count released", "count released"])
        }
    }

    @Test func aResetInstanceIsReleasedOnceUnusedAndAWriteKeepsItAgain() {
        withIsolatedRuntime {
            count.value = 5
            count.reset()
            #expect(writes.values == ["count released"])
            #expect(count.existingNode == nil)
            count.value = 6
            #expect(count.existingNode?.value == 6)
        }
    }

    @Test func anOverrideWritesTheDefaultAndTheInstanceIsReleasedOnceUnused() {
        withIsolatedRuntime {
            count.value = 5
            Runtime.current.override(count.overridden(with: 10))
            #expect(writes.values == ["count released"])
            #expect(count.existingNode == nil)
            #expect(count.value == 10)
        }
    }

    @Test func aKeepAliveInstanceStaysAfterItsReset() {
        withIsolatedRuntime {
            kept.value = 5
            kept.reset()
            #expect(kept.existingNode?.value == 0)
        }
    }

    @Test func aWrittenFamilyMemberStaysUntilRemoved() {
        withIsolatedRuntime {
            draft(1).value = "Hello"
            draft(2).value = "World"
            _ = draft(3).value  // read, not written: released at once
            #expect(draft.instanceCount == 2)
            #expect(draft(1).value == "Hello")
            draft.remove(1)
            #expect(writes.values == ["draft(3) released", "draft(1) released"])
            #expect(draft.instanceCount == 1)
            #expect(draft(1).value == "")
            draft.reset(2)
            #expect(draft.instanceCount == 0)
            #expect(
                writes.values == ["draft(3) released", "draft(1) released", "draft(1) released", "draft(2) released"])
        }
    }

    @Test func aRemovedMemberInUseKeepsItsValueUntilThatUseEnds() {
        withIsolatedRuntime {
            var held: AtomObject<String>? = draft(1)
            draft(1).value = "Hello"
            draft.remove(1)
            #expect(writes.values == [])
            #expect(draft(1).value == "Hello")
            held = nil
            #expect(writes.values == ["draft(1) released"])
            #expect(draft(1).value == "")
            withExtendedLifetime(held) {}
        }
    }

    @Test func aBoundedFamilyEvictsItsOldestWrittenMemberAndReportsIt() {
        withIsolatedRuntime {
            let runtime = Runtime.current
            recent(1).value = "one"
            recent(2).value = "two"
            #expect(runtime.liveNodeReport().map(\.label) == ["recent(1)", "recent(2)"])
            recent(3).value = "three"
            #expect(writes.values == ["recent(1) released"])
            #expect(runtime.liveNodeReport().map(\.label) == ["recent(2)", "recent(3)"])
            #expect(recent.instanceCount == 2)
            #expect(recent(2).value == "two")
            #expect(recent(3).value == "three")
            #expect(recent(1).value == "")
            #expect(writes.values == ["recent(1) released", "recent(1) released"])
        }
    }

    @Test func anEvictedMemberInUseKeepsItsValueUntilThatUseEnds() {
        withIsolatedRuntime {
            var held: AtomObject<String>? = recent(1)
            recent(1).value = "one"
            recent(2).value = "two"
            recent(3).value = "three"  // gives up recent(1), which `held` still holds
            #expect(writes.values == [])
            #expect(recent(1).value == "one")
            held = nil
            #expect(writes.values == ["recent(1) released"])
            #expect(recent.instanceCount == 2)
            withExtendedLifetime(held) {}
        }
    }
}
