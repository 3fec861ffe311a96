import Foundation
import Testing

@testable import Ripple

private let modelA = declare.atom { 1 }
private let modelD = declare.derived { modelA.value * 2 }
private let modelF = declare.atomFamily { (key: Int) in key }
private let modelG = declare.derivedFamily { (key: Int) in modelF(key).value + modelA.value }

/// One instance of the model: it exists while the test holds it or since it was written (until its default is
/// written back by a reset or an override).
private struct ModelInstance {
    var value: Int
    var isHeld = false
    var isWritten = false

    /// The test takes a handle: the instance exists from then on.
    static func hold(_ instance: inout ModelInstance?, default value: Int) {
        if instance == nil { instance = ModelInstance(value: value) }
        instance?.isHeld = true
    }

    /// The test drops its handle: an unwritten instance goes.
    static func drop(_ instance: inout ModelInstance?) {
        instance?.isHeld = false
        if instance?.isWritten == false { instance = nil }
    }

    /// A write: nothing if equal to the value read, else the instance exists and is kept.
    static func write(_ instance: inout ModelInstance?, _ value: Int, default defaultValue: Int) {
        if value == (instance?.value ?? defaultValue) { return }
        if instance == nil { instance = ModelInstance(value: value) }
        instance?.value = value
        instance?.isWritten = true
    }

    /// A reset or an override writes the default back: the instance is no longer kept for its write.
    static func writeDefault(_ instance: inout ModelInstance?, _ value: Int) {
        guard instance != nil else { return }
        instance?.value = value
        instance?.isWritten = false
        if instance?.isHeld == false { instance = nil }
    }
}

/// What the declarations above should hold: instances exist while the test holds them or once written (until a
/// reset or an override), so an instance that does not exist always reads as its default (the runtime's
/// override, else the declared one).
private struct DeclaredModel {
    var overrideA: Int?
    var overrideF: Int?  // a member's default is key * overrideF
    var instanceA: ModelInstance?
    var instancesF: [Int: ModelInstance] = [:]

    var defaultA: Int { overrideA ?? 1 }
    func defaultF(_ key: Int) -> Int { overrideF.map { key * $0 } ?? key }
    var a: Int { instanceA?.value ?? defaultA }
    func f(_ key: Int) -> Int { instancesF[key]?.value ?? defaultF(key) }
    var d: Int { a * 2 }
    func g(_ key: Int) -> Int { f(key) + a }
    var instanceCount: Int { (instanceA == nil ? 0 : 1) + instancesF.count }
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
                case 0:
                    handleA = modelA.node
                    ModelInstance.hold(&model.instanceA, default: model.defaultA)
                case 1:
                    handleA = nil
                    ModelInstance.drop(&model.instanceA)
                case 2:
                    modelA.value = value  // kept once written, held or not
                    ModelInstance.write(&model.instanceA, value, default: model.defaultA)
                case 3:
                    handlesF[key] = modelF(key)
                    ModelInstance.hold(&model.instancesF[key], default: model.defaultF(key))
                case 4:
                    handlesF[key] = nil
                    ModelInstance.drop(&model.instancesF[key])
                case 5:
                    modelF(key).value = value
                    ModelInstance.write(&model.instancesF[key], value, default: model.defaultF(key))
                case 6:
                    Runtime.current.override(modelA.overridden(with: value))
                    model.overrideA = value
                    ModelInstance.writeDefault(&model.instanceA, value)
                case 7:
                    Runtime.current.override(modelF.overridden { $0 * value })
                    model.overrideF = value
                    for member in model.instancesF.keys {
                        ModelInstance.writeDefault(&model.instancesF[member], member * value)
                    }
                case 8:
                    modelA.reset()
                    ModelInstance.writeDefault(&model.instanceA, model.defaultA)
                case 9:
                    modelF.reset(key)
                    ModelInstance.writeDefault(&model.instancesF[key], model.defaultF(key))
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
