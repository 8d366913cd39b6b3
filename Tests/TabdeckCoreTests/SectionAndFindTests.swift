import Testing
import TabdeckCore
import TabdeckProtocol

/// Harnesses whose every plugin has sections "low" (first half) and "high".
func sectioned(count: Int = 1000, counts: Bool = true) -> Harness {
    var h = Harness(count: count)
    for id in h.plugins.keys {
        h.plugins[id]!.sectioned = true
        h.plugins[id]!.sectionCounts = counts
    }
    return h
}

@Suite struct SectionTests {
    var table: (inout Harness) -> TableState = { h in h.ws.tabs[h.ws.selectedTab!]!.table! }

    @Test func countsPlaceHeadersFootersAndJumpsWithoutFetching() throws {
        var h = sectioned()
        h.run("show 5")
        let t = table(&h)
        #expect(t.sectionStarts == [0, 500])
        #expect(t.sectionHeader(before: 0)?.id == "low")
        #expect(t.sectionHeader(before: 1) == nil)
        #expect(t.sectionHeader(before: 500)?.id == "high")  // not loaded: the counts say so
        #expect(t.sectionFooter(after: 499)?.footer == "500 low")
        #expect(t.sectionFooter(after: 250) == nil)
        #expect(t.sectionFooter(after: 999)?.id == "high")
        let rowsAsked = h.sends(Method.rows).count
        let jumped = h.run("jump hi")
        let out = try #require(jumped)
        #expect(out.text == "High: row 501 of 1,000")
        #expect(table(&h).view.cursor == 500)
        #expect(h.sends(Method.rows).count > rowsAsked)  // the new view is fetched after the jump
        let low = h.run("jump LOW")
        #expect(low?.text == "Low: row 1 of 1,000")  // any case
    }

    @Test func withoutCountsLoadedRowsDecide() throws {
        var h = sectioned(counts: false)
        h.run("show 5")
        #expect(table(&h).sectionStarts == nil)
        h.run("goto 450")
        h.run("show 100")  // loads rows 450…549
        let t = table(&h)
        #expect(t.sectionHeader(before: 500)?.id == "high")
        #expect(t.sectionFooter(after: 499)?.id == "low")
        #expect(t.sectionHeader(before: 700) == nil)
        let high = h.run("jump h")
        #expect(high?.text == "High: row 501 of 1,000")
    }

    @Test func withoutCountsJumpLooksThroughTheRows() throws {
        var h = sectioned(count: 100_000, counts: false)
        h.run("show 5")
        let pagesBefore = h.sends(Method.rows).count
        let high = h.run("jump high")  // row 50,001 is not loaded: the rows are searched
        #expect(high?.text == "High: row 50,001 of 100,000")
        #expect(h.sends(Method.rows).count > pagesBefore)
        #expect(h.ws.isBusy == false)
        h.run("goto 70000")
        #expect(h.run("jump low")?.text == "Low: row 1 of 100,000")
    }

    @Test func aJumpThatWaitsForRowsFailsWhenStopped() {
        var h = sectioned(count: 100_000, counts: false)
        h.run("show 5")
        h.plugins["people"]!.holdRows = true
        h.feed(.command("jump high"))
        #expect(h.ws.isBusy)
        h.feed(.cancelFind)
        #expect(h.ws.isBusy == false)
        #expect(h.lastFailure == "the find stopped: cancelled")
    }

    @Test func pageNextMovesByTheDataRowsShown() {
        var h = sectioned()
        h.feed(.viewport(rows: 10))
        h.run("show 1")
        h.run("page first")
        h.run("page next")  // the Low header took a line: 9 data rows were shown
        #expect(table(&h).view.scrollOffset == 9)
        h.run("goto 496")  // rows 496…500, footer, High header, rows 501…503: 8 data rows
        #expect(table(&h).view.scrollOffset == 495)
        #expect(table(&h).dataRows(from: 495, lines: 10) == 8)
        h.run("page next")
        #expect(table(&h).view.scrollOffset == 503)
        var plain = Harness()
        plain.feed(.viewport(rows: 10))
        plain.run("show 1")
        plain.run("page next")
        #expect(plain.ws.tabs["people"]!.table!.view.scrollOffset == 10)  // `show` never moves the view
    }

    @Test func unknownSectionListsTheSections() {
        var h = sectioned()
        h.run("show 1")
        let refused = h.run("jump mid")
        #expect(refused == nil)
        #expect(h.lastFailure == #"no section of People starts with "mid" (sections: Low, High)"#)
    }

    @Test func tableWithoutSections() {
        var h = Harness()
        h.run("show 1")
        let refused = h.run("jump a")
        #expect(refused == nil)
        #expect(h.lastFailure?.hasSuffix("has no sections") == true)
    }

    @Test func sectionCountsAreParsedAndChecked() throws {
        let good = try JSONParser.parse(#"{"table":"t","columns":[{"id":"a"}],"sections":[{"id":"x","title":"X","count":3}]}"#)
        #expect(try TableDescription(good).sections == [SectionSpec(id: "x", title: "X", count: 3)])
        let bad = try JSONParser.parse(#"{"table":"t","columns":[{"id":"a"}],"sections":[{"id":"x","title":"X","count":-1}]}"#)
        #expect(throws: JSONFieldError.self) { try TableDescription(bad) }
    }

    @Test func jumpIsInTheCatalogAndCompletes() {
        var h = sectioned()
        h.run("show 1")
        #expect(CommandParser.catalog.contains { $0.name == "jump" })
        #expect(h.ws.completions(for: "jump H") == .words(["High"]))
        #expect(throws: CommandError.self) { try CommandParser.parse("jump") }
    }
}

@Suite struct FindTests {
    func cursor(_ h: Harness) -> Int { h.ws.tabs[h.ws.selectedTab!]!.table!.view.cursor }

    /// The fake names row i "name((i * 7919) % count)".
    func row(named n: Int, count: Int) -> Int { (0..<count).first { ($0 * 7919) % count == n }! }

    @Test func findsBeyondTheLoadedRowsInChunks() throws {
        var h = Harness(count: 100_000)
        h.run("show 5")
        let target = row(named: 99_999, count: 100_000)
        h.feed(.find(text: "NAME99999", backward: false))
        #expect(h.ws.find?.phase == .found(row: target, wrapped: false))
        #expect(cursor(h) == target)
        let limits = h.sends(Method.rows).compactMap { $0.2["limit"]?.intValue }
        #expect(limits.contains(1000))  // the find's chunks, not the view's pages
        #expect(h.ws.isBusy == false)
    }

    @Test func wrapsAroundAndFindsBackward() throws {
        var h = Harness(count: 1000)
        h.run("goto 900")
        let five = "name\((5 * 7919) % 1000)"
        h.feed(.find(text: five, backward: false))
        #expect(h.ws.find?.phase == .found(row: 5, wrapped: true))
        h.run("goto 3")
        h.feed(.find(text: five, backward: true))
        #expect(h.ws.find?.phase == .found(row: 5, wrapped: true))
        h.feed(.find(text: five, backward: false))  // from row 5 itself: comes back to it last
        #expect(h.ws.find?.phase == .found(row: 5, wrapped: true))
    }

    @Test func notFoundAfterEveryRow() {
        var h = Harness(count: 2500)
        h.run("show 1")
        h.feed(.find(text: "zzz", backward: false))
        #expect(h.ws.find?.phase == .notFound)
        #expect(h.ws.find?.checked == 2500)
        #expect(cursor(h) == 0)  // where it was (`show` never moves the cursor)
    }

    @Test func scrollingGoesOnWhileAFindWaitsAndEscStopsIt() throws {
        var h = Harness(count: 100_000)
        h.run("show 5")
        h.plugins["people"]!.holdRows = true
        h.feed(.find(text: "nothing-like-this", backward: false))
        #expect(h.ws.find?.isSearching == true)
        let paged = h.run("page next")
        #expect(paged != nil)  // not "busy"
        h.feed(.cursor(delta: 3))
        #expect(cursor(h) == 23)  // the page moved it 20, the keys 3 more (`show` never moves it)
        let inflight = h.plugins["people"]!.held.count
        #expect(inflight > 0)
        h.feed(.cancelFind)
        #expect(h.ws.find?.phase == .stopped("cancelled"))
        let cancels = h.effects.filter { if case .send(_, .notification(Method.cancel, _)) = $0 { true } else { false } }
        #expect(cancels.count >= 2)
    }

    @Test func theFindCommandWaitsForItsAnswer() throws {
        var h = Harness(count: 100_000)
        h.run("show 5")
        let target = row(named: 99_999, count: 100_000)
        let found = h.run("find NAME99999")
        #expect(found?.text == "found \"NAME99999\" at row \(formatCount(target + 1)) of 100,000")
        #expect(found?.json["found"] == .int(Int64(target + 1)))
        #expect(cursor(h) == target)
        let back = h.run("find --back name99999")
        #expect(back?.json["wrapped"] == .bool(true))  // the only match: found again after wrapping
        #expect(h.run("find zzz") == nil)
        #expect(h.lastFailure == "\"zzz\" is in no row")
        #expect(h.run("find") == nil)
        #expect(h.lastFailure?.hasPrefix("usage: find [--back] TEXT") == true)
    }

    @Test func aNewSortStopsTheFind() {
        var h = Harness(count: 10_000)
        h.run("show 5")
        h.plugins["people"]!.holdRows = true
        h.feed(.find(text: "nothing-like-this", backward: false))
        h.plugins["people"]!.holdRows = false
        h.run("sort name")
        #expect(h.ws.find?.phase == .stopped("the order changed"))
    }
}

/// Line mode's `show` prints a section's title above its first row and its footer under its
/// last, as the screen does (issue 27: sections could be tested only under a terminal).
@Suite struct ShowSectionsTests {
    @Test func showPrintsSectionTitlesAndFooters() {
        var h = Harness(count: 6)
        h.plugins["people"]!.sectioned = true
        let out = h.run("show 6")?.text ?? ""
        let lines = out.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.hasPrefix("  Low ─") }, "\(out)")
        #expect(lines.contains { $0.hasPrefix("  High ─") }, "\(out)")
        #expect(lines.contains("   3 low") && lines.contains("   3 high"), "\(out)")
        let low = lines.firstIndex { $0.hasPrefix("  Low ") }!, footer = lines.firstIndex(of: "   3 low")!
        let high = lines.firstIndex { $0.hasPrefix("  High ") }!
        #expect(low < footer && footer < high, "\(out)")
    }
}
