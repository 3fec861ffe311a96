#if canImport(Observation)
import Observation

/// The shapes Observation can express, through the driver in
/// ObservationDriver.swift: the Kairo shapes, cellx, the propagation grid, the
/// chain, and creation. Not the dynamic graphs: they measure laziness (their
/// counts are computes of values someone reads), and Observation has no lazy
/// derived values.
struct ObservationWorld {
    let scheduler = ObservationScheduler()

    func atom(_ value: Int) -> IntCell {
        IntCell(value)
    }

    func derive(_ compute: @escaping () -> Int) -> ObservedDerivation<IntCell> {
        ObservedDerivation(scheduler: scheduler, equals: ==, compute)
    }

    /// A derivation with no equality: every recompute is a change (K5's mux).
    func deriveArray(_ compute: @escaping () -> [Int]) -> ObservedDerivation<IntArrayCell> {
        ObservedDerivation(scheduler: scheduler, equals: { _, _ in false }, compute)
    }

    func effect(_ body: @escaping () -> Void) -> ObservationObserver {
        ObservationObserver(scheduler: scheduler, body: body)
    }

    /// A write that skips equal values, as Ripple's atoms do.
    func write(_ cell: IntCell, _ value: Int) {
        if cell.value != value { cell.value = value }
    }

    func batch(_ body: () -> Void) {
        scheduler.batch(body)
    }
}

public enum ObservationKairo {
    public static func run(
        _ shape: KairoShape,
        samples: Int = KairoShape.defaultSamples,
        calls: Int = KairoShape.defaultCalls
    ) -> ShapeResult {
        let verifier = Verifier()
        let instance = build(shape, verifier: verifier)
        return measureKairo(instance, verifier: verifier, samples: samples, calls: calls)
    }

    static func build(_ shape: KairoShape, verifier: Verifier) -> KairoInstance {
        let world = ObservationWorld()
        let instance = KairoInstance()
        let counter = instance.counter
        let head = world.atom(0)
        var checked: ObservedDerivation<IntCell>?
        switch shape {
        case .deep:
            var current = world.derive { head.value + 1 }
            for _ in 1..<50 {
                let previous = current
                current = world.derive { previous.value + 1 }
            }
            let last = current
            instance.nodes.append(world.effect { _ = last.value; counter.count += 1 })
            checked = last
        case .broad:
            for i in 0..<50 {
                let c1 = world.derive { head.value + i }
                let c2 = world.derive { c1.value + 1 }
                instance.nodes.append(world.effect { _ = c2.value; counter.count += 1 })
                checked = c2
            }
        case .diamond:
            let branches = (0..<5).map { _ in world.derive { head.value + 1 } }
            let sum = world.derive { branches.reduce(0) { $0 + $1.value } }
            instance.nodes.append(world.effect { _ = sum.value; counter.count += 1 })
            checked = sum
        case .triangle:
            var current = world.derive { head.value + 1 }
            var chain = [current]
            for _ in 1..<9 {
                let previous = current
                current = world.derive { previous.value + 1 }
                chain.append(current)
            }
            let list = chain
            let sum = world.derive { head.value + list.reduce(0) { $0 + $1.value } }
            instance.nodes.append(world.effect { _ = sum.value; counter.count += 1 })
            checked = sum
        case .mux:
            let heads = (0..<100).map { _ in world.atom(0) }
            let mux = world.deriveArray { heads.map { $0.value } }
            let split = (0..<100).map { index in
                let pick = world.derive { mux.value[index] }
                return world.derive { pick.value + 1 }
            }
            for node in split { instance.nodes.append(world.effect { _ = node.value; counter.count += 1 }) }
            instance.nodes.append(heads as AnyObject)
            instance.nodes.append(split as AnyObject)
            instance.install(
                shape, verifier: verifier,
                write: { index, value in world.batch { world.write(heads[index], value) } },
                read: { split[$0].value }
            )
            return instance
        case .repeated:
            let current = world.derive {
                var sum = 0
                for _ in 0..<30 { sum += head.value }
                return sum
            }
            instance.nodes.append(world.effect { _ = current.value; counter.count += 1 })
            checked = current
        case .unstable:
            let double = world.derive { head.value * 2 }
            let inverse = world.derive { -head.value }
            let current = world.derive {
                var sum = 0
                for _ in 0..<20 { sum += head.value % 2 != 0 ? double.value : inverse.value }
                return sum
            }
            instance.nodes.append(world.effect { _ = current.value; counter.count += 1 })
            checked = current
        case .avoidable:
            let c1 = world.derive { head.value }
            let c2 = world.derive { _ = c1.value; return 0 }
            let c3 = world.derive { counter.count += 1; return busy() - 100 + c2.value + 1 }
            let c4 = world.derive { counter.count += 1; return c3.value + 2 }
            let c5 = world.derive { counter.count += 1; return c4.value + 3 }
            instance.nodes.append(world.effect { counter.count += 1; _ = c5.value; _ = busy() })
            checked = c5
        }
        let node = checked!
        instance.nodes.append(node)
        instance.install(
            shape, verifier: verifier,
            write: { _, value in world.batch { world.write(head, value) } },
            read: { _ in node.value }
        )
        return instance
    }
}

public enum ObservationGraphs {
    /// cellx: as RippleCellx.run, through Observation.
    public static func cellx(layers: Int, samples: Int = CellxCheck.defaultSamples, graphs: Int = CellxCheck.defaultGraphs)
        -> ShapeResult
    {
        CellxCheck.measure(layers: layers, samples: samples, graphs: graphs) {
            let world = ObservationWorld()
            var nodes: [AnyObject] = []
            let start = (1...4).map { world.atom($0) }
            func layer(_ a: @escaping () -> Int, _ b: @escaping () -> Int, _ c: @escaping () -> Int, _ d: @escaping () -> Int)
                -> [ObservedDerivation<IntCell>]
            {
                let next = [
                    world.derive { b() },
                    world.derive { a() - c() },
                    world.derive { b() + d() },
                    world.derive { c() },
                ]
                for node in next {
                    nodes.append(node)
                    nodes.append(world.effect { _ = node.value })
                }
                return next
            }
            var end = layer({ start[0].value }, { start[1].value }, { start[2].value }, { start[3].value })
            for _ in 1..<layers {
                let p = end
                end = layer({ p[0].value }, { p[1].value }, { p[2].value }, { p[3].value })
            }
            let t0 = now()
            let before = end.map(\.value)
            world.batch {
                for (index, source) in start.enumerated() { world.write(source, 4 - index) }
            }
            let after = end.map(\.value)
            let elapsed = now() - t0
            end = []
            releaseInReverse(&nodes)
            return (elapsed, before, after)
        }
    }

    /// The propagation grid (and, with width 1, the chain), through Observation.
    public static func grid(
        width: Int, height: Int, operations: Int, samples: Int = GridCheck.defaultSamples, checkEveryWrite: Bool = false
    ) -> ShapeResult {
        let world = ObservationWorld()
        let counter = Counter()
        var nodes: [AnyObject] = []
        let source = world.atom(0)
        var ends: [ObservedDerivation<IntCell>] = []
        for _ in 0..<width {
            var current = world.derive { source.value + 1 }
            nodes.append(current)
            for _ in 1..<height {
                let previous = current
                current = world.derive { previous.value + 1 }
                nodes.append(current)
            }
            let end = current
            nodes.append(world.effect { _ = end.value; counter.count += 1 })
            ends.append(end)
        }
        let list = ends
        ends = []
        let result = GridCheck.measure(
            GridInstance(
                increment: { world.batch { world.write(source, source.value + 1) } },
                source: { source.value },
                end: { list[$0].value },
                counter: counter),
            width: width, height: height, operations: operations, samples: samples, checkEveryWrite: checkEveryWrite)
        releaseInReverse(&nodes)
        return result
    }

    /// Creation and teardown, as RippleCreation.run, through Observation.
    public static func creation(count: Int = CreationCheck.defaultCount, samples: Int = CreationCheck.defaultSamples)
        -> CreationResult
    {
        CreationCheck.measure(count: count, samples: samples) { mark in
            let world = ObservationWorld()
            let counter = Counter()
            // Observation has no lazy derived values: creating one computes it.
            CreationCheck.phases(
                count: count, mark: mark, counter: counter, atom: { world.atom($0) },
                derive: { source in world.derive { source.value } },
                effect: { source, counter in world.effect { _ = source.value; counter.count += 1 } })
            mark()
            return counter.count
        }
    }
}
#endif
