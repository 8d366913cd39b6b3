import Testing
import TabdeckProtocol
@testable import PipeTable

/// Reads `text` through a PipeTable fed in pieces of `piece` bytes (so records and lines are
/// split across reads as a pipe splits them), ended, described.
func read(_ text: String, piece: Int = 7) -> (columns: [ColumnSpec], rows: [Row], table: PipeTable) {
    let read = PipeTable.read(Array(text.utf8), piece: piece)
    return (read.columns, read.rows, read.table)
}

@Suite struct StreamFormatTests {
    @Test func sniffsEachFormatFromTheFirstLine() {
        #expect(StreamFormat.sniff(firstLine: Array("name,age,city".utf8)) == .delimited(UInt8(ascii: ",")))
        #expect(StreamFormat.sniff(firstLine: Array("name;amount;date".utf8)) == .delimited(UInt8(ascii: ";")))
        #expect(StreamFormat.sniff(firstLine: Array("a\tb,c\td".utf8)) == .delimited(0x09))
        #expect(StreamFormat.sniff(firstLine: Array("  {\"a\": 1}".utf8)) == .jsonLines)
        #expect(StreamFormat.sniff(firstLine: Array("USER   PID %CPU COMMAND".utf8)) == .aligned)
        // A delimiter inside quotes does not count.
        #expect(StreamFormat.sniff(firstLine: Array("\"a,b,c\";d".utf8)) == .delimited(UInt8(ascii: ";")))
    }
}

@Suite struct DelimitedRecordsTests {
    @Test func quotedNewlinesDelimitersAndEscapedQuotesStayInTheirField() {
        var parser = DelimitedRecords(delimiter: UInt8(ascii: ","))
        var records = parser.feed(Array("a,\"b, \"\"quoted\"\"\nline two\",c\r\n\nx,y".utf8))
        if let last = parser.finish() { records.append(last) }
        #expect(records == [["a", "b, \"quoted\"\nline two", "c"], ["x", "y"]])
    }
}

@Suite struct AlignedColumnsTests {
    /// As `ps aux` prints it: every column as wide as its widest value.
    static let ps = """
        USER         PID %CPU %MEM     VSZ    RSS TTY      STAT START   TIME COMMAND
        root           1  0.0  0.1  167736  11452 ?        Ss   Nov26   0:03 /sbin/init splash
        root           2  0.0  0.0       0      0 ?        S    Nov26   0:00 [kthreadd]
        systemd+     612  0.1  0.2   25532  13020 ?        Ss   Nov26   1:12 /lib/systemd/systemd-resolved
        alice      40213 12.5  3.4 4021356 561234 pts/0    Sl+  10:02  25:40 python3 train.py --epochs 10
        """

    @Test func psAuxKeepsRightAlignedNumbersAndACommandWithSpaces() {
        let (columns, rows, _) = read(Self.ps + "\n")
        #expect(columns.map(\.id) == ["USER", "PID", "%CPU", "%MEM", "VSZ", "RSS", "TTY", "STAT", "START", "TIME", "COMMAND"])
        #expect(columns.map(\.type) == [.text, .integer, .decimal, .decimal, .integer, .integer, .text, .text, .text, .text, .text])
        #expect(rows.count == 4)
        #expect(rows[3].cells == [.string("alice"), .int(40213), .string("12.5"), .string("3.4"), .int(4021356), .int(561234),
                                  .string("pts/0"), .string("Sl+"), .string("10:02"), .string("25:40"),
                                  .string("python3 train.py --epochs 10")])
        #expect(rows.map(\.id) == ["1", "2", "3", "4"])
    }

    /// Real `ps aux` lets a value wider than its column push the rest of the line right.
    @Test func psAuxWithAnOverflowingValueSplitsByWords() {
        let (columns, rows, _) = read("""
            USER       PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND
            root         2  0.0  0.0      0     0 ?        S    14:52   0:00 [kthreadd]
            root     28592 22.3  1.2 506884 315244 ?       R    17:55   0:20 /opt/swift/usr/bin/swift-frontend -c x.swift
            """)
        #expect(columns.map(\.id) == ["USER", "PID", "%CPU", "%MEM", "VSZ", "RSS", "TTY", "STAT", "START", "TIME", "COMMAND"])
        #expect(rows[1].cells[5] == .int(315244))
        #expect(rows[1].cells[6] == .string("?"))
        #expect(rows[1].cells[10] == .string("/opt/swift/usr/bin/swift-frontend -c x.swift"))
    }

    /// A fuzz finding (Tests/Fuzz/findings/pipe): a line whose rest is carriage returns and
    /// spaces only. That is no cell (nil), not an empty text.
    @Test func carriageReturnsAloneAreNoCell() {
        let line = "root       " + String(repeating: "\r", count: 14) + "   "
        let columns = AlignedColumns(header: "\u{3}USER         PID %CPU COMMAND", sample: [line])
        let cells = columns.split(line)
        #expect(cells.count == columns.names.count)
        #expect(!cells.contains(""), "\(cells)")
    }

    @Test func aWiderValueAfterTheSampleMovesTheCutBackToWhereItBegins() {
        // Positions (an empty cell in the sample), and a later value wider than the sample's.
        let columns = AlignedColumns(header: "NAME    SIZE NOTE", sample: ["a          1 x", "b         22", "c"])
        #expect(columns.starts == [0, 8, 13])
        #expect(columns.split("c     123456 z") == ["c", "123456", "z"])
    }

    @Test func dfKeepsMountedOnAsOneColumn() {
        let df = """
            Filesystem      Size  Used Avail Use% Mounted on
            /dev/sda1        50G   20G   28G  42% /
            tmpfs           7.8G     0  7.8G   0% /dev/shm
            """
        let (columns, rows, _) = read(df)
        #expect(columns.map(\.id) == ["Filesystem", "Size", "Used", "Avail", "Use%", "Mounted on"])
        #expect(rows[1].cells == [.string("tmpfs"), .string("7.8G"), .string("0"), .string("7.8G"), .string("0%"), .string("/dev/shm")])
    }

    @Test func dockerPsHeadersWithSpacesAndValuesWithSpaces() {
        let docker = """
            CONTAINER ID   IMAGE          COMMAND                  CREATED        STATUS        PORTS     NAMES
            4c01db0b339c   ubuntu:22.04   "bash"                   2 hours ago    Up 2 hours              web
            d7886598dbe2   postgres:15    "docker-entrypoint.s…"   3 days ago     Up 3 days     5432/tcp  db
            """
        let (columns, rows, _) = read(docker)
        #expect(columns.map(\.id) == ["CONTAINER ID", "IMAGE", "COMMAND", "CREATED", "STATUS", "PORTS", "NAMES"])
        #expect(rows[0].cells == [.string("4c01db0b339c"), .string("ubuntu:22.04"), .string("\"bash\""), .string("2 hours ago"),
                                  .string("Up 2 hours"), .null, .string("web")])
        #expect(rows[1].cells[5] == .string("5432/tcp"))
    }
}

@Suite struct PipeTableTests {
    @Test func csvWithBOMCRLFQuotedNewlinesAndTypes() {
        let (columns, rows, table) = read("\u{FEFF}name,age,amount,joined,ok\r\n\"Smith, Ann\",36,959.50,2025-12-31,true\r\nBo,,3.00,2024-01-02,false\r\n\"multi\nline\",7,-0.5,2023-05-06,TRUE\r\n", piece: 3)
        #expect(table.format == .delimited(UInt8(ascii: ",")))
        #expect(columns.map(\.id) == ["name", "age", "amount", "joined", "ok"])
        #expect(columns.map(\.type) == [.text, .integer, .decimal, .date, .bool])
        #expect(rows.map(\.cells) == [
            [.string("Smith, Ann"), .int(36), .string("959.50"), .string("2025-12-31"), .bool(true)],
            [.string("Bo"), .null, .string("3.00"), .string("2024-01-02"), .bool(false)],
            [.string("multi\nline"), .int(7), .string("-0.5"), .string("2023-05-06"), .bool(true)],
        ])
    }

    @Test func aCellThatDoesNotFitItsTypeIsSentAsItsTextNotLost() {
        var table = PipeTable(sampleLimit: 2)
        table.feed(Array("n\n1\n2\n".utf8))
        #expect(table.sampleComplete)
        #expect(table.describe().map(\.type) == [.integer])
        _ = table.takeRows()
        table.feed(Array("lots\n007\n".utf8))
        table.finish()
        #expect(table.takeRows().map(\.cells) == [[.string("lots")], [.string("007")]])
    }

    @Test func rowsArriveAfterTheColumnsAreDecidedAndIdsKeepCounting() {
        var table = PipeTable(sampleLimit: 1)
        table.feed(Array("a\tb\nx\t1\n".utf8))
        _ = table.describe()
        #expect(table.takeRows().map(\.id) == ["1"])
        table.feed(Array("y\t2\nz\t".utf8))
        #expect(table.takeRows().map(\.id) == ["2"])
        table.finish()
        #expect(table.takeRows().map(\.cells) == [[.string("z"), .null]])
    }

    @Test func longRowsKeepTheirExtraFieldsInTheLastCell() {
        let (_, rows, _) = read("a,b\n1,2,3,4\n")
        #expect(rows[0].cells == [.int(1), .string("2,3,4")])
    }

    @Test func jsonLinesTakeTheKeysInOrderAndNestedValuesAsText() {
        let (columns, rows, table) = read("""
            {"id": 1, "name": "a", "tags": ["x", "y"], "at": "2025-10-26T02:30:00+02:00"}
            not json
            {"id": 2, "name": null, "score": 2.5, "at": "2025-10-27"}
            [1, 2]
            """)
        #expect(columns.map(\.id) == ["id", "name", "tags", "at", "score"])
        #expect(columns.map(\.type) == [.integer, .text, .text, .date, .decimal])
        #expect(rows.map(\.cells) == [
            [.int(1), .string("a"), .string("[\"x\",\"y\"]"), .string("2025-10-26T02:30:00+02:00"), .null],
            [.int(2), .null, .null, .string("2025-10-27"), .double(2.5)],
        ])
        #expect(table.skipped.map(\.line) == [2, 4])
        #expect(table.lateKeys.isEmpty)
        #expect(table.skipped[0].reason.hasPrefix("not JSON"))
        #expect(table.skipped[1].reason == "not a JSON object")
    }

    @Test func aKeyFirstSeenAfterTheSampleIsNamed() {
        var table = PipeTable(sampleLimit: 1)
        table.feed(Array("{\"a\": 1}\n".utf8))
        #expect(table.describe().map(\.id) == ["a"])
        table.feed(Array("{\"a\": 2, \"late\": true}\n".utf8))
        #expect(table.takeRows().map(\.cells) == [[.int(1)], [.int(2)]])
        #expect(table.lateKeys == ["late"])
    }

    @Test func anEmptyStreamIsOneEmptyColumn() {
        let (columns, rows, _) = read("")
        #expect(columns.map(\.id) == ["value"])
        #expect(rows.isEmpty)
    }

    @Test func aHeaderWithoutANewlineIsTheHeader() {
        let (columns, rows, _) = read("a,b")
        #expect(columns.map(\.id) == ["a", "b"])
        #expect(rows.isEmpty)
    }
}
