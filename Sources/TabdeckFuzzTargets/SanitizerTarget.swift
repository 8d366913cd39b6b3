import TabdeckProtocol

/// The sanitizer, on any text a plugin controls.
///
/// Invariants: no C0 or C1 control, DEL or bidi control survives (checked against the list
/// here, not the sanitizer's own predicate); sanitizing twice changes nothing; the line form
/// keeps only `\n`; raw bytes (``Sanitizer/clean(utf8:)``) come out as clean as text does.
enum SanitizerTarget {
    static let target = FuzzTarget(
        name: "sanitizer",
        summary: "the sanitizer: no C0, C1 or bidi control survives; cleaning twice changes nothing",
        check: check)

    /// The characters that must never reach a terminal, written out independently of the sanitizer.
    static func forbidden(_ s: Unicode.Scalar) -> Bool {
        let v = s.value
        return v <= 0x1F || (0x7F...0x9F).contains(v) || v == 0x061C || v == 0x200E || v == 0x200F
            || (0x202A...0x202E).contains(v) || (0x2066...0x2069).contains(v)
    }

    static func check(_ bytes: [UInt8]) -> FuzzViolation? {
        let text = String(decoding: bytes, as: UTF8.self)
        let clean = Sanitizer.clean(text)
        if let bad = clean.unicodeScalars.first(where: forbidden) {
            return FuzzViolation("sanitizer", "no control survives clean", "\(excerpt(bytes)): U+\(String(bad.value, radix: 16))")
        }
        guard Sanitizer.clean(clean) == clean else {
            return FuzzViolation("sanitizer", "clean(clean(s)) == clean(s)", excerpt(bytes))
        }
        let lines = Sanitizer.cleanLines(text)
        if let bad = lines.unicodeScalars.first(where: { forbidden($0) && $0 != "\n" }) {
            return FuzzViolation("sanitizer", "only line breaks survive cleanLines", "\(excerpt(bytes)): U+\(String(bad.value, radix: 16))")
        }
        guard lines.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).count
                == text.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false).count else {
            return FuzzViolation("sanitizer", "cleanLines keeps the lines", excerpt(bytes))
        }
        let raw = Sanitizer.clean(utf8: bytes)
        if let bad = raw.unicodeScalars.first(where: forbidden) {
            return FuzzViolation("sanitizer", "no control survives clean(utf8:)", "\(excerpt(bytes)): U+\(String(bad.value, radix: 16))")
        }
        guard Sanitizer.clean(raw) == raw else {
            return FuzzViolation("sanitizer", "clean(utf8:) is already clean", excerpt(bytes))
        }
        return nil
    }
}
