import TabdeckTerminal

/// The terminal input decoder: raw bytes from the keyboard (escape sequences, UTF-8, bracketed
/// paste, and mouse reports, which it must pass over as one key each).
///
/// Invariants: the same bytes give the same keys whether they come in one read or split in two
/// at any point (the decoder holds incomplete sequences without a timer); after any input, a
/// lone Esc followed by the timeout (``KeyDecoder/flush()``) is the Esc key.
enum KeysTarget {
    static let target = FuzzTarget(
        name: "keys",
        summary: "the key decoder: one read or split anywhere gives the same keys; a lone Esc is a key",
        check: check)

    /// Inputs are cut to this many bytes: every split point is tried, so the work is quadratic.
    static let maxBytes = 256

    static func check(_ input: [UInt8]) -> FuzzViolation? {
        let bytes = Array(input.prefix(maxBytes))
        var one = KeyDecoder()
        let whole = one.feed(bytes) + one.flush()
        for split in 0...bytes.count {
            var decoder = KeyDecoder()
            let keys = decoder.feed(bytes[..<split]) + decoder.feed(bytes[split...]) + decoder.flush()
            guard keys == whole else {
                return FuzzViolation("keys", "the same keys in one read or split anywhere",
                                     "\(excerpt(bytes)) split at \(split): \(keys) instead of \(whole)")
            }
        }
        var decoder = KeyDecoder()
        _ = decoder.feed(bytes)
        _ = decoder.flush()
        let esc = decoder.feed([0x1B]) + decoder.flush()
        guard esc == [.escape] else {
            return FuzzViolation("keys", "a lone Esc after any input is the Esc key", "after \(excerpt(bytes)): \(esc)")
        }
        return nil
    }
}
