import RippleBenchC

/// What one column of a threads row measured: the threads of its fastest sample.
public struct ThreadFigures: Sendable, Equatable {
    /// Each reader's reads, and the reader's own time (milliseconds).
    public var reads: [Int] = []
    public var readerMilliseconds: [Double] = []
    /// The writer's writes and its time (0 without a writer).
    public var writes = 0
    public var writerMilliseconds = 0.0
    /// From the first thread's start to the last one's end.
    public var wallMilliseconds = 0.0
    /// Computes of the derivation in the sample.
    public var computes = 0
    /// Reads per second ÷ those of the same read with one thread (rows with 2 readers).
    public var overOneThread: Double?
    /// Writes per second ÷ those of the writer alone (rows with readers and a writer).
    public var writesOverAlone: Double?
    /// The column ran this many times the row's reads; its milliseconds in the table are scaled back down.
    public var scale = 1

    public init() {}

    /// The figures of the C side's run.
    public init(_ result: rb_threads_result_t) {
        let readers = Int(result.readers)
        reads = withUnsafeBytes(of: result.reads) { Array($0.bindMemory(to: UInt64.self).prefix(readers)) }.map {
            Int($0)
        }
        readerMilliseconds = withUnsafeBytes(of: result.reader_ms) {
            Array($0.bindMemory(to: Double.self).prefix(readers))
        }
        writes = Int(result.writes)
        writerMilliseconds = result.writer_ms
        wallMilliseconds = result.wall_ms
        computes = Int(result.result.count)
    }

    /// All readers' reads per second, over the sample's wall time.
    public var readsPerSecond: Double {
        wallMilliseconds > 0 ? Double(reads.reduce(0, +)) * 1e3 / wallMilliseconds : 0
    }

    /// Each reader's reads per second, over its own time.
    public var readsPerSecondPerThread: [Double] {
        zip(reads, readerMilliseconds).map { $1 > 0 ? Double($0) * 1e3 / $1 : 0 }
    }

    /// The writer's writes per second, over its own time (nil without a writer).
    public var writesPerSecond: Double? {
        writes > 0 && writerMilliseconds > 0 ? Double(writes) * 1e3 / writerMilliseconds : nil
    }
}

extension ThreadFigures: Encodable {
    private enum CodingKeys: String, CodingKey {
        case reads, readerMilliseconds, writes, writerMilliseconds, wallMilliseconds, computes, overOneThread
        case writesOverAlone, scale, readsPerSecond, readsPerSecondPerThread, writesPerSecond
    }

    /// The stored figures and the rates derived from them.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(reads, forKey: .reads)
        try container.encode(readerMilliseconds, forKey: .readerMilliseconds)
        try container.encode(writes, forKey: .writes)
        try container.encode(writerMilliseconds, forKey: .writerMilliseconds)
        try container.encode(wallMilliseconds, forKey: .wallMilliseconds)
        try container.encode(computes, forKey: .computes)
        try container.encodeIfPresent(overOneThread, forKey: .overOneThread)
        try container.encodeIfPresent(writesOverAlone, forKey: .writesOverAlone)
        try container.encode(scale, forKey: .scale)
        try container.encode(readsPerSecond, forKey: .readsPerSecond)
        try container.encode(readsPerSecondPerThread, forKey: .readsPerSecondPerThread)
        try container.encodeIfPresent(writesPerSecond, forKey: .writesPerSecond)
    }
}
