import Ripple
import RippleBenchC

/// What the Swift side of creation, teardown and memory costs before any of Ripple's code runs: the heap blocks of
/// the node objects and of the bodies' closures, allocated and freed by malloc and the Swift runtime. A node's
/// creation also makes its engine node (the C column's whole work) and its teardown disposes of it, so on a heap
/// both sides find warm, Swift ÷ C cannot fall below (C + this floor) ÷ C. (On a cold heap the C column, which runs
/// first, also pays the page faults of memory the process touches for the first time.)
///
/// The stand-ins are plain classes whose instances take the same heap block as `AtomObject<Int>`,
/// `Derivation<Int>` and `Effect` (`standInMismatches` checks it against the real objects), and closures of the
/// very type `derive(_:)` and `Effect.init(_:)` take, capturing what the creation benchmark's bodies capture: the
/// compiler allocates those contexts at the caller's site, whatever Ripple does.
public enum SwiftRuntimeFloor {
    /// The body type of `derive(_:)` and `Effect.init(_:)` (`@isolated(any)` keeps the isolation in the context).
    typealias Body<T> = @isolated(any) @Sendable () -> T

    /// Takes an `AtomObject<Int>`'s heap block: the header and 56 bytes.
    final class AtomStandIn: Sendable {
        let value: Int
        let words: (Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0)
        init(_ value: Int) { self.value = value }
    }

    /// Takes a `Derivation<Int>`'s heap block, its body included: the header, the body and 40 bytes.
    final class DerivationStandIn {
        let body: Body<Int>
        let words: (Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0)
        init(_ body: @escaping Body<Int>) { self.body = body }
    }

    /// Takes an `Effect`'s heap block, its body included: the header, the body and 24 bytes.
    final class EffectStandIn {
        let body: Body<Void>
        let words: (Int, Int, Int) = (0, 0, 0)
        init(_ body: @escaping Body<Void>) { self.body = body }
    }

    /// The phases of `RippleCreation.run` (`CreationCheck.phases`) with the stand-ins: the allocations and
    /// frees only. No body runs.
    public static func creation(
        count: Int = RippleCreation.defaultCount, samples: Int = RippleCreation.defaultSamples
    ) -> CreationResult {
        var result = CreationCheck.measure(count: count, samples: samples) { mark in
            CreationCheck.phases(
                count: count, mark: mark, counter: Counter(), atom: { AtomStandIn($0) },
                derive: { source in DerivationStandIn { source.value } },
                effect: { source, counter in EffectStandIn { _ = source.value; counter.count += 1 } })
            mark()
            return count  // no body runs: `measure` checks a count of effect runs
        }
        result.failures += standInMismatches()
        return result
    }

    /// The heap block of a derivation's and of an effect's body closure, as `RippleCreation.memory`'s bodies make
    /// them (each captures one atom).
    public static func bodyBytes() -> (derivation: Int, effect: Int) {
        let source = AtomStandIn(0)
        return (
            contextBytes(of: DerivationBody(body: { source.value })),
            contextBytes(of: EffectBody(body: { _ = source.value }))
        )
    }

    /// A derivation's body, stored as `Derivation` stores it: a field of its concrete type. (Handed to generic
    /// code as a value of its own, a closure would be wrapped in a new one of the generic shape.)
    struct DerivationBody { let body: Body<Int> }
    /// An effect's body, stored as `Effect` stores it.
    struct EffectBody { let body: Body<Void> }

    /// The heap block of the context of the closure that `holder` holds as its only field. A closure value is two
    /// words, its function and its context (the ABI of thick functions; `@isolated(any)` keeps its isolation in
    /// the context). Read from the closure rather than from malloc's count of bytes in use, which blocks freed
    /// just before and handed out again from its thread cache leave uncounted.
    static func contextBytes<Holder>(of holder: Holder) -> Int {
        precondition(MemoryLayout<Holder>.size == 2 * MemoryLayout<UnsafeRawPointer>.size, "one closure")
        let context = withUnsafeBytes(of: holder) {
            $0.load(fromByteOffset: MemoryLayout<UnsafeRawPointer>.size, as: UnsafeRawPointer?.self)
        }
        return context.map { rb_heap_block_bytes($0) } ?? 0
    }

    /// The heap block of one object, header included.
    static func blockBytes(_ object: AnyObject) -> Int {
        rb_heap_block_bytes(Unmanaged.passUnretained(object).toOpaque())
    }

    /// The heap blocks of an `AtomObject<Int>`, a `Derivation<Int>` and an `Effect`.
    public static func nodeObjectBytes() -> (atom: Int, derivation: Int, effect: Int) {
        withIsolatedRuntime(using: Runtime()) {
            let source = atom(0)
            let derivation = derive { source.value }
            let effect = Effect { _ = source.value }
            return (blockBytes(source), blockBytes(derivation), blockBytes(effect))
        }
    }

    /// One failure per stand-in whose heap block differs from its node object's: the floor would then not be the
    /// nodes' own.
    static func standInMismatches() -> [String] {
        let nodes = nodeObjectBytes()
        let body: Body<Void> = {}
        let standIns = (
            atom: blockBytes(AtomStandIn(0)), derivation: blockBytes(DerivationStandIn { 0 }),
            effect: blockBytes(EffectStandIn(body))
        )
        var failures: [String] = []
        for (kind, node, standIn) in [
            ("atom", nodes.atom, standIns.atom), ("derivation", nodes.derivation, standIns.derivation),
            ("effect", nodes.effect, standIns.effect),
        ] where node != standIn {
            failures.append("the \(kind)'s stand-in takes \(standIn) B, its node object \(node) B")
        }
        return failures
    }
}
