internal import CRippleThreadState

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
    /// The common case, a creation at the place of the last one (from any thread: a loop, the members of one
    /// declaration), takes no lock: one load and the comparison of the line and the string (`==` of two copies of
    /// one string literal compares two words).
    /// Inlined into the node's `init` (about 15 instructions of a call of its own per node); the table's look-up
    /// stays out of line.
    @inline(__always)
    static func number(fileID: borrowing String, line: Int) -> UInt32 {
        if line == 0 && fileID.isEmpty { return 0 }
        if let last = ripple_pointer_load_acquire(table.last) {
            let number = Unmanaged<Site>.fromOpaque(last)._withUnsafeGuaranteedRef {
                $0.line == line && $0.fileID == fileID ? $0.number : 0
            }
            if number != 0 { return number }
        }
        return numberFromTable(fileID: fileID, line: line)
    }

    /// `number(fileID:line:)` when the place is not the last one looked up.
    @inline(never)
    private static func numberFromTable(fileID: String, line: Int) -> UInt32 {
        table.number(fileID: fileID, line: line)
    }

    /// The place numbered `number`: `("", 0)` for 0.
    static func site(_ number: UInt32) -> (fileID: String, line: Int) {
        if number == 0 { return ("", 0) }
        return table.site(number)
    }

    private static let table = Table()

    /// The places seen so far, behind a lock, and the last one looked up, published without it.
    private final class Table: @unchecked Sendable {
        private let lock = ParkingLock()
        /// The places, by number minus 1. Never shrinks: it keeps alive every `Site` that `last` ever pointed to.
        private var sites: [Site] = []
        /// The number of each place.
        private var numbers: [Key: UInt32] = [:]
        /// The `Site` looked up last (nil before the first), read by `number(fileID:line:)` without the lock:
        /// stored with a release after the `Site` was made, loaded with an acquire. Allocated once; the table
        /// lives as long as the process.
        let last: UnsafeMutablePointer<UnsafeMutableRawPointer?> = {
            let slot = UnsafeMutablePointer<UnsafeMutableRawPointer?>.allocate(capacity: 1)
            slot.initialize(to: nil)
            return slot
        }()

        func number(fileID: String, line: Int) -> UInt32 {
            lock.withLock {
                let key = Key(fileID: fileID, line: line)
                let site: Site
                if let known = numbers[key] {
                    site = sites[Int(known) - 1]
                } else {
                    precondition(
                        sites.count < Int(CreationSites.limit),
                        "Ripple: nodes were created at more than \(CreationSites.limit) places (file and line).")
                    site = Site(fileID: fileID, line: line, number: UInt32(sites.count + 1))
                    sites.append(site)
                    numbers[key] = site.number
                }
                ripple_pointer_store_release(last, Unmanaged.passUnretained(site).toOpaque())
                return site.number
            }
        }

        func site(_ number: UInt32) -> (fileID: String, line: Int) {
            lock.withLock {
                let site = sites[Int(number) - 1]
                return (site.fileID, site.line)
            }
        }
    }

    /// One place and its number; immutable, never freed once made (`Table.sites`).
    private final class Site: Sendable {
        let fileID: String
        let line: Int
        let number: UInt32

        init(fileID: String, line: Int, number: UInt32) {
            self.fileID = fileID
            self.line = line
            self.number = number
        }
    }

    /// A place, as the table's key.
    private struct Key: Hashable {
        let fileID: String
        let line: Int
    }
}
