import TabdeckProtocol

/// What a plugin process did, as the supervisor reports it (the core's own view of it,
/// so the core does not depend on the supervisor).
public enum PluginEvent: Hashable, Sendable {
    /// A decoded protocol message.
    case message(Message)
    /// A malformed or over-long line; the process is being killed.
    case violation(String)
    /// The process ended; `how` says how ("exited with status 3", "killed by signal 9").
    case exited(String)
    /// A line the plugin wrote to stderr (already in its log file).
    case stderr(String)
    /// The plugin could not be started at all (command not found, ...).
    case spawnFailed(String)
}

/// An input to ``Workspace/update(_:)``.
public enum Event: Hashable, Sendable {
    /// A command line typed by the user or read in line mode (parsed, then run as ``run(_:)``).
    case command(String)
    /// A command already typed as a value (a key of the full-screen UI): never text parsed again.
    case run(Command)
    /// Something happened to a tab's plugin.
    case plugin(tab: String, PluginEvent)
    /// A wake-up asked for with ``Effect/wake(at:)``.
    case wake
    /// The runtime could not carry out an effect of the active command (e.g. the export file).
    case effectFailed(String)
    /// The terminal shows this many table rows.
    case viewport(rows: Int)
    /// The screen shows the selected tab: start its plugin, open its table and fetch the rows in
    /// view if needed (the full-screen UI sends this after every key; nothing is printed).
    case refresh
    /// Move the selected table's cursor by this many rows, scrolling only as much as needed
    /// to keep it in view (keys `j`/`k`; nothing is printed).
    case cursor(delta: Int)
    /// Scroll the selected table's view by this many rows (the mouse wheel): the cursor stays on
    /// its row while that row is in view, else it goes to the nearest row in view (nothing is printed).
    case scroll(rows: Int)
    /// Find `text` (case-insensitive, any cell) in the whole selected table, from the row after
    /// the cursor (before it when `backward`), wrapping around; the cursor moves to the row
    /// found. It runs beside commands: see ``Workspace/find``.
    case find(text: String, backward: Bool)
    /// Stop the find (Esc).
    case cancelFind
    /// Stop the running command and the find (Esc on long work, Ctrl-C in line mode, `cancel`).
    case cancel
    /// Move the selected table by a page, like `page`, but leave saving the view to
    /// ``saveViews`` (keys PgDn PgUp g G; nothing is printed; errors are ignored).
    case page(Command.PageMove)
    /// The detail view shows the cursor's row: fetch the whole values of its cut cells (from a
    /// plugin with `cells`) into ``TableState/wholeValues`` (nothing is printed).
    case wholeCells
    /// Save the views that `cursor` and `page` events moved (the screen sends it when keys pause
    /// and before quitting).
    case saveViews
}

/// What a command printed, as text and as JSON (for `--output json`).
public struct CommandOutput: Hashable, Sendable {
    public var text: String
    public var json: JSONValue
    public init(text: String, json: JSONValue) { self.text = text; self.json = json }
}

/// Work for the runtime: the only way the core touches the world.
public enum Effect: Hashable, Sendable {
    /// Spawn the tab's plugin (its spec comes from the config).
    case startPlugin(tab: String)
    /// Send a message to the tab's plugin.
    case send(tab: String, Message)
    /// Stop the plugin gracefully (shutdown, close stdin, SIGTERM, SIGKILL).
    case stopPlugin(tab: String)
    /// Kill the plugin now.
    case killPlugin(tab: String)
    /// Persist the layout (before the command is acknowledged).
    case saveLayout(WorkspaceLayout)
    /// Forget the stored layout.
    case resetLayout
    /// Persist one table's view state.
    case saveView(tab: String, table: String, TableViewState)
    /// Append a line to the tab's log file.
    case log(tab: String, String)
    /// Something happened to a tab that a person should hear of at once (its plugin was
    /// restarted): the full screen shows the tab's notice in its status line; line mode prints
    /// this on stderr.
    case notice(tab: String, String)
    /// Send ``Event/wake`` at or after this time (seconds, the clock of `now`).
    case wake(at: Double)
    /// Start writing an export file whose header row holds these columns' ids (CSV cells of a
    /// decimal column are written with its `decimals`).
    case exportBegin(path: String, format: Command.ExportFormat, columns: [ColumnSpec])
    /// Append rows (cells in the same column order) to the export file.
    case exportRows([[JSONValue]])
    /// Finish the export file.
    case exportEnd
    /// Put this text on the terminal's clipboard (OSC 52); it holds no control character but
    /// tab and line feed. The runtime says so when there is no terminal to take it.
    case clipboard(String)
    /// Print the tail of the tab's log file as the command's output, then finish the command.
    case showLog(tab: String)
    /// The active command finished with this output.
    case commandDone(CommandOutput)
    /// The active command failed.
    case commandFailed(String)
    /// Leave.
    case quit
}
