import TabdeckCore
import TabdeckProtocol

/// The bottom line: the tab's error, a message, the row position, the selection, the sort
/// order, the find text, the plugin's status text and a progress bar.
enum StatusLine {
    static let separator = " · "
    static let barWidth = 10

    static func segments(_ ws: Workspace, ui: UIState, width: Int = 80) -> [(text: String, style: Style)] {
        var segs: [(String, Style)] = []
        let tab = ws.selectedTab.flatMap { ws.tabs[$0] }
        if let error = tab?.problem { segs.append(("! " + firstLine(error), Palette.error)) }
        if let notice = tab?.notice { segs.append((firstLine(notice), Palette.progress)) }
        // A message that only repeats the position (`goto` says where it went) is not said twice.
        if let m = ui.message, !m.text.isEmpty, m.isError || tab?.table.map({ position($0) != m.text }) ?? true {
            segs.append((firstLine(m.text), m.isError ? Palette.error : .plain))
        }
        if let job = ui.job, job.isShown { segs.append((JobLine.text(job, width: width), Palette.progress)) }
        if let t = tab?.table {
            segs.append((position(t) + TableView.childPosition(t), .plain))
            let selected = t.view.selection.summary(total: t.total)
            if !selected.isEmpty { segs.append((selected, .plain)) }
            if let filter = t.view.filter { segs.append(("filter: " + Sanitizer.clean(filter), Palette.found)) }
            if !t.view.where.isEmpty { segs.append(("where " + WhereText.shown(t.view.where), Palette.found)) }
            if !t.view.sort.isEmpty { segs.append(("sort: " + sortText(t), .plain)) }
        }
        if let f = ws.find, f.isSearching, f.tab == ws.selectedTab {
            if ui.job?.job.kind != .find { segs.append((finding(f, tab?.table, ascii: ui.ascii), Palette.progress)) }
        } else if let find = ui.find, !find.isEmpty {
            segs.append(("/" + find, Palette.found))
        }
        if let status = tab?.status, !status.isEmpty { segs.append((firstLine(status), Palette.dim)) }
        if let p = tab?.progress, ui.job?.reported == nil { segs.append((progress(p), Palette.progress)) }
        return segs
    }

    /// `row 1,204 of 1,000,000` (`of ?` while the count is unknown, and `G` waiting for it says
    /// so), or `no rows`.
    static func position(_ t: TableState) -> String {
        if t.total == 0 { return "no rows" }
        let row = "row \(formatCount(t.view.cursor + 1)) of "
        guard t.total != nil else { return row + (t.endWanted != nil ? "? (to the end once counted)" : "?") }
        return row + t.totalText
    }

    /// `finding "ada"… 12,000 of 1,000,000 rows (Esc stops)`.
    static func finding(_ f: FindState, _ t: TableState?, ascii: Bool = false) -> String {
        let of = t.flatMap { $0.total != nil ? " of " + $0.totalText : nil } ?? ""
        return "finding \"\(Sanitizer.clean(f.text))\"\(ascii ? "..." : "…") \(formatCount(f.checked))\(of) rows (Esc stops)"
    }

    /// The section index prompt: what was typed, then the titles of the sections it matches.
    static func sectionIndex(_ typed: String, _ t: TableState?) -> String {
        let sections = (t?.sections ?? []).filter { $0.count != 0 }
        let matching = sections.filter { typed.isEmpty || $0.title.lowercased().hasPrefix(typed.lowercased()) }
        let list = (matching.isEmpty ? ["no section starts with \"\(typed)\""] : matching.map { Sanitizer.clean($0.title) })
        return "section: " + typed + "▏ " + list.joined(separator: " · ")
    }

    /// `Name ↑, Age ↓` (column titles, in key order).
    static func sortText(_ t: TableState) -> String {
        t.view.sort.map { key in
            let title = t.description.columns.first { $0.id == key.column }?.title ?? key.column
            return title + (key.direction == .ascending ? " ↑" : " ↓")
        }.joined(separator: ", ")
    }

    /// `████░░░░░░ 42% indexing`, or `indexing 1,204` when the total is unknown.
    static func progress(_ p: PluginProgress) -> String {
        guard let total = p.total, total > 0 else {
            return (p.message ?? "working") + " " + formatCount(Int(p.done))
        }
        let fraction = min(1, max(0, p.done / total))
        let filled = Int(fraction * Double(barWidth))
        let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: barWidth - filled)
        return bar + " \(Int(fraction * 100))%" + (p.message.map { " " + $0 } ?? "")
    }

    static func firstLine(_ s: String) -> String {
        String(s.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
    }

    static func draw(_ ws: Workspace, ui: UIState, into buf: inout ScreenBuffer, y: Int, width: Int) {
        if case .prompt(let text) = ui.mode {
            buf.set(x: 0, y: y, text, maxWidth: width)
            return
        }
        if case .sectionIndex(let typed) = ui.mode {
            let t = ws.selectedTab.flatMap { ws.tabs[$0]?.table }
            buf.set(x: 0, y: y, sectionIndex(typed, t), maxWidth: width)
            return
        }
        if let edit = ui.tabEdit {
            TabEditView.drawStatus(ws, edit, ui.message, into: &buf, y: y, width: width)
            return
        }
        if case .output = ui.mode {
            buf.set(x: 0, y: y, "output · ↑↓ scroll · Esc closes", style: Palette.dim, maxWidth: width)
            return
        }
        if case .help = ui.mode {
            let hint = width < 45 ? "help · ↑↓ scroll · Esc closes" : "help · ↑↓ PgUp PgDn scroll · Esc or ? closes"
            buf.set(x: 0, y: y, hint, style: Palette.dim, maxWidth: width)
            return
        }
        var x = 0
        for (i, seg) in segments(ws, ui: ui, width: width).enumerated() {
            if i > 0 { x += buf.set(x: x, y: y, separator, style: Palette.dim, maxWidth: width - x) }
            let room = width - x
            guard room > 0 else { break }
            x += buf.set(x: x, y: y, TextFit.fit(seg.text, min(room, TextFit.width(seg.text))), style: seg.style, maxWidth: room)
        }
        HelpHint.draw(ws, ui: ui, into: &buf, y: y, used: x, width: width)
    }
}
