import TabdeckCore

/// Copying (`y`, `Y`, `copy`) and command lines bound to keys in config.json.
extension ScreenModel {
    /// `y`, `Y` and a key's command line: run as typed, so the status line shows what they
    /// said ("copied 3 rows, 412 bytes"). A `copy cell` or `copy column` without a column takes
    /// the column under the cursor.
    mutating func performCopy(_ action: Action, _ ws: Workspace) -> [ScreenEffect] {
        let command: Command
        switch action {
        case .copyRow: command = .copy(.row, column: nil, format: nil)
        case .copySelection: command = .copy(.selection, column: nil, format: nil)
        case .typed(let c, _): command = withCursorColumn(c, ws)
        default: return []
        }
        let effects = run(command)
        showsOutput = true
        return effects
    }

    /// What the `:` prompt's line becomes: the line itself, or, for `copy cell` or `copy column`
    /// without a column, the typed command with the column under the cursor.
    func promptEvent(_ line: String, _ ws: Workspace) -> Event {
        guard let parsed = try? CommandParser.parse(line), case .copy = parsed else { return .command(line) }
        let filled = withCursorColumn(parsed, ws)
        return filled == parsed ? .command(line) : .run(filled)
    }

    /// `command` with the column under the cursor filled in where `copy` leaves it open.
    func withCursorColumn(_ command: Command, _ ws: Workspace) -> Command {
        guard case .copy(let target, nil, let format) = command, target == .cell || target == .column,
              let t = ws.selectedTab.flatMap({ ws.tabs[$0]?.table }), ui.columnCursor < t.visibleColumns.count else { return command }
        return .copy(target, column: t.visibleColumns[ui.columnCursor].id, format: format)
    }
}
