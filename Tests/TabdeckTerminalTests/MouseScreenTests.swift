import Testing
import TabdeckCore
import TabdeckProtocol
@testable import TabdeckTerminal

/// The mouse, as the seeds' gestures: each report hit-tested against the frame the renderer
/// drew, coming to the keys' typed commands. Exact screens at 40, 80 and 120 columns
/// (MouseScreens.swift), virtual time for double clicks.
@Suite struct MouseScreenTests {
    /// Where the renderer put `target` on the screen now: its first cell.
    static func place(_ s: ScreenScene, _ match: (HitTarget) -> Bool, sourceLocation: SourceLocation = #_sourceLocation) -> (x: Int, y: Int, width: Int) {
        guard let found = s.frame.hits.first(where: match) else {
            Issue.record("not on screen", sourceLocation: sourceLocation)
            return (-1, -1, 0)
        }
        return found
    }

    static func header(_ s: ScreenScene, _ id: String) -> (x: Int, y: Int, width: Int) {
        place(s) { if case .header(_, id, _) = $0 { true } else { false } }
    }

    static func edge(_ s: ScreenScene, _ id: String) -> (x: Int, y: Int, width: Int) {
        place(s) { if case .headerEdge(_, id, _) = $0 { true } else { false } }
    }

    static func tab(_ s: ScreenScene, _ id: String) -> (x: Int, y: Int, width: Int) {
        place(s) { $0 == .tab(id) }
    }

    /// The line of row `index` (top-level) and the table's first column.
    static func row(_ s: ScreenScene, _ index: Int) -> (x: Int, y: Int, width: Int) {
        place(s) { if case .row(let h) = $0 { h.position == OutlinePosition(row: index, path: []) && h.part == .body } else { false } }
    }

    static func table(_ s: ScreenScene) -> TableState { s.scene.ws.tabs[s.scene.ws.selectedTab!]!.table! }

    static func check(_ s: ScreenScene, _ expected: [Int: [String]], _ width: Int, _ name: String) {
        if let lines = expected[width] { #expect(s.lines == lines, "\(name) at \(width)") } else {
            print("MISSING \(name) \(width)"); literal(s.lines); Issue.record("no expectation for \(name) at \(width)")
        }
    }

    /// A click on a tab, in the tab bar or the sidebar, selects it.
    @Test(arguments: [40, 80, 120])
    func aClickOnATabSelectsIt(width: Int) {
        var s = ScreenScene(width: width, height: 8)
        let orders = Self.tab(s, "orders")
        s.click(x: orders.x + 1, y: orders.y)
        #expect(s.scene.ws.selectedTab == "orders")
        Self.check(s, Self.ordersSelected, width, "ordersSelected")
    }

    /// The wheel over a sidebar that overflows scrolls it (3 lines a notch, no further than its
    /// end), and it stays scrolled while the selected tab stays, a click on a tab included. The
    /// tab bar of narrow terminals does not scroll.
    @Test(arguments: [40, 80, 120])
    func theWheelScrollsAnOverflowingSidebar(width: Int) {
        var s = ScreenScene(width: width, height: 6)
        let before = s.lines
        s.wheel(.wheelDown, x: 3, y: 0)
        guard width >= 100 else {
            #expect(s.lines == before)
            return
        }
        Self.check(s, Self.sidebarScrolled, width, "sidebarScrolled")
        let logs = Self.tab(s, "logs")
        s.click(x: logs.x + 3, y: logs.y)
        #expect(s.scene.ws.selectedTab == "logs")
        Self.check(s, Self.sidebarLogs, width, "sidebarLogs")
        s.wheel(.wheelUp, x: 3, y: 2, notches: 2)
        #expect(s.lines[0].hasPrefix(" Data "))
        // In tab edit mode too; a press on a tab there keeps the scroll.
        s.press(.char("T"))
        s.wheel(.wheelDown, x: 3, y: 0)
        #expect(s.lines[0].hasPrefix("  $ Orders "))
        let procs = Self.tab(s, "procs")
        s.click(x: procs.x + 3, y: procs.y)
        #expect(s.model.ui.tabEdit?.cursor == "procs")
        #expect(s.lines[0].hasPrefix("  $ Orders "))
        #expect(s.lines[3].hasPrefix("› ⚙ Processes"))
    }

    /// A click on a header sorts by it as `s` does (SortOrder.choose): Age ascending, again
    /// descending, then Name goes to the front and Age stays second; the header shows each
    /// key's direction and rank.
    @Test(arguments: [40, 80, 120])
    func aClickOnAHeaderSortsLikeTheSortKey(width: Int) {
        var s = ScreenScene(width: width, height: 8)
        var age = Self.header(s, "age")
        s.click(x: age.x + 1, y: age.y)
        #expect(Self.table(s).view.sort == [SortKey("age", .ascending)])
        age = Self.header(s, "age")
        s.click(x: age.x + 1, y: age.y)
        #expect(Self.table(s).view.sort == [SortKey("age", .descending)])
        let name = Self.header(s, "name")
        s.click(x: name.x, y: name.y)
        #expect(Self.table(s).view.sort == [SortKey("name", .ascending), SortKey("age", .descending)])
        Self.check(s, Self.sortedByClicks, width, "sortedByClicks")
    }

    /// A click on a row puts the cursor there; a click in the mark column toggles the row's
    /// selection (the cursor stays); again, unselects it.
    @Test(arguments: [40, 80, 120])
    func aClickOnARowMovesTheCursorAndTheMarkColumnSelects(width: Int) {
        var s = ScreenScene(width: width, height: 8)
        let third = Self.row(s, 3)
        s.click(x: third.x + 6, y: third.y)
        #expect(Self.table(s).view.cursor == 3)
        let first = Self.row(s, 1)
        s.click(x: first.x, y: first.y)
        s.click(x: Self.row(s, 4).x, y: Self.row(s, 4).y)
        #expect(Self.table(s).view.selection.contains("p1"))
        #expect(Self.table(s).view.cursor == 3)
        Self.check(s, Self.rowsClicked, width, "rowsClicked")
        s.click(x: first.x, y: first.y)
        #expect(!Self.table(s).view.selection.contains("p1"))
    }

    /// A double click opens a row (drill down), twice; a click on a level of the breadcrumb
    /// goes back to it. Two clicks further apart than ``ScreenModel/doubleClickTime`` are not one.
    @Test(arguments: [40, 80, 120])
    func aDoubleClickOpensAndTheBreadcrumbGoesBack(width: Int) {
        var s = OutlineScreenTests.scene(width: width)
        let src = Self.row(s, 0)
        s.click(x: src.x + 4, y: src.y)
        s.click(x: src.x + 4, y: src.y, after: ScreenModel.doubleClickTime + 0.1)
        #expect(s.scene.ws.tabs["people"]!.stack.count == 1)
        s.doubleClick(x: src.x + 4, y: src.y)
        #expect(s.scene.ws.tabs["people"]!.stack.count == 2)
        let lib = Self.row(s, 1)
        s.doubleClick(x: lib.x + 4, y: lib.y)
        #expect(s.scene.ws.tabs["people"]!.stack.map(\.label) == ["People", "src", "lib"])
        Self.check(s, Self.drilledTwice, width, "drilledTwice")
        let root = Self.place(s) { $0 == .crumb(level: 0) }
        s.click(x: root.x + 1, y: root.y)
        #expect(s.scene.ws.tabs["people"]!.stack.count == 1)
        Self.check(s, Self.backAtTheRoot, width, "backAtTheRoot")
    }

    /// A click on ▸ expands the row in place (▾), on a child's ▸ the child, and the cursor goes
    /// there; a click on the child's ▾ collapses it, and a double click on a child row expands
    /// it too (a top-level row would be opened).
    @Test(arguments: [40, 80, 120])
    func aClickOnTheMarkerExpandsInPlace(width: Int) {
        var s = OutlineScreenTests.scene(width: width)
        let src = Self.place(s) { if case .row(let h) = $0 { h.position.row == 0 && h.part == .expander } else { false } }
        s.click(x: src.x, y: src.y)
        #expect(Self.table(s).isExpanded(["src"]))
        let lib = Self.place(s) { if case .row(let h) = $0 { h.position.path == [1] && h.part == .expander } else { false } }
        s.click(x: lib.x, y: lib.y)
        #expect(Self.table(s).isExpanded(["src", "lib"]))
        #expect(Self.table(s).cursorPosition == OutlinePosition(row: 0, path: [1]))
        Self.check(s, Self.expandedByClicks, width, "expandedByClicks")
        s.click(x: lib.x, y: lib.y)  // ▾: collapsed
        #expect(!Self.table(s).isExpanded(["src", "lib"]) && Self.table(s).isExpanded(["src"]))
        let libRow = Self.place(s) { if case .row(let h) = $0 { h.position.path == [1] && h.part == .body } else { false } }
        s.doubleClick(x: libRow.x + 8, y: libRow.y)
        #expect(Self.table(s).isExpanded(["src", "lib"]))
        #expect(s.scene.ws.tabs["people"]!.stack.count == 1, "expanded in place, not opened")
        #expect(Self.table(s).cursorPosition == OutlinePosition(row: 0, path: [1]))
        Self.check(s, Self.expandedByClicks, width, "expandedByClicks")
        let util = Self.place(s) { if case .row(let h) = $0 { h.position.path == [1, 0] && h.part == .body } else { false } }
        s.click(x: util.x + 8, y: util.y)
        #expect(Self.table(s).cursorPosition == OutlinePosition(row: 0, path: [1, 0]))
    }

    /// The wheel scrolls the table three rows a notch (the cursor keeps its row while it is in
    /// view, else takes the nearest row in view); Shift with the wheel, or a horizontal wheel,
    /// moves the column cursor (the columns scroll to show it).
    @Test(arguments: [40, 80, 120])
    func theWheelScrollsThreeRowsAndShiftWheelTheColumns(width: Int) {
        var s = ScreenScene(width: width, height: 8)
        let body = Self.row(s, 2)
        s.wheel(.wheelDown, x: body.x + 5, y: body.y, notches: 3)
        #expect(Self.table(s).view.scrollOffset == 9)
        #expect(Self.table(s).view.cursor == 9, "the cursor's row left the view: the first row in view")
        s.wheel(.wheelUp, x: body.x + 5, y: body.y)
        #expect(Self.table(s).view.scrollOffset == 6)
        #expect(Self.table(s).view.cursor == 9, "still in view: the cursor keeps its row")
        s.wheel(.wheelDown, x: body.x + 5, y: body.y, shift: true)
        s.wheel(.wheelRight, x: body.x + 5, y: body.y, notches: 2)
        s.wheel(.wheelLeft, x: body.x + 5, y: body.y)
        #expect(s.model.ui.columnCursor == 2)
        Self.check(s, Self.wheeled, width, "wheeled")
    }

    /// Dragging the cell right of a header resizes its column (shown while dragging, set by
    /// `column width` on release, saved with the view as `{` `}` save it).
    @Test(arguments: [40, 80, 120])
    func draggingAHeaderEdgeResizesTheColumn(width: Int) {
        var s = ScreenScene(width: width, height: 8)
        let edge = Self.edge(s, "name")
        let was = Self.header(s, "name").width
        s.mouse(MouseEvent(.press, x: edge.x, y: edge.y))
        s.mouse(MouseEvent(.drag, x: edge.x + 3, y: edge.y))
        #expect(Self.header(s, "name").width == was + 3)  // shown while dragging, not saved yet
        #expect(Self.table(s).view.columns.first { $0.id == "name" }?.width == nil)
        s.mouse(MouseEvent(.drag, x: edge.x - 4, y: edge.y))
        s.mouse(MouseEvent(.release, x: edge.x - 4, y: edge.y))
        #expect(Self.table(s).view.columns.first { $0.id == "name" }?.width == was - 4)
        #expect(s.scene.saved.contains { if case .saveView = $0 { true } else { false } })
        Self.check(s, Self.resized, width, "resized")
    }

    /// The edge is wider than its gap cell: a drag from the blank cell before a right-aligned
    /// header (Age) resizes the column left of it (Name) instead of moving Age; the gap cell
    /// is marked (grey underline).
    @Test(arguments: [80, 120])
    func aDragFromTheBlankBeforeAHeaderResizesItsNeighbour(width: Int) {
        var s = ScreenScene(width: width, height: 8)
        let age = Self.header(s, "age")
        let was = Self.header(s, "name").width
        #expect(s.lines[age.y].dropFirst(age.x).first == " ", "Age is right-aligned: its first cell is blank")
        let buf = WorkspaceRenderer.render(workspace: s.scene.ws, size: s.model.size, ui: s.model.ui)
        #expect(buf[age.x - 1, age.y].style == Palette.columnEdge, "the gap cell is marked")
        s.mouse(MouseEvent(.press, x: age.x, y: age.y))
        s.mouse(MouseEvent(.drag, x: age.x + 3, y: age.y))
        s.mouse(MouseEvent(.release, x: age.x + 3, y: age.y))
        #expect(Self.table(s).view.columns.first { $0.id == "name" }?.width == was + 3)
        #expect(Self.table(s).visibleColumns.map(\.id) == ["name", "age", "status", "city"])
    }

    /// Dragging a header onto another moves the column to that place (`column move`, saved);
    /// the column cursor follows it.
    @Test(arguments: [40, 80, 120])
    func draggingAHeaderOntoAnotherMovesTheColumn(width: Int) {
        var s = ScreenScene(width: width, height: 8)
        let status = Self.header(s, "status")
        let name = Self.header(s, "name")
        s.drag(from: (status.x + 1, status.y), to: (name.x + 1, name.y))
        #expect(Self.table(s).visibleColumns.map(\.id) == ["status", "name", "age", "city"])
        #expect(s.model.ui.columnCursor == 0)
        #expect(s.scene.saved.contains { if case .saveView = $0 { true } else { false } })
        Self.check(s, Self.columnMoved, width, "columnMoved")
    }

    /// In tab edit mode a press puts the edit cursor on a tab and dragging it onto another moves
    /// it there, across sections (`tab move`, saved as K/J save it).
    @Test(arguments: [40, 80, 120])
    func inTabEditModeDraggingATabMovesIt(width: Int) {
        var s = ScreenScene(width: width, height: 8)
        s.press(.char("T"), .char("j"), .char("j"))  // the tab bar shows the cursor's tab
        let orders = Self.tab(s, "orders")
        let procs = Self.tab(s, "procs")
        s.drag(from: (procs.x + 2, procs.y), to: (orders.x + 2, orders.y))
        #expect(s.scene.ws.layout.orderedTabs == ["people", "procs", "orders", "logs"])
        #expect(s.scene.ws.layout.tabs.first { $0.tab == "procs" }?.section == "data")
        #expect(s.scene.saved.contains { if case .saveLayout = $0 { true } else { false } })
        Self.check(s, Self.tabDragged, width, "tabDragged")
        guard width >= 100 else { return }
        // Onto a section's header (the sidebar has them): to the end of that section.
        let logs = Self.tab(s, "logs")
        let data = Self.place(s) { $0 == .section("data") }
        s.drag(from: (logs.x + 2, logs.y), to: (data.x + 2, data.y))
        #expect(s.scene.ws.layout.orderedTabs == ["people", "procs", "orders", "logs"])
        #expect(s.scene.ws.layout.tabs.first { $0.tab == "logs" }?.section == "data")
    }

    /// A drag's "release here" hint goes when the drag ends where nothing drops: a tab
    /// released on a blank sidebar line, a header released on a row. Nothing moves.
    @Test func aDragReleasedWhereNothingDropsLeavesNoHint() {
        var s = ScreenScene(width: 120, height: 12)
        let before = s.scene.ws.layout.orderedTabs
        s.press(.char("T"))
        let procs = Self.tab(s, "procs")
        let orders = Self.tab(s, "orders")
        s.mouse(MouseEvent(.press, x: procs.x + 2, y: procs.y))
        s.mouse(MouseEvent(.drag, x: orders.x + 2, y: orders.y))
        #expect(s.model.ui.message?.text.hasSuffix("release here") == true, "the hint shows over a tab")
        s.mouse(MouseEvent(.drag, x: 3, y: 10))
        #expect(s.model.ui.message == nil, "off any tab, the hint goes")
        s.mouse(MouseEvent(.drag, x: orders.x + 2, y: orders.y))
        s.mouse(MouseEvent(.release, x: 3, y: 10))
        #expect(s.model.ui.message == nil)
        #expect(s.scene.ws.layout.orderedTabs == before)
        s.press(.escape)
        let status = Self.header(s, "status")
        let name = Self.header(s, "name")
        s.mouse(MouseEvent(.press, x: status.x + 1, y: status.y))
        s.mouse(MouseEvent(.drag, x: name.x + 1, y: name.y))
        #expect(s.model.ui.message?.text.hasSuffix("release here") == true)
        s.mouse(MouseEvent(.release, x: name.x + 1, y: name.y + 3))
        #expect(s.model.ui.message == nil)
        #expect(Self.table(s).visibleColumns.map(\.id) == ["name", "age", "status", "city"])
    }

    /// The actions menu: a click on an entry runs it; a click outside closes the menu. The
    /// question: a click on "y: Yes" runs the action, confirmed. A form: a click focuses a field.
    @Test(arguments: [40, 80, 120])
    func menusDialogsAndFormsAnswerClicks(width: Int) {
        var s = ScreenScene(ActionScreenTests.scene(), width: width, height: 10)
        s.press(.char("a"))
        s.click(x: 0, y: 9)  // the status line: outside the menu
        #expect(s.model.ui.mode == .table)
        s.press(.char("a"))
        let delete = Self.place(s) { $0 == .menuEntry(0) }
        s.click(x: delete.x + 3, y: delete.y)
        Self.check(s, Self.question, width, "question")
        let yes = Self.place(s) { $0 == .answer(true) }
        s.click(x: yes.x, y: yes.y)
        #expect(ActionScreenTests.lastEdit(s)?["action"] == "delete")
        s.press(.char("a"))
        let add = Self.place(s) { $0 == .menuEntry(1) }
        s.click(x: add.x, y: add.y)
        let age = Self.place(s) { $0 == .formField(1) }
        s.click(x: age.x + 5, y: age.y)
        guard case .action(.form(let form)) = s.model.ui.mode else { Issue.record("no form"); return }
        #expect(form.focus == 1)
        Self.check(s, Self.formFocused, width, "formFocused")
    }

    /// A cell of the screen, away from the box, where a click lands outside the menu, the
    /// question or the form (the status line's first cell; checked against the hit map).
    static func outsideTheBox(_ s: ScreenScene, sourceLocation: SourceLocation = #_sourceLocation) -> (x: Int, y: Int) {
        let at = (x: 0, y: s.model.size.height - 1)
        #expect(!s.frame.hits.targets(x: at.x, y: at.y).contains(.overlay), "the box covers the status line", sourceLocation: sourceLocation)
        #expect(s.frame.hits.first(where: { $0 == .overlay }) != nil, "no box on screen", sourceLocation: sourceLocation)
        return at
    }

    /// The question: a click on "Enter or n: No" answers No (the action does not run, as `n`),
    /// a click in the box away from the answers does nothing, a click outside the box closes it
    /// (as Esc); a form: a click outside closes it, the action not run, what was typed dropped.
    @Test(arguments: [40, 80, 120])
    func noByAClickAndAClickOutsideTheQuestionOrTheFormCloseThem(width: Int) {
        var s = ScreenScene(ActionScreenTests.scene(), width: width, height: 10)
        func openDelete() {
            s.press(.char("a"))
            let delete = Self.place(s) { $0 == .menuEntry(0) }
            s.click(x: delete.x + 3, y: delete.y)
            #expect(s.lines == Self.question[width])
        }
        openDelete()
        let box = Self.place(s) { $0 == .overlay }
        s.click(x: box.x + 1, y: box.y + 1)  // the question's text, no answer there
        #expect(s.lines == Self.question[width])
        let no = Self.place(s) { $0 == .answer(false) }
        s.click(x: no.x + no.width - 1, y: no.y)
        #expect(s.model.ui.mode == .table)
        #expect(s.scene.edits.isEmpty)
        Self.check(s, Self.answeredNo, width, "answeredNo")

        openDelete()
        let outside = Self.outsideTheBox(s)
        s.click(x: outside.x, y: outside.y)
        #expect(s.model.ui.mode == .table)
        #expect(s.scene.edits.isEmpty)
        Self.check(s, Self.answeredNo, width, "answeredNo")  // as Esc: "Delete: not run"

        // Outside on a tab (the tab bar or the sidebar): the question closes, the tab is not selected.
        openDelete()
        let orders = Self.tab(s, "orders")
        s.click(x: orders.x + 1, y: orders.y)
        #expect(s.model.ui.mode == .table)
        #expect(s.scene.ws.selectedTab == "people")
        #expect(s.scene.edits.isEmpty)

        s.press(.char("a"))
        let add = Self.place(s) { $0 == .menuEntry(1) }
        s.click(x: add.x, y: add.y)
        s.type("Ann")
        let form = Self.outsideTheBox(s)
        s.click(x: form.x, y: form.y)
        #expect(s.model.ui.mode == .table)
        #expect(s.scene.edits.isEmpty)
        Self.check(s, Self.formClosed, width, "formClosed")
        s.press(.char("a"))
        s.press(.char("+"))
        guard case .action(.form(let again)) = s.model.ui.mode else { Issue.record("no form"); return }
        #expect(again.values[0] == "", "what was typed went with the form")
    }

    /// Help: a click on a key's line does what the key does (help closes), on a command's line
    /// opens the command line with it typed, and a click elsewhere closes help.
    @Test(arguments: [40, 80, 120])
    func helpEntriesAnswerClicks(width: Int) {
        var s = ScreenScene(width: width, height: 12)
        s.press(.char("?"))
        for _ in 0..<20 where s.frame.hits.first(where: { $0 == .help(.action(.sort)) }) == nil {
            s.wheel(.wheelDown, x: 1, y: 1)
        }
        let sort = Self.place(s) { $0 == .help(.action(.sort)) }
        s.click(x: sort.x + 1, y: sort.y)
        #expect(Self.table(s).view.sort == [SortKey("name", .ascending)])
        Self.check(s, Self.sortedFromHelp, width, "sortedFromHelp")
        s.press(.char("?"))
        for _ in 0..<100 where s.frame.hits.first(where: { $0 == .help(.command("goto")) }) == nil {
            s.wheel(.wheelDown, x: 1, y: 1)
        }
        let goto = Self.place(s) { $0 == .help(.command("goto")) }
        s.click(x: goto.x + 1, y: goto.y)
        #expect(s.prompts == ["goto "])
        s.press(.char("?"))
        s.click(x: 0, y: 11)
        #expect(s.model.ui.mode == .table)
    }

    /// The detail view and an output panel: a notch of the wheel anywhere scrolls them three
    /// lines (as three ↓), up again three; a click outside them (on a tab) closes them without
    /// selecting the tab, and a click inside them closes them too.
    @Test(arguments: [40, 80, 120])
    func theWheelScrollsAndAClickClosesTheDetailViewAndTheOutputPanel(width: Int) {
        var s = ScreenScene(width: width, height: 5)
        s.press(.char("d"))
        var keyed = s
        keyed.press(.down, .down, .down)
        s.wheel(.wheelDown, x: width - 2, y: 2)
        #expect(s.model.ui.mode == .detail(scroll: 3))
        #expect(s.lines == keyed.lines)
        Self.check(s, Self.detailWheeled, width, "detailWheeled")
        s.wheel(.wheelUp, x: width - 2, y: 2, notches: 2)
        #expect(s.model.ui.mode == .detail(scroll: 0))
        let orders = Self.tab(s, "orders")
        s.click(x: orders.x + 1, y: orders.y)
        #expect(s.model.ui.mode == .table)
        #expect(s.scene.ws.selectedTab == "people")
        s.press(.char("d"))
        s.click(x: width - 2, y: 2)
        #expect(s.model.ui.mode == .table)

        s = ScreenScene(width: width, height: 4)  // lower, so that the four lines of `columns` overflow
        s.input(.promptClosed("columns"))
        guard case .output(let text, 0) = s.model.ui.mode else { Issue.record("no output panel"); return }
        keyed = s
        keyed.press(.down, .down, .down)
        s.wheel(.wheelDown, x: 1, y: 2)
        #expect(s.model.ui.mode == .output(text, scroll: 3))
        #expect(s.lines == keyed.lines)
        Self.check(s, Self.outputWheeled, width, "outputWheeled")
        s.wheel(.wheelUp, x: 1, y: 2)
        #expect(s.model.ui.mode == .output(text, scroll: 0))
        s.click(x: Self.tab(s, "orders").x + 1, y: Self.tab(s, "orders").y)
        #expect(s.model.ui.mode == .table)
        #expect(s.scene.ws.selectedTab == "people")
        s.input(.promptClosed("columns"))
        s.click(x: 1, y: 2)
        #expect(s.model.ui.mode == .table)
    }

    /// Help: a notch of the wheel scrolls it three lines (as three ↓), up again three.
    @Test(arguments: [40, 80, 120])
    func theWheelScrollsHelp(width: Int) {
        var s = ScreenScene(width: width, height: 8)
        s.press(.char("?"))
        let top = s.lines
        var keyed = s
        keyed.press(.down, .down, .down)
        s.wheel(.wheelDown, x: 2, y: 3)
        #expect(s.model.ui.mode == .help(scroll: 3))
        #expect(s.lines == keyed.lines && s.lines != top)
        Self.check(s, Self.helpWheeled, width, "helpWheeled")
        s.wheel(.wheelUp, x: 2, y: 3)
        #expect(s.model.ui.mode == .help(scroll: 0))
        #expect(s.lines == top)
    }

    /// `mouse off` (and config.json's `"mouse": false`) leaves the mouse to the terminal: the
    /// model asks its shell to turn reporting off, and reports do nothing; `mouse on` takes it back.
    @Test func mouseOffLeavesTheMouseToTheTerminal() {
        var s = ScreenScene(width: 80, height: 8)
        #expect(s.mouseModes == [true])
        s.input(.promptClosed("mouse off"))
        #expect(s.mouseModes == [true, false])
        #expect(s.lines.last!.hasPrefix("mouse off: the terminal has the mouse (it selects text) · row 1"))
        let orders = Self.tab(s, "orders")
        s.click(x: orders.x + 1, y: orders.y)
        #expect(s.scene.ws.selectedTab == "people")
        s.input(.promptClosed("mouse on"))
        #expect(s.mouseModes == [true, false, true])
        s.click(x: orders.x + 1, y: orders.y)
        #expect(s.scene.ws.selectedTab == "orders")

        var cfg = config()
        cfg.mouse = false
        let off = ScreenScene(Scene(config: cfg, tables: ["people": .people()]), width: 80, height: 8)
        #expect(off.mouseModes == [false])
    }

    /// Ctrl-Z asks the shell to suspend (it restores the terminal, stops, and takes it back after `fg`).
    @Test func ctrlZSuspends() {
        var s = ScreenScene(width: 80, height: 8)
        s.press(.ctrl("z"))
        #expect(s.suspends == 1)
    }
}
