/// ASCII bytes the parser cares about.
enum Byte {
    static let quote: UInt8 = 0x22
    static let newline: UInt8 = 0x0A
    static let cr: UInt8 = 0x0D
    static let comma: UInt8 = 0x2C
    static let tab: UInt8 = 0x09
    static let semicolon: UInt8 = 0x3B
    static let pipe: UInt8 = 0x7C
}

/// Where one field's content lies in the file.
///
/// For a quoted field, `start..<end` is the text between the quotes, still holding
/// doubled quotes when `escaped` is true (``unescaped(_:)`` removes them).
struct FieldSpan: Equatable {
    var start: Int
    var end: Int
    var escaped: Bool

    var count: Int { end - start }
}

/// Splits records into fields (RFC 4180, leniently).
///
/// - A field that starts with `"` is quoted: it runs to the next lone `"` and may hold
///   delimiters, newlines and doubled quotes. Text after the closing quote, up to the
///   next delimiter, is dropped (`"a"b,` reads as `a`).
/// - A `"` inside an unquoted field is an ordinary character.
/// - A record ends at an unquoted `\n`; a `\r` before it is dropped.
struct FieldScanner: @unchecked Sendable {
    let base: UnsafePointer<UInt8>
    /// One past the last byte of the file.
    let limit: Int
    let delimiter: UInt8

    /// Scans the record at `start`, calling `body(index, span)` for each field until it
    /// returns false. Returns the number of fields seen.
    @inline(__always)
    func scan(record start: Int, _ body: (Int, FieldSpan) -> Bool) -> Int {
        var i = start
        var index = 0
        let limit = self.limit, delimiter = self.delimiter, base = self.base
        while true {
            let span: FieldSpan
            if i < limit && base[i] == Byte.quote {
                i += 1
                let s = i
                var escaped = false
                while i < limit {
                    if base[i] == Byte.quote {
                        if i + 1 < limit && base[i + 1] == Byte.quote { escaped = true; i += 2; continue }
                        break
                    }
                    i += 1
                }
                span = FieldSpan(start: s, end: i, escaped: escaped)
                if i < limit { i += 1 }
                while i < limit && base[i] != delimiter && base[i] != Byte.newline { i += 1 }
            } else {
                let s = i
                i = stop(from: i)
                var e = i
                if e > s && base[e - 1] == Byte.cr && (i == limit || base[i] == Byte.newline) { e -= 1 }
                span = FieldSpan(start: s, end: e, escaped: false)
            }
            let more = body(index, span)
            index += 1
            if !more || i >= limit || base[i] == Byte.newline { return index }
            i += 1
        }
    }

    /// The first delimiter or newline at or after `start`, or `limit`.
    @inline(__always)
    func stop(from start: Int) -> Int {
        FieldScanner.stop(base: base, from: start, limit: limit, delimiter: delimiter)
    }

    /// The first `delimiter` or newline at or after `start`, or `limit`: eight bytes at a
    /// time where eight remain (SWAR: the bytes equal to either get their top bit set, exactly).
    @inline(__always)
    static func stop(base: UnsafePointer<UInt8>, from start: Int, limit: Int, delimiter: UInt8) -> Int {
        var i = start
        let delimiters = UInt64(delimiter) &* 0x0101_0101_0101_0101
        let newlines = UInt64(Byte.newline) &* 0x0101_0101_0101_0101
        while i &+ 8 <= limit {
            let v = UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self)
            let hits = FieldScanner.zeroBytes(v ^ delimiters) | FieldScanner.zeroBytes(v ^ newlines)
            if hits != 0 { return i &+ hits.trailingZeroBitCount >> 3 }
            i &+= 8
        }
        while i < limit && base[i] != delimiter && base[i] != Byte.newline { i += 1 }
        return i
    }

    /// 0x80 in each byte of `x` that is zero, 0 in the others (no false positives).
    @inline(__always) static func zeroBytes(_ x: UInt64) -> UInt64 {
        let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        return ~(((x & low7) &+ low7) | x | low7)
    }

    /// The spans of all fields of a record.
    func spans(record start: Int) -> [FieldSpan] {
        var out: [FieldSpan] = []
        _ = scan(record: start) { _, span in out.append(span); return true }
        return out
    }

    /// The bytes of a field with doubled quotes collapsed.
    func unescaped(_ span: FieldSpan) -> [UInt8] {
        let raw = UnsafeBufferPointer(start: base + span.start, count: span.count)
        guard span.escaped else { return Array(raw) }
        var out: [UInt8] = []
        out.reserveCapacity(span.count)
        var i = 0
        while i < raw.count {
            out.append(raw[i])
            i += raw[i] == Byte.quote && i + 1 < raw.count && raw[i + 1] == Byte.quote ? 2 : 1
        }
        return out
    }

    /// The field as a String (invalid UTF-8 is repaired).
    func string(_ span: FieldSpan) -> String {
        if span.escaped { return String(decoding: unescaped(span), as: UTF8.self) }
        return String(decoding: UnsafeBufferPointer(start: base + span.start, count: span.count), as: UTF8.self)
    }
}

extension FieldScanner {
    /// The span of field `k` of the record at `start`, or nil if the record is shorter.
    /// Skips the fields before it without building spans (the sort keys' hot path).
    @inline(__always)
    func field(_ k: Int, ofRecord start: Int) -> FieldSpan? {
        var i = start
        var index = 0
        let limit = self.limit, delimiter = self.delimiter, base = self.base
        while index < k {
            if i < limit && base[i] == Byte.quote {
                i += 1
                while i < limit {
                    if base[i] == Byte.quote {
                        if i + 1 < limit && base[i + 1] == Byte.quote { i += 2; continue }
                        break
                    }
                    i += 1
                }
                if i < limit { i += 1 }
            }
            i = stop(from: i)
            if i >= limit || base[i] == Byte.newline { return nil }
            i += 1
            index += 1
        }
        var found: FieldSpan?
        _ = scan(record: i) { _, span in found = span; return false }
        return found
    }
}
