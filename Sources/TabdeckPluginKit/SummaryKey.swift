import TabdeckProtocol

/// A non-null cell's identity under a column's sort order (PROTOCOL.md 11.3): two cells have the
/// same key exactly when ``SummaryKey/compare(_:_:_:)`` says they are equal (`3` = `3.0`, a date
/// and the same instant as a timestamp), so counting keys counts distinct values.
enum SummaryKey: Hashable {
    case number(ExactNumber)
    case instant(Int64)
    case bool(Bool)
    /// A text by its bytes (not Swift's canonical equivalence: the protocol compares UTF-8).
    case text(Bytes)
    /// A cell that does not fit the column's type, by its JSON text.
    case other(Bytes)

    /// A string compared and hashed by its UTF-8 bytes.
    struct Bytes: Hashable {
        let string: String
        static func == (a: Bytes, b: Bytes) -> Bool { a.string.utf8.elementsEqual(b.string.utf8) }
        func hash(into h: inout Hasher) {
            var s = string
            s.withUTF8 { h.combine(bytes: UnsafeRawBufferPointer($0)) }
        }
    }

    /// The key of a non-null cell of a column.
    init(_ cell: JSONValue, _ spec: ColumnSpec) {
        switch spec.type {
        case .integer, .decimal:
            if let n = SummaryKey.exactNumber(cell, spec.type) { self = .number(n); return }
        case .bool:
            if case .bool(let b) = cell { self = .bool(b); return }
        case .enumeration(let values):
            if case .string(let s) = cell, values.contains(s) { self = .text(Bytes(string: s)); return }
        case .date:
            if case .string(let s) = cell, let t = ISODateTime(s) { self = .instant(t.millis); return }
        case .text:
            if case .string(let s) = cell { self = .text(Bytes(string: s)); return }
        }
        self = .other(Bytes(string: JSONWriter.string(cell)))
    }

    /// A number cell as ``Where/compare`` reads it: a JSON double by its shortest text.
    static func exactNumber(_ cell: JSONValue, _ type: ColumnType) -> ExactNumber? {
        if case .double(let d) = cell, d.isFinite {
            let text = d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : "\(d)"
            if let n = ExactNumber(text, type: .decimal) { return n }
        }
        return ExactNumber(cell: cell, type: type)
    }

    /// A hash that is the same in every run (Swift's `Hasher` is seeded per process), so that
    /// estimated distinct counts do not change between runs.
    var stableHash: UInt64 {
        switch self {
        case .number(let n): return Self.mix(Self.fnv(Self.canonical(n)) ^ 1)
        case .instant(let t): return Self.mix(UInt64(bitPattern: t) ^ 2)
        case .bool(let b): return Self.mix(b ? 3 : 4)
        case .text(let b): return Self.mix(Self.fnv(b.string) ^ 5)
        case .other(let b): return Self.mix(Self.fnv(b.string) ^ 6)
        }
    }

    /// A number's text with one spelling per value: no sign on zero, no leading zeros, no
    /// trailing fraction zeros (`-0.50` and `-.5`… become `-0.5`).
    static func canonical(_ n: ExactNumber) -> String {
        guard n.kind == .finite else { return n.text }
        var text = Substring(n.text)
        let negative = text.hasPrefix("-")
        if negative { text = text.dropFirst() }
        var whole = text.prefix { $0 != "." }, fraction = text.dropFirst(whole.count).dropFirst()
        while whole.count > 1, whole.first == "0" { whole = whole.dropFirst() }
        while fraction.last == "0" { fraction = fraction.dropLast() }
        let body = fraction.isEmpty ? String(whole) : "\(whole).\(fraction)"
        return negative && body != "0" ? "-" + body : body
    }

    static func fnv(_ s: String) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in s.utf8 { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01b3 }
        return h
    }

    /// SplitMix64's finalizer: spreads every input bit over the output.
    static func mix(_ x: UInt64) -> UInt64 {
        var z = x &+ 0x9e37_79b9_7f4a_7c15
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}
