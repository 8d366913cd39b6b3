import TabdeckProtocol

extension Workspace {
    func columnsOutput(_ t: TableState) -> CommandOutput {
        var lines: [String] = []
        var items: [JSONValue] = []
        for (i, (spec, custom)) in t.orderedColumns.enumerated() {
            var attrs = [spec.type.name]
            if case .enumeration(let values) = spec.type { attrs[0] = "enum(\(values.map(Sanitizer.clean).joined(separator: "<")))" }
            if custom.hidden { attrs.append("hidden") }
            if let w = custom.width { attrs.append("width \(w)") }
            if !spec.sortable { attrs.append("not sortable") }
            if let k = t.view.sort.firstIndex(where: { $0.column == spec.id }) {
                attrs.append("sort #\(k + 1) \(t.view.sort[k].direction.rawValue)")
            }
            lines.append("\(i + 1). \(Sanitizer.clean(spec.id)) \"\(Sanitizer.clean(spec.title))\" — \(attrs.joined(separator: ", "))")
            items.append(["id": .string(spec.id), "title": .string(spec.title), "type": .string(spec.type.name),
                          "hidden": .bool(custom.hidden), "width": custom.width.map { .int(Int64($0)) } ?? .null,
                          "sortable": .bool(spec.sortable)])
        }
        return CommandOutput(text: lines.joined(separator: "\n"), json: .array(items))
    }

    func sortOutput(_ t: TableState) -> CommandOutput {
        CommandOutput(text: "sort: \(SortOrder.describe(t.view.sort))", json: .array(t.view.sort.map(\.json)))
    }

    /// `filter: "ada" (1,204 rows)`, or `no filter (1,000,000 rows)`; a `note` follows on
    /// its own line (and as `"note"` in JSON).
    func filterOutput(_ t: TableState, note: String? = nil) -> CommandOutput {
        let rows = t.totalText + (t.total == 1 ? " row" : " rows")
        let text = t.view.filter.map { "filter: \"\(Sanitizer.clean($0))\" (\(rows))" } ?? "no filter (\(rows))"
        var json: JSONObject = ["filter": t.view.filter.map { .string($0) } ?? .null, "total": t.totalJSON]
        t.markEstimate(&json)
        if let note { json["note"] = .string(note) }
        return CommandOutput(text: note.map { text + "\n" + $0 } ?? text, json: .object(json))
    }

    /// `where: amount >= 10 and state = done (1,204 rows)`, or `no exact filter (… rows)`.
    func whereOutput(_ t: TableState, note: String? = nil) -> CommandOutput {
        let rows = t.totalText + (t.total == 1 ? " row" : " rows")
        let text = t.view.where.isEmpty ? "no exact filter (\(rows))" : "where: \(WhereText.shown(t.view.where)) (\(rows))"
        var json: JSONObject = ["where": Where.json(t.view.where), "total": t.totalJSON]
        t.markEstimate(&json)
        if let note { json["note"] = .string(note) }
        return CommandOutput(text: note.map { text + "\n" + $0 } ?? text, json: .object(json))
    }

    mutating func positionOutput(_ tab: String, _ effects: inout [Effect]) -> CommandOutput {
        let t = tabs[tab]!.table!
        // Prefetch the new view so a following `show` is quick; not waited for.
        _ = fetch(tab, t.view.scrollOffset..<(t.view.scrollOffset + viewportRows), &effects)
        var json: JSONObject = ["row": .int(Int64(t.view.cursor + 1)), "offset": .int(Int64(t.view.scrollOffset)),
                                "total": t.totalJSON]
        t.markEstimate(&json)
        return CommandOutput(text: "row \(formatCount(t.view.cursor + 1)) of \(t.totalText)", json: .object(json))
    }

    /// `3 selected[: 1 3 12]`, or for an "all" selection `all 1,000 selected` /
    /// `998 selected (all but 2)[: except 4 7]`. JSON `{"all":false,"count":3,"ids":[…]}` or
    /// `{"all":true,"count":998,"except":[…]}` (`count` null while the row count is unknown).
    func selectionOutput(_ t: TableState, brief: Bool) -> CommandOutput {
        let ids = t.view.selection.listed.sorted(by: naturalOrder)
        let all = t.view.selection.isAll
        let count = t.view.selection.count(total: t.total)
        let head = all ? t.view.selection.summary(total: t.total) : "\(formatCount(ids.count)) selected"
        let list = ids.prefix(1000).map(Sanitizer.clean).joined(separator: " ") + (ids.count > 1000 ? " …" : "")
        let text = brief || ids.isEmpty ? head : head + (all ? ": except " : ": ") + list
        return CommandOutput(text: text, json: ["all": .bool(all), "count": count.map { .int(Int64($0)) } ?? .null,
                                                all ? "except" : "ids": .array(ids.map { .string($0) })])
    }

    func breadcrumbOutput(_ tab: String) -> CommandOutput {
        let labels = tabs[tab]!.stack.map(\.label)
        return CommandOutput(text: labels.map(Sanitizer.clean).joined(separator: " > "),
                             json: ["breadcrumb": .array(labels.map { .string($0) })])
    }

    func help(_ topic: String?) throws(CommandError) -> CommandOutput {
        let catalog = CommandParser.catalog
        if let topic {
            let matches = catalog.filter { $0.name == topic || $0.name.hasPrefix(topic + " ") }
            guard !matches.isEmpty else {
                throw CommandError("no command \"\(topic)\"", suggestion: CommandParser.suggest(topic, among: catalog.map(\.name)))
            }
            return CommandOutput(text: matches.map { "\($0.usage)\n    \($0.summary)" }.joined(separator: "\n"),
                                 json: .array(matches.map { ["usage": .string($0.usage), "summary": .string($0.summary)] }))
        }
        return CommandOutput(text: CommandParser.helpText, json: .array(catalog.map { ["usage": .string($0.usage), "summary": .string($0.summary)] }))
    }
}

extension CommandParser {
    /// `help`'s list: every command of the catalog, its usage and what it does (docs/COMMANDS.md
    /// shows the same text, checked by a test).
    public static var helpText: String {
        let width = catalog.map(\.usage.count).max() ?? 0
        return catalog.map { $0.usage.padding(to: width) + "  " + $0.summary }.joined(separator: "\n")
    }
}

extension String {
    func padding(to width: Int) -> String { count >= width ? self : self + String(repeating: " ", count: width - count) }
}
