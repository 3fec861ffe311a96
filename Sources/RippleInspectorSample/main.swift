// ripple-inspector-sample: writes the inspector page of a known session, for scripts/inspector-check.
//
//   ripple-inspector-sample known <file>   the cart: 2 atoms, 2 derivations, 2 effects, 3 writes
//   ripple-inspector-sample large <file>   5,000 nodes and 10,000 writes, to time the page's load
import Foundation
import Ripple
import RippleInspector

let arguments = CommandLine.arguments
guard arguments.count == 3, ["known", "large"].contains(arguments[1]) else {
    FileHandle.standardError.write(Data("usage: ripple-inspector-sample known|large <file>\n".utf8))
    exit(2)
}
let trace = CausalTrace()
Runtime.current.startTracing(trace)
var keep: [AnyObject] = []
if arguments[1] == "known" {
    let quantity = atom(4, label: "quantity")
    let price = atom(3, label: "price")
    let total = derive(label: "total") { quantity.value * price.value }
    let expensive = derive(label: "expensive") { total.value > 100 }
    keep.append(Effect(label: "display") { _ = total.value })
    keep.append(Effect(label: "warning") { _ = expensive.value })
    quantity.value = 5
    price.value = 10
    quantity.value = 20
    keep += [quantity, price]
} else {
    // 2,500 atoms, 1,250 derivations of two atoms each, 1,250 effects of one derivation each: 5,000 nodes.
    let atoms = (0..<2500).map { atom($0, label: "a\($0)") }
    let sums = (0..<1250).map { index in derive(label: "d\(index)") { atoms[2 * index].value + atoms[2 * index + 1].value } }
    keep += sums.enumerated().map { index, sum in Effect(label: "e\(index)") { _ = sum.value } }
    for step in 0..<10_000 { atoms[step % 2500].value = step + 10_000 }
    keep += atoms
}
do {
    try Runtime.current.writeInspector(to: URL(fileURLWithPath: arguments[2]), trace: trace)
} catch {
    FileHandle.standardError.write(Data("ripple-inspector-sample: \(error)\n".utf8))
    exit(1)
}
withExtendedLifetime(keep) {}
