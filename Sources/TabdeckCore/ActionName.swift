import TabdeckProtocol

extension ActionSpec {
    /// The action as messages name it: its title (sanitized), which people see in the menu.
    var name: String { Sanitizer.clean(title) }
}
