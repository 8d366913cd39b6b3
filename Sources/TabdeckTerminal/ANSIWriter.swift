/// Turns a ``Diff`` into the bytes for the terminal: one string per frame, to be written with
/// a single write(2).
///
/// Cursor moves are emitted only where a run does not continue where the last one ended, and
/// SGR sequences only when the style changes. With colours off (`NO_COLOR`), only bold and
/// reverse video are emitted.
public struct ANSIWriter: Sendable {
    /// Whether colours are emitted.
    public var colors: Bool

    /// A writer that emits colours or not.
    public init(colors: Bool) { self.colors = colors }

    /// A writer for this environment: colours unless `NO_COLOR` is set to a non-empty value
    /// (https://no-color.org) or the terminal has none (``UIState/isMonochrome(term:)``).
    public init(environment: [String: String]) {
        self.init(colors: (environment["NO_COLOR"] ?? "").isEmpty && !UIState.isMonochrome(term: environment["TERM"]))
    }

    /// The bytes that change the screen from the previous frame to the next.
    ///
    /// A full diff starts by resetting attributes and clearing the screen. The frame ends with
    /// attributes reset, so whatever writes next (a prompt) starts plain.
    public func bytes(for diff: Diff) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(diff.cellCount * 2 + diff.runs.count * 8 + 16)
        if diff.isFull { out += Array("\u{1b}[0m\u{1b}[H\u{1b}[2J".utf8) }
        var cursor: (x: Int, y: Int)? = nil
        var current: Style? = diff.isFull ? .plain : nil
        // The SGR bytes of each style met in this frame (a frame uses a handful of styles).
        var sgrs: [(style: Style, bytes: [UInt8])] = []
        for run in diff.runs {
            if cursor == nil || cursor! != (run.x, run.y) {
                out.append(0x1B); out.append(UInt8(ascii: "["))
                Self.appendDecimal(run.y + 1, to: &out)
                out.append(UInt8(ascii: ";"))
                Self.appendDecimal(run.x + 1, to: &out)
                out.append(UInt8(ascii: "H"))
            }
            var x = run.x
            for cell in run.cells {
                if cell.isContinuation { x += 1; continue }
                let style = effective(cell.style)
                if style != current {
                    if let known = sgrs.first(where: { $0.style == style }) {
                        out += known.bytes
                    } else {
                        let bytes = sgr(style)
                        sgrs.append((style, bytes))
                        out += bytes
                    }
                    current = style
                }
                cell.appendUTF8(to: &out)
                x += 1
            }
            cursor = (x, run.y)
        }
        if let current, current != .plain { out += Array("\u{1b}[0m".utf8) }
        return out
    }

    /// Appends the decimal digits of `n` (not negative) without making a string.
    static func appendDecimal(_ n: Int, to out: inout [UInt8]) {
        if n >= 10 { appendDecimal(n / 10, to: &out) }
        out.append(UInt8(ascii: "0") + UInt8(n % 10))
    }

    /// The style as this writer shows it (without colours when they are off).
    func effective(_ style: Style) -> Style {
        guard !colors else { return style }
        return Style(bold: style.bold, reverse: style.reverse)
    }

    /// The SGR sequence that sets exactly `style` (starting from a reset).
    func sgr(_ style: Style) -> [UInt8] {
        var codes = ["0"]
        if style.bold { codes.append("1") }
        if style.dim { codes.append("2") }
        if style.underline { codes.append("4") }
        if style.reverse { codes.append("7") }
        if let fg = Self.code(style.foreground, base: 30) { codes.append(fg) }
        if let bg = Self.code(style.background, base: 40) { codes.append(bg) }
        return Array("\u{1b}[\(codes.joined(separator: ";"))m".utf8)
    }

    static func code(_ color: Color, base: Int) -> String? {
        switch color {
        case .default: nil
        case .black: String(base)
        case .red: String(base + 1)
        case .green: String(base + 2)
        case .yellow: String(base + 3)
        case .blue: String(base + 4)
        case .magenta: String(base + 5)
        case .cyan: String(base + 6)
        case .white: String(base + 7)
        case .gray: String(base + 60)
        }
    }
}
