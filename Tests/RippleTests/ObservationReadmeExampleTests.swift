import Observation
import Testing

@testable import Ripple

/// The README's "SwiftUI and Observation" example, with `withObservationTracking` standing in for SwiftUI (which
/// tracks a view's body the same way).
@Suite @MainActor struct ObservationReadmeExampleTests {
    @Observable @MainActor final class Settings {
        var currency = "EUR"
    }

    @MainActor final class Cart {
        let settings = Settings()
        let prices = atom([12.5, 7.5])
        let total: Derivation<String>

        init() {
            let (prices, settings) = (prices, settings)
            total = derive { "\(prices.value.reduce(0, +)) \(observing { settings.currency })" }
        }
    }

    /// Stands in for `TotalView`: renders `cart.total.value` under tracking, and again after each invalidation.
    @MainActor final class TotalView {
        let cart: Cart
        var rendered: [String] = []
        var invalidations = 0

        init(cart: Cart) {
            self.cart = cart
            render()
        }

        func render() {
            let text = withObservationTracking { cart.total.value } onChange: { [weak self] in
                Task { @MainActor in
                    self?.invalidations += 1
                    self?.render()
                }
            }
            rendered.append(text)
        }
    }

    /// Lets every main-actor job enqueued so far run (and the ones those enqueue, `depth` levels down).
    func drainMainActor(depth: Int = 3) async {
        for _ in 0..<depth { await Task { @MainActor in }.value }
    }

    @Test func theViewRendersEachChangeOfTheTotalOnce() async {
        await withIsolatedRuntime { () async in
            let cart = Cart()
            let view = TotalView(cart: cart)
            #expect(view.rendered == ["20.0 EUR"])
            cart.prices.value.append(5)
            await drainMainActor()
            #expect(view.rendered == ["20.0 EUR", "25.0 EUR"])
            cart.settings.currency = "USD"
            await drainMainActor()
            #expect(view.rendered == ["20.0 EUR", "25.0 EUR", "25.0 USD"])
            #expect(view.invalidations == 2)
        }
    }
}
