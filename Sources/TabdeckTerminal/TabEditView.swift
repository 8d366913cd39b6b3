import TabdeckCore

/// What tab edit mode adds to the screen besides its cursor in the sidebar or the tab bar:
/// the status line, which says what the keys do (or asks the reset's question).
enum TabEditView {
    /// The word a hidden tab shows in edit mode, in place of its badge.
    static let hiddenMark = "hidden"

    /// The status line's text for `width` cells: the reset's question; else a refusal or note,
    /// the key hints (shorter when they do not fit), then the cursor tab's place (`Logs in
    /// System`, `fixed` when it is not customizable).
    static func status(_ ws: Workspace, _ edit: TabEdit, _ message: UIState.StatusMessage?, width: Int) -> [(text: String, style: Style)] {
        if edit.confirmingReset {
            return [("reset tabs and sections to config.json's order? y/n", Palette.error)]
        }
        var segs: [(text: String, style: Style)] = []
        if let message, !message.text.isEmpty {
            segs.append((StatusLine.firstLine(message.text), message.isError ? Palette.error : .plain))
        }
        let used = segs.reduce(0) { $0 + TextFit.width($1.text) + TextFit.width(StatusLine.separator) }
        segs.append((used + TextFit.width(TabEditKeys.hints) <= width ? TabEditKeys.hints : TabEditKeys.shortHints, Palette.dim))
        if let tab = ws.config.tab(edit.cursor) {
            let section = ws.layout.tabs.first { $0.tab == edit.cursor }?.section
            var place = tab.title + (section.map { " in " + (ws.config.section($0)?.title ?? $0) } ?? "")
            if !tab.customizable { place += " (fixed)" }
            segs.append((place, Palette.label))
        }
        return segs
    }

    static func drawStatus(_ ws: Workspace, _ edit: TabEdit, _ message: UIState.StatusMessage?,
                           into buf: inout ScreenBuffer, y: Int, width: Int) {
        var x = 0
        for (i, seg) in status(ws, edit, message, width: width).enumerated() {
            if i > 0 { x += buf.set(x: x, y: y, StatusLine.separator, style: Palette.dim, maxWidth: width - x) }
            let room = width - x
            guard room > 0 else { break }
            x += buf.set(x: x, y: y, TextFit.fit(seg.text, min(room, TextFit.width(seg.text))), style: seg.style, maxWidth: room)
        }
    }
}
