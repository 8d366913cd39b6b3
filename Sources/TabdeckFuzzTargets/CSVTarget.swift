import Foundation
import CSVTable
import TabdeckProtocol

/// The csv plugin's parser, on a file of any origin.
///
/// Invariants: any bytes give rows (the parser is lenient, RFC 4180 plus what spreadsheets
/// write) or an error; the parsed fields written back as CSV (every field quoted) and parsed
/// again are the same fields, row for row.
enum CSVTarget {
    static let target = FuzzTarget(
        name: "csv",
        summary: "the csv parser: rows or an error; fields written back and parsed again are the same",
        check: check)

    /// One scratch file per process, rewritten for each input.
    static let path = NSTemporaryDirectory() + "/tabdeck-fuzz-csv-\(getpid()).csv"

    static func check(_ bytes: [UInt8]) -> FuzzViolation? {
        let rows: [[String]]
        switch parse(bytes) {
        case .failure(let error):
            return error.message.isEmpty ? FuzzViolation("csv", "an error says what is wrong", excerpt(bytes)) : nil
        case .success(let parsed):
            rows = parsed
        }
        let width = rows.map(\.count).max() ?? 0
        var text = (0..<max(width, 1)).map { "c\($0)" }.joined(separator: ",") + "\n"
        for row in rows {
            text += row.map { "\"" + $0.replacingScalar("\"", with: "\"\"") + "\"" }.joined(separator: ",") + "\n"
        }
        switch parse(Array(text.utf8)) {
        case .failure(let error):
            return FuzzViolation("csv", "fields written back parse", "\(excerpt(bytes)): \(error)")
        case .success(let again):
            guard again == rows else {
                return FuzzViolation("csv", "fields written back and parsed again are the same",
                                     "\(excerpt(bytes)): \(rows.prefix(4)) became \(again.prefix(4))")
            }
        }
        return nil
    }

    /// The rows' fields (the header excluded), with a comma delimiter.
    static func parse(_ bytes: [UInt8]) -> Result<[[String]], CSVError> {
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
            fatalError("cannot write \(path)")
        }
        defer { try? FileManager.default.removeItem(atPath: path) }
        do {
            let table = try CSVTable(path: path, delimiter: 0x2C)
            defer { table.close() }
            let count = try table.waitUntilIndexed()
            return .success((0..<count).map { table.strings(row: $0).prefix { $0 != nil }.map { $0! } })
        } catch let error as CSVError {
            return .failure(error)
        } catch {
            return .failure(CSVError("\(error)"))
        }
    }
}
