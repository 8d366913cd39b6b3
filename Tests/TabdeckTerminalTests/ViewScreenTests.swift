import Testing
import TabdeckCore
import TabdeckProtocol
@testable import TabdeckTerminal

/// Detail, help and prompt views; frames through the diff and the writer.
@Suite struct ViewScreenTests {
    func people(_ width: Int, _ height: Int) -> Scene {
        var s = Scene(tables: ["people": .people()])
        s.resize(width, height)
        s.run("show")
        return s
    }

    @Test func detailViewShowsEveryFieldOfTheCursorRow() {
        var s = people(40, 9)
        s.run("column hide city")
        s.run("goto 3")
        #expect(s.screen(40, 9, ui: UIState(mode: .detail(scroll: 0))) == [
            " ◆ People  $ Orders  ⚙ Processes       >",
            " row 3 of 1,000,000",
            " Name    name2",
            " Age     22",
            " Status  done",
            " City    Kyoto",
            " row id  p2",
            "",
            "row 3 of 1,000,000                ? help",
        ])
        #expect(s.screen(40, 9, ui: UIState(mode: .detail(scroll: 3)))[2] == " City    Kyoto")
    }

    @Test func detailViewWrapsLongValues() {
        let table = FakeTable(columns: [ColumnSpec(id: "path", title: "Path")], total: 1, row: { _ in
            Row(id: "1", cells: [.string("/usr/local/share/some deeply nested/folder")], detail: "a subtitle")
        })
        var s = Scene(tables: ["people": table])
        s.resize(30, 8)
        s.run("show")
        #expect(s.screen(30, 8, ui: UIState(mode: .detail(scroll: 0))) == [
            " ◆ People  $ Orders          >",
            " row 1 of 1",
            " Path    /usr/local/share/some",
            "         deeply nested/folder",
            " detail  a subtitle",
            " row id  1",
            "",
            "row 1 of 1              ? help",
        ])
    }

    @Test func helpListsEveryKeyAndCommand() {
        let s = people(120, 150)
        let lines = s.screen(120, 150, ui: UIState(mode: .help(scroll: 0)))
        #expect(Array(lines.prefix(4)) == [
            " Keys",
            "   ↓ j                           move-down: move down a row",
            "   ↑ k                           move-up: move up a row",
            "   PgDn                          page-down: next page",
        ])
        for entry in KeyMap.standard.helpEntries {
            #expect(lines.contains("   " + TextFit.fit(entry.keys, 30) + entry.description))
        }
        #expect(lines.contains("   1–9                           tab-1…tab-9: tab by position"))
        for binding in TabEditKeys.bindings {
            #expect(lines.contains("   " + TextFit.fit(KeyMap.label(binding.keys), 30) + binding.description))
        }
        for info in CommandParser.catalog {
            #expect(lines.contains { $0.hasPrefix("   " + info.usage) }, "\(info.usage)")
            #expect(lines.contains { $0.hasSuffix(info.summary) }, "\(info.summary)")
        }
        #expect(lines.last == "help · ↑↓ PgUp PgDn scroll · Esc or ? closes")
        // Scrolling stops at the last line.
        let end = s.screen(120, 10, ui: UIState(mode: .help(scroll: 1000)))
        #expect(end[8] == "   quit                          leave Tabdeck")
    }

    @Test func longOutputInAPanel() {
        var s = people(40, 6)
        s.run("columns")
        let output = s.outputs.last!
        #expect(s.screen(40, 6, ui: UIState(mode: .output(output, scroll: 0))) == [
            " ◆ People  $ Orders  ⚙ Processes       >",
            " 1. name \"Name\" — text",
            " 2. age \"Age\" — integer",
            " 3. status \"Status\" —",
            " enum(todo<doing<done)",
            "output · ↑↓ scroll · Esc closes",
        ])
        #expect(s.screen(40, 6, ui: UIState(mode: .output(output, scroll: 9)))[4] == " 4. city \"City\" — text")
    }

    @Test func promptReplacesTheStatusLine() {
        let s = people(40, 4)
        #expect(s.screen(40, 4, ui: UIState(mode: .prompt("/nam")))[3] == "/nam")
    }

    @Test func movingTheCursorChangesOnlyTwoRowsAndTheStatus() {
        func frame(cursor: Int) -> ScreenBuffer {
            var s = Scene(tables: ["people": .people()], views: [TableViewKey(tab: "people", table: ""): TableViewState(cursor: cursor)])
            s.resize(60, 8)
            s.run("show")
            return s.frame(60, 8)
        }
        let before = frame(cursor: 0)
        let after = frame(cursor: 1)
        let diff = Diff.between(before, after)
        #expect(Set(diff.runs.map(\.y)) == [2, 3, 7])
        var replay = before
        TestBackend.apply(diff, to: &replay)
        #expect(replay == after)
        let bytes = String(decoding: ANSIWriter(colors: true).bytes(for: diff), as: UTF8.self)
        // Row 1 loses reverse video, row 2 gains it, the status line's row number changes.
        #expect(bytes.hasPrefix("\u{1b}[3;1H\u{1b}[0m  name0 "))
        #expect(bytes.contains("\u{1b}[4;1H\u{1b}[0;7m  name1 "))
        #expect(bytes.hasSuffix("\u{1b}[8;5H\u{1b}[0m2"))
    }

    @Test func noColorFramesHaveNoColourCodes() {
        var s = people(120, 10)
        s.notify("people", Method.badge, ["value": 3])
        s.feed(.plugin(tab: "procs", .exited("exited with status 3")))
        s.run("sort name")
        s.run("show")
        let frame = s.frame(120, 10, ui: UIState(find: "name1"))
        let mono = String(decoding: ANSIWriter(environment: ["NO_COLOR": "1"]).bytes(for: Diff.between(nil, frame)), as: UTF8.self)
        let sgrs = Self.sgrParameters(mono)
        #expect(!sgrs.isEmpty)
        #expect(sgrs.allSatisfy { Set($0).isSubset(of: ["0", "1", "7"]) }, "\(sgrs)")
        #expect(sgrs.contains(["0", "7"]))  // the cursor row and the selected tab
        let colour = String(decoding: ANSIWriter(colors: true).bytes(for: Diff.between(nil, frame)), as: UTF8.self)
        #expect(Self.sgrParameters(colour).contains { $0.contains("31") })  // the red `!`
    }

    /// The parameters of every SGR sequence in `s`.
    static func sgrParameters(_ s: String) -> [[String]] {
        var out: [[String]] = []
        var rest = Substring(s)
        while let start = rest.firstRange(of: "\u{1b}[") {
            let tail = rest[start.upperBound...]
            guard let end = tail.firstIndex(where: { $0.isLetter }) else { break }
            if tail[end] == "m" { out.append(tail[..<end].split(separator: ";").map(String.init)) }
            rest = tail[tail.index(after: end)...]
        }
        return out
    }

    @Test func tinyScreensDoNotCrash() {
        let s = people(120, 10)
        for (w, h) in [(0, 0), (1, 1), (2, 1), (1, 5), (5, 2), (10, 3), (100, 2), (100, 1), (3, 40)] {
            for mode in [UIState.Mode.table, .help(scroll: 5), .detail(scroll: 1), .prompt(":x"), .output("a\nb", scroll: 3)] {
                let b = s.frame(w, h, ui: UIState(mode: mode, columnCursor: 9, columnScroll: 9))
                #expect(b.width == w && b.height == h)
            }
        }
    }
}
