import Foundation
import Testing

@testable import Ripple

private let modelA = declare.atom { 1 }
private let modelD = declare.derived { modelA.value * 2 }
private let modelF = declare.atomFamily { (key: Int) in key }
private let modelG = declare.derivedFamily { (key: Int) in modelF(key).value + modelA.value }

/// What the declarations above should hold: instances exist only while the test holds them, so an instance
/// nobody holds always reads as its default (the runtime's override, else the declared one).
private struct DeclaredModel {
    var overrideA: Int?
    var overrideF: Int?  // a member's default is key * overrideF
    var heldA: Int?  // the held instance's value
    var heldF: [Int: Int] = [:]

    var defaultA: Int { overrideA ?? 1 }
    func defaultF(_ key: Int) -> Int { overrideF.map { key * $0 } ?? key }
    var a: Int { heldA ?? defaultA }
    func f(_ key: Int) -> Int { heldF[key] ?? defaultF(key) }
    var d: Int { a * 2 }
    func g(_ key: Int) -> Int { f(key) + a }
    var instanceCount: Int { (heldA == nil ? 0 : 1) + heldF.count }
}

/// Random reads, writes, overrides, resets and releases over a few declarations and families, checked after every
/// step against `DeclaredModel`. A failure prints its seed; set RIPPLE_SEED to run one seed again.
@Suite struct DeclaredModelTests {
    @Test func randomOperationsMatchTheModel() {
        let seeds: [UInt64] = ProcessInfo.processInfo.environment["RIPPLE_SEED"].flatMap(UInt64.init).map { [$0] }
            ?? (0..<20).map { _ in UInt64.random(in: 0...UInt64.max) }
        for seed in seeds { run(seed: seed, steps: 300) }
    }

    private func run(seed: UInt64, steps: Int) {
        var random = SplitMix64(seed: seed)
        var model = DeclaredModel()
        withIsolatedRuntime {
            var handleA: AtomObject<Int>?
            var handlesF: [Int: AtomObject<Int>] = [:]
            for step in 0..<steps {
                let key = Int.random(in: 0..<4, using: &random)
                let value = Int.random(in: -50...50, using: &random)
                let operation = Int.random(in: 0..<12, using: &random)
                switch operation {
                case 0: handleA = modelA.node; if model.heldA == nil { model.heldA = model.defaultA }
                case 1: handleA = nil; model.heldA = nil
                case 2:
                    modelA.value = value  // lost unless held
                    if model.heldA != nil { model.heldA = value }
                case 3:
                    handlesF[key] = modelF(key)
                    if model.heldF[key] == nil { model.heldF[key] = model.defaultF(key) }
                case 4: handlesF[key] = nil; model.heldF[key] = nil
                case 5:
                    modelF(key).value = value
                    if model.heldF[key] != nil { model.heldF[key] = value }
                case 6:
                    Runtime.current.override(modelA.overridden(with: value))
                    model.overrideA = value
                    if model.heldA != nil { model.heldA = value }
                case 7:
                    Runtime.current.override(modelF.overridden { $0 * value })
                    model.overrideF = value
                    for held in model.heldF.keys { model.heldF[held] = held * value }
                case 8:
                    modelA.reset()
                    if model.heldA != nil { model.heldA = model.defaultA }
                case 9:
                    modelF.reset(key)
                    if model.heldF[key] != nil { model.heldF[key] = model.defaultF(key) }
                default: break  // reads only
                }
                let context = Comment(rawValue: "seed \(seed), step \(step), operation \(operation), key \(key)")
                #expect(modelA.value == model.a, context)
                #expect(modelD.value == model.d, context)
                #expect(modelF(key).value == model.f(key), context)
                #expect(modelG(key).value == model.g(key), context)
                #expect(Runtime.current.declaredInstanceCount == model.instanceCount, context)
                if Runtime.current.declaredInstanceCount != model.instanceCount { return }
            }
            _ = handleA
        }
    }
}
