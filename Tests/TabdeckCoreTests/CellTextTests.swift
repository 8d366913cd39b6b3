import Testing
import TabdeckCore
import TabdeckProtocol

/// How cells become text: a decimal column's `decimals`.
@Suite struct CellTextTests {
    let money = ColumnSpec(id: "balance", type: .decimal, decimals: 2)

    @Test func fixedDigitsAfterThePoint() {
        #expect(CellText.of(.double(1370.3), in: money) == "1370.30")
        #expect(CellText.of(.double(-73.09), in: money) == "-73.09")
        #expect(CellText.of(.int(7), in: money) == "7.00")
        #expect(CellText.of(.double(0.005), in: money) == "0.01")  // half away from zero
        #expect(CellText.of(.double(2.675), in: money) == "2.68")  // as a person rounds it (printf says 2.67)
        #expect(CellText.of(.double(-0.001), in: money) == "0.00")  // no "-0.00"
        #expect(CellText.fixed(1234.5678, 0) == "1235")
        #expect(CellText.fixed(0.1, 15) == "0.100000000000000")
        #expect(CellText.fixed(1e300, 2) == CellText.of(.double(1e300)))  // too large: plain text
        #expect(CellText.fixed(.nan, 2) == "nan")
    }

    @Test func otherCellsAndColumnsAreUnchanged() {
        #expect(CellText.of(.string("n/a"), in: money) == "n/a")
        #expect(CellText.of(.null, in: money) == "")
        #expect(CellText.of(.double(1370.3), in: ColumnSpec(id: "x", type: .decimal)) == "1370.3")
        // Only decimal columns take the hint.
        #expect(ColumnSpec(id: "n", type: .integer, decimals: 2).decimals == nil)
    }

    @Test func theHintIsReadWrittenAndChecked() throws {
        let spec = try ColumnSpec(reader: JSONReader(["id": "b", "type": "decimal", "decimals": 2], path: "columns[0]"))
        #expect(spec.decimals == 2)
        #expect(spec.json["decimals"] == 2)
        #expect(ColumnSpec(id: "x", type: .decimal).json["decimals"] == nil)
        #expect(throws: JSONFieldError.self) {
            try ColumnSpec(reader: JSONReader(["id": "b", "type": "decimal", "decimals": 16], path: "columns[0]"))
        }
        do {
            _ = try ColumnSpec(reader: JSONReader(["id": "b", "type": "decimal", "decimals": -1], path: "columns[0]"))
        } catch {
            #expect("\(error)".contains("columns[0].decimals"))
        }
    }
}
