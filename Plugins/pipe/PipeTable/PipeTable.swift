import TabdeckProtocol

/// A table read from a stream of bytes as they arrive (a pipe): the format recognised from the
/// first line, the columns and their types decided from a sample, then rows.
///
/// Pure: bytes in (``feed(_:)``, ``finish()``), columns and rows out. The plugin's edge reads
/// the pipe and sends what this gives. Row ids are the record's number in the stream (`"1"` is
/// the first row after the header), so they are unique and stable.
public struct PipeTable: Sendable {
    /// Records kept before the columns are decided (their types come from these).
    public let sampleLimit: Int
    public private(set) var format: StreamFormat?
    /// The columns, once decided (``describe()``).
    public private(set) var columns: [ColumnSpec]?
    /// True once the stream ended.
    public private(set) var ended = false
    /// Lines that could not be read (JSON lines that do not parse): line number and why.
    public private(set) var skipped: [(line: Int, reason: String)] = []
    /// JSON keys first seen after the columns were decided (their values are not shown), in
    /// order of appearance.
    public private(set) var lateKeys: [String] = []

    /// Bytes before the format is known (up to the first non-blank line).
    private var head: [UInt8] = []
    private var pendingLine: [UInt8] = []
    private var lineNumber = 0
    private var delimited: DelimitedRecords?
    private var header: [String]?
    private var pending: [Pending] = []
    private var aligned: AlignedColumns?
    private var jsonKeys: [String] = []
    private var types: [PipeColumnType] = []
    private var nextRowID = 1

    private enum Pending: Sendable {
        case fields([String?])
        case line(String)
        case object(JSONObject)
    }

    public init(sampleLimit: Int = 1000) { self.sampleLimit = sampleLimit }

    /// True when the columns can be decided: the sample is full or the stream ended.
    public var sampleComplete: Bool { ended || (format != nil && pending.count >= sampleLimit) }

    /// Rows waiting to be taken (after ``describe()``) or in the sample (before).
    public var pendingCount: Int { pending.count }

    /// Feeds the next bytes of the stream.
    public mutating func feed(_ bytes: [UInt8]) {
        guard format == nil else { return route(bytes[...]) }
        head.append(contentsOf: bytes)
        if Self.firstLine(of: head) != nil { start() }
    }

    /// The stream ended: a last line without a line end counts.
    public mutating func finish() {
        guard !ended else { return }
        if format == nil {
            if head.contains(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }) {
                head.append(0x0A)
                start()
            }
        }
        if var parser = delimited {
            if let last = parser.finish() { take(fields: last) }
            delimited = parser
        } else if !pendingLine.isEmpty {
            take(line: pendingLine)
            pendingLine = []
        }
        ended = true
    }

    /// Decides the columns from the sample (call once ``sampleComplete``, or earlier when the
    /// host cannot wait): names from the header (or the JSON keys), types from the sample.
    public mutating func describe() -> [ColumnSpec] {
        if let columns { return columns }
        var names: [String]
        var sampleCells: [[String?]]
        switch format {
        case .delimited?:
            names = (header ?? []).enumerated().map { $0.element.isEmpty ? "column \($0.offset + 1)" : $0.element }
            sampleCells = pending.map { if case .fields(let f) = $0 { fit(f, names.count) } else { [] } }
        case .aligned?:
            let lines = pending.compactMap { if case .line(let l) = $0 { l } else { nil } }
            let columns = AlignedColumns(header: header?.first ?? "", sample: lines)
            aligned = columns
            names = columns.names
            sampleCells = lines.map(columns.split)
        case .jsonLines?:
            for case .object(let o) in pending { for key in o.keys where !jsonKeys.contains(key) { jsonKeys.append(key) } }
            names = jsonKeys
            sampleCells = pending.map { if case .object(let o) = $0 { jsonKeys.map { Self.text(o[$0]) } } else { [] } }
        case nil:
            names = []
            sampleCells = []
        }
        if names.isEmpty { names = ["value"] }
        names = Self.unique(names)
        types = names.indices.map { i in
            if format == .jsonLines { return Self.jsonType(pending.lazy.map { if case .object(let o) = $0 { o[names[i]] } else { nil } }) }
            return PipeColumnType.infer(sampleCells.lazy.map { i < $0.count ? $0[i] : nil })
        }
        let specs = zip(names, types).map { name, type in
            ColumnSpec(id: name, title: name, type: Self.protocolType(type),
                       alignment: type == .integer || type == .decimal ? .right : .left)
        }
        columns = specs
        return specs
    }

    /// The rows that arrived since the last call (none before ``describe()``).
    public mutating func takeRows() -> [Row] {
        guard columns != nil else { return [] }
        let rows = pending.map { row($0) }
        pending.removeAll(keepingCapacity: true)
        return rows
    }

    // MARK: Reading

    /// The end of the first non-blank line of `bytes`, if it has arrived.
    private static func firstLine(of bytes: [UInt8]) -> Int? {
        var start = 0
        while let nl = bytes[start...].firstIndex(of: 0x0A) {
            if bytes[start..<nl].contains(where: { $0 != 0x20 && $0 != 0x0D && $0 != 0x09 && $0 != 0xEF && $0 != 0xBB && $0 != 0xBF }) { return nl }
            start = nl + 1
        }
        return nil
    }

    private mutating func start() {
        var bytes = head[...]
        head = []
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }
        let end = Self.firstLine(of: Array(bytes)).map { bytes.startIndex + $0 } ?? bytes.endIndex
        var first = Array(bytes[..<end])
        while let l = first.last, l == 0x0D { first.removeLast() }
        let lineStart = first.lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
        format = StreamFormat.sniff(firstLine: Array(first[lineStart...]))
        if case .delimited(let d)? = format { delimited = DelimitedRecords(delimiter: d) }
        route(bytes)
    }

    private mutating func route(_ bytes: ArraySlice<UInt8>) {
        if var parser = delimited {
            let records = parser.feed(bytes)
            delimited = parser
            for record in records { take(fields: record) }
            return
        }
        var rest = bytes
        while let nl = rest.firstIndex(of: 0x0A) {
            pendingLine.append(contentsOf: rest[..<nl])
            take(line: pendingLine)
            pendingLine.removeAll(keepingCapacity: true)
            rest = rest[(nl + 1)...]
        }
        pendingLine.append(contentsOf: rest)
    }

    private mutating func take(fields: [String]) {
        guard header != nil else { header = fields; return }
        pending.append(.fields(fields.map { $0.isEmpty ? nil : $0 }))
    }

    private mutating func take(line raw: [UInt8]) {
        lineNumber += 1
        var bytes = raw[...]
        while let l = bytes.last, l == 0x0D { bytes = bytes.dropLast() }
        let text = String(decoding: bytes, as: UTF8.self)
        if text.trimmingSpaces.isEmpty { return }
        switch format {
        case .jsonLines?:
            do {
                guard case .object(let o) = try JSONParser.parse(Array(bytes)) else {
                    skipped.append((lineNumber, "not a JSON object"))
                    return
                }
                pending.append(.object(o))
            } catch {
                skipped.append((lineNumber, "not JSON (\(error.reason) at column \(error.column))"))
            }
        default:
            if header == nil { header = [text]; return }
            pending.append(.line(text))
        }
    }

    // MARK: Rows

    private func fit(_ fields: [String?], _ count: Int) -> [String?] {
        if fields.count == count { return fields }
        if fields.count < count { return fields + Array(repeating: nil, count: count - fields.count) }
        // Fields past the header's are kept in the last cell, joined by the delimiter.
        guard count > 0, case .delimited(let d)? = format else { return Array(fields.prefix(count)) }
        let tail = fields[(count - 1)...].map { $0 ?? "" }.joined(separator: String(Character(Unicode.Scalar(d))))
        return Array(fields.prefix(count - 1)) + [tail]
    }

    private mutating func row(_ pending: Pending) -> Row {
        let count = columns?.count ?? 0
        let cells: [JSONValue]
        switch pending {
        case .fields(let f):
            cells = zip(fit(f, count), types).map { $1.cell($0) }
        case .line(let line):
            cells = zip(fit(aligned?.split(line) ?? [line], count), types).map { $1.cell($0) }
        case .object(let o):
            cells = jsonKeys.prefix(count).map { Self.jsonCell(o[$0]) }
            for key in o.keys where !jsonKeys.contains(key) && !lateKeys.contains(key) { lateKeys.append(key) }
        }
        defer { nextRowID += 1 }
        return Row(id: String(nextRowID), cells: cells + Array(repeating: .null, count: max(0, count - cells.count)))
    }

    // MARK: JSON lines

    private static func text(_ value: JSONValue?) -> String? {
        switch value {
        case nil, .null?: nil
        case .string(let s)?: s
        case .int(let i)?: String(i)
        case .double(let d)?: String(d)
        case .bool(let b)?: String(b)
        case let v?: JSONWriter.string(v)
        }
    }

    /// A JSON column's type from the JSON types of its values: integers, numbers, booleans,
    /// strings that are all dates, else text (nested values as compact JSON text).
    private static func jsonType<S: Sequence>(_ values: S) -> PipeColumnType where S.Element == JSONValue? {
        var kinds = Set<String>()
        var strings: [String?] = []
        for case let v? in values {
            switch v {
            case .null: continue
            case .int: kinds.insert("int")
            case .double: kinds.insert("number")
            case .bool: kinds.insert("bool")
            case .string(let s): kinds.insert("string"); strings.append(s)
            default: kinds.insert("nested")
            }
        }
        if kinds == ["int"] { return .integer }
        if kinds.isSubset(of: ["int", "number"]) && !kinds.isEmpty { return .decimal }
        if kinds == ["bool"] { return .bool }
        if kinds == ["string"] && PipeColumnType.infer(strings) == .date { return .date }
        return .text
    }

    private static func jsonCell(_ value: JSONValue?) -> JSONValue {
        switch value {
        case nil: .null
        case .array?, .object?: .string(JSONWriter.string(value!))
        case let v?: v
        }
    }

    private static func protocolType(_ type: PipeColumnType) -> ColumnType {
        switch type {
        case .integer: .integer
        case .decimal: .decimal
        case .bool: .bool
        case .date: .date
        case .text: .text
        }
    }

    private static func unique(_ names: [String]) -> [String] {
        var seen: [String: Int] = [:]
        return names.map { name in
            seen[name, default: 0] += 1
            return seen[name]! == 1 ? name : "\(name)_\(seen[name]!)"
        }
    }
}

extension PipeTable {
    /// The whole of `bytes` read as a pipe delivers it, `piece` bytes at a time, then ended and
    /// described: its format, columns and rows (tests and the fuzz target).
    public static func read(_ bytes: [UInt8], piece: Int, sampleLimit: Int = 1000)
        -> (format: StreamFormat?, columns: [ColumnSpec], rows: [Row], table: PipeTable) {
        var table = PipeTable(sampleLimit: sampleLimit)
        var i = 0
        while i < bytes.count {
            table.feed(Array(bytes[i..<min(i + max(piece, 1), bytes.count)]))
            i += max(piece, 1)
        }
        table.finish()
        let columns = table.describe()
        let rows = table.takeRows()
        return (table.format, columns, rows, table)
    }
}
