/// Where nodes were created (`#fileID` and `#line`), each place kept once for the whole process and named by a
/// small number that the node keeps in the bits of its `lineAndTraits` word: a node pays no word of its own for its
/// creation site, where a `String` field took two. Nodes are created at few places in a program (a loop creating
/// 10,000 atoms creates them all at one), and the place is read only by labels, trap messages and inspection.
///
/// Number 0 is the place of the nodes Ripple makes for itself (`""`, line 0), never looked up. The others are
/// handed out in the order places are first seen and never reused: the table only grows, by one entry per place,
/// which the program's code bounds.
enum CreationSites {
    /// The largest site number, what the bits below a node's traits hold (`RippleNode.Traits.siteMask`).
    static let limit = UInt32(RippleNode.Traits.siteMask)

    /// The number of the place `fileID`:`line`, taken from the table or added to it. A node's `init` calls it.
    /// The common case (the place of the last call, from any thread: a loop, or the same declaration's members) is a
    /// comparison of the string and the line under the lock; `==` of two copies of the same string literal compares
    /// two words.
    static func number(fileID: String, line: Int) -> UInt32 {
        if line == 0 && fileID.isEmpty { return 0 }
        return table.number(fileID: fileID, line: line)
    }

    /// The place numbered `number`: `("", 0)` for 0.
    static func site(_ number: UInt32) -> (fileID: String, line: Int) {
        if number == 0 { return ("", 0) }
        return table.site(number)
    }

    private static let table = Table()

    /// The places seen so far, behind a lock.
    private final class Table: @unchecked Sendable {
        private let lock = ParkingLock()
        /// The places, by number minus 1.
        private var sites: [Site] = []
        /// The number of each place.
        private var numbers: [Site: UInt32] = [:]
        /// The last place looked up and its number: the next creation is most often at the same place.
        private var last = (site: Site(fileID: "", line: 0), number: UInt32(0))

        func number(fileID: String, line: Int) -> UInt32 {
            lock.withLock {
                if last.site.line == line && last.site.fileID == fileID { return last.number }
                let site = Site(fileID: fileID, line: line)
                let number: UInt32
                if let known = numbers[site] {
                    number = known
                } else {
                    precondition(
                        sites.count < Int(CreationSites.limit),
                        "Ripple: nodes were created at more than \(CreationSites.limit) places (file and line).")
                    sites.append(site)
                    number = UInt32(sites.count)
                    numbers[site] = number
                }
                // The table's own copy: a later creation with the same literal compares two words.
                last = (sites[Int(number) - 1], number)
                return number
            }
        }

        func site(_ number: UInt32) -> (fileID: String, line: Int) {
            lock.withLock {
                let site = sites[Int(number) - 1]
                return (site.fileID, site.line)
            }
        }

        // Never deinitialized: a static's value lives as long as the process.
    }

    /// One place: a file and a line.
    private struct Site: Hashable {
        let fileID: String
        let line: Int
    }
}
