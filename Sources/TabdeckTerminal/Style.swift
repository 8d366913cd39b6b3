/// A colour from the small palette Tabdeck uses (the 16 ANSI colours and the terminal default).
public enum Color: UInt8, Hashable, Sendable {
    /// The terminal's own foreground or background.
    case `default`
    case black, red, green, yellow, blue, magenta, cyan, white
    /// Bright black: secondary text.
    case gray
}

/// How a cell looks: colours and attributes.
///
/// Stored packed in 32 bits (foreground, background, then one bit per attribute), so a
/// ``Cell`` is 8 bytes of plain data and comparing two cells is comparing two integers.
public struct Style: Hashable, Sendable {
    /// Bits 0–7 foreground, 8–15 background, 16 bold, 17 dim, 18 reverse, 19 underline.
    private var bits: UInt32

    private static let boldBit: UInt32 = 1 << 16, dimBit: UInt32 = 1 << 17
    private static let reverseBit: UInt32 = 1 << 18, underlineBit: UInt32 = 1 << 19

    /// Text colour.
    public var foreground: Color {
        get { Color(rawValue: UInt8(truncatingIfNeeded: bits))! }
        set { bits = (bits & ~0xFF) | UInt32(newValue.rawValue) }
    }
    /// Cell colour.
    public var background: Color {
        get { Color(rawValue: UInt8(truncatingIfNeeded: bits >> 8))! }
        set { bits = (bits & ~0xFF00) | UInt32(newValue.rawValue) << 8 }
    }
    /// SGR 1.
    public var bold: Bool { get { flag(Self.boldBit) } set { setFlag(Self.boldBit, newValue) } }
    /// SGR 2 (faint).
    public var dim: Bool { get { flag(Self.dimBit) } set { setFlag(Self.dimBit, newValue) } }
    /// SGR 7 (reverse video).
    public var reverse: Bool { get { flag(Self.reverseBit) } set { setFlag(Self.reverseBit, newValue) } }
    /// SGR 4.
    public var underline: Bool { get { flag(Self.underlineBit) } set { setFlag(Self.underlineBit, newValue) } }

    /// A style; the defaults are the terminal's plain look.
    public init(foreground: Color = .default, background: Color = .default, bold: Bool = false, dim: Bool = false,
                reverse: Bool = false, underline: Bool = false) {
        bits = UInt32(foreground.rawValue) | UInt32(background.rawValue) << 8
        setFlag(Self.boldBit, bold); setFlag(Self.dimBit, dim)
        setFlag(Self.reverseBit, reverse); setFlag(Self.underlineBit, underline)
    }

    /// The terminal's default look.
    public static let plain = Style()

    /// This style in bold.
    public var emphasized: Style { var s = self; s.bold = true; return s }

    @inline(__always) private func flag(_ bit: UInt32) -> Bool { bits & bit != 0 }
    @inline(__always) private mutating func setFlag(_ bit: UInt32, _ on: Bool) { if on { bits |= bit } else { bits &= ~bit } }
}

extension Style: CustomDebugStringConvertible {
    /// The fields by name (for test failures).
    public var debugDescription: String {
        "Style(foreground: .\(foreground), background: .\(background), bold: \(bold), dim: \(dim), reverse: \(reverse), underline: \(underline))"
    }
}
