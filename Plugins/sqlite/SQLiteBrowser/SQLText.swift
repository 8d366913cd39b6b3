import Foundation
import TabdeckProtocol
/// Building blocks of SQL text: identifier quoting and LIKE patterns.
public enum SQLText {
    /// `name` as a double-quoted SQL identifier (`my "table"` → `"my ""table"""`).
    public static func quote(_ name: String) -> String {
        "\"" + name.replacingScalar("\"", with: "\"\"") + "\""
    }

    /// The escape character used by ``likePattern(containing:)``; write `ESCAPE '\'`.
    public static let likeEscape: Character = "\\"

    /// A LIKE pattern matching any text that contains `needle` literally: `%` and `_` in
    /// the needle match only themselves (use with `ESCAPE '\'`).
    public static func likePattern(containing needle: String) -> String {
        var out = String.UnicodeScalarView("%".unicodeScalars)
        for s in needle.unicodeScalars {  // scalars: a `%` with a combining mark is still a `%`
            if s == "%" || s == "_" || s == "\\" { out.append("\\") }
            out.append(s)
        }
        out.append("%")
        return String(out)
    }
}
