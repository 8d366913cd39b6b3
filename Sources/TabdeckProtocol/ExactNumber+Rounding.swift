extension ExactNumber {
    /// The text with exactly `decimals` digits after the point (0: no point), padded with
    /// zeros or rounded half away from zero, on the digits themselves (never through a double):
    /// `2.675` → `2.68`, `-0.005` → `-0.01`, `999.995` → `1000.00`, `3` → `3.00`. The integer
    /// digits are kept as sent (a carry may add one). The sign is kept, also on a zero sent as
    /// `-0`, except where rounding turned a value that was not zero into zero (`-0.001` → `0.00`,
    /// as ``CellText/fixed(_:_:)`` shows a double). `NaN` and the infinities stay as sent.
    public func rounded(toDecimals decimals: Int) -> String {
        guard kind == .finite else { return text }
        let digits = max(decimals, 0)
        var bytes = Array(text.utf8)
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { bytes.removeFirst() }
        let point = bytes.firstIndex(of: UInt8(ascii: ".")) ?? bytes.count
        var integer = Array(bytes[..<point])
        var fraction = point < bytes.count ? Array(bytes[(point + 1)...]) : []
        let wasZero = (integer + fraction).allSatisfy { $0 == UInt8(ascii: "0") }
        if fraction.count <= digits {
            fraction += [UInt8](repeating: UInt8(ascii: "0"), count: digits - fraction.count)
        } else {
            let up = fraction[digits] >= UInt8(ascii: "5")
            fraction.removeSubrange(digits...)
            if up {
                // Adds one unit of the last kept digit, carrying left through the fraction and the integer.
                var carry = true
                for i in fraction.indices.reversed() where carry {
                    if fraction[i] == UInt8(ascii: "9") { fraction[i] = UInt8(ascii: "0") } else { fraction[i] += 1; carry = false }
                }
                for i in integer.indices.reversed() where carry {
                    if integer[i] == UInt8(ascii: "9") { integer[i] = UInt8(ascii: "0") } else { integer[i] += 1; carry = false }
                }
                if carry { integer.insert(UInt8(ascii: "1"), at: 0) }
            }
        }
        let isZero = (integer + fraction).allSatisfy { $0 == UInt8(ascii: "0") }
        var out: [UInt8] = negative && (!isZero || wasZero) ? [UInt8(ascii: "-")] : []
        out += integer
        if digits > 0 { out.append(UInt8(ascii: ".")); out += fraction }
        return String(decoding: out, as: UTF8.self)
    }
}
