// ripple-demo: a short tour of Ripple. Every derived value and effect prints a
// line when it runs, so the output shows what runs when, and what does not.
//
//   ripple-demo                  the tour
//   ripple-demo --graph FILE     the tour, and the cart's dependency graph written
//                                to FILE in Graphviz DOT while every node of it is
//                                live (scripts/graph renders it to SVG)
//
// The tour of the cart is traced, and its inspector page written to the temporary folder (the tour says where).
import Dispatch
import Foundation
import Ripple
import RippleInspector

/// Where `--graph` asks for the cart's graph, if it does.
let graphPath: String? = {
    let arguments = CommandLine.arguments.dropFirst()
    guard let flag = arguments.firstIndex(of: "--graph") else { return nil }
    guard flag + 1 < arguments.endIndex else {
        FileHandle.standardError.write(Data("ripple-demo: --graph needs a file name\n".utf8))
        exit(2)
    }
    return arguments[flag + 1]
}()

func step(_ title: String) {
    print("\n> \(title)")
}

@MainActor func cartDemo() {
    print("Ripple demo: a shopping cart")
    let trace = CausalTrace()  // for the inspector page at the end
    Runtime.current.startTracing(trace)

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

    if let graphPath {
        // Now every node of the cart is live and each effect has read what it reads: the most to see. The note
        // has no edge: the logger read it untracked.
        step("the graph: every live node and what reads it, in Graphviz DOT")
        do {
            try Runtime.current.graphDescription().write(toFile: graphPath, atomically: true, encoding: .utf8)
            print("  written to \(graphPath)")
        } catch {
            FileHandle.standardError.write(Data("ripple-demo: cannot write \(graphPath): \(error)\n".utf8))
            exit(1)
        }
    }

    step("cancel(): the display runs its cleanup and stops; then price = 100 runs only the badge")
    display.cancel()
    price = 100

    step("the inspector page: the graph, every write with its causes, the change log, the atoms at each step")
    let page = FileManager.default.temporaryDirectory.appendingPathComponent("ripple-inspector.html")
    do {
        try Runtime.current.writeInspector(to: page, trace: trace)
        print("  written to \(page.path): open it in a browser")
    } catch {
        FileHandle.standardError.write(Data("ripple-demo: cannot write \(page.path): \(error)\n".utf8))
        exit(1)
    }
    Runtime.current.stopTracing()

    withExtendedLifetime((badge, logger)) {}
}

/// Runs each scheduled effect job on one serial dispatch queue.
struct QueueScheduler: EffectScheduler {
    let queue: DispatchQueue

    func schedule(_ job: @escaping @Sendable () -> Void) {
        queue.async(execute: job)
    }
}

func threadsDemo() {
    print("\nRipple demo: one runtime, four threads")
    let orders = atom(0, label: "orders")
    let revenue = derive(label: "revenue") { orders.value * 3 }
    let queue = DispatchQueue(label: "report")
    let runs = atom(0, label: "report runs")
    let report = Effect(on: QueueScheduler(queue: queue), label: "report") {
        _ = revenue.value
        runs.update { $0 += 1 }
    }

    step("4 threads each add 10,000 orders with update { $0 += 1 }; none is lost")
    DispatchQueue.concurrentPerform(iterations: 4) { _ in
        for _ in 0..<10_000 { orders.update { $0 += 1 } }
    }
    queue.sync {}  // let the last scheduled report run
    print("  orders = \(orders.value), revenue = \(revenue.value)")
    print("  the report, bound to a queue, ran \(runs.value) times for 40,000 writes: bursts coalesce")
    withExtendedLifetime(report) {}
}

cartDemo()
threadsDemo()
print("\ndone")
