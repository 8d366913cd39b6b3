import Testing
@testable import TabdeckSources

@Suite struct RecognitionTests {
    func recognize(_ bytes: [UInt8], _ name: String, size: Int? = nil) -> SourceFormat {
        Recognition.recognize(head: bytes, size: size ?? bytes.count, name: name)
    }
    func recognize(_ text: String, _ name: String) -> SourceFormat { recognize(Array(text.utf8), name) }

    @Test func everyMagicWinsOverTheName() {
        let rest: [UInt8] = Array(repeating: 0, count: 40)
        #expect(recognize(Array("SQLite format 3\0".utf8) + rest, "x.csv") == .sqlite)
        #expect(recognize(Array("PAR1".utf8) + rest, "x.txt") == .parquet)
        #expect(recognize(Array("ARROW1".utf8) + rest, "x.bin") == .arrow)
        #expect(recognize([0x1F, 0x8B, 0x08] + rest, "sales.csv.gz") == .compressed(.gzip, inner: .delimited(.csv)))
        #expect(recognize([0x1F, 0x8B, 0x08] + rest, "log.gz") == .compressed(.gzip, inner: nil))
        #expect(recognize([0x28, 0xB5, 0x2F, 0xFD] + rest, "e.jsonl.zst") == .compressed(.zstd, inner: .jsonLines))
        #expect(recognize(Array("BZh9".utf8) + rest, "t.tsv.bz2") == .compressed(.bzip2, inner: .delimited(.tsv)))
        #expect(recognize([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00] + rest, "a.json.xz") == .compressed(.xz, inner: .json))
        let zip = [0x50, 0x4B, 0x03, 0x04] + rest + Array("[Content_Types].xml".utf8) + rest + Array("xl/workbook.xml".utf8)
        #expect(recognize(zip, "book.bin") == .xlsx)
        #expect(recognize([0x50, 0x4B, 0x03, 0x04] + rest, "book.xlsx") == .xlsx)
        guard case .notATable(let plainZip) = recognize([0x50, 0x4B, 0x03, 0x04] + rest, "a.zip") else {
            Issue.record("a zip without xl/ is not a table"); return
        }
        #expect(plainZip.kind == "zip archive")
        // A "BZh" not followed by a block size digit is text, not bzip2.
        #expect(recognize("BZh,x\n1,2\n", "a.csv") == .delimited(.csv))
    }

    @Test func theDuckDBFormatArgFollowsTheFormat() {
        #expect(SourceFormat.parquet.duckdbFormat == "parquet")
        #expect(SourceFormat.jsonLines.duckdbFormat == "jsonl")
        #expect(SourceFormat.compressed(.gzip, inner: .delimited(.csv)).duckdbFormat == "csv")
        #expect(SourceFormat.compressed(.zstd, inner: nil).duckdbFormat == nil)
        #expect(SourceFormat.xlsx.duckdbFormat == "xlsx")
        #expect(SourceFormat.arrow.duckdbFormat == "arrow")
    }

    @Test func textIsToldByItsShape() {
        #expect(recognize("id,name\n1,ann\n2,bob\n", "people.dat") == .delimited(.csv))
        #expect(recognize("id\tname\n1\tann\n", "people") == .delimited(.tsv))
        #expect(recognize("id;amount\n1;9998,54\n", "x") == .delimited(.csv))
        #expect(recognize("a|b\n1|2\n", "x") == .delimited(.csv))
        #expect(recognize("{\"a\": 1}\n{\"a\": 2}\n", "events.log") == .jsonLines)
        #expect(recognize("[{\"a\": 1}, {\"a\": 2}]", "x") == .json)
        #expect(recognize("{\n  \"rows\": []\n}\n", "x") == .json)
        // Quoted line breaks and CRLF do not confuse the delimiter count.
        #expect(recognize("id,note\r\n1,\"two\nlines\"\r\n2,\"x\"\r\n", "n") == .delimited(.csv))
        // A one-column file is a table when its name says so, else plain text.
        #expect(recognize("name\nann\nbob\n", "names.csv") == .delimited(.csv))
        guard case .notATable(let prose) = recognize("# Title\n\nSome words here.\n", "README.md") else {
            Issue.record("prose is not a table"); return
        }
        #expect(prose.kind == "text")
    }

    @Test func aBOMIsSkipped() {
        #expect(recognize([0xEF, 0xBB, 0xBF] + Array("id,name\n1,ann\n".utf8), "bom.csv") == .delimited(.csv))
        #expect(recognize([0xEF, 0xBB, 0xBF] + Array("{\"a\":1}\n".utf8), "bom.jsonl") == .jsonLines)
    }

    @Test func latin1TextIsText() {
        #expect(recognize(Array("name;city\n".utf8) + [0x4A, 0xFC, 0x72, 0x67, 0x65, 0x6E] + Array(";K\n".utf8), "x") == .delimited(.csv))
    }

    @Test func theExtensionDecidesWhenTheMagicIsMissing() {
        // A cut or damaged file: the plugin for what it claims to be names the damage.
        #expect(recognize([0x00, 0x01, 0x02, 0x03], "broken.parquet") == .parquet)
        #expect(recognize([0x00, 0x01, 0x02, 0x03], "x.feather") == .arrow)
        #expect(recognize([0x00, 0x01, 0x02, 0x03], "x.sqlite") == .sqlite)
    }

    @Test func notATableSaysWhatItLooksLike() {
        let elf: [UInt8] = [0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0x01, 0x00, 0x00]
        guard case .notATable(let what) = recognize(elf, "data.bin", size: 3_200_000) else {
            Issue.record("an ELF file is not a table"); return
        }
        #expect(what.message(name: "data.bin") == "data.bin: not a table (binary, 3.2 MB, starts 7F 45 4C 46)")
        guard case .notATable(let tiny) = recognize([0x00, 0x0A], "z") else { Issue.record("NUL is binary"); return }
        #expect(tiny.message(name: "z") == "z: not a table (binary, 2 bytes, starts 00 0A)")
        guard case .notATable(let utf16) = recognize([0xFF, 0xFE, 0x61, 0x00], "u.csv") else { Issue.record("UTF-16"); return }
        #expect(utf16.kind == "UTF-16 text")
    }

    @Test func anEmptyFileIsNotATable() {
        guard case .notATable(let empty) = recognize([], "empty.csv") else { Issue.record("empty"); return }
        #expect(empty.message(name: "empty.csv") == "empty.csv: not a table (empty file)")
    }

    @Test func sizesReadAsPeopleReadThem() {
        #expect(Recognition.sizeText(1) == "1 byte")
        #expect(Recognition.sizeText(999) == "999 bytes")
        #expect(Recognition.sizeText(1_500) == "1.5 KB")
        #expect(Recognition.sizeText(999_999) == "1.0 MB")
        #expect(Recognition.sizeText(3_200_000) == "3.2 MB")
        #expect(Recognition.sizeText(7_000_000_000) == "7.0 GB")
    }
}

@Suite struct SourceNameTests {
    @Test func aPathIsTheIdAndItsNameTheTitle() {
        #expect(SourceName.path("/home/ann/data/people.csv") == SourceName(id: "/home/ann/data/people.csv", title: "people.csv"))
        #expect(SourceName.path("/home/ann/data") == SourceName(id: "/home/ann/data", title: "data"))
        #expect(SourceName.path("/") == SourceName(id: "/", title: "/"))
    }

    @Test func aURLsPasswordGoesNowhereButThePassword() throws {
        let url = try #require(PostgresURL("postgres://ann:s%40cret@db.example:5432/shop?sslmode=require"))
        #expect(url.url == "postgresql://ann@db.example:5432/shop?sslmode=require")
        #expect(url.password == "s@cret")
        #expect(url.title == "ann@db.example/shop")
        #expect(!url.url.contains("cret") && !url.title.contains("cret"))

        let query = try #require(PostgresURL("postgresql://ann@h/db?password=pw&application_name=x"))
        #expect(query.url == "postgresql://ann@h/db?application_name=x")
        #expect(query.password == "pw")

        let bare = try #require(PostgresURL("postgresql://localhost"))
        #expect(bare.url == "postgresql://localhost" && bare.password == nil && bare.title == "localhost")
        let v6 = try #require(PostgresURL("postgresql://u@[::1]:5433/d"))
        #expect(v6.title == "u@[::1]/d")
        #expect(PostgresURL("/tmp/x.csv") == nil)
        #expect(PostgresURL("mysql://x") == nil)
    }
}
