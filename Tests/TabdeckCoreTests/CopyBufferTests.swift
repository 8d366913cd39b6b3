import Testing
import TabdeckProtocol
@testable import TabdeckCore

/// The copy's byte count, kept as rows come in so that a copy too big stops early, is exactly
/// the size of the text it makes (for text that needs no escaping), in every target and format.
@Suite struct CopyBufferTests {
    @Test(arguments: Command.CopyTarget.allCases)
    func theCountedBytesAreTheTextsBytes(target: Command.CopyTarget) {
        let columns = [ColumnSpec(id: "name"), ColumnSpec(id: "n", type: .decimal, decimals: 1)]
        for format in Command.CopyFormat.allCases {
            for count in 0...3 {
                var buffer = CopyBuffer(target: target, format: format, columns: target == .cell || target == .column ? [columns[0]] : columns)
                for i in 0..<count { buffer.add(cells: [.string("né, \"\(i)\""), .double(Double(i) / 4)]) }
                #expect(buffer.bytes == buffer.text.utf8.count, "\(target) \(format) \(count): \(buffer.text.debugDescription)")
                #expect(buffer.rows == count)
            }
        }
    }

    @Test func summaries() {
        var rows = CopyBuffer(target: .selection, format: .tsv, columns: [ColumnSpec(id: "a")])
        rows.add(cells: ["x"]); rows.add(cells: ["y"])
        #expect(rows.text == "a\nx\ny")
        #expect(rows.summary(bytes: 5) == "copied 2 rows, 5 bytes")
        var one = CopyBuffer(target: .row, format: .json, columns: [ColumnSpec(id: "a")])
        one.add(cells: [.int(1)])
        #expect(one.text == #"{"a":1}"#)
        #expect(one.summary(bytes: 1_234) == "copied 1 row, 1,234 bytes")
        var column = CopyBuffer(target: .column, format: .csv, columns: [ColumnSpec(id: "a b")])
        column.add(cells: ["1,5"])
        #expect(column.text == "a b\n\"1,5\"")
        #expect(column.summary(bytes: 1) == "copied column a b, 1 row, 1 byte")
    }
}
