/// The text of a `filter` as it is matched (PROTOCOL.md 11.3, *What a filter matches*): a cell
/// passes when its text contains this text, ignoring ASCII letter case. The one matcher of the
/// host's spool and the csv engine; both give it the bytes of a cell's text.
public struct FilterText: Sendable {
    /// The text's bytes, ASCII letters lowered.
    @usableFromInline let needle: [UInt8]

    public init(_ text: String) { needle = text.utf8.map(Self.lower) }

    /// The filter's bytes, lowered.
    public var bytes: [UInt8] { needle }

    /// An ASCII letter lowered; any other byte as it is.
    @inlinable @inline(__always)
    public static func lower(_ b: UInt8) -> UInt8 { b >= 0x41 && b <= 0x5A ? b | 0x20 : b }

    /// Whether `hay` contains the text, ignoring ASCII case.
    @inlinable
    public func contains<C: RandomAccessCollection>(_ hay: C) -> Bool where C.Element == UInt8, C.Index == Int {
        let n = needle.count
        if n == 0 { return true }
        if hay.count < n { return false }
        return needle.withUnsafeBufferPointer { p in
            let first = p[0]
            var i = hay.startIndex
            let last = hay.endIndex - n
            while i <= last {
                if Self.lower(hay[i]) == first {
                    var k = 1
                    while k < n && Self.lower(hay[i + k]) == p[k] { k += 1 }
                    if k == n { return true }
                }
                i += 1
            }
            return false
        }
    }
}
