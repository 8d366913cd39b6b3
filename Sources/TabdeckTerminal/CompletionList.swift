import TabdeckCore
import TabdeckProtocol

/// The matches of a Tab completion at the `:` prompt, shown on the line above the prompt in
/// place, so that the screen never scrolls (readline's own list prints below the prompt, which
/// sits on the bottom line, and scrolls the workspace up).
public enum CompletionList {
    /// The matches on one line of `width` cells: as many as fit, two spaces apart, then how
    /// many more there are (`name  nation  (+3 more)`).
    public static func line(_ matches: [String], width: Int) -> String {
        guard width > 0 else { return "" }
        var out = ""
        for (i, match) in matches.enumerated() {
            let word = Sanitizer.clean(match)
            let candidate = out.isEmpty ? word : out + "  " + word
            let left = matches.count - i - 1
            let more = left > 0 ? "  (+\(left) more)" : ""
            if TextFit.width(candidate + more) <= width {
                out = candidate
                continue
            }
            let rest = "(+\(matches.count - i) more)"
            let withRest = out.isEmpty ? rest : out + "  " + rest
            return TextFit.width(withRest) <= width ? withRest : TextFit.cut(withRest, width).text
        }
        return out
    }

    /// The bytes that draw ``line(_:width:)`` on screen line `row` (1-based) and put the cursor
    /// back where it was: no newline, so nothing scrolls.
    public static func bytes(_ matches: [String], row: Int, width: Int) -> [UInt8] {
        Array("\u{1B}7\u{1B}[\(max(1, row));1H\u{1B}[2K\(line(matches, width: width))\u{1B}8".utf8)
    }
}
