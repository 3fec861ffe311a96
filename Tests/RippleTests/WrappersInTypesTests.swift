import Testing
import Ripple

/// `@Atom` and `@Derived` as stored properties of a class, the way view models use them: the README's UIKit
/// counter with plain Swift types standing in for UIKit's.
@Suite @MainActor struct WrappersInTypesTests {
    /// Stands in for `UILabel` (main-actor, like UIKit's types).
    @MainActor final class Label {
        var text: String?
        var assignments: [String] = []
    }

    /// The README's view controller, with `Label` for `UILabel` and `viewDidLoad` called by the test.
    @MainActor final class CounterViewController {
        let label = Label()
        private var bag: [Effect] = []
        var titleComputes = 0

        @Atom private var count = 0

        @Derived({ (controller: CounterViewController) -> String in
            controller.titleComputes += 1
            return "Count: \(controller.count)"
        })
        private var title: String

        func viewDidLoad() {
            bag.append(Effect { [unowned self] in
                self.label.text = self.title
                self.label.assignments.append(self.title)
            })
        }

        func plus() { count += 1 }
        func set(_ value: Int) { count = value }
        var titleNode: Derivation<String> { $title }
    }

    @Test func viewControllerRendersItsDerivedTitle() {
        withIsolatedRuntime {
            let controller = CounterViewController()
            #expect(controller.titleComputes == 0)  // lazy: nothing read yet
            controller.viewDidLoad()
            #expect(controller.label.text == "Count: 0")
            controller.plus()
            controller.plus()
            controller.set(2)  // equal: nothing runs
            #expect(controller.label.assignments == ["Count: 0", "Count: 1", "Count: 2"])
            #expect(controller.titleComputes == 3)
            #expect(controller.titleNode.runtime === Runtime.current)
        }
    }

    /// A view model whose derived properties read each other and an atom of another object.
    final class CartModel {
        @Atom var quantity = 1
        @Atom var unitPrice = 5
        @Derived({ (cart: CartModel) in cart.quantity * cart.unitPrice }) var total: Int
        @Derived({ (cart: CartModel) in cart.total >= 20 }) var qualifiesForFreeShipping: Bool
    }

    @Test func derivedPropertiesReadEachOtherAndCutOffOnEqualValues() {
        withIsolatedRuntime {
            let cart = CartModel()
            var totals: [Int] = []
            var shipping: [Bool] = []
            let showTotal = Effect { totals.append(cart.total) }
            let showShipping = Effect { shipping.append(cart.qualifiesForFreeShipping) }
            cart.quantity = 2  // 10: shipping recomputes to false, its effect does not run
            cart.quantity = 4  // 20
            runtimeBatch {
                cart.quantity = 5
                cart.unitPrice = 4  // 20 again: neither effect runs
            }
            #expect(totals == [5, 10, 20])
            #expect(shipping == [false, true])
            withExtendedLifetime((showTotal, showShipping)) {}
        }
    }

    private func runtimeBatch(_ body: () -> Void) { Runtime.current.batch(body) }

    @Test func derivationIsCreatedInTheRuntimeCurrentWhenTheObjectWasMade() {
        let runtime = Runtime()
        let cart = withIsolatedRuntime(using: runtime) { CartModel() }
        #expect(cart.total == 5)  // read outside: created in `runtime`, not in the shared one
        #expect(cart.$total.runtime === runtime)
        #expect(cart.$quantity.runtime === runtime)
    }

    @Test func derivedPropertyHoldsItsOwnerWeakly() {
        weak var weakCart: CartModel?
        withIsolatedRuntime {
            let cart = CartModel()
            weakCart = cart
            #expect(cart.total == 5)
        }
        #expect(weakCart == nil)
    }

    @Test func eachObjectHasItsOwnDerivation() {
        withIsolatedRuntime {
            let first = CartModel()
            let second = CartModel()
            second.quantity = 3
            #expect(first.total == 5)
            #expect(second.total == 15)
            #expect(first.$total !== second.$total)
            #expect(first.$total === first.$total)
        }
    }

    @Test func expressionFormStillWorksInAClass() {
        withIsolatedRuntime {
            let base = atom(4)
            final class Holder {
                @Derived var doubled: Int
                init(base: AtomObject<Int>) { _doubled = Derived(wrappedValue: base.value * 2) }
            }
            let holder = Holder(base: base)
            base.value = 5
            #expect(holder.doubled == 10)
            #expect(holder.$doubled.value == 10)
        }
    }
}
