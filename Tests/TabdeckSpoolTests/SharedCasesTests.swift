import Foundation
import Testing
import TabdeckProtocol
@testable import TabdeckSpool

/// The shared conformance cases (`Plugins/sdk/cases/*.json`, issue 27), whose expected answers
/// were derived from PROTOCOL.md 11.3, 10.6 and 11.15 by hand, agree with the host's own sort,
/// filter and find: the spool's, for plugins that cannot sort or filter. Every SDK's tests load
/// the same files, so the host, the SDKs and an author's plugin agree on one set of answers.
@Suite struct SharedCasesTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Plugins/sdk/cases").path

    /// One case file: its table and what it expects.
    struct Case {
        var name: String
        var description: TableDescription
        var rows: [Row]
        var json: JSONValue

        init(file: String) throws {
            let text = try String(contentsOfFile: file, encoding: .utf8)
            json = try JSONParser.parse(text)
            name = json["name"]?.stringValue ?? file
            let table: JSONValue = ["table": "root", "columns": json["columns"] ?? [],
                                    "sections": json["sections"] ?? .null]
            description = try TableDescription(table, path: "\(file): table")
            rows = try (json["rows"]?.arrayValue ?? []).enumerated().map { i, r in
                try Row(reader: JSONReader(r, path: "\(file): rows[\(i)]"))
            }
        }

        func list(_ key: String) -> [JSONValue] { json[key]?.arrayValue ?? [] }
    }

    static func cases() throws -> [Case] {
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".json") }.sorted()
        return try names.map { try Case(file: folder + "/" + $0) }
    }

    static func sort(_ value: JSONValue?, _ at: String) throws -> [SortKey] {
        try (value?.arrayValue ?? []).enumerated().map { i, k in try SortKey(reader: JSONReader(k, path: "\(at).sort[\(i)]")) }
    }

    static func ids(_ value: JSONValue?) -> [String] { (value?.arrayValue ?? []).compactMap(\.stringValue) }

    /// The spool, filled with the case's rows in their natural order.
    func spooled(_ c: Case, in folder: TempFolder) throws -> (SpoolFile, SpoolSchema) {
        let schema = SpoolSchema(tableName: "t1", columns: c.description.columns)
        let file = try SpoolFile(path: folder.path + "/" + c.name)
        try file.create(schema)
        _ = try file.insert(c.rows, into: schema)
        return (file, schema)
    }

    /// The ids of a view, with a table's sections kept together in their listed order: the
    /// spool sorts a table as one run (a spooled plugin's rows come grouped already), so the
    /// rule of 10.6 is the spool's order within each section.
    func view(_ file: SpoolFile, _ schema: SpoolSchema, _ c: Case, sort: [SortKey], filter: String?) throws -> [String] {
        let page = try file.page(schema, sort: sort, offset: 0, limit: 1 << 20, filter: filter.map { RowKeep(text: $0) })
        let rows = page.map { ($0["id"]?.stringValue ?? "?", $0["section"]?.stringValue) }
        let order = c.description.sections.map(\.id)
        guard !order.isEmpty else { return rows.map(\.0) }
        return order.flatMap { s in rows.filter { $0.1 == s }.map(\.0) } + rows.filter { r in !order.contains { $0 == r.1 } }.map(\.0)
    }

    @Test func theCaseFilesAreThere() throws {
        let names = try Self.cases().map(\.name)
        #expect(names.count >= 6, "cases found in \(Self.folder): \(names)")
        for needed in ["numbers", "text", "types", "nulls-largest", "sections", "filter-find"] {
            #expect(names.contains(needed), "missing case \(needed)")
        }
    }

    @Test func theSpoolSortsAsEveryCaseExpects() throws {
        let folder = TempFolder()
        for c in try Self.cases() {
            let (file, schema) = try spooled(c, in: folder)
            for (i, s) in c.list("sorts").enumerated() {
                let sort = try Self.sort(s["sort"], "\(c.name).sorts[\(i)]")
                #expect(try view(file, schema, c, sort: sort, filter: nil) == Self.ids(s["ids"]), "\(c.name).sorts[\(i)]: \(sort)")
            }
        }
    }

    @Test func theSpoolFiltersAsEveryCaseExpects() throws {
        let folder = TempFolder()
        for c in try Self.cases() {
            let (file, schema) = try spooled(c, in: folder)
            for (i, f) in c.list("filters").enumerated() {
                let at = "\(c.name).filters[\(i)]"
                let sort = try Self.sort(f["sort"], at)
                let kept = try view(file, schema, c, sort: sort, filter: f["filter"]?.stringValue)
                #expect(kept == Self.ids(f["ids"]), "\(at): filter \(f["filter"] ?? .null)")
                #expect(try file.count(schema, filter: RowKeep(text: f["filter"]?.stringValue)) == kept.count, "\(at): the count")
                if let counts = f["sections"]?.objectValue {
                    let sectionOf = Dictionary(uniqueKeysWithValues: c.rows.map { ($0.id, $0.section) })
                    for (section, count) in counts {
                        #expect(kept.filter { sectionOf[$0] == section }.count == Int(count.intValue ?? -1), "\(at): section \(section)")
                    }
                }
            }
        }
    }

    @Test func theSpoolFindsAsEveryCaseExpects() throws {
        let folder = TempFolder()
        for c in try Self.cases() {
            let (file, schema) = try spooled(c, in: folder)
            for (i, f) in c.list("finds").enumerated() {
                let at = "\(c.name).finds[\(i)]"
                let filter = f["filter"]?.stringValue
                let request = FindRequest(table: "root", text: f["text"]?.stringValue ?? "", from: Int(f["from"]?.intValue ?? 0),
                                          backward: f["backward"]?.boolValue ?? false, wrap: f["wrap"]?.boolValue ?? false,
                                          sort: try Self.sort(f["sort"], at), filter: filter)
                let found = try file.find(schema, request, orderTable: nil, filter: filter.map { RowKeep(text: $0) }) { false }
                let got = found.map { "\($0.offset) \($0.id.stringValue ?? "?") \($0.wrapped)" } ?? "none"
                let expected = f["offset"]?.intValue.map { "\($0) \(f["row"]?.stringValue ?? "?") \(f["wrapped"]?.boolValue ?? false)" } ?? "none"
                #expect(got == expected, "\(at): \(request.json)")
            }
        }
    }
}
