import Testing
@testable import Ripple

/// A node's rare settings (a label, an isolation, a declaration's record, a write observer, cleanups) live in
/// `NodeExtrasTable` by the node's address, from its creation (or the first such setting) to its deinit, which
/// takes them out before the address can be reused.
@Suite struct NodeExtrasTests {
    /// The extras of a node while it lives, and whether the table still has them once it is gone. The extras are
    /// held meanwhile, so that no other object takes their address: an entry found at the node's address after the
    /// deinit is either none or another node's.
    static func extrasOutliveTheirEntry(_ make: () -> RippleNode) -> (had: Bool, keptAfterDeinit: Bool) {
        var node: RippleNode? = make()
        let key = ObjectIdentifier(node!)
        let held = NodeExtrasTable.entry(at: key)
        node = nil
        let after = NodeExtrasTable.entry(at: key)
        return (held != nil, held != nil && after === held)
    }

    @Test func aLabeledNodesExtrasLeaveTheTableWithIt() {
        withIsolatedRuntime {
            let source = atom(1)
            for make in [
                { atom(1, label: "atom") as RippleNode },
                { derive(label: "derivation") { source.value } },
                { Effect(label: "effect") { _ = source.value } },
            ] as [() -> RippleNode] {
                let outcome = Self.extrasOutliveTheirEntry(make)
                #expect(outcome.had)
                #expect(!outcome.keptAfterDeinit)
            }
        }
    }

    @Test func cleanupsGiveANodeExtrasThatLeaveTheTableWithIt() {
        withIsolatedRuntime {
            let source = atom(1)
            let log = RunLog<String>()
            let effectOutcome = Self.extrasOutliveTheirEntry {
                Effect {
                    let value = source.value
                    onCleanup { log.values.append("effect \(value)") }
                }
            }
            let derivationOutcome = Self.extrasOutliveTheirEntry {
                let derivation = derive {
                    let value = source.value
                    onCleanup { log.values.append("derivation \(value)") }
                    return value
                }
                _ = derivation.value
                return derivation
            }
            #expect(effectOutcome.had && !effectOutcome.keptAfterDeinit)
            #expect(derivationOutcome.had && !derivationOutcome.keptAfterDeinit)
            #expect(log.values == ["effect 1", "derivation 1"])
        }
    }

    @Test func aNodeWithoutRareSettingsHasNoEntry() {
        withIsolatedRuntime {
            let source = atom(1)
            let derivation = derive { source.value }
            let effect = Effect { _ = derivation.value }
            for node in [source, derivation, effect] as [RippleNode] {
                #expect(NodeExtrasTable.entry(at: ObjectIdentifier(node)) == nil)
            }
        }
    }
}
