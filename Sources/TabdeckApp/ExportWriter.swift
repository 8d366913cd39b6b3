import Foundation
import TabdeckCore
import TabdeckProtocol

/// Writes an export file as rows stream in: CSV (RFC 4180) or a JSON array of objects.
final class ExportWriter {
    let path: String
    let format: Command.ExportFormat
    let columns: [ColumnSpec]
    private let handle: FileHandle
    private var buffer: [UInt8] = []
    private var first = true

    init(path: String, format: Command.ExportFormat, columns: [ColumnSpec]) throws {
        self.path = path; self.format = format; self.columns = columns
        guard FileManager.default.createFile(atPath: path, contents: nil) else {
            throw AppError.store("export: cannot create \(path)")
        }
        guard let handle = FileHandle(forWritingAtPath: path) else { throw AppError.store("export: cannot open \(path)") }
        self.handle = handle
        switch format {
        case .csv: writeCSVRow(columns.map { .string($0.id) }, header: true)
        case .json: buffer.append(UInt8(ascii: "["))
        }
    }

    func write(_ rows: [[JSONValue]]) throws {
        for row in rows {
            switch format {
            case .csv: writeCSVRow(row)
            case .json:
                buffer.append(contentsOf: Array((first ? "\n" : ",\n").utf8))
                first = false
                var object = JSONObject()
                for (i, c) in columns.enumerated() { object[c.id] = i < row.count ? row[i] : .null }
                JSONWriter.write(.object(object), into: &buffer)
            }
        }
        try flush()
    }

    func finish() throws {
        if format == .json { buffer.append(contentsOf: Array("\n]\n".utf8)) }
        try flush()
        try handle.close()
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        try handle.write(contentsOf: buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    private func writeCSVRow(_ cells: [JSONValue], header: Bool = false) {
        TableFormat.appendCSVRecord(cells, columns: columns, header: header, into: &buffer)
        buffer.append(UInt8(ascii: "\n"))
    }
}
