/// What only the terminal UI knows (the core knows the rest): a value the renderer reads.
public struct UIState: Hashable, Sendable {
    /// What fills the screen.
    public enum Mode: Hashable, Sendable {
        /// The selected tab's table.
        case table
        /// The key and command help, scrolled by this many lines.
        case help(scroll: Int)
        /// Every field of the cursor row, scrolled by this many lines.
        case detail(scroll: Int)
        /// The bottom line shows this text (a prompt being typed, such as `/nam`).
        case prompt(String)
        /// A command's long output in a panel over the table, scrolled by this many lines.
        case output(String, scroll: Int)
        /// The section index: the first letters of a section typed so far (each letter jumps).
        case sectionIndex(String)
        /// Tab edit mode: a cursor on the tabs (hidden ones included) that keys move, hide and show.
        case tabEdit(TabEdit)
        /// The actions menu, the question before an action, or an action's form, over the table.
        case action(ActionOverlay)

        /// The same scrollable mode scrolled to `scroll` (other modes are unchanged).
        public func scrolled(to scroll: Int) -> Mode {
            switch self {
            case .help: .help(scroll: scroll)
            case .detail: .detail(scroll: scroll)
            case .output(let text, _): .output(text, scroll: scroll)
            case .table, .prompt, .sectionIndex, .tabEdit, .action: self
            }
        }
    }

    /// A message on the status line (a command's output or error).
    public struct StatusMessage: Hashable, Sendable {
        /// The message (its first line is shown).
        public var text: String
        /// Shown as an error (red).
        public var isError: Bool
        /// The job it is about (``Job/identity``), so a newer word on that job replaces it.
        public var job: String?
        /// A message, an error or not.
        public init(_ text: String, isError: Bool = false, job: String? = nil) { self.text = text; self.isError = isError; self.job = job }
    }

    /// What fills the screen.
    public var mode: Mode
    /// The column under the cursor, an index into the table's visible columns.
    public var columnCursor: Int
    /// The first column shown after the first (frozen) one, an index into the visible columns.
    /// The renderer moves it as needed to show the column cursor.
    public var columnScroll: Int
    /// The status line's message, if any.
    public var message: StatusMessage?
    /// The find text; cells containing it are highlighted.
    public var find: String?
    /// The keys shown by help.
    public var keyMap: KeyMap
    /// The cursor row's detail (the plugin's `detail`) shows on a line under it (key `v`).
    public var showsDetailLine = false
    /// The long work running, as the status line shows it (progress bar or spinner).
    public var job: JobProgress?
    /// Draw with ASCII only (`TERM` dumb, empty or monochrome): `|` `-` `+` borders, `...`, `^` `v`.
    public var ascii = false
    /// The mouse: the button held, the last click, a column being resized, the sidebar's scroll.
    public var mouse = MouseState()

    /// A UI state; the defaults show the table with the cursor on the first column.
    public init(mode: Mode = .table, columnCursor: Int = 0, columnScroll: Int = 1, message: StatusMessage? = nil,
                find: String? = nil, keyMap: KeyMap = .standard) {
        self.mode = mode; self.columnCursor = columnCursor; self.columnScroll = columnScroll
        self.message = message; self.find = find; self.keyMap = keyMap
    }
}
