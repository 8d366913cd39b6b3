import TabdeckProtocol

extension Workspace {
    /// A tab as people call it in messages: its title (`Processes`), else its id.
    func tabName(_ tab: String) -> String {
        config.tab(tab).map { Sanitizer.clean($0.title) } ?? tab
    }
}
