import Ripple
import RippleBenchC

/// Memory per node, from the process heap (malloc's bytes in use), for the
/// same structures as the C side's engine accounting.
public struct SwiftMemory: Sendable, Equatable {
    public var perAtom = 0.0, perDerivation = 0.0, perEffect = 0.0
    /// The heap blocks of one node object of each kind, and of a derivation's and an effect's body closure
    /// (`SwiftRuntimeFloor`): what is left of each kind's bytes is the engine's (its node, edge and reserve).
    public var atomObject = 0, derivationObject = 0, effectObject = 0
    public var derivationBody = 0, effectBody = 0
    public var gridPerNode = 0.0
    public var residentPerNode = 0.0 // process resident size, grid
    public var failures: [String] = []

    public init() {}
}

public enum RippleCreation {
    public static let defaultCount = CreationCheck.defaultCount
    public static let defaultSamples = CreationCheck.defaultSamples

    /// Creates `count` atoms, `count` derivations each reading one atom (lazy:
    /// created, not read) and `count` effects each reading one atom, then
    /// releases everything (effects, derivations, atoms).
    public static func run(count: Int = defaultCount, samples: Int = defaultSamples) -> CreationResult {
        CreationCheck.measure(count: count, samples: samples) { mark in
            let counter = Counter()
            withIsolatedRuntime(using: Runtime()) {
                CreationCheck.phases(
                    count: count, mark: mark, counter: counter, atom: { atom($0) },
                    derive: { source in derive { source.value } },
                    effect: { source, counter in Effect { _ = source.value; counter.count += 1 } })
            }
            mark()
            return counter.count
        }
    }

    static func heapInUse() -> Int { rb_heap_in_use() }

    static func residentBytes() -> Int { rb_resident_bytes() }

    /// Heap bytes (and resident bytes) per node of a width×height propagation
    /// grid, measured first while the heap has no free memory to reuse; then
    /// heap bytes per atom, per derivation (read once: with its edge) and per
    /// effect (with its edge), `count` of each.
    public static func memory(count: Int = 10_000, width: Int = 100, height: Int = 100) -> SwiftMemory {
        var memory = SwiftMemory()
        let gridRuntime = Runtime()
        withIsolatedRuntime(using: gridRuntime) {
            var nodes: [AnyObject] = []
            nodes.reserveCapacity(width * (height + 1) + 1)
            let r0 = residentBytes()
            let h0 = heapInUse()
            // `nodes` keeps the grid; the closures handed back are not needed.
            _ = RippleGrid.build(width: width, height: height, runtime: gridRuntime, nodes: &nodes)
            let nodeCount = 1 + width * (height + 1)
            memory.gridPerNode = Double(heapInUse() - h0) / Double(nodeCount)
            memory.residentPerNode = Double(residentBytes() - r0) / Double(nodeCount)
            releaseInReverse(&nodes)
        }
        let runtime = Runtime()
        withIsolatedRuntime(using: runtime) {
            var atoms: [AtomObject<Int>] = []
            var derivations: [Derivation<Int>] = []
            var effects: [Effect] = []
            atoms.reserveCapacity(count)
            derivations.reserveCapacity(count)
            effects.reserveCapacity(count)
            let h0 = heapInUse()
            for i in 0..<count { atoms.append(atom(i)) }
            let h1 = heapInUse()
            for i in 0..<count {
                let source = atoms[i]
                let derivation = derive { source.value }
                _ = derivation.value
                derivations.append(derivation)
            }
            let h2 = heapInUse()
            for i in 0..<count {
                let source = atoms[i]
                effects.append(Effect { _ = source.value })
            }
            let h3 = heapInUse()
            memory.perAtom = Double(h1 - h0) / Double(count)
            memory.perDerivation = Double(h2 - h1) / Double(count)
            memory.perEffect = Double(h3 - h2) / Double(count)
            // The blocks of the objects just counted (no other runtime's).
            let block = SwiftRuntimeFloor.blockBytes
            memory.atomObject = atoms.first.map(block) ?? 0
            memory.derivationObject = derivations.first.map(block) ?? 0
            memory.effectObject = effects.first.map(block) ?? 0
            effects = []
            derivations = []
            atoms = []
        }
        (memory.derivationBody, memory.effectBody) = SwiftRuntimeFloor.bodyBytes()
        return memory
    }
}
