/// An atom's equality, in one word: a closure's function when the closure has no context, the metadata of a class
/// whose class method compares (`==` from generic code, or never equal), or a box holding a closure with a context.
///
/// A closure takes two words, its function and its context (Swift's ABI for thick functions), which would take an
/// atom of a word from an 80-byte malloc block to a 96-byte one. The common equalities need no context: `{ $0 == $1 }`
/// made where the value type is known (`atom(_:)` is inlinable: specialized, it captures nothing) is its function
/// alone, called with no context as the closure was; made in generic code (which captures the type's metadata), a
/// class's metadata stands for it, which the Swift runtime makes once per value type and never frees. Only a closure
/// with a context of its own (`atom(_:equals:)` with a capturing closure) takes a box, which the atom owns.
///
/// Which one a word is, its low bits say (each is checked where the word is made, not assumed): a function's
/// address with its low bit clear (functions are aligned; one that is not goes into a box), a box's address (16-byte
/// aligned) with the low bit set, a class's metadata (word-aligned) with the two low bits set.
///
/// A value of this type does not own the box: the atom that stores it owns the box made for it (`init(_:)`) and
/// releases it in its deinit (`release()`).
@usableFromInline
struct AtomEquality<Value> {
    @usableFromInline let word: UInt

    /// The low bit: a box or a class, not a function.
    @inlinable static var notAFunction: UInt { ContextFreeFunction.notAFunction }
    /// The two low bits of a class's metadata; a box has the first only.
    @inlinable static var classTag: UInt { 3 }

    /// The equality `equals`: its function alone when it has no context, else a box retained here, which the atom
    /// that stores it releases (`release()`). Inlined, so that a closure made in specialized code is seen without
    /// a context where it is made.
    @inlinable @inline(__always)
    init(_ equals: consuming @escaping (Value, Value) -> Bool) {
        if let function = AtomEquality.contextFreeFunction(of: equals) {
            word = function
        } else {
            word = AtomEquality.boxing(equals)
        }
    }

    /// An equality by `comparison`'s class method. A class's `.Type` is the address of its metadata (Swift's ABI),
    /// at least word-aligned: checked.
    @usableFromInline
    init(comparison: ValueComparison<Value>.Type) {
        let address = UInt(bitPattern: unsafeBitCast(comparison, to: UnsafeRawPointer.self))
        precondition(address & AtomEquality.classTag == 0, "Ripple: internal error: unaligned class metadata.")
        word = address | AtomEquality.classTag
    }

    /// The function of `equals` when it has no context and its low bit is clear, else nil (`ContextFreeFunction`).
    @inlinable @inline(__always)
    static func contextFreeFunction(of equals: @escaping (Value, Value) -> Bool) -> UInt? {
        ContextFreeFunction.word(of: EqualityFunction(call: equals))
    }

    /// The word of a box holding `equals`, retained once for the atom that stores it.
    @usableFromInline
    static func boxing(_ equals: consuming @escaping (Value, Value) -> Bool) -> UInt {
        ContextFreeFunction.word(boxing: ClosureComparison(equals))
    }

    /// Every value differs from every other: each write and each commit is a change.
    @inlinable static var never: AtomEquality { AtomEquality({ _, _ in false }) }

    /// Whether `a` and `b` are the same value for the atom's readers. Inlined into the atom's write: a test of the
    /// low bit, then the function's call, as the closure's was; a box or a class out of line.
    @inlinable @inline(__always)
    func areEqual(_ a: Value, _ b: Value) -> Bool {
        if _fastPath(word & AtomEquality.notAFunction == 0) {
            return ContextFreeFunction.holder(word, as: EqualityFunction<Value>.self).call(a, b)
        }
        return areEqualOutOfLine(a, b)
    }

    /// `areEqual` for a box or a class.
    @usableFromInline @inline(never)
    func areEqualOutOfLine(_ a: Value, _ b: Value) -> Bool {
        if word & AtomEquality.classTag == AtomEquality.classTag {
            return comparison.areEqual(a, b)
        }
        return box._withUnsafeGuaranteedRef { $0.equals(a, b) }
    }

    /// The class of a word with the class tag.
    private var comparison: ValueComparison<Value>.Type {
        unsafeBitCast(
            UnsafeRawPointer(bitPattern: word & ~AtomEquality.classTag).unsafelyUnwrapped,
            to: ValueComparison<Value>.Type.self)
    }

    /// The box of a word with only the low bit set.
    private var box: Unmanaged<ClosureComparison<Value>> {
        ContextFreeFunction.box(of: word, as: ClosureComparison<Value>.self)
    }

    /// The equality as a closure, for a holder that may outlive the atom (a snapshot's captured value): the
    /// function with no context, the box's closure, or one calling the class method (capturing only the metadata,
    /// never freed).
    func closure() -> (Value, Value) -> Bool {
        if word & AtomEquality.notAFunction == 0 {
            return ContextFreeFunction.holder(word, as: EqualityFunction<Value>.self).call
        }
        if word & AtomEquality.classTag == AtomEquality.classTag {
            let comparison = self.comparison
            return { comparison.areEqual($0, $1) }
        }
        return box.takeUnretainedValue().equals
    }

    /// The box of an equality that has one, with the retain this value held: the caller owns it from now on. Nil
    /// for a function or a class.
    func takeBox() -> ClosureComparison<Value>? {
        word & AtomEquality.classTag == AtomEquality.notAFunction ? box.takeRetainedValue() : nil
    }

    /// Releases the box of an equality that has one; nothing otherwise. Called once, by the deinit of the atom
    /// that stores it.
    func release() {
        if word & AtomEquality.classTag == AtomEquality.notAFunction { box.release() }
    }
}

extension AtomEquality where Value: Equatable {
    /// `==`: the closure's function where the value type is known (specialized code), the class
    /// `EquatableValues<Value>` in generic code, where the closure would have a context.
    @inlinable static var equatable: AtomEquality {
        if let function = contextFreeFunction(of: { $0 == $1 }) { return AtomEquality(word: function) }
        return AtomEquality(comparison: EquatableValues<Value>.self)
    }
}

extension AtomEquality {
    /// The equality whose word is `word`, made by this type (a box's retain is the caller's).
    @inlinable init(word: UInt) { self.word = word }
}

/// An equality made once and given to many atoms: a declaration's to its instances (`Declaration.atomEquality`).
/// A closure with a context is boxed here, once, and each atom given it retains the box (`forAnAtom()`), instead of
/// a box per atom; one without a context is its function, as for any atom.
struct SharedAtomEquality<Value> {
    /// The equality's word (`AtomEquality`): the box's when `box` is set.
    private let word: UInt
    /// The box, kept alive by this value (and by each atom given it, with a retain of its own).
    private let box: ClosureComparison<Value>?

    /// `equals` nil: never equal.
    init(_ equals: ((Value, Value) -> Bool)?) {
        // The function or the box as an atom's equality takes them (`AtomEquality.init(_:)`); the box's retain
        // made there becomes this value's.
        let equality: AtomEquality<Value>
        if let equals { equality = AtomEquality(equals) } else { equality = .never }
        word = equality.word
        box = equality.takeBox()
    }

    /// The equality for one more atom, which releases it in its deinit: the box, if any, retained for it.
    func forAnAtom() -> AtomEquality<Value> {
        if let box { _ = Unmanaged.passUnretained(box).retain() }
        return AtomEquality(word: word)
    }
}

/// A closure as `AtomEquality` takes it apart and puts it together again: a field, whose declared type fixes how
/// its function is called (the values passed indirectly, as for any closure over a generic `Value`), in generic
/// and specialized code alike.
@usableFromInline
struct EqualityFunction<Value> {
    @usableFromInline let call: (Value, Value) -> Bool

    @inlinable init(call: consuming @escaping (Value, Value) -> Bool) {
        self.call = call
    }
}

/// An atom's equality by a class method, never instantiated: the class's metadata stands for it (`AtomEquality`).
/// This base class says that no two values are equal.
@usableFromInline
class ValueComparison<Value> {
    /// Whether `a` and `b` are the same value for the atom's readers: never, here.
    class func areEqual(_ a: Value, _ b: Value) -> Bool { false }

    private init() {}
}

/// `==`, for an atom of an `Equatable` value made in generic code.
@usableFromInline
final class EquatableValues<Value: Equatable>: ValueComparison<Value> {
    override class func areEqual(_ a: Value, _ b: Value) -> Bool { a == b }
}

/// The box of an atom's own equality closure, when it has a context.
final class ClosureComparison<Value> {
    let equals: (Value, Value) -> Bool

    init(_ equals: consuming @escaping (Value, Value) -> Bool) {
        self.equals = equals
    }
}
