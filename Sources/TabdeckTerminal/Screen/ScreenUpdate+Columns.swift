import TabdeckCore

extension ScreenModel {
    /// Cells `{` and `}` narrow and widen a column by.
    public static let columnWidthStep = 2

    /// `<` `>` `-` `{` `}` `=`: the column under the cursor, changed by its `column` command (so
    /// it is saved with the table's view, as the command saves it). The column cursor follows a
    /// moved column.
    mutating func editColumn(_ action: Action, _ ws: Workspace) -> [ScreenEffect] {
        guard let t = ws.selectedTab.flatMap({ ws.tabs[$0]?.table }) else { return [] }
        let visible = t.visibleColumns
        guard !visible.isEmpty else {
            ui.message = .init("no visible columns: `column show COL` or `=` shows them", isError: true)
            return []
        }
        let c = min(max(0, ui.columnCursor), visible.count - 1)
        let column = visible[c]
        switch action {
        case .moveColumnLeft, .moveColumnRight:
            let to = action == .moveColumnLeft ? c - 1 : c + 1
            guard to >= 0, to < visible.count else {
                ui.message = .init("\(column.title) is the \(to < 0 ? "first" : "last") column already", isError: true)
                return []
            }
            // The neighbour's place among all columns (hidden ones count in `column move`).
            let place = t.view.columns.firstIndex { $0.id == visible[to].id }!
            ui.columnCursor = to
            return run(.columnMove(column.id, place + 1))
        case .hideColumn:
            if visible.count > 1 { ui.columnCursor = min(c, visible.count - 2) }
            return run(.columnHide(column.id))
        case .narrowColumn, .widenColumn:
            let shown = shownWidth(of: c, t, ws)
            let width = action == .narrowColumn ? max(1, shown - Self.columnWidthStep) : min(1000, shown + Self.columnWidthStep)
            guard width != shown else {
                ui.message = .init("\(column.title) is \(shown) cell\(shown == 1 ? "" : "s") wide already", isError: true)
                return []
            }
            return run(.columnWidth(column.id, width))
        case .resetColumns:
            // The cursor stays on its column, wherever the reset puts it.
            ui.columnCursor = t.description.columns.firstIndex { $0.id == column.id } ?? 0
            return run(.columnReset)
        default:
            return []
        }
    }

    /// The width column `c` (an index into the visible columns) has on screen now; a column the
    /// compact layout leaves out has the width it would get: the user's, else its minimum.
    func shownWidth(of c: Int, _ t: TableState, _ ws: Workspace) -> Int {
        if let layout = WorkspaceRenderer.columnLayout(workspace: ws, size: size, ui: ui),
           let placed = layout.placed.first(where: { $0.column == c }) {
            return placed.width
        }
        let spec = t.visibleColumns[c]
        let user = t.view.columns.first { $0.id == spec.id }?.width
        return ColumnLayout.bounds(spec, userWidth: user, titleWidth: TextFit.width(spec.title)).min
    }
}
