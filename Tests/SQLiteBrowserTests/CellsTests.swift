import Foundation
import GRDB
import Testing
import TabdeckProtocol
@testable import SQLiteBrowser

@Suite struct CellsTests {
    @Test func datesBecomeISO8601() {
        #expect(Cells.isoDate("2024-05-01") == "2024-05-01")
        #expect(Cells.isoDate("2024-05-01 09:30") == "2024-05-01T09:30Z")
        #expect(Cells.isoDate("2024-05-01 09:30:00") == "2024-05-01T09:30:00Z")
        #expect(Cells.isoDate("2024-05-01T09:30:00.250") == "2024-05-01T09:30:00.250Z")
        #expect(Cells.isoDate("2024-05-01T09:30:00+02:00") == "2024-05-01T09:30:00+02:00")
        #expect(Cells.isoDate("2024-05-01T09:30:00Z") == "2024-05-01T09:30:00Z")
        #expect(Cells.isoDate("yesterday") == nil)
        #expect(Cells.isoDate("2024-05-01 09") == nil)
        #expect(Cells.isoDate("2024-05-01T09:30:00+0200") == nil)
        #expect(Cells.isoDate(unixSeconds: 0) == "1970-01-01T00:00:00Z")
        #expect(Cells.isoDate(unixSeconds: 1_714_555_800) == "2024-05-01T09:30:00Z")
        #expect(Cells.isoDate(unixSeconds: -1) == "1969-12-31T23:59:59Z")
        #expect(Cells.isoDate(unixSeconds: 951_782_400.5) == "2000-02-29T00:00:00.500Z")
        #expect(Cells.isoDate(unixSeconds: 1.9996) == "1970-01-01T00:00:02Z")
    }

    @Test func cellsFollowTheColumnType() {
        #expect(Cells.cell(.null, type: .integer) == .null)
        #expect(Cells.cell(7, type: .integer) == 7)
        #expect(Cells.cell(7.0.databaseValue, type: .integer) == 7)
        #expect(Cells.cell(7.5.databaseValue, type: .integer) == 7.5)
        #expect(Cells.cell(7, type: .text) == "7")
        #expect(Cells.cell("abc", type: .integer) == "abc")  // flexible typing: shown as text
        #expect(Cells.cell(1, type: .bool) == true)
        #expect(Cells.cell("No", type: .bool) == false)
        #expect(Cells.cell("maybe", type: .bool) == "maybe")
        #expect(Cells.cell(Double.infinity.databaseValue, type: .decimal) == "Inf")
        #expect(Cells.cell(Data([0, 255]).databaseValue, type: .text) == "x'00ff'")
        #expect(Cells.cell(Data(repeating: 1, count: 40).databaseValue, type: .text)
                == "x'01010101010101010101010101010101…' (40 bytes)")
        // Text whole: a page cuts it past 64 KiB with the protocol's marker (BigCellTests).
        let long = String(repeating: "é", count: 5_000)
        #expect(Cells.cell(long.databaseValue, type: .text) == .string(long))
    }

    @Test func primaryKeyIdsAreUnambiguous() {
        #expect(Cells.id(primaryKey: [42]) == "42")
        #expect(Cells.id(primaryKey: ["alice"]) == "alice")
        #expect(Cells.id(primaryKey: ["42"]) == #"["42"]"#)  // not the integer 42
        #expect(Cells.id(primaryKey: ["[x]"]) == #"["[x]"]"#)
        #expect(Cells.id(primaryKey: [""]) == #"[""]"#)
        #expect(Cells.id(primaryKey: [7, "a,b"]) == #"[7,"a,b"]"#)
        #expect(Cells.id(primaryKey: [Data([1]).databaseValue]) == #"[{"blob":"01"}]"#)
        let a = Cells.id(values: [1, "x"], duplicate: 0), b = Cells.id(values: [1, "x"], duplicate: 1)
        #expect(a.count == 17 && b == a + "#2")
        #expect(Cells.id(values: ["1", "x"], duplicate: 0) != a)
    }
}
