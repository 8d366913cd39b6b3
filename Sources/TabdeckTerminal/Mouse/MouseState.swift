import TabdeckCore

/// What the UI remembers between mouse reports: the button held, the last click (for a double
/// click), a column edge being dragged, and where the wheel scrolled the sidebar.
public struct MouseState: Hashable, Sendable {
    /// The left button went down here, at this time, and has not come up yet.
    struct Press: Hashable, Sendable {
        var target: HitTarget?
        var x: Int
        var y: Int
        var at: Double
    }

    /// A click, for telling a double click (the same target within ``ScreenModel/doubleClickTime``).
    struct Click: Hashable, Sendable {
        var target: HitTarget?
        var at: Double
    }

    /// The sidebar's first line since the wheel scrolled it, kept while `selected` (the selected
    /// tab, or the edit cursor's) stays the same; then it follows the selection again.
    struct SidebarScroll: Hashable, Sendable {
        var top: Int
        var selected: String?
    }

    /// Whether the terminal reports the mouse, as the model last asked its shell (nil: not yet).
    public internal(set) var reporting: Bool?
    var press: Press?
    /// The status line shows a drag's "release here" hint, to be cleared when the drag leaves
    /// its target or ends, wherever it ends.
    var hint: UIState.StatusMessage?
    var lastClick: Click?
    var sidebar: SidebarScroll?
    /// A column whose header edge is being dragged, and the width it shows meanwhile.
    var resize: (column: String, width: Int)? {
        get { resizing.map { ($0.column, $0.width) } }
        set { resizing = newValue.map { Resize(column: $0.column, width: $0.width) } }
    }
    private var resizing: Resize?
    private struct Resize: Hashable, Sendable { var column: String; var width: Int }

    public init() {}

    /// The width column `id` shows while its edge is dragged (nil: not dragged).
    func previewWidth(_ id: String) -> Int? {
        resizing.flatMap { $0.column == id ? $0.width : nil }
    }

    /// The sidebar's first line as the wheel left it, nil when it follows the selected tab.
    func sidebarTop(_ ws: Workspace, _ ui: UIState) -> Int? {
        guard let sidebar, sidebar.selected == (ui.tabEdit?.cursor ?? ws.selectedTab) else { return nil }
        return sidebar.top
    }
}
