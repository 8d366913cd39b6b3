/// One terminal cell: the text drawn in it and its style.
///
/// `symbol` is one grapheme cluster (a character with any combining marks joined to it).
/// A wide character (CJK, emoji) is stored in its first cell; the cell after it is a
/// *continuation* cell (empty symbol) that the terminal fills on its own.
public struct Cell: Hashable, Sendable {
    /// The grapheme cluster drawn (empty for a continuation cell).
    public var symbol: String
    /// How it is drawn.
    public var style: Style

    /// A cell showing `symbol` (one grapheme cluster) in `style`.
    public init(_ symbol: String = " ", style: Style = .plain) {
        self.symbol = symbol; self.style = style
    }

    /// A blank cell.
    public static let blank = Cell()

    /// The second half of a wide character.
    public static func continuation(_ style: Style) -> Cell { Cell("", style: style) }

    /// Whether this is the second half of a wide character.
    public var isContinuation: Bool { symbol.isEmpty }
}
