import TabdeckProtocol

/// `mouse [on|off]`: whether the full screen takes the mouse. For this session only (config.json's
/// `"mouse"` is where it starts); in line mode it only changes what the next full screen would do.
extension Workspace {
    mutating func setMouse(_ on: Bool?) -> CommandOutput {
        if let on { mouse = on }
        let text = mouse ? "mouse on: clicks and the wheel go to Tabdeck (hold Shift to select text)"
                         : "mouse off: the terminal has the mouse (it selects text)"
        return CommandOutput(text: text, json: ["mouse": .bool(mouse)])
    }
}

extension CommandParser {
    static func parseMouse(_ rest: [String]) throws(CommandError) -> Command {
        switch rest {
        case []: return .mouse(nil)
        case ["on"]: return .mouse(true)
        case ["off"]: return .mouse(false)
        default: throw usage("mouse")
        }
    }
}
