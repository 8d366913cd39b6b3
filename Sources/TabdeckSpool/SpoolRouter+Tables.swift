import Foundation
import TabdeckPluginKit
import TabdeckProtocol

/// The plugin's handshake and table descriptions, as the spool notes and rewrites them.
extension SpoolRouter {
    // MARK: Handshake and tables

    func handshake(_ result: JSONValue, id: RequestID, route: TabRoute, tab: String) -> Bool {
        route.initializeID = nil
        guard let info = try? InitializeResult(result) else { return false }
        route.capabilities = info.capabilities
        guard route.spooled, case .object(var o) = result else { return false }
        var caps: JSONObject
        if case .object(let c)? = o["capabilities"] { caps = c } else { caps = [:] }
        caps["sort"] = true
        caps["multiSort"] = true
        caps["paging"] = true
        caps["filter"] = true  // the spool filters its rows (whether or not the plugin can)
        caps["where"] = true
        caps["aggregate"] = true  // the spool counts groups from its rows (PROTOCOL.md 11.12)
        caps["describe"] = true  // and describes its columns (11.13)
        caps["locate"] = false  // offsets are the spool's, which the plugin cannot know
        caps["find"] = true  // and finds in its rows (11.15)
        o["capabilities"] = .object(caps)
        deliver(tab, .response(id: id, result: .object(o)))
        return true
    }

    func describe(_ result: JSONValue, route: TabRoute) {
        guard let description = try? TableDescription(result) else { return }
        if let old = route.tables[description.table]?.schema { onWriter(route.file) { $0.drop(old) } }
        let schema = SpoolSchema(tableName: "t\(nextTableNumber)", columns: description.columns)
        nextTableNumber += 1
        route.tables[description.table] = SpooledTable(handle: description.table, schema: schema, announcedTotal: description.total,
                                                       title: description.title)
    }

    /// A table description (an `open` or `children` result) with every column in its
    /// source's own order (`order: source`) marked not sortable: the spool sorts for this
    /// plugin and cannot sort by such a column, so the core does not offer it (PROTOCOL.md
    /// 10.2). Nil when no column changes.
    static func withoutSourceSorts(_ result: JSONValue) -> JSONValue? {
        guard case .object(var o) = result, case .array(var columns)? = o["columns"] else { return nil }
        var changed = false
        for i in columns.indices {
            guard case .object(var column) = columns[i], column["order"] == .string(ColumnOrder.source.rawValue),
                  column["sortable"] != .bool(false) else { continue }
            column["sortable"] = .bool(false)
            columns[i] = .object(column)
            changed = true
        }
        guard changed else { return nil }
        o["columns"] = .array(columns)
        return .object(o)
    }
}
