/// A colour from the small palette Tabdeck uses (the 16 ANSI colours and the terminal default).
public enum Color: Hashable, Sendable {
    /// The terminal's own foreground or background.
    case `default`
    case black, red, green, yellow, blue, magenta, cyan, white
    /// Bright black: secondary text.
    case gray
}

/// How a cell looks: colours and attributes.
public struct Style: Hashable, Sendable {
    /// Text colour.
    public var foreground: Color
    /// Cell colour.
    public var background: Color
    /// SGR 1.
    public var bold: Bool
    /// SGR 2 (faint).
    public var dim: Bool
    /// SGR 7 (reverse video).
    public var reverse: Bool
    /// SGR 4.
    public var underline: Bool

    /// A style; the defaults are the terminal's plain look.
    public init(foreground: Color = .default, background: Color = .default, bold: Bool = false, dim: Bool = false,
                reverse: Bool = false, underline: Bool = false) {
        self.foreground = foreground; self.background = background
        self.bold = bold; self.dim = dim; self.reverse = reverse; self.underline = underline
    }

    /// The terminal's default look.
    public static let plain = Style()

    /// This style in bold.
    public var emphasized: Style { var s = self; s.bold = true; return s }
}
