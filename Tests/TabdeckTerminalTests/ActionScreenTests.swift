import Testing
import TabdeckCore
import TabdeckProtocol
@testable import TabdeckTerminal

/// Actions and row editing in full screen: the menu (`a`), hotkeys, the question before a
/// destructive action, the form of an insert, the result or error on the status line, the view
/// fetched again afterwards, and rows moved with K/J. Exact screens at 40, 80 and 120 columns
/// (ActionScreens.swift).
@Suite struct ActionScreenTests {
    /// People (5 rows) with a destructive delete (`x`), an insert with a form (`+`, no rows),
    /// a plain touch (`t`), and a one-row action whose hotkey `j` is a built-in key (so it
    /// works nowhere); the rows can be moved unless `movable` is false.
    static func scene(movable: Bool = true) -> Scene {
        var people = FakeTable.people(count: 5)
        people.actions = [
            ActionSpec(id: "delete", title: "Delete", destructive: true, hotkey: "x"),
            ActionSpec(id: "add", title: "Add person", rows: ActionRows.none, hotkey: "+",
                       input: [ActionField(id: "name", title: "Name", required: true),
                               ActionField(id: "age", title: "Age", type: .integer),
                               ActionField(id: "status", title: "Status", type: .enumeration, values: ["todo", "doing", "done"])]),
            ActionSpec(id: "touch", title: "Touch", hotkey: "t"),
            ActionSpec(id: "fail", title: "Fail", multiple: false, hotkey: "j"),
        ]
        people.movable = movable
        return Scene(tables: ["people": people])
    }

    /// The scene on screen with rows 1 and 2 selected (the cursor on row 2).
    static func selectedTwo(_ width: Int) -> ScreenScene {
        var s = ScreenScene(scene(), width: width, height: 10)
        s.press(.char(" "), .down, .char(" "))
        return s
    }

    /// The last `action` or `move` request's params.
    static func lastEdit(_ s: ScreenScene) -> JSONValue? { s.scene.edits.last }

    @Test(arguments: [40, 80, 120])
    func theMenuListsTheActionsWithHotkeysAndRows(width: Int) {
        var s = Self.selectedTwo(width)
        s.press(.char("a"))
        #expect(s.lines == ActionScreens.menu[width])
        s.press(.down, .down)
        #expect(s.lines == ActionScreens.menuOnTouch[width])
        s.press(.down, .down, .down)  // stops on the last entry
        s.press(.char("k"))
        #expect(s.lines == ActionScreens.menuOnTouch[width])
        s.press(.escape)
        #expect(s.model.ui.mode == .table)
        #expect(s.lines == ActionScreens.selected[width])
        #expect(s.scene.edits.isEmpty)
    }

    @Test(arguments: [40, 80, 120])
    func enterOrAHotkeyInTheMenuRunsTheActionAndItsMessageShows(width: Int) {
        var s = Self.selectedTwo(width)
        s.press(.char("a"), .down, .down, .enter)
        #expect(Self.lastEdit(s) == ["table": "root", "action": "touch", "rows": ["p0", "p1"]])
        #expect(s.lines == ActionScreens.touched[width])
        s.press(.char("a"), .char("t"))
        #expect(s.scene.edits.count == 2)
        #expect(s.lines == ActionScreens.touched[width])
    }

    @Test func aHotkeyWorksInTheTableButNeverOverABuiltInKey() {
        var s = Self.selectedTwo(80)
        s.press(.char("t"))
        #expect(Self.lastEdit(s) == ["table": "root", "action": "touch", "rows": ["p0", "p1"]])
        #expect(s.model.ui.message == .init("touch on 2 rows"))
        // `j` is "move down": the Fail action's hotkey is ignored, and the menu does not show it.
        s.press(.char("j"))
        #expect(s.scene.edits.count == 1)
        #expect(s.scene.ws.tabs["people"]?.table?.view.cursor == 2)
        #expect(s.model.ui.keyMap.usableHotkeys(Self.scene().tables["people"]!.actions) == ["delete": "x", "add": "+", "touch": "t"])
        // A second claim on a key, and a key two cells wide, work nowhere either.
        let more = [ActionSpec(id: "a", hotkey: "z"), ActionSpec(id: "b", hotkey: "z"), ActionSpec(id: "c", hotkey: "界")]
        #expect(s.model.ui.keyMap.usableHotkeys(more) == ["a": "z"])
    }

    @Test(arguments: [40, 80, 120])
    func aDestructiveActionAsksAndNoIsTheDefault(width: Int) {
        var s = Self.selectedTwo(width)
        s.press(.char("x"))
        #expect(s.lines == ActionScreens.question[width])
        s.press(.enter)
        #expect(s.scene.edits.isEmpty)
        #expect(s.model.ui.message == .init("Delete: not run"))
        s.press(.char("a"), .enter)  // Delete from the menu asks too
        #expect(s.lines == ActionScreens.question[width])
        s.press(.escape)
        #expect(s.scene.edits.isEmpty && s.model.ui.mode == .table)
        s.press(.char("x"), .char("q"))  // other keys are ignored
        #expect(s.lines == ActionScreens.question[width])
        s.press(.char("y"))
        #expect(Self.lastEdit(s) == ["table": "root", "action": "delete", "rows": ["p0", "p1"]])
        // The rows are gone from the view (fetched again) and from the selection.
        #expect(s.lines == ActionScreens.deleted[width])
    }

    /// The error the open form shows, if any.
    static func formError(_ s: ScreenScene) -> ActionInputError? {
        guard case .action(.form(let form)) = s.model.ui.mode else { return nil }
        return form.error
    }

    @Test(arguments: [40, 80, 120])
    func anInsertFillsAFormThatChecksItsFields(width: Int) {
        var s = ScreenScene(Self.scene(), width: width, height: 10)
        s.press(.char("+"))
        #expect(s.lines == ActionScreens.emptyForm[width])
        s.press(.enter)
        #expect(s.lines == ActionScreens.nameRequired[width])
        s.type("Ada")
        #expect(Self.formError(s) == nil, "the name was given: its error goes")
        s.press(.tab)
        s.type("3x")
        s.press(.tab, .right, .right, .enter)
        #expect(s.lines == ActionScreens.badAge[width])
        #expect(s.scene.edits.isEmpty)
        s.press(.up)
        s.type("y")
        #expect(Self.formError(s)?.description == "Age: expected a whole number, got \"3xy\"", "still wrong: the error follows the text")
        s.press(.backspace, .backspace)
        #expect(Self.formError(s) == nil, "corrected: the error goes at once")
        s.type("6")
        s.press(.enter)
        #expect(Self.lastEdit(s) == ["table": "root", "action": "add", "rows": [], "input": ["name": "Ada", "age": 36, "status": "done"]])
        #expect(s.lines == ActionScreens.added[width])
    }

    /// An action with a form and a question: the form first, then `Rename 1 row? y/n`, and
    /// `y` sends what the form held. Yes/no and choice fields change with Space, ←/→ and letters.
    @Test func aFormThenTheQuestionThenTheAction() {
        var scene = Self.scene()
        scene.tables["people"]!.actions = [
            ActionSpec(id: "rename", title: "Rename", confirm: true, hotkey: "e",
                       input: [ActionField(id: "to", title: "New name", required: true),
                               ActionField(id: "loud", title: "Loud", type: .boolean),
                               ActionField(id: "how", title: "How", type: .enumeration, values: ["now", "later", "never"])]),
            ActionSpec(id: "clear", title: "Clear all", confirm: true, rows: ActionRows.none),
        ]
        var s = ScreenScene(scene, width: 80, height: 12)
        s.press(.char("e"))
        s.input(.key(.paste("Zoë\n")))
        s.press(.backspace)
        s.type("e")
        s.press(.tab, .char(" "), .tab, .char("n"), .char("n"), .left)
        guard case .action(.form(let form)) = s.model.ui.mode else { Issue.record("no form"); return }
        #expect(form.values == ["Zoe", "true", "never"])  // n: never, n: now, ←: never
        s.press(.enter)
        guard case .action(.confirm(let question)) = s.model.ui.mode else { Issue.record("no question"); return }
        #expect(question.question == "Rename 1 row? y/n")
        #expect(s.scene.edits.isEmpty)
        s.press(.char("y"))
        #expect(Self.lastEdit(s) == ["table": "root", "action": "rename", "rows": ["p0"], "input": ["to": "Zoe", "loud": true, "how": "never"]])
        // An action on no rows asks about the table, not about rows.
        s.press(.char("a"), .down, .enter)
        guard case .action(.confirm(let clear)) = s.model.ui.mode else { Issue.record("no question"); return }
        #expect(clear.question == "Clear all? y/n")
    }

    /// Typing into a field that holds its default replaces it; Backspace edits it instead.
    @Test func theFirstKeyReplacesADefault() {
        var scene = Self.scene()
        scene.tables["people"]!.actions = [
            ActionSpec(id: "age", title: "Set age", hotkey: "e", input: [ActionField(id: "a", type: .integer, defaultValue: 30),
                                                                      ActionField(id: "b", type: .integer, defaultValue: 30)])]
        var s = ScreenScene(scene, width: 80, height: 10)
        s.press(.char("e"))
        s.type("4")
        s.press(.tab, .backspace)
        s.type("6")
        guard case .action(.form(let form)) = s.model.ui.mode else { Issue.record("no form"); return }
        #expect(form.values == ["4", "36"])
    }

    /// The menu's title names the cursor row when nothing is selected, and the rows each
    /// action would go to.
    @Test func theMenuNamesTheCursorRowWhenNothingIsSelected() {
        var s = ScreenScene(Self.scene(), width: 80, height: 10)
        s.press(.down, .down, .char("a"))
        #expect(s.lines[2] == " ┌ Actions · row p2 ────────────────────────────────────────┐")
        #expect(s.lines[3] == " │ ▸ Delete                                  x        1 row │")
        #expect(s.lines[4] == " │   Add person                              +      no rows │")
    }

    @Test func escLeavesTheFormWithoutRunningIt() {
        var s = ScreenScene(Self.scene(), width: 80, height: 10)
        s.press(.char("+"))
        s.type("Bo")
        s.press(.escape)
        #expect(s.model.ui.mode == .table && s.scene.edits.isEmpty)
        #expect(s.model.ui.message == .init("Add person: not run"))
    }

    /// With two rows selected the one-row action is greyed in the menu, and Enter on it runs
    /// nothing: the status line says why, naming the action by its title.
    @Test func aOneRowActionIsGreyedAndNotRunWhileSeveralRowsAreSelected() {
        var s = Self.selectedTwo(80)
        s.press(.char("a"))
        let frame = WorkspaceRenderer.render(workspace: s.scene.ws, size: s.model.size, ui: s.model.ui)
        #expect(s.lines[6].contains("Fail"))
        #expect(frame[5, 6].style == Palette.dim)
        #expect(frame[5, 5].style == .plain)
        s.press(.end, .enter)
        #expect(s.scene.edits.isEmpty)
        #expect(s.model.ui.message == .init("Fail takes one row; 2 are selected", isError: true))
    }

    @Test(arguments: [40, 80, 120])
    func thePluginsErrorShowsOnTheStatusLine(width: Int) {
        var s = ScreenScene(Self.scene(), width: width, height: 10)
        s.press(.char("a"), .end, .enter)
        #expect(Self.lastEdit(s) == ["table": "root", "action": "fail", "rows": ["p0"]])
        #expect(s.lines == ActionScreens.failed[width])
    }

    @Test(arguments: [40, 80, 120])
    func shiftJAndKMoveTheRowAndTheCursorGoesWithIt(width: Int) {
        var s = ScreenScene(Self.scene(), width: width, height: 10)
        s.press(.down, .char("J"))
        #expect(Self.lastEdit(s) == ["table": "root", "row": "p1", "after": "p2"])
        s.press(.char("J"))
        #expect(Self.lastEdit(s) == ["table": "root", "row": "p1", "after": "p3"])
        #expect(s.lines == ActionScreens.movedDownTwice[width])
        s.press(.char("K"))
        #expect(Self.lastEdit(s) == ["table": "root", "row": "p1", "before": "p3"])
        #expect(s.scene.ws.tabs["people"]?.table?.view.cursor == 2)
        s.press(.char("g"), .char("K"))
        #expect(s.scene.edits.count == 3)
        #expect(s.model.ui.message == .init("the first row cannot move up", isError: true))
    }

    @Test(arguments: [40, 80, 120])
    func movesAreRefusedWhereThePluginDoesNotAllowThem(width: Int) {
        var s = ScreenScene(Self.scene(movable: false), width: width, height: 10)
        s.press(.char("J"))
        #expect(s.scene.edits.isEmpty)
        #expect(s.lines == ActionScreens.notMovable[width])
        var sorted = ScreenScene(Self.scene(), width: width, height: 10)
        sorted.press(.char("s"), .char("J"))
        #expect(sorted.scene.edits.isEmpty)
        #expect(sorted.model.ui.message == .init("rows keep the sort order: clear the sort (S, or `sort clear`) to move them", isError: true))
    }

    @Test func aTableWithoutActionsSaysSo() {
        var s = ScreenScene(Scene(tables: ["people": .people(count: 3)]), width: 80, height: 10)
        s.press(.char("a"))
        #expect(s.model.ui.mode == .table)
        #expect(s.model.ui.message == .init("People has no actions", isError: true))
    }

    /// The command line does what the keys do, with the form's values as `--set`.
    @Test func typedActionCommandsCheckTheFormAndTheConfirmation() {
        var scene = Self.scene()
        scene.resize(80, 10)
        scene.feed(.refresh)
        #expect(scene.ws.completions(for: "action add --set ") == .words(["name=", "age=", "status="]))
        #expect(scene.ws.completions(for: "action add --") == .words(["--yes", "--set"]))
        #expect(scene.ws.completions(for: "row move ") == .words(["up", "down"]))
        scene.run("action add --set name=Bo --set age=x")
        #expect(scene.failures.last == #"action Add person: Age: expected a whole number, got "x""#)
        scene.run("action add --set age=4")
        #expect(scene.failures.last == "action Add person: Name: required")
        scene.run("action add --set nmae=Bo")
        #expect(scene.failures.last == "action Add person: nmae: no such field in action add (fields: name, age, status)")
        scene.run("action delete")
        #expect(scene.failures.last == "action Delete on 1 row(s) needs confirmation: run `action delete --yes`")
        #expect(scene.edits.isEmpty)
        scene.run("action add --set name=Bo --set age=4")
        #expect(scene.edits.last == ["table": "root", "action": "add", "rows": [], "input": ["name": "Bo", "age": 4, "status": "todo"]])
        #expect(scene.outputs.last == "added Bo")
        #expect(scene.ws.tabs["people"]?.table?.total == 6)
        scene.run("row move down")
        #expect(scene.edits.last == ["table": "root", "row": "p0", "after": "p1"])
        #expect(scene.outputs.last == "moved p0 after p1")
    }
}
