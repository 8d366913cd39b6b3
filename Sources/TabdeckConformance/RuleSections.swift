/// The section of PROTOCOL.md that states the rule each check is about, so that every failure
/// names it (PROTOCOL.md 17), also where the failing answer's own message does not.
enum RuleSections {
    /// Check name (or prefix ending in `:` or a space) → sections.
    static let table: [(String, String)] = [
        ("handshake", "7.1, 11.1"), ("open", "10.1–10.4, 11.2"),
        ("paging:", "11.3"), ("stream:", "11.3.1"), ("sort:", "11.3"), ("sections", "10.6"),
        ("filter", "11.3"), ("children", "11.4"), ("close", "11.5"), ("actions", "10.7, 11.6"),
        ("invalidate", "12.2"), ("locate", "11.9"), ("find", "11.15"), ("cell", "11.10"),
        ("where:", "11.11"), ("aggregate:", "11.12"), ("cancel", "6, 11.7"),
        ("errors: unknown method", "4.4"), ("errors: malformed line", "3.4"), ("errors:", "14.1"),
        ("speed:", "4.3"), ("shutdown", "7.4, 11.8"), ("messages", "4.2, 12"), ("stderr:", "3.3"),
        ("exit at end of input", "7.4"),
    ]

    /// The sections of the rule the check `name` is about, if known.
    static func of(_ name: String) -> String? {
        table.first { name == $0.0 || name.hasPrefix($0.0) }?.1
    }
}
