import TabdeckCore

extension ScreenModel {
    /// `v`: the cursor row's detail line on or off; says so when the row has none.
    mutating func toggleDetailLine(_ t: TableState?) -> [ScreenEffect] {
        ui.showsDetailLine.toggle()
        if ui.showsDetailLine, let t, let row = t.outlineRow(t.cursorPosition), (row.detail ?? "").isEmpty {
            ui.message = .init("detail line on (this row has no detail)")
        }
        return []
    }
}
