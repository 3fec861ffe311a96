import Foundation
import Ripple
import RippleBenchC

/// One runtime shared by threads, through Ripple's Swift API: the same atom, derivation (2 * atom + 1), threads
/// and checks as the C side (RippleBenchC/threads.c). Readers get `value` on `Thread`s of their own; the writer
/// sets the atom's `value`, which is a batch of its own.
public enum RippleThreads {
    public static let defaultSamples = 5
    /// Reads per reader thread in the rows without a writer.
    public static let defaultReads = 5_000_000
    /// The writer's writes in one sample.
    public static let defaultWrites = 200_000

    /// Reads `atom` or `derived` (`subject`) `reads` times on each of `readers` threads, with no writer.
    public static func read(
        _ subject: rb_threads_subject_t, readers: Int, reads: Int = defaultReads, samples: Int = defaultSamples
    ) -> (ShapeResult, ThreadFigures) {
        let runtime = Runtime()
        return withIsolatedRuntime(using: runtime) {
            let nodes = Nodes()
            nodes.source.value = 20
            nodes.source.value = 21
            return subject == RB_THREADS_ATOM
                ? readAlone(nodes.source, expected: 21, nodes: nodes, readers: readers, reads: reads, samples: samples)
                : readAlone(nodes.derived, expected: 43, nodes: nodes, readers: readers, reads: reads, samples: samples)
        }
    }

    /// Writes the atom `writes` times on one thread while `readers` threads read the derivation until it is done;
    /// readers check every value as the C side does (rb_threads_write_run), stale reads included.
    public static func write(readers: Int, writes: Int = defaultWrites, samples: Int = defaultSamples)
        -> (ShapeResult, ThreadFigures)
    {
        let runtime = Runtime()
        return withIsolatedRuntime(using: runtime) {
            readWhileWritten(nodes: Nodes(), readers: readers, writes: writes, samples: samples)
        }
    }

    /// The atom and its derivation; `computes` counts the derivation's runs (bumped only inside its body, which
    /// the engine never runs on two threads at once).
    final class Nodes {
        let computes = Counter()
        let source = atom(0)
        let derived: Derivation<Int>

        init() {
            let computes = self.computes, source = self.source
            derived = derive {
                computes.count += 1
                return 2 * source.value + 1
            }
        }
    }

    /// One thread's record of a sample.
    struct Record {
        var start: UInt64 = 0
        var end: UInt64 = 0
        var count = 0
        /// Reads that returned a value that cannot have existed or was stale, the first such value and the least
        /// value it should have been.
        var wrong = 0
        var wrongValue = 0
        var leastExpected = 0
    }

    /// The threads of a sample and their records (each thread writes its own).
    final class Crew: @unchecked Sendable {
        let crew: OpaquePointer
        let records: UnsafeMutablePointer<Record>
        let threads: Int

        init(threads: Int) {
            self.threads = threads
            crew = rb_crew_create(Int32(threads))
            records = .allocate(capacity: threads)
            records.initialize(repeating: Record(), count: threads)
        }

        deinit {
            rb_crew_destroy(crew)
            records.deinitialize(count: threads)
            records.deallocate()
        }

        /// Runs `body(index)` on `threads` new threads (`last` on the last one, when given) and waits for them.
        func run(_ body: @escaping @Sendable (Int) -> Void, last: (@Sendable (Int) -> Void)? = nil) {
            records.update(repeating: Record(), count: threads)
            let finished = DispatchSemaphore(value: 0)
            for index in 0..<threads {
                let work = index == threads - 1 ? (last ?? body) : body
                Thread {
                    work(index)
                    finished.signal()
                }.start()
            }
            for _ in 0..<threads { finished.wait() }
        }

        /// The sample's figures; readers are the first `readers` threads.
        func figures(readers: Int) -> ThreadFigures {
            var figures = ThreadFigures()
            for index in 0..<readers {
                figures.reads.append(records[index].count)
                figures.readerMilliseconds.append(Double(records[index].end - records[index].start) / 1e6)
            }
            let first = (0..<threads).map { records[$0].start }.min() ?? 0
            let end = (0..<threads).map { records[$0].end }.max() ?? 0
            figures.wallMilliseconds = Double(end - first) / 1e6
            return figures
        }
    }

    static func readAlone<Node: ReadableNode<Int> & Sendable>(
        _ node: Node, expected: Int, nodes: Nodes, readers: Int, reads: Int, samples: Int
    ) -> (ShapeResult, ThreadFigures) {
        var result = ShapeResult()
        var best: ThreadFigures?
        let verifier = Verifier()
        verifier.expect(node.value == expected, "before the readers: read \(node.value), expected \(expected)")
        let crew = Crew(threads: readers)
        for _ in 0..<max(samples, 1) {
            let computes = nodes.computes.count
            crew.run { index in
                var wrong = 0
                var value = expected
                let start = rb_crew_start(crew.crew)
                for _ in 0..<reads {
                    value = node.value
                    wrong &+= value == expected ? 0 : 1
                }
                crew.records[index] = Record(
                    start: start, end: now(), count: reads, wrong: wrong, wrongValue: value, leastExpected: expected)
            }
            for index in 0..<readers where crew.records[index].wrong != 0 {
                let record = crew.records[index]
                verifier.expect(
                    false, "\(record.wrong) of \(reads) reads were not \(expected) (one read \(record.wrongValue))")
            }
            verifier.expect(
                nodes.computes.count == computes,
                "the derivation recomputed \(nodes.computes.count - computes) times during the reads")
            verifier.expect(node.value == expected, "after the readers: read \(node.value), expected \(expected)")
            let figures = crew.figures(readers: readers)
            if best == nil || figures.wallMilliseconds < best!.wallMilliseconds { best = figures }
        }
        result.failures = verifier.failures
        result.milliseconds = best?.wallMilliseconds ?? 0
        result.operations = reads * readers
        result.value = Double(expected)
        return (result, best ?? ThreadFigures())
    }

    static func readWhileWritten(nodes: Nodes, readers: Int, writes: Int, samples: Int) -> (ShapeResult, ThreadFigures) {
        var result = ShapeResult()
        var best: ThreadFigures?
        let verifier = Verifier()
        let source = nodes.source, derived = nodes.derived
        verifier.expect(derived.value == 1, "before the writes: read \(derived.value), expected 1")
        let crew = Crew(threads: readers + 1)
        let readsPerLook = Int(RB_THREADS_READS_PER_LOOK)
        let publishEvery = Int(RB_THREADS_PUBLISH_EVERY)
        for _ in 0..<max(samples, 1) {
            let base = source.value
            let computes = nodes.computes.count
            rb_crew_rearm(crew.crew)
            crew.run(
                { index in
                    let highest = 2 * (base + writes) + 1
                    var least = 2 * base + 1
                    var record = Record()
                    record.start = rb_crew_start(crew.crew)
                    while true {
                        let published = Int(rb_crew_published(crew.crew))
                        if published == writes { break }
                        least = max(least, 2 * (base + published) + 1)
                        for _ in 0..<readsPerLook {
                            let value = derived.value
                            if _slowPath(value < least || value > highest || value & 1 == 0) {
                                if record.wrong == 0 { (record.wrongValue, record.leastExpected) = (value, least) }
                                record.wrong += 1
                            }
                            least = value
                        }
                        record.count += readsPerLook
                    }
                    record.end = now()
                    crew.records[index] = record
                },
                last: { index in
                    let start = rb_crew_start(crew.crew)
                    for i in 1...writes {
                        source.value = base + i
                        if i % publishEvery == 0 { rb_crew_publish(crew.crew, Int64(i)) }
                    }
                    crew.records[index] = Record(start: start, end: now(), count: writes)
                    rb_crew_publish(crew.crew, Int64(writes))
                })
            for index in 0..<readers where crew.records[index].wrong != 0 {
                let record = crew.records[index]
                verifier.expect(
                    false,
                    "read \(record.wrongValue), expected \(record.leastExpected) ... \(2 * (base + writes) + 1) (odd): the "
                        + "atom went from \(base) to \(base + writes); \(record.wrong) such reads")
            }
            let last = base + writes
            let (atomValue, derivedValue) = (source.value, derived.value)
            verifier.expect(
                atomValue == last && derivedValue == 2 * last + 1,
                "after \(writes) writes from \(base): atom \(atomValue), derivation \(derivedValue); expected "
                    + "\(last) and \(2 * last + 1)")
            let recomputes = nodes.computes.count - computes
            verifier.expect(
                recomputes >= 1 && recomputes <= writes, "the derivation computed \(recomputes) times for \(writes) writes")
            var figures = crew.figures(readers: readers)
            let writer = crew.records[readers]
            figures.writes = writes
            figures.writerMilliseconds = Double(writer.end - writer.start) / 1e6
            figures.computes = recomputes
            if best == nil || figures.writerMilliseconds < best!.writerMilliseconds { best = figures }
        }
        result.failures = verifier.failures
        result.milliseconds = best?.writerMilliseconds ?? 0
        result.operations = writes
        result.count = best?.computes ?? 0
        return (result, best ?? ThreadFigures())
    }
}
