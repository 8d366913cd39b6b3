/// Renders buffers to plain text so tests can assert whole screens exactly.
public enum TestBackend {
    /// One string per row, trailing spaces trimmed (wide characters appear once).
    public static func lines(_ buffer: ScreenBuffer) -> [String] {
        (0..<buffer.height).map { line(buffer, y: $0) }
    }

    /// The text of one row, trailing spaces trimmed.
    public static func line(_ buffer: ScreenBuffer, y: Int) -> String {
        var s = ""
        for x in 0..<buffer.width { s += buffer[x, y].symbol }
        while s.last == " " { s.removeLast() }
        return s
    }

    /// The rows as one string joined by newlines.
    public static func text(_ buffer: ScreenBuffer) -> String {
        lines(buffer).joined(separator: "\n")
    }

    /// Applies `diff` to `buffer`, as a terminal would (for testing diffs against frames).
    public static func apply(_ diff: Diff, to buffer: inout ScreenBuffer) {
        for run in diff.runs {
            for (i, cell) in run.cells.enumerated() { buffer.replace(x: run.x + i, y: run.y, with: cell) }
        }
    }
}
