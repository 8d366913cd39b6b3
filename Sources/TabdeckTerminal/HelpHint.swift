import TabdeckCore

/// The hint that `?` opens help, at the right of the status line: shown while nothing says
/// anything there (no error, notice, message, job, find or plugin progress) and the line has
/// room for it.
enum HelpHint {
    /// `? help` with the key bound to help (nil when no key opens it, or something is said).
    static func text(_ ws: Workspace, ui: UIState) -> String? {
        let tab = ws.selectedTab.flatMap { ws.tabs[$0] }
        guard ui.message == nil, ui.job == nil, tab?.problem == nil, tab?.notice == nil, tab?.progress == nil,
              ws.find?.isSearching != true else { return nil }
        guard let key = ui.keyMap.bindings.first(where: { $0.action == .help })?.keys.first else { return nil }
        return KeyMap.label([key]) + " help"
    }

    /// Draws the hint right-aligned on line `y` when it fits after `used` cells, two apart.
    static func draw(_ ws: Workspace, ui: UIState, into buf: inout ScreenBuffer, y: Int, used: Int, width: Int) {
        guard let hint = text(ws, ui: ui) else { return }
        let w = TextFit.width(hint)
        guard used + 2 + w <= width else { return }
        buf.set(x: width - w, y: y, hint, style: Palette.dim)
    }
}
