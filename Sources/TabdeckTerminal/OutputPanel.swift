/// A command's long output (such as `tabs` or `columns`), in place of the table until dismissed.
enum OutputPanel {
    /// The output's lines wrapped to `width` cells.
    static func lines(_ text: String, width: Int) -> [String] {
        TextFit.wrap(text, width)
    }

    static func draw(_ text: String, scroll: Int, into buf: inout ScreenBuffer, _ rect: Rect) {
        guard !rect.isEmpty else { return }
        let all = lines(text, width: rect.width - 1)
        let top = max(0, min(scroll, all.count - rect.height))
        for (i, line) in all.dropFirst(top).prefix(rect.height).enumerated() {
            buf.set(x: rect.x + 1, y: rect.y + i, line, maxWidth: rect.width - 1)
        }
    }
}
