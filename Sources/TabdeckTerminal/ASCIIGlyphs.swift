/// The frame for terminals that cannot draw line or block characters (`TERM` dumb, empty or monochrome; `NO_COLOR` only drops colour):
/// every glyph the UI draws has a plain ASCII stand-in, put in after the frame is drawn, so each
/// view draws one way and ASCII mode cannot miss a glyph.
enum ASCIIGlyphs {
    /// UI glyphs and their ASCII stand-ins (one cell each).
    static let map: [String: String] = [
        "│": "|", "─": "-", "┌": "+", "┐": "+", "└": "+", "┘": "+", "├": "+", "┤": "+", "┬": "+", "┴": "+", "┼": "+",
        "↑": "^", "↓": "v", "←": "<", "→": ">", "›": ">", "▸": ">", "▾": "v", "▏": "|", "·": "-",
        "█": "#", "▉": "#", "▊": "#", "▋": "#", "▌": "#", "▍": "#", "▎": "#", "░": "-", "▁": "_", "▂": "_", "▃": "-", "▄": "-", "▅": "=", "▆": "=", "▇": "#", "✓": "x", "●": "*", "–": "-", "—": "-", "≈": "~",
        "⠋": "|", "⠙": "/", "⠹": "-", "⠸": "\\", "⠼": "|", "⠴": "/", "⠦": "-", "⠧": "\\", "⠇": "|", "⠏": "/",
    ]

    /// Replaces the UI's glyphs in `buf` with ASCII. A `…` ending cut text becomes `...` over
    /// the two cells before it (the text stays as wide); elsewhere it is `.`.
    static func apply(to buf: inout ScreenBuffer) {
        for y in 0..<buf.height {
            for x in 0..<buf.width {
                let symbol = buf[x, y].symbol
                guard symbol.utf8.count > 1 else { continue }  // ASCII, blank or continuation
                var cell = buf[x, y]
                if symbol == "…" {
                    cell.symbol = "."
                    buf.replace(x: x, y: y, with: cell)
                    let cutEnd = x + 1 >= buf.width || buf[x + 1, y].symbol == " "
                    guard cutEnd else { continue }
                    for dx in 1...2 where x - dx >= 0 {
                        var before = buf[x - dx, y]
                        guard before.symbol != " ", before.symbol.utf8.count == 1 else { break }
                        before.symbol = "."
                        buf.replace(x: x - dx, y: y, with: before)
                    }
                } else if let ascii = map[symbol] {
                    cell.symbol = ascii
                    buf.replace(x: x, y: y, with: cell)
                } else if let scalar = symbol.unicodeScalars.first, (0x2800...0x28FF).contains(scalar.value) {
                    cell.symbol = scalar.value == 0x2800 ? " " : "*"  // braille dots (plots; the spinner's are above)
                    buf.replace(x: x, y: y, with: cell)
                }
            }
        }
    }
}

extension UIState {
    /// Whether a terminal with this environment gets ASCII borders and glyphs: a terminal that
    /// is dumb or has no colour (``isMonochrome(term:)``). `NO_COLOR` alone does not: it is a
    /// person's wish for no colour on a terminal that still draws box characters.
    public static func wantsASCII(environment: [String: String]) -> Bool {
        isMonochrome(term: environment["TERM"])
    }

    /// `TERM` names a terminal without colour: empty, `dumb`, the old DEC terminals, or a
    /// terminfo monochrome variant (`xterm-mono`, `vt100-m`). Unset says nothing: not monochrome.
    public static func isMonochrome(term: String?) -> Bool {
        guard let term else { return false }
        if term.isEmpty { return true }
        return ["dumb", "vt52", "vt100", "vt102", "vt220"].contains(term) || term.hasSuffix("-mono") || term.hasSuffix("-m")
    }
}
