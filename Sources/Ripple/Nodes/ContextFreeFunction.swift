/// A closure taken apart into its two words (Swift's ABI for thick functions: the function, then its context) and put
/// together again from the function alone, for the node fields that keep a closure in one word (`AtomEquality`,
/// `DerivationRecompute`).
///
/// The closure is handed over inside a struct whose one field is the closure (`Holder`): the field's declared type
/// fixes how the function is called, in generic and specialized code alike. (A closure handed to generic code
/// directly would be converted to the generic calling convention and back, wrapped in reabstraction thunks.)
@usableFromInline
enum ContextFreeFunction {
    /// The low bit of a word that holds a function: clear. Functions are aligned; one that is not is not taken.
    @inlinable static var notAFunction: UInt { 1 }

    /// The function of the closure in `holder` when it has no context and its low bit is clear, else nil.
    /// `MemoryLayout` checks that the holder is two words.
    @inlinable @inline(__always)
    static func word<Holder>(of holder: Holder) -> UInt? {
        guard MemoryLayout<Holder>.size == 2 * MemoryLayout<UInt>.size else { return nil }
        let parts = unsafeBitCast(holder, to: (function: UInt, context: UInt).self)
        return parts.context == 0 && parts.function & notAFunction == 0 ? parts.function : nil
    }

    /// The word of a box holding a closure with a context: `box` retained once for the node that stores the word,
    /// its address with the low bit set. An object's address is 16-byte aligned (malloc's), checked: the two low
    /// bits are free, for `AtomEquality`'s class tag too.
    @usableFromInline
    static func word(boxing box: AnyObject) -> UInt {
        let address = UInt(bitPattern: Unmanaged.passRetained(box).toOpaque())
        precondition(address & 3 == 0, "Ripple: internal error: an unaligned object.")
        return address | notAFunction
    }

    /// The box whose word (`word(boxing:)`) is `word`, not retained.
    static func box<Box: AnyObject>(of word: UInt, as _: Box.Type) -> Unmanaged<Box> {
        Unmanaged.fromOpaque(UnsafeRawPointer(bitPattern: word & ~notAFunction).unsafelyUnwrapped)
    }

    /// The holder of the closure whose function is `word` (from `word(of:)`), with no context, as it was made.
    @inlinable @inline(__always)
    static func holder<Holder>(_ word: UInt, as _: Holder.Type) -> Holder {
        unsafeBitCast((word, UInt(0)), to: Holder.self)
    }
}
