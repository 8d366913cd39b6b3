/// The styles the workspace is drawn with, in one place.
enum Palette {
    static let sectionHeader = Style(foreground: .cyan, bold: true)
    static let badge = Style(foreground: .yellow, bold: true)
    static let failedBadge = Style(foreground: .red, bold: true)
    static let separator = Style(foreground: .gray)
    static let mark = Style(foreground: .gray)
    static let header = Style(bold: true, underline: true)
    /// The cell between two headers: the edge a drag resizes (a grey stretch of the underline).
    static let columnEdge = Style(foreground: .gray, underline: true)
    static let placeholder = Style(foreground: .gray, dim: true)
    static let selectionMark = Style(foreground: .green, bold: true)
    static let found = Style(foreground: .yellow, bold: true, underline: true)
    static let error = Style(foreground: .red, bold: true)
    static let breadcrumb = Style(foreground: .blue, bold: true)
    static let dim = Style(foreground: .gray, dim: true)
    static let progress = Style(foreground: .green)
    static let label = Style(bold: true)
    /// A table section's header row and footer row (never under the row cursor).
    static let tableSection = Style(foreground: .cyan, bold: true)
    static let tableFooter = Style(foreground: .gray, dim: true)
}
