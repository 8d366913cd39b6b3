import Testing
@testable import CSVTable

/// Files as European and American spreadsheets export them: decimal commas, day-first and
/// month-first dates.
@Suite struct CellStyleTests {
    static let european = """
        name;amount;booked;code
        a;9998,54;31.12.2025;01/02/2025
        b;-0,5;01.02.2024;02/03/2025
        c;;15.06.2024 08:30;03/04/2025
        d;12;02.01.2024;04/05/2025
        e;1000,00;28.02.2023;05/06/2025

        """

    @Test func decimalCommasAndDayFirstDatesAreNumbersAndDatesWhenUnambiguous() throws {
        let (t, _f) = try table(Self.european)
        _ = _f
        #expect(t.columns.map(\.type) == [.text, .decimal, .date, .text])   // 01/02/2025 alone is ambiguous
        #expect(t.columns.map(\.style) == [.standard, .decimalComma, .dayFirst, .standard])
        #expect(t.values(row: 0)[1] == .decimal(9998.54))
        #expect(t.values(row: 0)[2] == .text("2025-12-31"))                 // dates go to the host as ISO 8601
        #expect(t.values(row: 2)[2] == .text("2024-06-15T08:30"))
        #expect(t.strings(row: 0)[1] == "9998,54")                           // the file's own text stays
    }

    @Test func theySortAsNumbersAndDatesNotAsText() throws {
        let (t, _f) = try table(Self.european)
        _ = _f
        // Amounts: -0,5 < 12 < 1000,00 < 9998,54, empty first ascending.
        #expect(try t.page(offset: 0, limit: 10, sort: [CSVSortKey(column: 1)]).rows == [2, 1, 3, 4, 0])
        // Dates: 28.02.2023 < 02.01.2024 < 01.02.2024 < 15.06.2024 < 31.12.2025.
        #expect(try t.page(offset: 0, limit: 10, sort: [CSVSortKey(column: 2)]).rows == [4, 3, 1, 2, 0])
        #expect(try t.page(offset: 0, limit: 10, sort: [CSVSortKey(column: 2, descending: true)]).rows == [0, 2, 1, 3, 4])
    }

    @Test func monthFirstWhenADayIsPastTwelve() throws {
        let (t, _f) = try table("d\n12/31/2025\n02/01/2024\n")
        _ = _f
        #expect(t.columns[0].type == .date && t.columns[0].style == .monthFirst)
        #expect(t.values(row: 0)[0] == .text("2025-12-31"))
        #expect(try t.page(offset: 0, limit: 10, sort: [CSVSortKey(column: 0)]).rows == [1, 0])
    }

    @Test func argsGiveATypeTheFileCannotTell() throws {
        let file = TempFile("code;n\n01/02/2025;007\n03/01/2025;8\n", name: "t.csv")
        let t = try CSVTable(path: file.path, options: .init(types: ["code": CSVTypeChoice("date-dmy")!, "n": CSVTypeChoice("integer")!]))
        #expect(t.columns.map(\.type) == [.date, .integer])
        #expect(t.values(row: 0)[0] == .text("2025-02-01"))
        #expect(t.values(row: 1)[0] == .text("2025-01-03"))
        #expect(try t.page(offset: 0, limit: 10, sort: [CSVSortKey(column: 0)]).rows == [1, 0])
        #expect(CSVTypeChoice("money") == nil)
    }

    @Test func normalizeRefusesWhatIsNotOfTheStyle() {
        func normal(_ style: CellStyle, _ text: String) -> String? {
            var out: [UInt8] = []
            let bytes = Array(text.utf8)
            return bytes.withUnsafeBufferPointer { style.normalize($0, into: &out) } ? String(decoding: out, as: UTF8.self) : nil
        }
        #expect(normal(.decimalComma, "1,5") == "1.5")
        #expect(normal(.decimalComma, "1.5") == nil)
        #expect(normal(.decimalComma, "1,5,5") == nil)
        #expect(normal(.decimalComma, ",5") == nil)
        #expect(normal(.decimalComma, "0,5") == "0.5")
        #expect(normal(.decimalComma, "01234") == nil)
        #expect(normal(.dayFirst, "31.12.2025 23:59:58") == "2025-12-31T23:59:58")
        #expect(normal(.dayFirst, "31.13.2025") == nil)
        #expect(normal(.dayFirst, "1.2.25") == nil)
        #expect(normal(.monthFirst, "2/1/2024") == "2024-02-01")
    }
}
