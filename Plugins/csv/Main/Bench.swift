import CSVTable
import Foundation

/// `tabdeck-csv --bench FILE`: times the engine directly (no protocol), for profiling.
enum Bench {
    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    static func time<T>(_ label: String, _ body: () throws -> T) rethrows -> T {
        let t0 = now()
        let v = try body()
        let padded = label.padding(toLength: 40, withPad: " ", startingAt: 0)
        FileHandle.standardError.write((padded + String(format: "%8.1f ms   ", (now() - t0) * 1000) + memory() + "\n").data(using: .utf8)!)
        return v
    }

    /// Peak and current RSS of this process, the current split into anon and file pages (MB).
    static func memory() -> String {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return "" }
        var v: [String: Int] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, ["VmHWM", "VmRSS", "RssAnon", "RssFile"].contains(String(parts[0])) {
                v[String(parts[0])] = Int(parts[1].split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "0").map { $0 / 1024 }
            }
        }
        return "peak \(v["VmHWM"] ?? -1) MB, now \(v["VmRSS"] ?? -1) MB (anon \(v["RssAnon"] ?? -1), file \(v["RssFile"] ?? -1))"
    }

    static func run(path: String, only: [String] = []) throws {
        let table = try time("open + index") { try CSVTable(path: path) }
        let n = table.rowCount ?? 0
        FileHandle.standardError.write("rows: \(n), columns: \(table.columns.map { "\($0.id):\($0.type.rawValue)" })\n".data(using: .utf8)!)
        func col(_ name: String) -> Int { table.columns.firstIndex { $0.id == name } ?? 0 }
        if only == ["find"] { return try find(table, n: n, sort: [CSVSortKey(column: col("amount"))]) }
        _ = try time("first page") { try table.page(offset: 0, limit: 100).rows.map { table.values(row: $0) } }
        let orders: [(String, [CSVSortKey])] = [
            ("amount desc, name asc", [CSVSortKey(column: col("amount"), descending: true), CSVSortKey(column: col("name"))]),
            ("amount desc, name asc (cached)", [CSVSortKey(column: col("amount"), descending: true), CSVSortKey(column: col("name"))]),
            ("name asc", [CSVSortKey(column: col("name"))]),
            ("category asc, date desc, id", [CSVSortKey(column: col("category")), CSVSortKey(column: col("date"), descending: true), CSVSortKey(column: col("id"))]),
            ("note asc", [CSVSortKey(column: col("note"))]),
            ("id desc", [CSVSortKey(column: col("id"), descending: true)]),
        ]
        for (label, keys) in orders where only.isEmpty || only.contains(where: { label.contains($0) }) {
            _ = try time("sort \(label)") { try table.page(offset: n / 2, limit: 100, sort: keys).rows.map { table.values(row: $0) } }
        }
        if !only.isEmpty { return }
        _ = try time("filter \"café\"") { try table.page(offset: 0, limit: 100, filter: "CAFÉ") }
        _ = try time("filter \"lovelace\" + sort amount") { try table.page(offset: 0, limit: 100, sort: [CSVSortKey(column: col("amount"))], filter: "lovelace") }
    }

    /// `tabdeck-csv --bench FILE find`: `find` against `filter` for texts in no row (a new
    /// text each time: filters are cached), natural and under `sort`, and a find whose first
    /// hit is the row past the middle (its id).
    static func find(_ table: CSVTable, n: Int, sort: [CSVSortKey]) throws {
        _ = try time("filter (warm-up)") { try table.page(offset: 0, limit: 100, filter: "warm-up none") }
        for i in 0..<3 {
            _ = try time("filter, text in no row") { try table.page(offset: 0, limit: 100, filter: "qzxv\(i)") }
            _ = try time("find, text in no row (wrap)") { try table.find("qzxw\(i)", from: 0, wrap: true) }
            _ = try time("find, first past the middle") { try table.find(String(n / 2 + 1), from: 0) }
        }
        _ = try time("sort (the order)") { try table.page(offset: n / 2, limit: 100, sort: sort) }
        for i in 0..<3 {
            _ = try time("sorted: filter, text in no row") { try table.page(offset: 0, limit: 100, sort: sort, filter: "qzxs\(i)") }
            _ = try time("sorted: find, text in no row (wrap)") { try table.find("qzxt\(i)", from: 0, wrap: true, sort: sort) }
        }
    }
}
