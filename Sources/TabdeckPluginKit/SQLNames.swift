import Foundation

/// The names a SQL plugin offers for completion after `sql` (``TableDescription/sqlNames``).
public enum SQLNames {
    /// At most this many names on a catalog.
    public static let limit = 1000

    /// `name` as an identifier in SQL: as it is when it is lower-case letters, digits and `_`
    /// (not starting with a digit), which every engine reads unquoted; else in double quotes.
    public static func identifier(_ name: String) -> String {
        let plain = !name.isEmpty && name.utf8.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 95 }
            && !(name.utf8.first! >= 48 && name.utf8.first! <= 57)
        return plain ? name : "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
