import Testing
import TabdeckCore
import TabdeckProtocol
@testable import TabdeckTerminal

/// Tab edit mode (`T`): a cursor on the tabs in the sidebar (120 columns) or the tab bar (40, 80,
/// where each section's title comes before its first tab);
/// `K`/`J` move a tab, across section borders; `x` hides and shows; `{`/`}` move a section; `R`
/// resets after a y/n; Esc or Enter leaves. Every change is the `tab`/`section` command, saved at once.
@Suite struct TabEditScreenTests {
    static let widths = [40, 80, 120]

    /// The tabs as drawn (the sidebar's cells, or the tab bar) and the status line.
    static func tabs(_ s: ScreenScene) -> [String] {
        let lines = s.lines
        let tabs = s.model.width >= WorkspaceRenderer.sidebarThreshold
            ? lines.dropLast().map { String($0.prefix(WorkspaceRenderer.sidebarWidth)) }
            : [lines[0]]
        return tabs + [lines.last!]
    }

    /// The layouts the core asked the store to save, in order.
    static func savedLayouts(_ s: ScreenScene) -> [WorkspaceLayout] {
        s.scene.saved.compactMap { if case .saveLayout(let l) = $0 { l } else { nil } }
    }

    static func order(_ s: ScreenScene) -> [String] {
        s.scene.ws.layout.tabs.map { "\($0.tab)@\($0.section ?? "-")" }
    }

    @Test(arguments: widths)
    func tEntersAndEscOrEnterLeaves(width: Int) {
        var s = ScreenScene(width: width, height: 9)
        let before = s.lines
        s.press(.char("T"))
        #expect(s.model.ui.tabEdit == TabEdit(cursor: "people"))
        #expect(s.lines == Self.entered[width])
        s.press(.escape)
        #expect(s.model.ui.mode == .table)
        #expect(s.lines == before)
        s.press(.char("T"), .enter)
        #expect(s.model.ui.mode == .table)
        #expect(s.lines == before)
        // Looking changes nothing: no command ran, nothing was saved.
        #expect(s.scene.saved.isEmpty)
    }

    static let entered: [Int: [String]] = [
        40: [
            " Data:[◆ People] $ Orders              >",
            "  Name              Age Status    City",
            "  name0              20 todo      Lyon",
            "  name1              21 doing     Oslo",
            "  name2              22 done      Kyoto",
            "  name3              23 todo      Lima",
            "  name4              24 doing     Lyon",
            "  name5              25 done      Oslo",
            "K/J move x hide {} sect R reset Esc done",
        ],
        80: [
            " Data:[◆ People] $ Orders  System: ⚙ Processes  ≡ Logs",
            "  Name                   Age Status                     City",
            "  name0                   20 todo                       Lyon",
            "  name1                   21 doing                      Oslo",
            "  name2                   22 done                       Kyoto",
            "  name3                   23 todo                       Lima",
            "  name4                   24 doing                      Lyon",
            "  name5                   25 done                       Oslo",
            "K/J move · x hide/show · {/} section · R reset · Esc done · People in Data",
        ],
        120: [
            " Data                   │  Name                   Age Status                             City",
            "› ◆ People              │  name0                   20 todo                               Lyon",
            "  $ Orders              │  name1                   21 doing                              Oslo",
            "                        │  name2                   22 done                               Kyoto",
            " System                 │  name3                   23 todo                               Lima",
            "  ⚙ Processes           │  name4                   24 doing                              Lyon",
            "  ≡ Logs                │  name5                   25 done                               Oslo",
            "                        │  name6                   26 todo                               Kyoto",
            "K/J move · x hide/show · {/} section · R reset · Esc done · People in Data",
        ],
    ]

    /// `J` moves People below Orders, `J` again into System (at its top), `K` back into Data
    /// (at its bottom), `K` above Orders: each a `tab move` the core saved at once.
    @Test(arguments: widths)
    func kAndJMoveATabWithinAndAcrossSections(width: Int) {
        var s = ScreenScene(width: width, height: 9)
        s.press(.char("T"), .char("J"))
        #expect(Self.order(s) == ["orders@data", "people@data", "procs@sys", "logs@sys"])
        #expect(Self.tabs(s) == Self.movedDown[width])
        s.press(.char("J"))
        #expect(Self.order(s) == ["orders@data", "people@sys", "procs@sys", "logs@sys"])
        #expect(Self.tabs(s) == Self.acrossTheBorder[width])
        s.press(.char("K"))
        #expect(Self.order(s) == ["orders@data", "people@data", "procs@sys", "logs@sys"])
        s.press(.char("K"))
        #expect(Self.order(s) == ["people@data", "orders@data", "procs@sys", "logs@sys"])
        // The edit cursor stayed on People throughout; each move was saved as it happened.
        #expect(s.model.ui.tabEdit?.cursor == "people")
        #expect(Self.savedLayouts(s).count == 4)
        #expect(Self.savedLayouts(s).last == s.scene.ws.layout)
        #expect(s.scene.failures.isEmpty)
        // At the very top there is nowhere to go: a message, nothing run.
        s.press(.char("K"))
        #expect(s.model.ui.message == .init("People is the first tab already", isError: true))
        #expect(Self.savedLayouts(s).count == 4)
    }

    static let movedDown: [Int: [String]] = [
        40: [" Data: $ Orders [◆ People]             >", "K/J move x hide {} sect R reset Esc done"],
        80: [" Data: $ Orders [◆ People] System: ⚙ Processes  ≡ Logs",
             "K/J move · x hide/show · {/} section · R reset · Esc done · People in Data"],
        120: [
            " Data                   │",
            "  $ Orders              │",
            "› ◆ People              │",
            "                        │",
            " System                 │",
            "  ⚙ Processes           │",
            "  ≡ Logs                │",
            "                        │",
            "K/J move · x hide/show · {/} section · R reset · Esc done · People in Data",
        ],
    ]

    static let acrossTheBorder: [Int: [String]] = [
        40: [" Data: $ Orders  System:[◆ People]     >", "K/J move x hide {} sect R reset Esc done"],
        80: [" Data: $ Orders  System:[◆ People] ⚙ Processes  ≡ Logs",
             "K/J move · x hide/show · {/} section · R reset · Esc done · People in System"],
        120: [
            " Data                   │",
            "  $ Orders              │",
            "                        │",
            " System                 │",
            "› ◆ People              │",
            "  ⚙ Processes           │",
            "  ≡ Logs                │",
            "                        │",
            "K/J move · x hide/show · {/} section · R reset · Esc done · People in System",
        ],
    ]

    /// `x` hides Orders: in edit mode it stays listed, dimmed and marked; outside it is gone.
    /// `x` again shows it.
    @Test(arguments: widths)
    func xHidesDimmedInEditModeAndGoneOutside(width: Int) {
        var s = ScreenScene(width: width, height: 9)
        s.press(.char("T"), .char("j"), .char("x"))
        #expect(s.scene.ws.layout.hidden == ["orders"])
        #expect(Self.savedLayouts(s).last?.hidden == ["orders"])
        #expect(Self.tabs(s) == Self.hiddenInEditMode[width])
        // Dimmed: the sidebar's title, or the tab bar's item (the cursor's own line is reversed
        // instead, so move it away first).
        s.press(.char("k"))
        let frame = WorkspaceRenderer.render(workspace: s.scene.ws, size: s.model.size, ui: s.model.ui)
        if width >= WorkspaceRenderer.sidebarThreshold {
            #expect(frame[4, 2].style.dim && frame[19, 2].style.dim)
            #expect(!frame[4, 1].style.dim)
        } else {
            #expect(frame[19, 0].style.dim)  // " Data:[◆ People] $ Orders (hidden)": the O
            #expect(!frame[9, 0].style.dim)
            #expect(frame[1, 0].style == Palette.sectionHeader)  // the section's title before its first tab
        }
        s.press(.escape)
        #expect(Self.tabs(s) == Self.hiddenOutside[width])
        s.press(.char("T"), .char("j"), .char("x"))
        #expect(s.scene.ws.layout.hidden.isEmpty)
        #expect(Self.savedLayouts(s).last?.hidden == [])
    }

    static let hiddenInEditMode: [Int: [String]] = [
        40: [" Data: ◆ People [$ Orders (hidden)]    >", "K/J move x hide {} sect R reset Esc done"],
        80: [" Data: ◆ People [$ Orders (hidden)] System: ⚙ Processes  ≡ Logs",
             "K/J move · x hide/show · {/} section · R reset · Esc done · Orders in Data"],
        120: [
            " Data                   │",
            "  ◆ People              │",
            "› $ Orders       hidden │",
            "                        │",
            " System                 │",
            "  ⚙ Processes           │",
            "  ≡ Logs                │",
            "                        │",
            "K/J move · x hide/show · {/} section · R reset · Esc done · Orders in Data",
        ],
    ]

    static let hiddenOutside: [Int: [String]] = [
        40: [" ◆ People  ⚙ Processes  ≡ Logs", "row 1 of 1,000,000                ? help"],
        80: [" ◆ People  ⚙ Processes  ≡ Logs", "row 1 of 1,000,000                                                        ? help"],
        120: [
            " Data                   │",
            "  ◆ People              │",
            "                        │",
            " System                 │",
            "  ⚙ Processes           │",
            "  ≡ Logs                │",
            "                        │",
            "                        │",
            "row 1 of 1,000,000                                                                                                ? help",
        ],
    ]

    /// `{` on a System tab moves System above Data; `}` moves it back; a loose tab has no section to move.
    @Test(arguments: widths)
    func braceKeysReorderSections(width: Int) {
        var s = ScreenScene(width: width, height: 9)
        s.press(.char("T"), .char("j"), .char("j"), .char("{"))
        #expect(s.scene.ws.layout.sections == ["sys", "data"])
        #expect(Self.savedLayouts(s).last?.sections == ["sys", "data"])
        #expect(Self.tabs(s) == Self.systemFirst[width])
        s.press(.char("{"))
        #expect(s.model.ui.message == .init("section System is the first one already", isError: true))
        s.press(.char("}"))
        #expect(s.scene.ws.layout.sections == ["data", "sys"])
        #expect(Self.savedLayouts(s).count == 2)
    }

    static let systemFirst: [Int: [String]] = [
        40: [" System:[⚙ Processes] ≡ Logs           >", "K/J move x hide {} sect R reset Esc done"],
        80: [" System:[⚙ Processes] ≡ Logs  Data: ◆ People  $ Orders",
             "K/J move · x hide/show · {/} section · R reset · Esc done · Processes in System"],
        120: [
            " System                 │",
            "› ⚙ Processes           │",
            "  ≡ Logs                │",
            "                        │",
            " Data                   │",
            "  ◆ People              │",
            "  $ Orders              │",
            "                        │",
            "K/J move · x hide/show · {/} section · R reset · Esc done · Processes in System",
        ],
    ]

    /// `R` asks first (anything but `y` keeps the order); `y` runs `tab reset`: config order,
    /// nothing hidden, the stored layout forgotten.
    @Test(arguments: widths)
    func rResetsToTheConfigOrderAfterAsking(width: Int) {
        var s = ScreenScene(width: width, height: 9)
        s.press(.char("T"), .char("J"), .char("j"), .char("x"), .char("{"))
        let customized = s.scene.ws.layout
        #expect(customized.sections == ["sys", "data"] && customized.hidden == ["procs"])
        s.press(.char("R"))
        #expect(s.lines.last == Self.question[width])
        s.press(.char("n"))
        #expect(s.scene.ws.layout == customized)
        #expect(s.model.ui.message == .init("no reset: your tab order stays"))
        s.press(.char("R"), .char("y"))
        #expect(s.scene.ws.layout.sections == ["data", "sys"])
        #expect(Self.order(s) == ["people@data", "orders@data", "procs@sys", "logs@sys"])
        #expect(s.scene.ws.layout.hidden.isEmpty)
        #expect(s.scene.saved.contains(.resetLayout))
        #expect(Self.savedLayouts(s).last == s.scene.ws.layout)
        #expect(s.model.ui.tabEdit == TabEdit(cursor: "procs"))
        s.press(.escape)
        #expect(s.lines.last == "row 1 of 1,000,000" + String(repeating: " ", count: width - 24) + "? help")
    }

    static let question: [Int: String] = [
        40: "reset tabs and sections to config.json'…",
        80: "reset tabs and sections to config.json's order? y/n",
        120: "reset tabs and sections to config.json's order? y/n",
    ]

    /// A tab config.json marks `"customizable": false` refuses `K`, `J` and `x` with the reason;
    /// nothing runs, nothing is saved. The status line says it is fixed.
    @Test(arguments: widths)
    func aNonCustomizableTabRefuses(width: Int) {
        var cfg = config()
        cfg.tabs[1].customizable = false  // orders
        var s = ScreenScene(Scene(config: cfg, tables: ["people": .people()]), width: width, height: 9)
        s.press(.char("T"), .char("j"))
        #expect(s.lines.last == Self.fixed[width])
        let before = s.scene.ws.layout
        for key in ["K", "J", "x"] {
            s.press(.char(Character(key)))
            let verb = key == "x" ? "hide" : "move"
            #expect(s.model.ui.message == .init(
                "tab orders is not customizable (config.json says \"customizable\": false), so it cannot \(verb)", isError: true))
        }
        #expect(s.scene.ws.layout == before)
        #expect(s.scene.saved.isEmpty)
        // The typed command refuses with the same words.
        s.scene.run("tab hide orders")
        #expect(s.scene.failures.last == "tab orders is not customizable (config.json says \"customizable\": false), so it cannot hide")
    }

    static let fixed: [Int: String] = [
        40: "K/J move x hide {} sect R reset Esc done",
        80: "K/J move · x hide/show · {/} section · R reset · Esc done · Orders in Data (fix…",
        120: "K/J move · x hide/show · {/} section · R reset · Esc done · Orders in Data (fixed)",
    ]
}
