import Foundation
/// Building blocks of SQL text: identifier quoting and LIKE patterns.
public enum SQLText {
    /// `name` as a double-quoted SQL identifier (`my "table"` → `"my ""table"""`).
    public static func quote(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// The escape character used by ``likePattern(containing:)``; write `ESCAPE '\'`.
    public static let likeEscape: Character = "\\"

    /// A LIKE pattern matching any text that contains `needle` literally: `%` and `_` in
    /// the needle match only themselves (use with `ESCAPE '\'`).
    public static func likePattern(containing needle: String) -> String {
        var out = "%"
        for c in needle {
            if c == "%" || c == "_" || c == likeEscape { out.append(likeEscape) }
            out.append(c)
        }
        out.append("%")
        return out
    }
}
