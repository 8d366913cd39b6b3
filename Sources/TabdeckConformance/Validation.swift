import TabdeckProtocol

/// Checks of the shapes the plugin sends, against docs/PROTOCOL.md (sections 10,
/// 11 and 12). Unknown members are always fine (section 4.4).
enum Validate {
    static let capabilityKeys = ["sort", "multiSort", "filter", "sections", "children", "actions", "live", "paging", "move", "locate", "cells",
                                 "where", "aggregate", "describe", "query", "find"]

    // MARK: initialize

    /// The `initialize` result: `protocolVersion` 1, `name`, `version`, boolean capabilities.
    static func initializeResult(_ value: JSONValue, into f: inout Findings) -> InitializeResult? {
        guard let o = value.objectValue else {
            f.fail("the result is \(value.typeDescription), expected an object")
            return nil
        }
        guard let version = o["protocolVersion"]?.intValue, case .int = o["protocolVersion"]! else {
            f.fail("protocolVersion is missing or not an integer")
            return nil
        }
        if version != Int64(ProtocolVersion.current) {
            f.fail("plugin speaks protocol \(version), host speaks \(ProtocolVersion.current)")
        }
        for key in ["name", "version"] where o[key]?.stringValue == nil {
            f.warn("\(key) is missing or not a string (section 11.1 asks for it)")
        }
        if let caps = o["capabilities"], caps != .null {
            guard let c = caps.objectValue else {
                f.fail("capabilities is \(caps.typeDescription), expected an object")
                return nil
            }
            for key in capabilityKeys {
                if let v = c[key], v.boolValue == nil { f.fail("capability \(key) is \(v.typeDescription), expected a boolean") }
            }
            let unknown = c.keys.filter { !capabilityKeys.contains($0) }
            if !unknown.isEmpty { f.note("unknown capabilities ignored: \(unknown.joined(separator: ", "))") }
        }
        guard f.failures.isEmpty else { return nil }
        return try? InitializeResult(value)
    }

    // MARK: Table description

    static let columnTypes = ["text", "integer", "decimal", "bool", "date", "enum"]

    /// A table description (`open`, `children`): handle, columns, types, enum values, widths,
    /// alignment, total, sections and actions.
    static func table(_ value: JSONValue, capabilities: PluginCapabilities, into f: inout Findings) -> TableDescription? {
        guard let o = value.objectValue else {
            f.fail("the result is \(value.typeDescription), expected a table description object")
            return nil
        }
        if o["table"]?.stringValue?.isEmpty != false { f.fail("table (the handle) is missing or not a non-empty string") }
        if let t = o["title"], t.stringValue == nil { f.fail("title is \(t.typeDescription), expected a string") }
        if let total = o["total"], total != .null {
            if case .int(let n) = total, n >= 0 {} else { f.fail("total is \(CellType.shown(total)), expected an integer ≥ 0 or null") }
        }
        guard let columns = o["columns"]?.arrayValue, !columns.isEmpty else {
            f.fail("columns is missing or empty (a table needs at least one column)")
            return nil
        }
        var ids = Set<String>()
        for (i, column) in columns.enumerated() {
            self.column(column, at: i, ids: &ids, into: &f)
        }
        if let sections = o["sections"] {
            validateList(sections, "sections", required: ["id", "title"], optional: ["footer"], into: &f)
            if !capabilities.sections { f.warn("the table has sections but the plugin does not declare the sections capability") }
        }
        if let actions = o["actions"] {
            validateList(actions, "actions", required: ["id", "title"], optional: ["hotkey", "rows"], into: &f)
            for (i, a) in (actions.arrayValue ?? []).enumerated() {
                for key in ["confirm", "multiple", "destructive"] {
                    if let v = a[key], v.boolValue == nil { f.fail("actions[\(i)].\(key) is \(v.typeDescription), expected a boolean") }
                }
            }
            if !capabilities.actions { f.warn("the table has actions but the plugin does not declare the actions capability") }
        }
        if o["movable"]?.boolValue == true && !capabilities.move {
            f.warn("the table is movable but the plugin does not declare the move capability")
        }
        guard f.failures.isEmpty else { return nil }
        do { return try TableDescription(value) } catch {
            f.fail(error.description)
            return nil
        }
    }

    static func column(_ value: JSONValue, at i: Int, ids: inout Set<String>, into f: inout Findings) {
        let at = "columns[\(i)]"
        guard let c = value.objectValue else {
            f.fail("\(at) is \(value.typeDescription), expected an object")
            return
        }
        guard let id = c["id"]?.stringValue, !id.isEmpty else {
            f.fail("\(at).id is missing or not a non-empty string")
            return
        }
        let name = "column \(id)"
        if !ids.insert(id).inserted { f.fail("\(name): the id is used twice") }
        if let t = c["title"], t.stringValue == nil { f.fail("\(name): title is \(t.typeDescription), expected a string") }
        let type = c["type"].map { $0.stringValue ?? "?" } ?? "text"
        if !columnTypes.contains(type) {
            f.fail("\(name): unknown type \(CellType.shown(c["type"]!)) (text, integer, decimal, bool, date, enum)")
        }
        if type == "enum" {
            if let values = c["values"]?.arrayValue, !values.isEmpty, values.allSatisfy({ $0.stringValue != nil }) {
                let strings = values.compactMap(\.stringValue)
                if Set(strings).count != strings.count { f.fail("\(name): enum values are not unique") }
            } else {
                f.fail("\(name): an enum needs values, a non-empty array of strings in sort order")
            }
        } else if c["values"] != nil {
            f.warn("\(name): values given for a \(type) column (only enums use them)")
        }
        if let width = c["width"], width != .null { self.width(width, name, into: &f) }
        if let align = c["align"], !["left", "right", "center"].contains(align.stringValue ?? "") {
            f.fail("\(name): align is \(CellType.shown(align)), expected \"left\", \"right\" or \"center\"")
        }
        if let sortable = c["sortable"], sortable.boolValue == nil {
            f.fail("\(name): sortable is \(sortable.typeDescription), expected a boolean")
        }
    }

    static func width(_ width: JSONValue, _ name: String, into f: inout Findings) {
        if case .int(let n) = width {
            if n < 1 { f.fail("\(name): width \(n) must be at least 1") }
            return
        }
        guard let w = width.objectValue else {
            f.fail("\(name): width is \(width.typeDescription), expected an integer or {min, ideal, max}")
            return
        }
        var bounds: [(String, Int64)] = []
        for key in ["min", "ideal", "max"] {
            guard let v = w[key], v != .null else { continue }
            guard case .int(let n) = v, n >= 0 else {
                f.fail("\(name): width.\(key) is \(CellType.shown(v)), expected an integer ≥ 0")
                continue
            }
            bounds.append((key, n))
        }
        for (a, b) in zip(bounds, bounds.dropFirst()) where a.1 > b.1 {
            f.fail("\(name): width.\(a.0) \(a.1) is larger than width.\(b.0) \(b.1)")
        }
    }

    static func validateList(_ value: JSONValue, _ name: String, required: [String], optional: [String], into f: inout Findings) {
        guard let items = value.arrayValue else {
            f.fail("\(name) is \(value.typeDescription), expected an array")
            return
        }
        var ids = Set<String>()
        for (i, item) in items.enumerated() {
            guard let o = item.objectValue else {
                f.fail("\(name)[\(i)] is \(item.typeDescription), expected an object")
                continue
            }
            for key in required where o[key]?.stringValue == nil { f.fail("\(name)[\(i)].\(key) is missing or not a string") }
            for key in optional { if let v = o[key], v.stringValue == nil { f.fail("\(name)[\(i)].\(key) is not a string") } }
            if let id = o["id"]?.stringValue, !ids.insert(id).inserted { f.fail("\(name): id \(id) is used twice") }
        }
    }

    // MARK: rows

    /// A `rows` result against its request and the table: generation and offset echoed, at
    /// most `limit` rows, ids unique, one valid cell per column.
    /// Warnings go to `warnings` under a key (one per kind of problem, or per column), so that
    /// a run reports each kind once however many pages show it.
    static func rowsResult(_ value: JSONValue, request: RowsRequest, table: TableDescription,
                           capabilities: PluginCapabilities, into f: inout Findings,
                           warnings: inout [String: String]) -> RowsResult? {
        guard let o = value.objectValue else {
            f.fail("the result is \(value.typeDescription), expected an object with rows")
            return nil
        }
        switch o["generation"] {
        case nil: f.fail("generation is missing (it must echo the request's \(request.generation))")
        case .int(let g)? where g == request.generation: break
        case let g?: f.fail("generation is \(CellType.shown(g)), it must echo the request's \(request.generation) (PROTOCOL.md 13)")
        }
        switch o["offset"] {
        case nil: warnings["offset"] = "offset is missing from rows answers (it should echo the request's offset)"
        case .int(let n)? where n == request.offset: break
        case let n?: f.fail("offset is \(CellType.shown(n)), it must echo the request's \(request.offset) (PROTOCOL.md 11.3)")
        }
        if let total = o["total"], total != .null {
            if case .int(let n) = total, n >= 0 {} else { f.fail("total is \(CellType.shown(total)), expected an integer ≥ 0 or null") }
        }
        guard let rows = o["rows"]?.arrayValue else {
            f.fail("rows is missing or not an array")
            return nil
        }
        if rows.count > request.limit { f.fail("\(rows.count) rows for a limit of \(request.limit) (PROTOCOL.md 11.3)") }
        var ids = Set<String>()
        var cellProblems: [String: (count: Int, first: String)] = [:]
        let sections = Set(table.sections.map(\.id))
        for (i, row) in rows.enumerated() {
            let position = request.offset + i
            guard let r = row.objectValue else {
                f.fail("row \(position) is \(row.typeDescription), expected an object")
                continue
            }
            var id: String?
            switch r["id"] {
            case .string(let s)?: id = s
            case .int(let n)?: id = String(n)
            case nil: f.fail("row \(position) has no id")
            case let other?: f.fail("row \(position): id is \(other.typeDescription), expected a string or an integer")
            }
            if let id, !ids.insert(id).inserted { f.fail("row \(position): id \(id) appears twice in one page") }
            if id == "" { warnings["empty id"] = "row \(position) has an empty id" }
            guard let cells = r["cells"]?.arrayValue else {
                f.fail("row \(position) (id \(id ?? "?")): cells is missing or not an array")
                continue
            }
            if cells.count != table.columns.count {
                f.fail("row \(position) (id \(id ?? "?")): \(cells.count) cells for \(table.columns.count) columns (PROTOCOL.md 10.3)")
            }
            for (cell, column) in zip(cells, table.columns) {
                guard let problem = CellType.problem(cell, column.type) else { continue }
                if case .array = cell { f.fail("row \(position), column \(column.id): \(problem)"); continue }
                if case .object = cell { f.fail("row \(position), column \(column.id): \(problem)"); continue }
                if let seen = cellProblems[column.id] {
                    cellProblems[column.id] = (seen.count + 1, seen.first)
                } else {
                    cellProblems[column.id] = (1, "row \(position): \(problem)")
                }
            }
            if let s = r["section"], s != .null {
                if let name = s.stringValue {
                    // A table that lists sections: the sections check judges the names (10.6).
                    if sections.isEmpty { warnings["section"] = "row \(position): section \(name) is not among the table's sections" }
                } else {
                    f.fail("row \(position): section is \(s.typeDescription), expected a string")
                }
            }
            if let d = r["detail"], d != .null, d.stringValue == nil { f.fail("row \(position): detail is \(d.typeDescription), expected a string") }
            if let h = r["hasChildren"], h != .null {
                if let b = h.boolValue {
                    if b && !capabilities.children { warnings["children"] = "row \(position) has children but the plugin does not declare the children capability" }
                } else {
                    f.fail("row \(position): hasChildren is \(h.typeDescription), expected a boolean")
                }
            }
        }
        for (column, problem) in cellProblems.sorted(by: { $0.key < $1.key }) {
            warnings["cells \(column)"] = "column \(column): cells that do not fit its type (\(problem.first)); the host shows them as text"
        }
        guard f.failures.isEmpty else { return nil }
        do { return try RowsResult(value) } catch {
            f.fail(error.description)
            return nil
        }
    }

    // MARK: Notifications

    /// What is wrong with a notification from the plugin (nil: fine). Unknown methods are
    /// reported separately.
    static func notification(_ method: String, _ params: JSONValue) -> String? {
        let p = params.objectValue
        func number(_ v: JSONValue?) -> Bool { v?.doubleValue != nil }
        switch method {
        case Method.badge:
            switch p?["value"] {
            case .int?, .string?, .null?: return nil
            default: return "badge: value must be an integer, a string or null"
            }
        case Method.invalidate:
            guard p?["table"]?.stringValue != nil else { return "invalidate: table must be a string" }
            if let rows = p?["rows"], !(rows.arrayValue?.allSatisfy({ $0.stringValue != nil || $0.intValue != nil }) ?? false) {
                return "invalidate: rows must be an array of row ids"
            }
            if let total = p?["total"], total != .null, total.intValue == nil { return "invalidate: total must be an integer or null" }
            if let sections = p?["sections"], sections != .null,
               !(sections.arrayValue?.allSatisfy({ $0["id"]?.stringValue != nil && ($0["count"].map { $0 == .null || ($0.intValue ?? -1) >= 0 } ?? true) }) ?? false) {
                return "invalidate: sections must be an array of sections, each with a string id and a count ≥ 0 if any"
            }
            return nil
        case Method.progress:
            guard number(p?["done"]) else { return "progress: done must be a number" }
            if let total = p?["total"], total != .null, !number(total) { return "progress: total must be a number or null" }
            if let m = p?["message"], m != .null, m.stringValue == nil { return "progress: message must be a string" }
            return nil
        case Method.status:
            return p?["text"]?.stringValue == nil ? "status: text must be a string" : nil
        case Method.log:
            guard ["debug", "info", "warning", "error"].contains(p?["level"]?.stringValue ?? "") else {
                return "log: level must be debug, info, warning or error"
            }
            return p?["message"]?.stringValue == nil ? "log: message must be a string" : nil
        case StreamRules.chunkMethod:
            guard p?["id"]?.intValue != nil || p?["id"]?.stringValue != nil else { return "rows/chunk: id must name the rows request" }
            return p?["rows"]?.arrayValue == nil ? "rows/chunk: rows must be an array" : nil
        default:
            return nil
        }
    }

    /// The PROTOCOL.md section of each notification from the plugin.
    static let notificationSection: [String: String] = [Method.badge: "12.1", Method.invalidate: "12.2", Method.progress: "12.3",
                                                        Method.status: "12.4", Method.log: "12.5", StreamRules.chunkMethod: "11.3.1"]

    static let pluginNotifications: Set<String> = [Method.badge, Method.invalidate, Method.progress, Method.status, Method.log,
                                                   StreamRules.chunkMethod]
}
