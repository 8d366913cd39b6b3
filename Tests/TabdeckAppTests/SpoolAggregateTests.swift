import Foundation
import Testing
import TabdeckCore
import TabdeckProtocol
@testable import TabdeckApp

/// `freq` on a plugin the host spools (`Plugins/fixtures/stream_plugin.py`: no `sort`, no
/// `paging`, no `aggregate`), through the real runtime: the spool answers `aggregate` (PROTOCOL.md
/// 11.12) from its rows, and pages, sorts and closes the table of groups itself.
@Suite(hangGuard) struct SpoolAggregateTests {
    let dir = TempDir()
    static let n = 5000

    /// The fixture's cells of row i (the same functions as in the plugin).
    static func amount(_ i: Int) -> Double? { i % 97 == 0 ? nil : Double(i * 7919 % 100000) + Double(i % 100) / 100 }
    static func state(_ i: Int) -> String { ["todo", "doing", "done"][i * 7 % 3] }
    static func name(_ i: Int) -> String { ["Åsa", "bob", "Carl", "dana", "Émile", "frank", "Zoë", "ada"][i % 8] }

    func number(_ cell: Any?) -> Double? {
        if let s = cell as? String { return Double(s) }
        return (cell as? NSNumber)?.doubleValue
    }

    func facts(_ h: Host) async -> FrequencyFacts? {
        if case .frequency(let f)? = await h.tab("stream")?.stack.last?.derived { return f }
        return nil
    }

    @Test func freqOnASpooledPluginCountsPagesSortsAndCloses() async throws {
        var tab = TabSpec(id: "stream", command: ["python3", SpooledPluginTests.plugin, "--rows", String(Self.n)])
        tab.trace = true
        let h = try Host(dir, tabs: [tab], output: .json)

        // By state, under a filter: counted once the stream is in, in the natural order.
        #expect((await h.run("filter CARL")).ok)   // names "Carl …": i % 8 == 2
        let freq = await h.run("freq state")
        #expect(freq.ok, "\(freq)")
        let kept = (0..<Self.n).filter { Self.name($0) == "Carl" }
        var byState: [String: Int] = [:]
        for i in kept { byState[Self.state(i), default: 0] += 1 }
        let order = ["todo", "doing", "done"]
        let expected = byState.sorted { a, b in
            a.value != b.value ? a.value > b.value : order.firstIndex(of: a.key)! < order.firstIndex(of: b.key)!
        }
        let f = await facts(h)
        #expect(f?.rows == kept.count && f?.largest == expected[0].value)
        let shown = await h.run("show 10").rows
        #expect(shown.map { $0.text("state") ?? "?" } == expected.map(\.key))
        #expect(shown.map { $0.int("count") ?? -1 } == expected.map(\.value))
        var running = 0
        for (row, (_, count)) in zip(shown, expected) {
            running += count
            let percent = number(row.cells["percent"]) ?? -1, cumulative = number(row.cells["cumulative"]) ?? -1
            #expect(abs(percent - Double(count) * 100 / Double(kept.count)) < 1e-9)
            #expect(abs(cumulative - Double(running) * 100 / Double(kept.count)) < 1e-9)
        }
        #expect((await h.run("back")).ok)
        #expect((await h.run("filter clear")).ok)

        // Amount in at most 10 bins: every row; the width by the protocol's rule, worked out here.
        #expect((await h.run("freq amount --bins 10")).ok)
        let values = (0..<Self.n).compactMap(Self.amount)
        let raw = (values.max()! - values.min()!) / 10
        let width = (-3...8).flatMap { e in [1.0, 2, 2.5, 5].map { $0 * pow(10, Double(e)) } }.first { $0 >= raw }!
        var bins: [Double?: Int] = [:]
        for i in 0..<Self.n { bins[Self.amount(i).map { floor($0 / width) * width }, default: 0] += 1 }
        let expectedBins = bins.sorted { a, b in
            if a.value != b.value { return a.value > b.value }
            switch (a.key, b.key) { case (nil, _): return true; case (_, nil): return false; case let (x?, y?): return x < y }
        }
        let binned = await facts(h)
        #expect(binned?.bins == ["amount": .width(Bins.text(width))] && binned?.rows == Self.n)
        let all = await h.run("show 100").rows
        #expect(all.map { number($0.cells["amount"]) } == expectedBins.map(\.key))
        #expect(all.map { $0.int("count") ?? -1 } == expectedBins.map(\.value))
        // A page from where the view is (the spool's paging of this table is proven in
        // TabdeckSpoolTests); then sorted by count ascending (ties: natural order).
        // (`show` prints from the view's top, which `goto` moves as it needs.)
        #expect((await h.run("goto 6")).ok)
        let top = await h.tab("stream")?.stack.last?.view.scrollOffset ?? -1
        let middle = await h.run("show 3").rows
        #expect(top >= 0 && top + 3 <= expectedBins.count, "\(top)")
        if top >= 0 && top + 3 <= expectedBins.count {
            #expect(middle.map { number($0.cells["amount"]) } == expectedBins[top..<(top + 3)].map(\.key))
            #expect(middle.map { $0.int("count") ?? -1 } == expectedBins[top..<(top + 3)].map(\.value), "\(middle.map(\.cells))")
        }
        #expect((await h.run("sort count")).ok)
        #expect((await h.run("goto 1")).ok)
        let ascending = await h.run("show 100").rows
        let expectedAscending = expectedBins.enumerated().sorted { a, b in
            a.element.value != b.element.value ? a.element.value < b.element.value : a.offset < b.offset
        }.map(\.element)
        #expect(ascending.map { number($0.cells["amount"]) } == expectedAscending.map(\.key))

        #expect((await h.run("back")).ok)

        // 1,000 names, 5 rows each: ties in count, so the natural order is by name (UTF-8
        // bytes); a page deep in it.
        #expect((await h.run("freq name")).ok)
        let names = Set((0..<Self.n).map { Self.name($0) + " " + String($0 * 31 % 1000) })
            .sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }
        #expect(await facts(h)?.largest == 5 && names.count == 1000)
        #expect((await h.run("goto 600")).ok)
        let deepTop = await h.tab("stream")?.stack.last?.view.scrollOffset ?? -1
        let deep = await h.run("show 3").rows
        #expect(deepTop > 500 && deepTop < 600, "\(deepTop)")
        if deepTop >= 0 && deepTop + 3 <= names.count {
            #expect(deep.map { $0.text("name") ?? "?" } == Array(names[deepTop..<(deepTop + 3)]))
            #expect(deep.map { $0.int("count") ?? -1 } == [5, 5, 5])
        }

        // `back` closes the table of groups: at the spool, never at the plugin.
        #expect((await h.run("back")).ok)
        await h.shutdown()
        let lines = dir.read("state/logs/stream.trace").split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains(" stream ⇢ ") && $0.contains("\"close\"") && $0.contains("spool-agg-") }, "\(lines.suffix(5))")
        #expect(!lines.contains { $0.contains(" stream → ") && ($0.contains("spool-agg-") || $0.contains("\"aggregate\"")) })
        #expect(lines.contains { $0.contains(" stream ⇢ ") && $0.contains("\"aggregate\"") })
    }
}
