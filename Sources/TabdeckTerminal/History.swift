/// The rules of the `:` prompt's history, apart from readline so they can be tested.
public enum History {
    /// Whether `line` goes into the history after `last` (the newest entry): not when it is
    /// blank (spaces and tabs only), nor when it repeats the newest entry exactly. It is kept
    /// as typed (not trimmed), so recalling it gives back what was typed.
    public static func shouldAdd(_ line: String, after last: String?) -> Bool {
        line.contains { $0 != " " && $0 != "\t" } && line != last
    }
}
