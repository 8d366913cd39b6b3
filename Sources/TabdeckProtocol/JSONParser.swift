/// Where and why a JSON text could not be parsed.
public struct JSONParseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// 1-based line of the offending byte.
    public var line: Int
    /// 1-based column (in bytes) of the offending byte.
    public var column: Int
    /// 0-based byte offset of the offending byte.
    public var offset: Int
    /// What is wrong, in words.
    public var reason: String

    public init(line: Int, column: Int, offset: Int, reason: String) {
        self.line = line; self.column = column; self.offset = offset; self.reason = reason
    }

    public var description: String { "line \(line), column \(column): \(reason)" }
}

/// Parsing JSON text into ``JSONValue``.
///
/// A hand-written byte scanner (``JSONScanner``): the protocol's hot path is decoding rows,
/// and this is about six times faster than Foundation's JSONDecoder on Linux (`tabdeck-bench codec`).
public enum JSONParser {
    /// Maximum nesting of arrays and objects.
    public static let maxDepth = 512

    /// Parses one complete JSON text.
    public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONParseError) -> JSONValue in
            try parse(buffer)
        }
    }

    /// Parses one complete JSON text.
    public static func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    /// Parses one complete JSON text from raw bytes.
    public static func parse(_ buffer: UnsafeBufferPointer<UInt8>) throws(JSONParseError) -> JSONValue {
        try parse(buffer, rowsFastPath: false)
    }

    /// Parses one complete JSON text; with `rowsFastPath`, a top-level `result` or `params`
    /// member of the `rows` shape is decoded straight to rows (`JSONScanner+Rows.swift`). The value is equal
    /// either way.
    static func parse(_ bytes: [UInt8], rowsFastPath: Bool) throws(JSONParseError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { (buffer) throws(JSONParseError) -> JSONValue in
            try parse(buffer, rowsFastPath: rowsFastPath)
        }
    }

    static func parse(_ buffer: UnsafeBufferPointer<UInt8>, rowsFastPath: Bool) throws(JSONParseError) -> JSONValue {
        var scanner = JSONScanner(buffer)
        scanner.rowsFastPath = rowsFastPath
        defer { scanner.release() }
        scanner.skipWhitespace()
        let value = try scanner.parseValue(depth: 0)
        scanner.skipWhitespace()
        if scanner.index < buffer.count { throw scanner.error("unexpected text after the JSON value") }
        return value
    }
}
