/// Decodes raw terminal input bytes into ``Key`` values.
///
/// Input arrives in arbitrary chunks: an escape sequence, a UTF-8 character or a bracketed
/// paste may be split across reads, so the decoder keeps what is incomplete until more bytes
/// come. A lone ESC is ambiguous (the Esc key, or the start of a sequence still on its way):
/// when ``isPending`` is true after ``feed(_:)``, wait a short time (25–50 ms) for more input
/// and call ``flush()`` if none came.
public struct KeyDecoder: Sendable {
    /// Bytes not decoded yet.
    private var pending: [UInt8] = []
    /// The text of a bracketed paste in progress.
    private var paste: [UInt8]?
    /// A paste longer than this is delivered in pieces.
    public var maxPaste = 1 << 20

    static let pasteEnd: [UInt8] = Array("\u{1b}[201~".utf8)

    /// A decoder with nothing pending.
    public init() {}

    /// Whether an incomplete key waits for more bytes (see ``flush()``). A paste in progress
    /// does not count: it waits for its end marker.
    public var isPending: Bool { paste == nil && !pending.isEmpty }

    /// Decodes `bytes` (with what was left from earlier chunks) into keys.
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [Key] {
        pending.append(contentsOf: bytes)
        return decode(final: false).map(\.key)
    }

    /// Like ``feed(_:)``, with the bytes each key came from (a paste: its text), so a caller
    /// that hands the rest of the input to someone else (the `:` prompt) can pass it on as typed.
    public mutating func feedKeepingBytes(_ bytes: some Sequence<UInt8>) -> [(key: Key, bytes: [UInt8])] {
        pending.append(contentsOf: bytes)
        return decode(final: false)
    }

    /// Gives up what is pending (an incomplete sequence) as raw bytes, leaving nothing pending.
    /// A paste in progress is given up with its start marker, so whoever gets the bytes sees it whole.
    public mutating func takePending() -> [UInt8] {
        var out: [UInt8] = []
        if let paste { out = Array("\u{1b}[200~".utf8) + paste; self.paste = nil }
        out += pending
        pending = []
        return out
    }

    /// Decodes what is pending as if no more bytes were coming: a lone ESC is the Esc key,
    /// an incomplete sequence is ESC followed by its characters, and a paste whose end marker
    /// never came ends here with what it has (found by the `keys` fuzz target: otherwise every
    /// later key, Esc included, went into the paste).
    public mutating func flush() -> [Key] {
        decode(final: true).map(\.key)
    }

    private enum Decoded {
        case key(Key)
        case pasteStart
        case ignored
    }

    private mutating func decode(final: Bool) -> [(key: Key, bytes: [UInt8])] {
        var keys: [(key: Key, bytes: [UInt8])] = []
        var i = 0
        let b = pending
        while i < b.count {
            if paste != nil {
                if let end = Self.find(Self.pasteEnd, in: b, from: i) {
                    paste! += b[i..<end]
                    keys.append((.paste(String(decoding: paste!, as: UTF8.self)), paste!))
                    paste = nil
                    i = end + Self.pasteEnd.count
                    continue
                }
                // Keep a suffix that may be the start of the end marker (unless no more bytes come).
                let keep = final ? 0 : Self.markerPrefixLength(b[i...])
                paste! += b[i..<(b.count - keep)]
                i = b.count - keep
                if paste!.count >= maxPaste || final {
                    if !paste!.isEmpty { keys.append((.paste(String(decoding: paste!, as: UTF8.self)), paste!)) }
                    paste = final ? nil : []
                }
                break
            }
            guard let (decoded, length) = decodeOne(b, i, final: final) else { break }
            let start = i
            i += length
            switch decoded {
            case .key(let key): keys.append((key, Array(b[start..<i])))
            case .pasteStart: paste = []
            case .ignored: break
            }
        }
        pending.removeFirst(i)
        if final, let open = paste {  // nothing more is coming: the paste ends with what it has
            if !open.isEmpty { keys.append((.paste(String(decoding: open, as: UTF8.self)), open)) }
            paste = nil
        }
        return keys
    }

    /// One key at `i`, and the bytes it took; nil when more bytes are needed.
    private func decodeOne(_ b: [UInt8], _ i: Int, final: Bool) -> (Decoded, Int)? {
        let c = b[i]
        switch c {
        case 0x1B: return decodeEscape(b, i, final: final)
        case 0x0D, 0x0A: return (.key(.enter), 1)
        case 0x09: return (.key(.tab), 1)
        case 0x7F, 0x08: return (.key(.backspace), 1)
        case 0x00: return (.key(.ctrl(" ")), 1)
        case 0x01...0x1A: return (.key(.ctrl(Character(Unicode.Scalar(c + 0x60)))), 1)
        case 0x1C...0x1F: return (.key(.ctrl(Character(Unicode.Scalar(c + 0x40)))), 1)
        case 0x20..<0x7F: return (.key(.char(Character(Unicode.Scalar(c)))), 1)
        default:
            guard let (ch, length) = Self.utf8Character(b, i, final: final) else { return nil }
            return (.key(.char(ch)), length)
        }
    }

    private func decodeEscape(_ b: [UInt8], _ i: Int, final: Bool) -> (Decoded, Int)? {
        guard i + 1 < b.count else { return final ? (.key(.escape), 1) : nil }
        let n = b[i + 1]
        switch n {
        case UInt8(ascii: "["):
            if i + 2 < b.count, b[i + 2] == UInt8(ascii: "M") {  // a legacy X10 mouse report
                guard let (event, length) = MouseDecoder.x10(b, i + 3, final: final) else { return nil }
                return (event.map { .key(.mouse($0)) } ?? .ignored, 3 + length)
            }
            var j = i + 2
            while j < b.count, (0x30...0x3F).contains(b[j]) { j += 1 }
            while j < b.count, (0x20...0x2F).contains(b[j]) { j += 1 }
            guard j < b.count else { return final ? (.key(.escape), 1) : nil }
            let bytes = Array(b[i...j])
            guard (0x40...0x7E).contains(b[j]) else { return (.key(.unknown(bytes)), j - i + 1) }
            let params = String(decoding: b[(i + 2)..<j], as: UTF8.self)
            return (Self.csi(params, b[j], bytes), j - i + 1)
        case UInt8(ascii: "O"):
            guard i + 2 < b.count else { return final ? (.key(.alt("O")), 2) : nil }
            let key: Key
            switch b[i + 2] {
            case UInt8(ascii: "A"): key = .up
            case UInt8(ascii: "B"): key = .down
            case UInt8(ascii: "C"): key = .right
            case UInt8(ascii: "D"): key = .left
            case UInt8(ascii: "H"): key = .home
            case UInt8(ascii: "F"): key = .end
            case UInt8(ascii: "P")...UInt8(ascii: "S"): key = .function(Int(b[i + 2] - UInt8(ascii: "P")) + 1)
            default: key = .unknown(Array(b[i...(i + 2)]))
            }
            return (.key(key), 3)
        case 0x1B:
            return (.key(.escape), 1)
        case 0x20..<0x7F:
            return (.key(.alt(Character(Unicode.Scalar(n)))), 2)
        case 0x80...:
            guard let (ch, length) = Self.utf8Character(b, i + 1, final: final) else { return nil }
            return (.key(.alt(ch)), length + 1)
        default:
            return (.key(.unknown([0x1B, n])), 2)
        }
    }

    /// A CSI sequence: ESC [ params final.
    private static func csi(_ params: String, _ final: UInt8, _ bytes: [UInt8]) -> Decoded {
        if params.hasPrefix("<"), final == UInt8(ascii: "M") || final == UInt8(ascii: "m") {
            return MouseDecoder.sgr(params.dropFirst(), final: final).map { .key(.mouse($0)) } ?? .ignored
        }
        if final == UInt8(ascii: "M"), let report = MouseDecoder.urxvt(params) { return report.map { .key(.mouse($0)) } ?? .ignored }
        if params.hasPrefix("<") || params.hasPrefix("?") || params.hasPrefix(">") { return .key(.unknown(bytes)) }
        let numbers = params.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) }
        switch final {
        case UInt8(ascii: "A"): return .key(.up)
        case UInt8(ascii: "B"): return .key(.down)
        case UInt8(ascii: "C"): return .key(.right)
        case UInt8(ascii: "D"): return .key(.left)
        case UInt8(ascii: "H"): return .key(.home)
        case UInt8(ascii: "F"): return .key(.end)
        case UInt8(ascii: "Z"): return .key(.backTab)
        case UInt8(ascii: "P")...UInt8(ascii: "S"): return .key(.function(Int(final - UInt8(ascii: "P")) + 1))
        case UInt8(ascii: "~"):
            switch numbers.first ?? nil {
            case 1, 7: return .key(.home)
            case 2: return .key(.insert)
            case 3: return .key(.delete)
            case 4, 8: return .key(.end)
            case 5: return .key(.pageUp)
            case 6: return .key(.pageDown)
            case let n? where (11...15).contains(n): return .key(.function(n - 10))
            case let n? where (17...21).contains(n): return .key(.function(n - 11))
            case let n? where (23...24).contains(n): return .key(.function(n - 12))
            case 200: return .pasteStart
            case 201: return .ignored  // a paste end without a start
            default: return .key(.unknown(bytes))
            }
        default:
            return .key(.unknown(bytes))
        }
    }

    /// The UTF-8 character at `i` and its length; nil when it is cut off (and not `final`).
    /// Invalid bytes decode as U+FFFD, one byte at a time.
    static func utf8Character(_ b: [UInt8], _ i: Int, final: Bool) -> (Character, Int)? {
        let lead = b[i]
        let length: Int
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0...0xEF: length = 3
        case 0xF0...0xF4: length = 4
        default: return ("\u{FFFD}", 1)
        }
        var n = 1
        while n < length && i + n < b.count {
            guard (0x80...0xBF).contains(b[i + n]) else { return ("\u{FFFD}", 1) }
            n += 1
        }
        if n < length { return final ? ("\u{FFFD}", 1) : nil }
        let s = String(decoding: b[i..<(i + length)], as: UTF8.self)
        return (s.first ?? "\u{FFFD}", length)
    }

    static func find(_ needle: [UInt8], in b: [UInt8], from start: Int) -> Int? {
        guard b.count - start >= needle.count else { return nil }
        var i = start
        while i + needle.count <= b.count {
            if b[i] == needle[0] && Array(b[i..<(i + needle.count)]) == needle { return i }
            i += 1
        }
        return nil
    }

    /// The length of the longest suffix of `tail` that is a proper prefix of the paste end marker.
    static func markerPrefixLength(_ tail: ArraySlice<UInt8>) -> Int {
        for k in stride(from: min(pasteEnd.count - 1, tail.count), to: 0, by: -1) {
            if Array(tail.suffix(k)) == Array(pasteEnd.prefix(k)) { return k }
        }
        return 0
    }
}
