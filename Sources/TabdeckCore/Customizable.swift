extension TabConfig {
    /// Why this tab refuses `verb` (`move`, `hide`): config.json marks it `"customizable": false`.
    /// The one wording of the refusal, for the `tab` commands and for tab edit mode's keys.
    public func refusal(_ verb: String) -> String {
        "tab \(id) is not customizable (config.json says \"customizable\": false), so it cannot \(verb)"
    }
}
