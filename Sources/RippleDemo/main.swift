// ripple-demo: a short tour of Ripple. Every derived value and effect prints a
// line when it runs, so the output shows what runs when, and what does not.
import Ripple

func step(_ title: String) {
    print("\n> \(title)")
}

func cartDemo() {
    print("Ripple demo: a shopping cart")

    step("atoms hold state; derived values are lazy, so nothing has run yet")
    @Atom(label: "price") var price = 4
    @Atom(label: "quantity") var quantity = 3
    let total = derive(label: "total") { () -> Int in
        let value = price * quantity
        print("  derived ran: total = \(price) * \(quantity) = \(value)")
        return value
    }
    let expensive = derive(label: "expensive") { () -> Bool in
        let value = total.value > 20
        print("  derived ran: expensive = \(value)")
        return value
    }

    step("an effect runs at once, reading what it needs")
    let display = Effect(label: "display") {
        let shown = total.value
        print("  effect ran: total = \(shown)")
        onCleanup { print("  cleanup: display of total = \(shown)") }
    }
    let badge = Effect(label: "badge") {
        print("  effect ran: badge says \(expensive.value ? "expensive" : "cheap")")
    }

    step("quantity = 5: total recomputes once and the display runs; expensive is still false, so the badge does not")
    quantity = 5

    step("quantity = 5 again: an equal value is no change, so nothing runs")
    quantity = 5

    step("batch { price = 2; quantity = 10 }: one recompute at the end; total is still 20, so no effect runs")
    batch {
        price = 2
        quantity = 10
    }

    step("batch { price = 3; quantity = 4 }: total = 12, and expensive stays false, so the badge does not run")
    batch {
        price = 3
        quantity = 4
    }

    step("untracked { }: a read that records no dependency")
    let note = atom("first note", label: "note")
    let logger = Effect(label: "logger") {
        let text = untracked { note.value }
        print("  effect ran: logger sees quantity = \(quantity), note = \"\(text)\"")
    }
    note.value = "second note"
    print("  (writing the note ran nothing: the logger read it untracked)")
    quantity = 6

    step("cancel(): the display runs its cleanup and stops; then price = 100 runs only the badge")
    display.cancel()
    price = 100

    withExtendedLifetime((badge, logger)) {}
}

cartDemo()
print("\ndone")
