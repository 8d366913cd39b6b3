/// Makes plugin text safe for the terminal: control characters and escape sequences are
/// shown escaped (`\e[31m`), never sent raw. Bidirectional formatting characters (U+202E
/// and friends) are escaped too (`\u202e`): they would reorder the cells around them and make
/// text read differently from what it is (the "Trojan Source" trick).
///
/// This is the one sanitizer of the host (see "Plugin text is sanitized" in
/// docs/ARCHITECTURE.md): the screen, line-mode output and both log writers use ``clean(_:)``
/// (or ``cleanLines(_:)``, ``clean(utf8:)``), and `--output json` escapes the same
/// characters (``isUnsafe(_:)``) as `\uXXXX` through ``JSONWriter/string(_:terminalSafe:)``.
/// It lives in `TabdeckProtocol`, the module every other one imports, so that the supervisor's
/// stderr log can use it too.
public enum Sanitizer {
    /// `text` with C0/C1 controls, DEL and bidi controls replaced by visible escapes; tabs become a space.
    ///
    /// The visible forms: ESC `\e`, LF `\n`, CR `\r`, other C0, DEL and C1 `\xNN` (two lower-case
    /// hex digits), bidi controls `\uNNNN` (lower-case hex, no padding: `\u202e`, `\u61c`).
    /// The result holds no unsafe character, so cleaning it again changes nothing.
    public static func clean(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isUnsafe) else { return text }  // the screen's hot path
        return escape(text, keepingLineBreaks: false)
    }

    /// Text of several lines (`\n`-separated) with each line cleaned and the line breaks kept:
    /// what line mode prints. A CR inside a line is shown (`\r`), never sent.
    public static func cleanLines(_ text: String) -> String {
        escape(text, keepingLineBreaks: true)
    }

    @inline(__always) static func escape(_ text: String, keepingLineBreaks: Bool) -> String {
        guard text.unicodeScalars.contains(where: { isUnsafe($0) && !(keepingLineBreaks && $0 == "\n") }) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard isUnsafe(scalar), !(keepingLineBreaks && scalar == "\n") else { out.unicodeScalars.append(scalar); continue }
            switch scalar.value {
            case 0x1B: out += "\\e"
            case 0x09: out += " "
            case 0x0A: out += "\\n"
            case 0x0D: out += "\\r"
            case let v where v > 0xFF: out += "\\u" + String(v, radix: 16)
            default: out += "\\x" + hex2(scalar.value)
            }
        }
        return out
    }

    /// Bytes a plugin wrote (stderr, a malformed line; not necessarily UTF-8) as one clean
    /// line: valid UTF-8 as ``clean(_:)`` makes it, each byte of an invalid sequence as `\xNN`
    /// (so binary garbage stays visible byte for byte and no lone C1 byte reaches a terminal).
    public static func clean(utf8 bytes: some Collection<UInt8>) -> String {
        if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return String(decoding: bytes, as: UTF8.self) }
        var out = ""
        out.reserveCapacity(bytes.count + 8)
        var parser = Unicode.UTF8.ForwardParser()
        var rest = bytes.makeIterator()
        var index = bytes.startIndex
        while true {
            switch parser.parseScalar(from: &rest) {
            case .valid(let encoded):
                let scalar = Unicode.UTF8.decode(encoded)
                if isUnsafe(scalar) { out += clean(String(scalar)) } else { out.unicodeScalars.append(scalar) }
                index = bytes.index(index, offsetBy: encoded.count)
            case .error(let length):
                for _ in 0..<length {
                    out += "\\x" + hex2(UInt32(bytes[index]))
                    index = bytes.index(after: index)
                }
            case .emptyInput:
                return out
            }
        }
    }

    /// Whether `s` must never reach a terminal raw: C0 controls (U+0000–U+001F), DEL (U+007F),
    /// C1 controls (U+0080–U+009F) and the bidi controls (``isBidiControl(_:)``).
    @inline(__always) public static func isUnsafe(_ s: Unicode.Scalar) -> Bool {
        s.value < 0x20 || (s.value >= 0x7F && s.value < 0xA0) || isBidiControl(s.value)
    }

    /// The explicit directional formatting characters: ALM (U+061C), LRM and RLM
    /// (U+200E, U+200F), LRE…RLO (U+202A–U+202E), LRI…PDI (U+2066–U+2069).
    @inline(__always) static func isBidiControl(_ v: UInt32) -> Bool {
        v >= 0x61C && (v == 0x61C || v == 0x200E || v == 0x200F || (0x202A...0x202E).contains(v)
            || (0x2066...0x2069).contains(v))
    }

    static func hex2(_ v: UInt32) -> String {
        let digits = Array("0123456789abcdef")
        return v > 0xFF ? String(v, radix: 16) : String([digits[Int(v >> 4)], digits[Int(v & 0xF)]])
    }
}
