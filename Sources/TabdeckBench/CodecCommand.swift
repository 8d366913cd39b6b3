import ArgumentParser
import Foundation
import TabdeckPluginKit
import TabdeckProtocol

/// `tabdeck-bench codec`: rows per second through the protocol codec.
///
/// - decode: the host's path for a `rows` reply. The bytes go through a `LineSplitter` in
///   64 KiB chunks (as the supervisor's stdout reader thread reads them), each line through
///   `MessageCodec.decode` (on the reader thread in the host), then the response's result
///   through `RowsResult(_:)` (what the core does with it on the main thread).
/// - encode: the Swift plugin kit's path for a `rows` reply, from the `RowsResult` a
///   `TableDataSource` returns to the bytes of the line (`LineEncoder.rowsReply`), without
///   the write(2).
/// - foundation: the same lines through Foundation's `JSONDecoder` into Codable structs, as
///   the peer figure.
///
/// Each figure is the median of `--runs` runs, with min and max, and the median per second of
/// the measuring thread's CPU time (`cpu_median`); one JSON object per figure is printed after
/// the human-readable lines.
struct CodecCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "codec", abstract: "Rows per second decoded by the host and encoded by the plugin kit.")

    @Option(help: "Rows per run.")
    var rows = 400_000

    @Option(help: "Rows per `rows` reply (one line each).")
    var rowsPerLine = 200

    @Option(help: "Timed runs per figure (after one warm-up run).")
    var runs = 7

    @Option(help: "Rows per run for the Foundation JSONDecoder peer (0 leaves it out).")
    var foundationRows = 40_000

    @Option(help: "Which figures: any of decode, message, encode, foundation, comma-separated.")
    var only = "decode,message,encode,foundation"

    @Option(help: "Decoded replies kept alive while the next ones are decoded, as the core's page cache keeps pages (32 of 200 rows: 6,400 rows, the cache's bound).")
    var keep = 32

    @Option(help: "Seed of the generated data.")
    var seed: UInt64 = 42

    func validate() throws {
        guard rows > 0, rowsPerLine > 0, runs > 0, keep > 0, foundationRows >= 0 else {
            throw ValidationError("--rows, --rows-per-line, --runs and --keep must be positive")
        }
    }

    func run() throws {
        let pages = CodecData.pages(rows: rows, rowsPerLine: rowsPerLine, seed: seed)
        var stream: [UInt8] = []
        for (i, page) in pages.enumerated() { stream += CodecPaths.encode(page, id: Int64(i + 1)) }

        // The decode path must give back exactly the rows that were encoded.
        let decoded = try CodecPaths.decode(stream)
        guard decoded == pages else { throw CodecBenchError("decoded rows differ from the encoded ones") }

        let wanted = Set(only.split(separator: ",").map(String.init))
        var figures: [CodecFigure] = []
        if wanted.contains("decode") {
            figures.append(try measure("codec_decode_rows_per_s", "decode (host: LineSplitter → MessageCodec → RowsResult)",
                                       bytes: stream.count) { try CodecPaths.decodeKeepingRecent(stream, keep: keep) })
        }
        if wanted.contains("message") {
            figures.append(try measure("codec_decode_message_rows_per_s", "  of which bytes → Message (reader thread)",
                                       bytes: stream.count) { try CodecPaths.decodeMessages(stream) })
        }
        if wanted.contains("encode") {
            figures.append(try measure("codec_encode_rows_per_s", "encode (plugin kit: RowsResult → line)", bytes: stream.count) {
                var count = 0
                for (i, page) in pages.enumerated() {
                    let line = CodecPaths.encode(page, id: Int64(i + 1))
                    count += line.isEmpty ? 0 : page.rows.count
                }
                return count
            })
        }
        if foundationRows > 0 && wanted.contains("foundation") {
            let small = CodecData.pages(rows: foundationRows, rowsPerLine: rowsPerLine, seed: seed)
            var lines: [Data] = []
            for (i, page) in small.enumerated() { lines.append(Data(CodecPaths.encode(page, id: Int64(i + 1)).dropLast())) }
            let bytes = lines.reduce(0) { $0 + $1.count }
            figures.append(try measure("codec_foundation_decode_rows_per_s", "peer: Foundation JSONDecoder (Codable)",
                                       bytes: bytes) { try FoundationPeer.decode(lines) })
        }

        let line = String(repeating: "-", count: 78)
        print("codec: \(rows) rows of 6 cells, \(rowsPerLine) rows per line, \(stream.count) bytes, \(runs) runs")
        print("wall-clock medians; \"per CPU second\" counts only the measuring thread's CPU time")
        print(line)
        for f in figures {
            print(f.label.padding(toLength: 60, withPad: " ", startingAt: 0)
                  + String(format: "%10.0f rows/s (min %.0f, max %.0f; per CPU second %.0f)", f.median, f.min, f.max, f.cpuMedian))
        }
        print(line)
        for f in figures { print(f.json) }
    }

    /// Runs `body` once to warm up, then `runs` times; `body` returns the rows it handled.
    func measure(_ name: String, _ label: String, bytes: Int, _ body: () throws -> Int) throws -> CodecFigure {
        let expected = try body()
        var rates: [Double] = []
        var cpuRates: [Double] = []
        for _ in 0..<runs {
            let start = DispatchTime.now().uptimeNanoseconds
            let cpuStart = Self.threadCPUNanoseconds()
            let count = try body()
            let cpuSeconds = Double(Self.threadCPUNanoseconds() - cpuStart) / 1e9
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            guard count == expected else { throw CodecBenchError("\(name): \(count) rows, expected \(expected)") }
            rates.append(Double(count) / seconds)
            cpuRates.append(Double(count) / cpuSeconds)
        }
        rates.sort()
        cpuRates.sort()
        return CodecFigure(name: name, label: label, rows: expected, bytes: bytes, runs: runs,
                           median: rates[rates.count / 2], min: rates.first!, max: rates.last!,
                           cpuMedian: cpuRates[cpuRates.count / 2])
    }

    /// CPU time of the calling thread: unlike the wall clock, not stretched by other processes
    /// on a busy machine.
    static func threadCPUNanoseconds() -> UInt64 {
        var t = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
        return UInt64(t.tv_sec) * 1_000_000_000 + UInt64(t.tv_nsec)
    }
}

/// One measured figure.
struct CodecFigure {
    var name: String
    var label: String
    var rows: Int
    var bytes: Int
    var runs: Int
    var median: Double
    var min: Double
    var max: Double
    /// Median of rows per second of the thread's CPU time.
    var cpuMedian: Double

    var json: String {
        String(format: #"{"bench":"%@","unit":"rows/s","median":%.0f,"min":%.0f,"max":%.0f,"cpu_median":%.0f,"runs":%d,"rows":%d,"bytes":%d}"#,
               name, median, min, max, cpuMedian, runs, rows, bytes)
    }
}

struct CodecBenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
