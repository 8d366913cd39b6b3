import Testing
import TabdeckCore
import TabdeckProtocol
@testable import TabdeckTerminal

/// Columns by keys: `<`/`>` move the column under the cursor (the cursor follows), `-` hides it,
/// `{`/`}` narrow and widen it from its shown width, `=` resets them; each is its `column`
/// command, saved with the table's view. And the compact layout's detail line.
@Suite struct ColumnKeysScreenTests {
    static let widths = [40, 80, 120]

    /// The table's columns as the core last asked the store to save them.
    static func savedColumns(_ s: ScreenScene) -> [ColumnCustomization]? {
        s.scene.saved.reversed().lazy.compactMap { e -> [ColumnCustomization]? in
            if case .saveView(tab: "people", table: _, let view) = e { view.columns } else { nil }
        }.first
    }

    static func visible(_ s: ScreenScene) -> [String] {
        s.scene.ws.tabs["people"]?.table?.visibleColumns.map(\.id) ?? []
    }

    /// The header line of the table (below the tab bar, or right of the sidebar).
    static func header(_ s: ScreenScene) -> String {
        s.model.width >= WorkspaceRenderer.sidebarThreshold ? String(s.lines[0].dropFirst(WorkspaceRenderer.sidebarWidth)) : s.lines[1]
    }

    @Test(arguments: widths)
    func angleBracketsMoveTheColumnAndTheCursorFollows(width: Int) {
        var s = ScreenScene(width: width, height: 6)
        s.press(.char("l"), .char(">"))
        #expect(Self.visible(s) == ["name", "status", "age", "city"])
        #expect(Self.savedColumns(s)?.map(\.id) == ["name", "status", "age", "city"])
        #expect(s.model.ui.columnCursor == 2)
        #expect(s.lines == Self.ageMovedRight[width])
        s.press(.char(">"))
        #expect(Self.visible(s) == ["name", "status", "city", "age"])
        s.press(.char(">"))
        #expect(s.model.ui.message == .init("Age is the last column already", isError: true))
        s.press(.char("<"), .char("<"), .char("<"))
        #expect(Self.visible(s) == ["age", "name", "status", "city"])
        #expect(s.model.ui.columnCursor == 0)
        #expect(Self.savedColumns(s)?.map(\.id) == ["age", "name", "status", "city"])
        #expect(s.scene.failures.isEmpty)
    }

    static let ageMovedRight: [Int: [String]] = [
        40: [
            " ◆ People  $ Orders  ⚙ Processes       >",
            "  Name            Status      Age City",
            "  name0           todo         20 Lyon",
            "  name1           doing        21 Oslo",
            "  name2           done         22 Kyoto",
            "row 1 of 1,000,000                ? help",
        ],
        80: [
            " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
            "  Name                 Status                       Age City",
            "  name0                todo                          20 Lyon",
            "  name1                doing                         21 Oslo",
            "  name2                done                          22 Kyoto",
            "row 1 of 1,000,000                                                        ? help",
        ],
        120: [
            " Data                   │  Name                 Status                               Age City",
            "  ◆ People              │  name0                todo                                  20 Lyon",
            "  $ Orders              │  name1                doing                                 21 Oslo",
            "                        │  name2                done                                  22 Kyoto",
            " System                 │  name3                todo                                  23 Lima",
            "row 1 of 1,000,000                                                                                                ? help",
        ],
    ]

    /// A hidden column is skipped by `<`/`>` and stays in its place among all columns.
    @Test func movingPastAHiddenColumnKeepsItsPlace() {
        var s = ScreenScene(width: 80, height: 6)
        s.scene.run("column hide age")
        s.press(.char("l"), .char("<"))
        #expect(Self.savedColumns(s)?.map(\.id) == ["status", "name", "age", "city"])
        #expect(Self.visible(s) == ["status", "name", "city"])
        #expect(s.model.ui.columnCursor == 0)
    }

    @Test(arguments: widths)
    func minusHidesTheColumn(width: Int) {
        var s = ScreenScene(width: width, height: 6)
        s.press(.char("l"), .char("-"))
        #expect(Self.visible(s) == ["name", "status", "city"])
        #expect(Self.savedColumns(s)?.first { $0.id == "age" }?.hidden == true)
        #expect(s.model.ui.columnCursor == 1)
        #expect(Self.header(s) == Self.ageHidden[width])
        // The last column: the cursor stays on the new last one. The last visible one refuses.
        s.press(.char("l"), .char("-"))
        #expect(Self.visible(s) == ["name", "status"])
        #expect(s.model.ui.columnCursor == 1)
        s.press(.char("-"), .char("-"))
        #expect(Self.visible(s) == ["name"])
        #expect(s.model.ui.message == .init("column name is the last visible column", isError: true))
    }

    static let ageHidden: [Int: String] = [
        40: "  Name              Status      City",
        80: "  Name                 Status                        City",
        120: "  Name                 Status                                City",
    ]

    /// `}` widens Name by 2 cells from its shown width, `{` narrows it: a `column width`.
    @Test(arguments: widths)
    func bracesNarrowAndWidenFromTheShownWidth(width: Int) {
        var s = ScreenScene(width: width, height: 6)
        let shown = WorkspaceRenderer.columnLayout(workspace: s.scene.ws, size: s.model.size, ui: s.model.ui)!.placed[0].width
        #expect(shown == Self.nameWidth[width])
        s.press(.char("}"))
        #expect(Self.savedColumns(s)?.first { $0.id == "name" }?.width == shown + 2)
        #expect(Self.header(s) == Self.widened[width])
        s.press(.char("{"), .char("{"))
        #expect(Self.savedColumns(s)?.first { $0.id == "name" }?.width == shown - 2)
        // Not below one cell.
        for _ in 0..<20 { s.press(.char("{")) }
        #expect(Self.savedColumns(s)?.first { $0.id == "name" }?.width == 1)
        #expect(s.model.ui.message == .init("Name is 1 cell wide already", isError: true))
    }

    static let nameWidth: [Int: Int] = [40: 15, 80: 20, 120: 20]
    static let widened: [Int: String] = [
        40: "  Name                Age Status   City",
        80: "  Name                     Age Status                    City",
        120: "  Name                     Age Status                            City",
    ]

    /// `=` undoes moves, hides and widths: the plugin's order, every column, automatic widths;
    /// the cursor stays on its column.
    @Test(arguments: widths)
    func equalsResetsTheColumns(width: Int) {
        var s = ScreenScene(width: width, height: 6)
        let before = s.lines
        s.press(.char("l"), .char(">"), .char("}"), .char("h"), .char("-"))
        #expect(Self.visible(s) == ["name", "age", "city"])
        s.press(.char("="))
        #expect(Self.visible(s) == ["name", "age", "status", "city"])
        #expect(Self.savedColumns(s) == ["name", "age", "status", "city"].map { ColumnCustomization(id: $0) })
        #expect(s.model.ui.columnCursor == 1)  // still on Age, where the reset put it
        s.press(.char("h"), .char("h"))
        #expect(s.lines == before)
    }

    /// Nine columns of 10 cells and a key column: they never all fit in 120 columns.
    static let wide = FakeTable(
        columns: [ColumnSpec(id: "key", title: "Key", width: .fixed(6))]
            + (1...9).map { ColumnSpec(id: "c\($0)", title: "Col \($0)", width: .fixed(10)) },
        total: 100,
        row: { i in Row(id: "r\(i)", cells: [.string("k\(i)")] + (1...9).map { .string("r\(i)c\($0)") }) })

    /// Compact layout: the key column plus what fits, and under the cursor row its other values.
    @Test(arguments: widths)
    func compactLayoutShowsTheCursorRowsOtherValues(width: Int) {
        var s = ScreenScene(Scene(tables: ["people": Self.wide]), width: width, height: 7)
        s.press(.char("j"))
        #expect(s.lines == Self.compact[width])
        // Scrolled right: the columns cut off on the left join the detail line.
        for _ in 0..<9 { s.press(.char("l")) }
        #expect(s.lines == Self.compactScrolled[width])
    }

    static let compact: [Int: [String]] = [
        40: [
            " ◆ People  $ Orders  ⚙ Processes       >",
            "  Key    Col 1      Col 2              >",
            "  k0     r0c1       r0c2",
            "  k1     r1c1       r1c2",
            "  Col 3: r1c3 · Col 4: r1c4 · Col 5: r1…",
            "  k2     r2c1       r2c2",
            "row 2 of 100                      ? help",
        ],
        80: [
            " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
            "  Key    Col 1      Col 2      Col 3      Col 4      Col 5      Col 6          >",
            "  k0     r0c1       r0c2       r0c3       r0c4       r0c5       r0c6",
            "  k1     r1c1       r1c2       r1c3       r1c4       r1c5       r1c6",
            "  Col 7: r1c7 · Col 8: r1c8 · Col 9: r1c9",
            "  k2     r2c1       r2c2       r2c3       r2c4       r2c5       r2c6",
            "row 2 of 100                                                              ? help",
        ],
        120: [
            " Data                   │  Key    Col 1      Col 2      Col 3      Col 4      Col 5      Col 6      Col 7              >",
            "  ◆ People              │  k0     r0c1       r0c2       r0c3       r0c4       r0c5       r0c6       r0c7",
            "  $ Orders              │  k1     r1c1       r1c2       r1c3       r1c4       r1c5       r1c6       r1c7",
            "                        │  Col 8: r1c8 · Col 9: r1c9",
            " System                 │  k2     r2c1       r2c2       r2c3       r2c4       r2c5       r2c6       r2c7",
            "  ⚙ Processes           │  k3     r3c1       r3c2       r3c3       r3c4       r3c5       r3c6       r3c7",
            "row 2 of 100                                                                                                      ? help",
        ],
    ]
    static let compactScrolled: [Int: [String]] = [
        40: [
            " ◆ People  $ Orders  ⚙ Processes       >",
            "  Key   <Col 8      Col 9",
            "  k0     r0c8       r0c9",
            "  k1     r1c8       r1c9",
            "  Col 1: r1c1 · Col 2: r1c2 · Col 3: r1…",
            "  k2     r2c8       r2c9",
            "row 2 of 100                      ? help",
        ],
        80: [
            " ◆ People  $ Orders  ⚙ Processes  ≡ Logs",
            "  Key   <Col 4      Col 5      Col 6      Col 7      Col 8      Col 9",
            "  k0     r0c4       r0c5       r0c6       r0c7       r0c8       r0c9",
            "  k1     r1c4       r1c5       r1c6       r1c7       r1c8       r1c9",
            "  Col 1: r1c1 · Col 2: r1c2 · Col 3: r1c3",
            "  k2     r2c4       r2c5       r2c6       r2c7       r2c8       r2c9",
            "row 2 of 100                                                              ? help",
        ],
        120: [
            " Data                   │  Key   <Col 3      Col 4      Col 5      Col 6      Col 7      Col 8      Col 9",
            "  ◆ People              │  k0     r0c3       r0c4       r0c5       r0c6       r0c7       r0c8       r0c9",
            "  $ Orders              │  k1     r1c3       r1c4       r1c5       r1c6       r1c7       r1c8       r1c9",
            "                        │  Col 1: r1c1 · Col 2: r1c2",
            " System                 │  k2     r2c3       r2c4       r2c5       r2c6       r2c7       r2c8       r2c9",
            "  ⚙ Processes           │  k3     r3c3       r3c4       r3c5       r3c6       r3c7       r3c8       r3c9",
            "row 2 of 100                                                                                                      ? help",
        ],
    ]

    /// Not even a second column fits: the key column alone; the detail line has every other
    /// value, the one under the column cursor reversed.
    @Test func theKeyColumnAloneAt20Columns() {
        var s = ScreenScene(Scene(tables: ["people": .people(nameWidth: .flexible(min: 14, ideal: nil, max: nil))]), width: 20, height: 6)
        s.press(.char("l"), .char("l"))
        #expect(s.lines == [
            " ◆ People          >",
            "  Name             >",
            "  name0",
            "  Age: 20 · Status:…",
            "  name1",
            "row 1 of 1,000,000",
        ])
        let frame = WorkspaceRenderer.render(workspace: s.scene.ws, size: s.model.size, ui: s.model.ui)
        #expect((12..<20).allSatisfy { frame[$0, 3].style.reverse })  // Status, under the column cursor
        #expect(!(2..<9).contains { frame[$0, 3].style.reverse })    // Age is not
        #expect((0..<20).allSatisfy { frame[$0, 2].style.reverse })  // the cursor row
        // `{` narrows Status from the width it would have (its minimum), though it is not placed.
        s.press(.char("{"))
        #expect(Self.savedColumns(s)?.first { $0.id == "status" }?.width == 4)
    }
}

/// The keys of points 4 and 5 are in the key map (so help lists them) and bound once.
@Suite struct CustomizationKeyMapTests {
    @Test func theKeysAreBound() {
        let expected: [(Key, Action)] = [
            (.char("T"), .editTabs), (.char("<"), .moveColumnLeft), (.char(">"), .moveColumnRight),
            (.char("-"), .hideColumn), (.char("{"), .narrowColumn), (.char("}"), .widenColumn), (.char("="), .resetColumns),
        ]
        for (key, action) in expected { #expect(KeyMap.standard.action(for: key) == action, "\(key)") }
        let editKeys = TabEditKeys.bindings.flatMap(\.keys)
        #expect(Set(editKeys).count == editKeys.count)
        #expect(TabEditKeys.action(for: .char("K")) == .moveUp && TabEditKeys.action(for: .char("J")) == .moveDown)
        #expect(TabEditKeys.action(for: .escape) == .leave && TabEditKeys.action(for: .enter) == .leave)
    }
}
