import SeededRandom
import ArgumentParser
import Foundation
import TabdeckProtocol

/// `tabdeck-bench roundtrip`: pages at random offsets through the real supervisor and a plugin.
///
/// Starts the plugin under `PluginSupervisor`, does the handshake and `open`, then times:
/// - `first_page_unsorted`: from spawning the plugin to the first unsorted page decoded
///   (spawn, `initialize`, `open`, `rows` at offset 0);
/// - `sorted_first_page`: the warm-up request that sets the sort (the plugin indexes the
///   whole file and sorts it);
/// - `page_roundtrip`: for each of `--pages` random offsets, from sending a `rows` request
///   under that sort to its result decoded as `RowsResult`.
/// Each figure is printed as one JSON object on one line.
struct RoundtripCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "roundtrip",
        abstract: "Time rows requests at random offsets through PluginSupervisor and a plugin.")

    @Option(help: "The plugin's executable (e.g. .build/release/tabdeck-csv).")
    var plugin: String

    @Option(help: "The CSV file the plugin opens (its open args are {\"path\": FILE}).")
    var file: String

    @Option(help: "How many random pages to time.")
    var pages = 1000

    @Option(help: "Rows per page.")
    var limit = 200

    @Option(help: "The sort order, as column:asc|desc separated by commas.")
    var sort = "name:asc,amount:desc"

    @Option(help: "Seed of the random offsets.")
    var seed: UInt64 = 7

    func validate() throws {
        guard pages > 0, limit > 0 else { throw ValidationError("--pages and --limit must be positive") }
        _ = try Self.sortKeys(sort)
    }

    func run() throws {
        let keys = try Self.sortKeys(sort)
        let path = URL(fileURLWithPath: file).standardizedFileURL.path
        let clock = ContinuousClock()

        let launched = clock.now
        let session = try BlockingPlugin(command: [plugin], workingDirectory: FileManager.default.currentDirectoryPath)
        defer { session.stop() }
        _ = try session.call("initialize", InitializeParams(hostName: "tabdeck-bench", hostVersion: "0").json)
        let description = try TableDescription(try session.call("open", ["args": ["path": .string(path)]]))
        var request = RowsRequest(table: description.table, offset: 0, limit: limit)
        _ = try RowsResult(try session.call("rows", request.json))
        let firstPage = clock.now - launched
        Self.emit("first_page_unsorted", ["ms": .double(Self.milliseconds(firstPage))])

        request.sort = keys
        request.generation = 1
        let sortStart = clock.now
        let sorted = try RowsResult(try session.call("rows", request.json))
        let sortTime = clock.now - sortStart
        guard let total = sorted.total, total > 0 else {
            throw ValidationError("the plugin did not give a total with the sorted page")
        }
        Self.emit("sorted_first_page", ["rows": .int(Int64(total)), "s": .double(Self.milliseconds(sortTime) / 1000)])

        var random = SplitMix(seed: seed)
        var samples: [Double] = []
        samples.reserveCapacity(pages)
        for _ in 0..<pages {
            request.offset = Int.random(in: 0...max(0, total - limit), using: &random)
            let start = clock.now
            let page = try RowsResult(try session.call("rows", request.json))
            samples.append(Self.milliseconds(clock.now - start))
            guard page.rows.count == min(limit, total - request.offset) else {
                throw ValidationError("offset \(request.offset): got \(page.rows.count) rows")
            }
        }
        let timings = Timings(samples)
        Self.emit("page_roundtrip", [
            "rows": .int(Int64(total)), "pages": .int(Int64(pages)), "limit": .int(Int64(limit)),
            "median_ms": .double(timings.median), "p99_ms": .double(timings.percentile(0.99)),
            "min_ms": .double(timings.percentile(0)), "max_ms": .double(timings.percentile(1)),
        ])
    }

    /// Parses `name:asc,amount:desc`.
    static func sortKeys(_ text: String) throws -> [SortKey] {
        try text.split(separator: ",").map { part in
            let pieces = part.split(separator: ":", maxSplits: 1).map(String.init)
            let direction = pieces.count > 1 ? SortDirection(rawValue: pieces[1]) : .ascending
            guard let direction, let column = pieces.first, !column.isEmpty else {
                throw ValidationError("--sort: expected column:asc or column:desc, got \"\(part)\"")
            }
            return SortKey(column, direction)
        }
    }

    static func milliseconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }

    /// Prints `{"bench":NAME,...fields}` on one line.
    static func emit(_ name: String, _ fields: JSONObject) {
        var object: JSONObject = ["bench": .string(name)]
        for (key, value) in fields { object[key] = value }
        print(JSONWriter.string(.object(object)))
    }
}
