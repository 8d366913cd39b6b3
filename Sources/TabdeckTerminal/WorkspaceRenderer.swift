import TabdeckCore

/// Draws the whole workspace: a pure function of the core's state, the terminal size and the
/// UI's own state.
///
/// Layout: at ``sidebarThreshold`` columns or more, a sidebar of ``sidebarWidth`` cells on the
/// left (section headers, tabs with glyph, title and badge); narrower, a one-line tab bar on
/// top. Then, in the content area: the breadcrumb when drilled down, the tab's error when its
/// plugin failed, and the table (or the detail view, or a command's output); help fills the
/// screen. The last line is the status line (or the prompt being typed).
public enum WorkspaceRenderer {
    /// Terminals at least this wide get the sidebar.
    public static let sidebarThreshold = 100
    /// The sidebar's width, its separator line included.
    public static let sidebarWidth = 25

    /// The frame for `workspace` at `size`.
    public static func render(workspace ws: Workspace, size: (width: Int, height: Int), ui: UIState) -> ScreenBuffer {
        var buf = ScreenBuffer(width: size.width, height: size.height)
        render(workspace: ws, ui: ui, layout: nil, into: &buf)
        return buf
    }

    /// Draws the frame for `workspace` into `buf` (blank, of the terminal's size), so a caller
    /// drawing frame after frame reuses one buffer instead of allocating one per frame.
    /// `layout` is the selected table's ``columnLayout(workspace:size:ui:)`` when the caller has
    /// it already (nil: computed here); it must be the one for this `ui` and size.
    public static func render(workspace ws: Workspace, ui: UIState, layout: ColumnLayout?, into buf: inout ScreenBuffer) {
        drawFrame(ws, ui: ui, layout: layout, into: &buf)
        if ui.ascii { ASCIIGlyphs.apply(to: &buf) }
    }

    static func drawFrame(_ ws: Workspace, ui: UIState, layout: ColumnLayout?, into buf: inout ScreenBuffer) {
        guard buf.width > 0, buf.height > 0 else { return }
        let regions = Regions(ws, width: buf.width, height: buf.height)
        StatusLine.draw(ws, ui: ui, into: &buf, y: regions.status, width: buf.width)
        if case .help(let scroll) = ui.mode {
            HelpView.draw(ui.keyMap, scroll: scroll, into: &buf, Rect(x: 0, y: 0, width: buf.width, height: regions.status))
            return
        }
        if regions.sidebar { Sidebar.draw(ws, edit: ui.tabEdit, ascii: ui.ascii, scroll: ui.mouse.sidebarTop(ws, ui), into: &buf, regions.tabs) } else { TabBar.draw(ws, edit: ui.tabEdit, ascii: ui.ascii, into: &buf, regions.tabs) }
        if case .output(let text, let scroll) = ui.mode {
            OutputPanel.draw(text, scroll: scroll, into: &buf, regions.content)
        } else {
            drawContent(ws, ui: ui, layout: layout, regions, into: &buf)
        }
        if case .action(let overlay) = ui.mode { ActionOverlayView.draw(overlay, into: &buf, regions.table) }
    }

    /// Table rows on screen for `size` (send it to the core as ``Event/viewport(rows:)``).
    public static func tableRows(workspace ws: Workspace, size: (width: Int, height: Int)) -> Int {
        guard size.width > 0, size.height > 0 else { return 1 }
        return max(1, Regions(ws, width: size.width, height: size.height).table.height - 1)
    }

    /// Whether the selected tab's table is open and every row it shows at `size` is loaded
    /// (no placeholder on screen).
    public static func visibleRowsLoaded(workspace ws: Workspace, size: (width: Int, height: Int), ui: UIState) -> Bool {
        guard size.width > 0, size.height > 0, let t = ws.selectedTab.flatMap({ ws.tabs[$0]?.table }) else { return false }
        // A count still unknown (a stream, an index being built): the rows on screen must all be in.
        let total = t.total ?? Int.max
        let rows = Regions(ws, width: size.width, height: size.height).table.height - 1
        guard rows > 0 else { return true }
        for line in TableView.lines(t, rows: rows) {
            if case .row(let i) = line, i < total, t.cache.row(at: i) == nil { return false }
        }
        return true
    }

    /// The selected table's column layout at `size` (to keep ``UIState/columnScroll`` in step
    /// with what is shown); nil when no table is open.
    public static func columnLayout(workspace ws: Workspace, size: (width: Int, height: Int), ui: UIState) -> ColumnLayout? {
        guard size.width > 0, size.height > 0, let t = ws.selectedTab.flatMap({ ws.tabs[$0]?.table }) else { return nil }
        return TableView.layout(t, width: Regions(ws, width: size.width, height: size.height).table.width, ui: ui)
    }

    static func drawContent(_ ws: Workspace, ui: UIState, layout: ColumnLayout?, _ r: Regions, into buf: inout ScreenBuffer) {
        guard let id = ws.selectedTab, let tab = ws.tabs[id], !r.content.isEmpty else { return }
        let x = r.content.x + 1
        let width = r.content.width - 1
        if r.breadcrumb {
            let crumbs = tab.stack.map(\.label).joined(separator: " > ")
            buf.set(x: x, y: r.content.y, crumbs, style: Palette.breadcrumb, maxWidth: width)
            Breadcrumb.hits(tab.stack.map(\.label), into: &buf, x: x, y: r.content.y, width: width)
        }
        guard let t = tab.table else {
            // No table yet: the error in full, or a note that it is on its way.
            if let error = tab.problem {
                for (i, line) in TextFit.wrap("! " + error, width).prefix(r.content.height).enumerated() {
                    buf.set(x: x, y: r.content.y + i, line, style: Palette.error, maxWidth: width)
                }
            } else {
                let note = tab.loadCancelled ? "not loaded: opening was cancelled (r opens it)" : ui.ascii ? "loading..." : "loading…"
                buf.set(x: x, y: r.content.y, note, style: Palette.dim, maxWidth: width)
            }
            return
        }
        if r.errorLine, let error = tab.problem {
            buf.set(x: x, y: r.table.y - 1, TextFit.fit("! " + StatusLine.firstLine(error), width), style: Palette.error, maxWidth: width)
        }
        switch ui.mode {
        case .detail(let scroll): DetailView.draw(t, scroll: scroll, into: &buf, r.table)
        default:
            if case .plot(let facts)? = t.derived {
                // A chart of every group, sized to the view.
                let rows = (0..<(t.total ?? 0)).compactMap { t.cache.row(at: $0) }
                for (i, line) in Chart.lines(rows, facts, width: r.table.width, height: r.table.height).enumerated()
                where i < r.table.height {
                    buf.set(x: r.table.x, y: r.table.y + i, line, style: i == 0 ? Palette.header : .plain, maxWidth: r.table.width)
                }
            } else {
                TableView.draw(t, ui: ui, layout: layout, into: &buf, r.table)
            }
        }
    }
}

/// Where each part of the screen goes.
struct Regions {
    var sidebar: Bool
    /// The sidebar, or the tab bar's line.
    var tabs: Rect
    /// Everything right of the sidebar or below the tab bar, above the status line.
    var content: Rect
    var breadcrumb: Bool
    var errorLine: Bool
    /// The table: its header row, then its rows.
    var table: Rect
    var status: Int

    init(_ ws: Workspace, width: Int, height: Int) {
        status = height - 1
        sidebar = width >= WorkspaceRenderer.sidebarThreshold
        if sidebar {
            let w = WorkspaceRenderer.sidebarWidth
            tabs = Rect(x: 0, y: 0, width: w, height: status)
            content = Rect(x: w, y: 0, width: width - w, height: status)
        } else {
            tabs = Rect(x: 0, y: 0, width: width, height: min(1, status))
            content = Rect(x: 0, y: min(1, status), width: width, height: max(0, status - 1))
        }
        let tab = ws.selectedTab.flatMap { ws.tabs[$0] }
        breadcrumb = (tab?.stack.count ?? 0) > 1
        errorLine = tab?.problem != nil && tab?.table != nil
        let top = content.y + (breadcrumb ? 1 : 0) + (errorLine ? 1 : 0)
        table = Rect(x: content.x, y: top, width: content.width, height: max(0, content.maxY - top))
    }
}
