/// Text escaping done scalar by scalar.
///
/// Swift's `Character` comparisons and Foundation's `replacingOccurrences` work on grapheme
/// clusters: a `"` followed by a combining mark (`"̛`) is one cluster that is not `"`, and `\r\n`
/// is one cluster that is neither `\r` nor `\n`. Quoting built on them leaves such a quote
/// undoubled or such a line break unquoted, and the output reads back differently (found by the
/// `csv` fuzz target). Every escaper in Tabdeck (CSV export, SQL identifiers and LIKE patterns,
/// shell words) goes through these.
extension String {
    /// The text with every `scalar` replaced by `replacement`.
    public func replacingScalar(_ scalar: Unicode.Scalar, with replacement: String) -> String {
        if scalar.isASCII {
            // An ASCII byte in UTF-8 is always that scalar, never part of another: bytes will do.
            let byte = UInt8(scalar.value)
            guard utf8.contains(byte) else { return self }
            let with = Array(replacement.utf8)
            var out: [UInt8] = []
            out.reserveCapacity(utf8.count + with.count)
            for b in utf8 { if b == byte { out.append(contentsOf: with) } else { out.append(b) } }
            return String(decoding: out, as: UTF8.self)
        }
        guard unicodeScalars.contains(scalar) else { return self }
        var out = String.UnicodeScalarView()
        for s in unicodeScalars {
            if s == scalar { out.append(contentsOf: replacement.unicodeScalars) } else { out.append(s) }
        }
        return String(out)
    }

    /// Whether any scalar of the text is one of `scalars`.
    public func containsScalar(in scalars: Set<Unicode.Scalar>) -> Bool {
        unicodeScalars.contains { scalars.contains($0) }
    }
}
