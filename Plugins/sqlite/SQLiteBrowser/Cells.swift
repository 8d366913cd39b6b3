import Foundation
import GRDB
import TabdeckProtocol

/// Turning SQLite values into protocol cells and row ids.
public enum Cells {
    /// Blobs show this many bytes in hex.
    static let blobPreview = 16

    /// The cell for a stored value in a column of the given type, whole (a page cuts text over
    /// 64 KiB with the protocol's marker, `Row.cutLongCells`). Values that do not fit the
    /// type (SQLite's flexible typing allows text in an INTEGER column) are sent as text.
    public static func cell(_ value: DatabaseValue, type: ColumnType) -> JSONValue {
        switch value.storage {
        case .null:
            return .null
        case .int64(let i):
            switch type {
            case .bool: return .bool(i != 0)
            case .date: return .string(isoDate(unixSeconds: Double(i)))
            case .text, .enumeration: return .string(String(i))
            case .integer, .decimal: return .int(i)
            }
        case .double(let d):
            guard d.isFinite else { return .string(d > 0 ? "Inf" : "-Inf") }
            switch type {
            case .bool: return .bool(d != 0)
            case .date: return .string(isoDate(unixSeconds: d))
            case .text, .enumeration: return .string(String(d))
            case .integer: return d.rounded() == d && abs(d) < 9.2e18 ? .int(Int64(d)) : .double(d)
            case .decimal: return .double(d)
            }
        case .string(let s):
            switch type {
            case .bool: return bool(s).map { .bool($0) } ?? .string(s)
            case .date: return .string(isoDate(s) ?? s)
            default: return .string(s)
            }
        case .blob(let data):
            return .string(blobText(data))
        }
    }

    /// The catalog's summaries (a table's columns, its SQL) are cut to this many characters.
    static let summaryLength = 1_000

    /// A catalog summary cut to ``summaryLength`` characters, with "…" (information about a
    /// table, not its data: data cells are cut only past 64 KiB, with the protocol's marker).
    static func cut(_ s: String) -> String {
        if s.utf8.count <= summaryLength { return s }
        guard let end = s.index(s.startIndex, offsetBy: summaryLength, limitedBy: s.endIndex), end < s.endIndex else { return s }
        return String(s[..<end]) + "…"
    }

    /// `x'00ff…' (123 bytes)`.
    static func blobText(_ data: Data) -> String {
        let hex = data.prefix(blobPreview).map { String(format: "%02x", $0) }.joined()
        return data.count <= blobPreview ? "x'\(hex)'" : "x'\(hex)…' (\(data.count) bytes)"
    }

    static func bool(_ s: String) -> Bool? {
        switch s.lowercased() {
        case "true", "t", "yes", "y", "1", "on": true
        case "false", "f", "no", "n", "0", "off": false
        default: nil
        }
    }

    // MARK: Dates

    /// An ISO 8601 timestamp (UTC, `Z`) for Unix seconds, as SQLite's `unixepoch` modifier reads them.
    static func isoDate(unixSeconds: Double) -> String {
        let whole = unixSeconds.rounded(.down)
        let millis = Int64(((unixSeconds - whole) * 1000).rounded())
        return CivilDate.isoText(millis: Int64(whole) * 1000 + millis, dateOnly: false)
    }

    /// SQLite's date texts as protocol dates: `YYYY-MM-DD` stays, `YYYY-MM-DD HH:MM[:SS[.SSS]]`
    /// gets a `T`, and a time without a zone is UTC (SQLite's convention) and gets `Z`.
    /// Nil for text in any other form.
    static func isoDate(_ s: String) -> String? {
        let b = Array(s.utf8)
        func digits(_ from: Int, _ count: Int) -> Bool {
            from + count <= b.count && b[from..<from + count].allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
        }
        guard digits(0, 4), b.count >= 10, b[4] == 0x2D, digits(5, 2), b[7] == 0x2D, digits(8, 2) else { return nil }
        if b.count == 10 { return s }
        guard b[10] == 0x20 || b[10] == 0x54, digits(11, 2), b.count >= 16, b[13] == 0x3A, digits(14, 2) else { return nil }
        var i = 16
        if i < b.count, b[i] == 0x3A {
            guard digits(i + 1, 2) else { return nil }
            i += 3
            if i < b.count, b[i] == 0x2E {
                var j = i + 1
                while j < b.count, b[j] >= 0x30, b[j] <= 0x39 { j += 1 }
                guard j > i + 1 else { return nil }
                i = j
            }
        }
        var zone = "Z"
        if i < b.count {
            if b[i] == 0x5A, i + 1 == b.count {
                zone = "Z"
            } else if b[i] == 0x2B || b[i] == 0x2D, digits(i + 1, 2), i + 6 == b.count, b[i + 3] == 0x3A, digits(i + 4, 2) {
                zone = String(decoding: b[i...], as: UTF8.self)
            } else {
                return nil
            }
        }
        return "\(String(decoding: b[0..<10], as: UTF8.self))T\(String(decoding: b[11..<i], as: UTF8.self))\(zone)"
    }

    // MARK: Row ids

    /// The id of a rowid table's row.
    static func id(rowid: DatabaseValue) -> String {
        if case .int64(let i) = rowid.storage { return String(i) }
        return idText([rowid])
    }

    /// The id of a row by its primary key values. One integer → its digits; one text that
    /// cannot be mistaken for anything else → the text; otherwise a JSON array of the
    /// values (blobs as `{"blob": hex}`), so that different keys always get different ids.
    static func id(primaryKey values: [DatabaseValue]) -> String {
        if values.count == 1 {
            switch values[0].storage {
            case .int64(let i): return String(i)
            case .string(let s) where !s.hasPrefix("[") && Int64(s) == nil && !s.isEmpty: return s
            default: break
            }
        }
        return idText(values)
    }

    static func idText(_ values: [DatabaseValue]) -> String {
        JSONWriter.string(.array(values.map { v -> JSONValue in
            switch v.storage {
            case .null: .null
            case .int64(let i): .int(i)
            case .double(let d): d.isFinite ? .double(d) : .string(d > 0 ? "Inf" : "-Inf")
            case .string(let s): .string(s)
            case .blob(let data): ["blob": .string(data.map { String(format: "%02x", $0) }.joined())]
            }
        }))
    }

    /// The id of a row without a key (a view's): a hash of all its values, plus `#N` for the
    /// N-th of several identical rows (`duplicate` counts from 0).
    static func id(values: [DatabaseValue], duplicate: Int) -> String {
        let h = hash(values)
        let hex = String(h, radix: 16)
        let base = "v" + String(repeating: "0", count: 16 - hex.count) + hex
        return duplicate == 0 ? base : "\(base)#\(duplicate + 1)"
    }

    /// FNV-1a (64 bits) over a type-tagged encoding of the values.
    static func hash(_ values: [DatabaseValue]) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        func byte(_ b: UInt8) { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        func word(_ w: UInt64) { for k in 0..<8 { byte(UInt8(truncatingIfNeeded: w >> (8 * UInt64(k)))) } }
        for v in values {
            switch v.storage {
            case .null: byte(0)
            case .int64(let i): byte(1); word(UInt64(bitPattern: i))
            case .double(let d): byte(2); word(d.bitPattern)
            case .string(let s): byte(3); word(UInt64(s.utf8.count)); for b in s.utf8 { byte(b) }
            case .blob(let data): byte(4); word(UInt64(data.count)); for b in data { byte(b) }
            }
        }
        return h
    }
}
