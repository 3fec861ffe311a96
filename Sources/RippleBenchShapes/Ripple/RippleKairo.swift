import Foundation
import Ripple

/// The Kairo shapes through Ripple's Swift API.
public enum RippleKairo {
    public static func run(
        _ shape: KairoShape,
        samples: Int = KairoShape.defaultSamples,
        calls: Int = KairoShape.defaultCalls
    ) -> ShapeResult {
        // RIPPLE_BENCH_TRACKS_OBSERVABLE_READS=1 measures the same shapes with every body tracking @Observable reads.
        let runtime = Runtime(tracksObservableReads: getenv("RIPPLE_BENCH_TRACKS_OBSERVABLE_READS") != nil)
        return withIsolatedRuntime(using: runtime) {
            let verifier = Verifier()
            let instance = build(shape, runtime: runtime, verifier: verifier)
            return measureKairo(instance, verifier: verifier, samples: samples, calls: calls)
        }
    }

    static func build(_ shape: KairoShape, runtime: Runtime, verifier: Verifier) -> KairoInstance {
        let instance = KairoInstance()
        let counter = instance.counter
        let head = atom(0)
        var checked: Derivation<Int>?
        switch shape {
        case .deep:
            var current = derive { head.value + 1 }
            for _ in 1..<50 {
                let previous = current
                current = derive { previous.value + 1 }
            }
            let last = current
            instance.nodes.append(Effect { _ = last.value; counter.count += 1 })
            checked = last
        case .broad:
            for i in 0..<50 {
                let c1 = derive { head.value + i }
                let c2 = derive { c1.value + 1 }
                instance.nodes.append(Effect { _ = c2.value; counter.count += 1 })
                checked = c2
            }
        case .diamond:
            let branches = NodeList((0..<5).map { _ in derive { head.value + 1 } })
            let sum = derive {
                var sum = 0
                for k in 0..<branches.count { sum += branches.with(k) { $0.value } }
                return sum
            }
            instance.nodes.append(Effect { _ = sum.value; counter.count += 1 })
            checked = sum
        case .triangle:
            var current = derive { head.value + 1 }
            var chain = [current]
            for _ in 1..<9 {
                let previous = current
                current = derive { previous.value + 1 }
                chain.append(current)
            }
            let list = NodeList(chain)
            let sum = derive {
                var sum = head.value
                for k in 0..<list.count { sum += list.with(k) { $0.value } }
                return sum
            }
            instance.nodes.append(Effect { _ = sum.value; counter.count += 1 })
            checked = sum
        case .mux:
            let heads = NodeList((0..<100).map { _ in atom(0) })
            // A new array every time, as in JavaScript: no equality.
            let mux = derive(equals: { (_: [Int], _: [Int]) in false }) {
                (0..<heads.count).map { k in heads.with(k) { $0.value } }
            }
            let split = NodeList(
                (0..<100).map { index in
                    let pick = derive { mux.value[index] }
                    return derive { pick.value + 1 }
                })
            for node in split.nodes { instance.nodes.append(Effect { _ = node.value; counter.count += 1 }) }
            instance.nodes.append(heads.nodes as AnyObject)
            instance.nodes.append(split.nodes as AnyObject)
            instance.install(
                shape, verifier: verifier,
                write: { index, value in runtime.batch { heads.with(index) { $0.value = value } } },
                read: { index in split.with(index) { $0.value } }
            )
            return instance
        case .repeated:
            let current = derive {
                var sum = 0
                for _ in 0..<30 { sum += head.value }
                return sum
            }
            instance.nodes.append(Effect { _ = current.value; counter.count += 1 })
            checked = current
        case .unstable:
            let double = derive { head.value * 2 }
            let inverse = derive { -head.value }
            let current = derive {
                var sum = 0
                for _ in 0..<20 { sum += head.value % 2 != 0 ? double.value : inverse.value }
                return sum
            }
            instance.nodes.append(Effect { _ = current.value; counter.count += 1 })
            checked = current
        case .avoidable:
            let c1 = derive { head.value }
            let c2 = derive { _ = c1.value; return 0 }
            let c3 = derive { counter.count += 1; return busy() - 100 + c2.value + 1 }
            let c4 = derive { counter.count += 1; return c3.value + 2 }
            let c5 = derive { counter.count += 1; return c4.value + 3 }
            instance.nodes.append(Effect { counter.count += 1; _ = c5.value; _ = busy() })
            checked = c5
        }
        let node = checked!
        instance.nodes.append(node)
        instance.install(
            shape, verifier: verifier,
            write: { _, value in runtime.batch { head.value = value } },
            read: { _ in node.value }
        )
        return instance
    }
}
