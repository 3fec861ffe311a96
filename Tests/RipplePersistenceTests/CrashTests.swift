import Foundation
import Testing

/// SIGKILL at random moments while a child process writes ever longer values: the file always holds one complete
/// value that was written, and never a shorter one than before the kill.
///
/// `RIPPLE_PERSISTENCE_KILLS` sets the number of kills (50 by default); `RIPPLE_PERSISTENCE_SEED` replays a run.
@Suite struct CrashTests {
    @Test func aKilledWriterAlwaysLeavesACompleteValue() throws {
        let kills = ProcessInfo.processInfo.environment["RIPPLE_PERSISTENCE_KILLS"].flatMap(Int.init) ?? 50
        let seed = ProcessInfo.processInfo.environment["RIPPLE_PERSISTENCE_SEED"].flatMap(UInt64.init)
            ?? UInt64.random(in: 1...UInt64.max)
        var generator = SplitMix(seed: seed)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let file = folder.file("values.json")
        var longest = 0
        var everWritten = false
        for kill in 0..<kills {
            let child = Process()
            child.executableURL = URL(fileURLWithPath: probePath)
            child.arguments = ["grow", file.path]
            let output = Pipe()
            child.standardOutput = output
            try child.run()
            // Its first line says what it loaded: the value the last kill left.
            let line = String(decoding: output.fileHandleForReading.readLine(), as: UTF8.self)
            #expect(line == "loaded \(longest)", "seed \(seed), kill \(kill)")
            usleep(UInt32.random(in: 0...40_000, using: &generator))
            Foundation.kill(child.processIdentifier, SIGKILL)
            child.waitUntilExit()
            #expect(child.terminationReason == .uncaughtSignal, "seed \(seed)")
            guard let bytes = FileManager.default.contents(atPath: file.path) else {
                #expect(!everWritten, "seed \(seed), kill \(kill): the file vanished")
                continue
            }
            everWritten = true
            let header = Data("ripple-persisted 1\n".utf8)
            #expect(bytes.starts(with: header), "seed \(seed), kill \(kill): no header")
            let values = try JSONDecoder().decode([Int].self, from: bytes.dropFirst(header.count))
            #expect(values == Array(0..<values.count), "seed \(seed), kill \(kill): not a value that was written")
            #expect(values.count >= longest, "seed \(seed), kill \(kill): shorter than before")
            longest = values.count
        }
        #expect(everWritten, "seed \(seed): no kill left a value")
        print("CrashTests: \(kills) kills, seed \(seed), last value of \(longest) elements")
    }
}

extension FileHandle {
    /// The bytes up to the next newline (without it), read one at a time.
    func readLine() -> Data {
        var line = Data()
        while let byte = try? read(upToCount: 1), let first = byte.first, first != UInt8(ascii: "\n") {
            line.append(first)
        }
        return line
    }
}

/// A small seeded generator, so that a failing run can be replayed.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
