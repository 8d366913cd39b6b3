/// Writing ``JSONValue`` as compact JSON text (one line, no insignificant spaces).
///
/// Control characters are always escaped, so the output never contains a raw newline
/// and is safe as a JSON-lines record.
public enum JSONWriter {
    /// The compact JSON text of `value`.
    public static func string(_ value: JSONValue) -> String {
        var out: [UInt8] = []
        write(value, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// The compact JSON text of `value` for a person's terminal (`--output json`): with
    /// `terminalSafe`, DEL, the C1 controls and the bidi controls (``Sanitizer/isUnsafe(_:)``)
    /// are written as `\uXXXX` escapes too, as the C0 controls always are. The text stays
    /// lossless (a JSON parser reads back the original strings) and no character in it can
    /// drive or reorder the terminal. The protocol's encoding (``write(_:into:)``, ``bytes(_:)``,
    /// the rows fast path) is not affected.
    public static func string(_ value: JSONValue, terminalSafe: Bool) -> String {
        terminalSafe ? escapingTerminalControls(string(value)) : string(value)
    }

    /// Compact JSON text made by this writer (or ``MessageCodec``) with DEL, C1 and bidi
    /// controls escaped as `\uXXXX`: the same value, safe to show on a terminal. Outside
    /// strings such text is ASCII structure and numbers, and raw C0 never occurs (it is always
    /// escaped), so every unsafe scalar is inside a string, where `\uXXXX` stands for it.
    public static func escapingTerminalControls(_ json: String) -> String {
        guard json.unicodeScalars.contains(where: Sanitizer.isUnsafe) else { return json }
        let hex = Array("0123456789abcdef".unicodeScalars)
        var out = String.UnicodeScalarView()
        for scalar in json.unicodeScalars {
            guard Sanitizer.isUnsafe(scalar) else { out.append(scalar); continue }
            let v = Int(scalar.value)
            out.append(contentsOf: ["\\", "u", hex[v >> 12 & 0xF], hex[v >> 8 & 0xF], hex[v >> 4 & 0xF], hex[v & 0xF]])
        }
        return String(out)
    }

    /// The compact JSON bytes of `value`.
    public static func bytes(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        write(value, into: &out)
        return out
    }

    /// Appends the compact JSON bytes of `value` to `out`.
    public static func write(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: appendLiteral("null", into: &out)
        case .bool(let b): appendLiteral(b ? "true" : "false", into: &out)
        case .int(let i): writeInteger(i, into: &out)
        case .double(let d):
            if d.isFinite {
                if d.rounded() == d && abs(d) < 1e15 {
                    if d == 0 && d.sign == .minus { out.append(UInt8(ascii: "-")) }  // -0.0 stays -0.0
                    writeInteger(Int64(d), into: &out); out.append(UInt8(ascii: ".")); out.append(UInt8(ascii: "0"))
                } else {
                    var text = d.description
                    text.withUTF8 { out.append(contentsOf: $0) }
                }
            } else { appendLiteral("null", into: &out) }
        case .string(let s): writeString(s, into: &out)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                write(item, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            out.append(UInt8(ascii: "{"))
            var first = true
            for (key, item) in object {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                write(item, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    @inline(__always) static func appendLiteral(_ text: StaticString, into out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Appends a decimal integer.
    public static func writeInteger(_ value: Int64, into out: inout [UInt8]) {
        if value == 0 { out.append(UInt8(ascii: "0")); return }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var magnitude = value.magnitude
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buf in
            while magnitude > 0 {
                buf[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            }
            if value < 0 { out.append(UInt8(ascii: "-")) }
            for i in stride(from: count - 1, through: 0, by: -1) { out.append(buf[i]) }
        }
    }

    /// Appends a quoted, escaped JSON string.
    public static func writeString(_ s: String, into out: inout [UInt8]) {
        var s = s
        s.withUTF8 { writeString(utf8: $0, into: &out) }
    }

    /// ``writeString(_:into:)`` of text given as its UTF-8 bytes, which must be valid UTF-8
    /// (a plugin writing cells straight from its source's bytes checks that first).
    public static func writeString(utf8: UnsafeBufferPointer<UInt8>, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var runStart = 0
        for i in 0..<utf8.count {
            let b = utf8[i]
            if b >= 0x20 && b != 0x22 && b != 0x5C { continue }
            if runStart < i { out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i])) }
            runStart = i + 1
            switch b {
            case 0x22: out.append(contentsOf: [0x5C, 0x22])
            case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            default:
                let hex = Array("0123456789abcdef".utf8)
                out.append(contentsOf: [0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(b >> 4)], hex[Int(b & 0xF)]])
            }
        }
        if runStart < utf8.count { out.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<utf8.count])) }
        out.append(UInt8(ascii: "\""))
    }
}
