/// A derivation's recompute (`Derivation.Recompute`) in one word: the closure's function when it has no context,
/// else the address of a box holding the closure, with the low bit set.
///
/// A closure takes two words, which would take a derivation of a word from an 80-byte malloc block to a 96-byte one.
/// The usual recomputes need no context: `storingUnlessEqual` and `storingEveryResult` made where the value type is
/// known (`derive(_:)` and `Derived` are inlinable: specialized, they capture nothing) are their function alone,
/// called with no context as the closure was (`ContextFreeFunction`). One made in generic code (which captures the
/// type's metadata), one with a custom equality, one reporting to a lifecycle, or one wrapped for Observation takes a
/// box, which the derivation owns.
///
/// The engine's compute callback calls it through a view of the derivation that does not know `Value`
/// (`Derivation<ErasedDerivationValue>`): a function takes the derivation as a class reference, one pointer
/// whatever `Value` is, and the box's one field, the closure, is at the same offset for every `Value`.
///
/// A value of this type does not own the box: the derivation that stores it releases it in its deinit
/// (`release()`).
@usableFromInline
struct DerivationRecompute<Value> {
    @usableFromInline let word: UInt

    /// `recompute`: its function alone when it has no context, else a box retained here, which the derivation that
    /// stores it releases (`release()`). Inlined, so that a closure made in specialized code is seen without a
    /// context where it is made.
    @inlinable @inline(__always)
    init(_ recompute: consuming @escaping Derivation<Value>.Recompute) {
        let holder = RecomputeFunction(call: recompute)
        if let function = ContextFreeFunction.word(of: holder) {
            word = function
        } else {
            word = DerivationRecompute.boxing(holder.call)
        }
    }

    /// The word of a box holding `recompute`, retained once for the derivation that stores it.
    @usableFromInline
    static func boxing(_ recompute: consuming @escaping Derivation<Value>.Recompute) -> UInt {
        ContextFreeFunction.word(boxing: RecomputeBox(recompute))
    }

    /// Runs the recompute on `derivation`: a test of the low bit, then the function's call, as the closure's was;
    /// a box out of line.
    @inlinable @inline(__always)
    func run(_ derivation: Derivation<Value>) -> Bool {
        if _fastPath(!isBoxed) { return runFunction(derivation) }
        return runBoxed(derivation)
    }

    /// `run` for a recompute that is a function, as the engine's compute callback knows from the derivation's
    /// `needsPreparing` flag (set for a box): no test of the low bit on its common paths.
    @inlinable @inline(__always)
    func runFunction(_ derivation: Derivation<Value>) -> Bool {
        assert(!isBoxed, "Ripple: internal error: a boxed recompute called as a function.")
        return ContextFreeFunction.holder(word, as: RecomputeFunction<Value>.self).call(derivation)
    }

    /// Whether the recompute is a box, not a function.
    @inlinable var isBoxed: Bool {
        @inline(__always) get { word & ContextFreeFunction.notAFunction != 0 }
    }

    /// `run` for a box.
    @usableFromInline @inline(never)
    func runBoxed(_ derivation: Derivation<Value>) -> Bool {
        box._withUnsafeGuaranteedRef { $0.recompute(derivation) }
    }

    /// The box of a word with the low bit set.
    private var box: Unmanaged<RecomputeBox<Value>> {
        ContextFreeFunction.box(of: word, as: RecomputeBox<Value>.self)
    }

    /// The recompute as a closure, for a wrapper that boxes it again (`Runtime.trackingObservableReads(of:)`):
    /// the function with no context, or the box's closure.
    func closure() -> Derivation<Value>.Recompute {
        if isBoxed { return box.takeUnretainedValue().recompute }
        return ContextFreeFunction.holder(word, as: RecomputeFunction<Value>.self).call
    }

    /// Releases the box of a recompute that has one; nothing otherwise. Called once, by the deinit of the
    /// derivation that stores it.
    func release() {
        if isBoxed { box.release() }
    }
}

/// A recompute as `DerivationRecompute` takes it apart and puts it together again (`ContextFreeFunction`).
@usableFromInline
struct RecomputeFunction<Value> {
    @usableFromInline let call: Derivation<Value>.Recompute

    @inlinable @inline(__always)
    init(call: consuming @escaping Derivation<Value>.Recompute) {
        self.call = call
    }
}

/// The box of a recompute with a context.
final class RecomputeBox<Value> {
    let recompute: Derivation<Value>.Recompute

    init(_ recompute: consuming @escaping Derivation<Value>.Recompute) {
        self.recompute = recompute
    }
}
