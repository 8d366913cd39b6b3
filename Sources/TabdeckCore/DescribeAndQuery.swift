import TabdeckProtocol

extension Workspace {
    /// `describe` (key I): one row per column of the current table with its statistics, under
    /// the table's filters, one level down. Enter on a row opens that column's frequency view.
    mutating func runDescribe(_ a: inout ActiveCommand, _ effects: inout [Effect]) throws(CommandError) -> Step {
        let tab = a.tab
        let level = tabs[tab]!.stack.count - 1
        let t = tabs[tab]!.stack[level]
        if let reply = a.reply {
            switch reply {
            case .error(let message): return .failed(message)
            case .result(let value):
                let description: TableDescription
                do { description = try Self.describeTable(value) } catch { return .failed("describe returned a bad table: \(error)") }
                guard let request = a.describe else { return .failed("the describe request was lost") }
                var view = makeTable(tab: tab, key: t.key + "/describe", description: description, label: "describe")
                Self.sparklineAfterType(&view.view)
                view.derived = .describe(DescribeFacts(request: request, source: level))
                tabs[tab]!.stack.append(view)
                return .done(breadcrumbOutput(tab))
            }
        }
        if a.awaiting != nil { return .waiting }
        guard tabs[tab]!.capabilities?.describe == true else {
            throw CommandError("\(tabName(tab)) cannot describe its columns (its plugin does not compute statistics)")
        }
        let request = DescribeRequest(table: t.description.table, filter: wireFilter(t, tab), where: wireWhere(t, tab))
        a.describe = request
        a.awaiting = self.request(tab, Method.describe, request.json, .children(table: t.key, row: ""), &effects)
        return .waiting
    }

    /// A describe table as shown: estimated statistics say so in their titles (`Distinct ≈`).
    static func describeTable(_ value: JSONValue) throws(CommandError) -> TableDescription {
        var description: TableDescription
        do { description = try TableDescription(value) } catch { throw CommandError("\(error)") }
        description = try description.checkedOrError()
        let estimates = Set(value["estimates"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        for i in description.columns.indices where estimates.contains(description.columns[i].id) {
            description.columns[i].title += " ≈"
        }
        for i in description.columns.indices {
            let id = description.columns[i].id
            if let width = describeWidths[id], description.columns[i].width == nil { description.columns[i].width = width }
            if id == "histogram" {
                description.columns[i].sortable = false
                description.columns[i].title = "Shape"  // eight bins in eight cells: no room for "Distribution"
            }
            if ["mean", "stddev"].contains(id), description.columns[i].decimals == nil { description.columns[i].decimals = 2 }
        }
        return description
    }

    /// Widths of the describe columns the plugin leaves to the host: the names and values
    /// flexible, the type and the 8-bin sparkline fixed.
    static let describeWidths: [String: ColumnWidth] = [
        "column": .flexible(min: 6, ideal: 12, max: 24), "type": .fixed(7), "histogram": .fixed(8),
        "count": .flexible(min: 5, ideal: 8, max: 12), "nulls": .flexible(min: 5, ideal: 6, max: 12),
        "distinct": .flexible(min: 8, ideal: 10, max: 12),
        "min": .flexible(min: 4, ideal: 10, max: 20), "max": .flexible(min: 4, ideal: 10, max: 20),
        "mean": .flexible(min: 6, ideal: 10, max: 16), "stddev": .flexible(min: 7, ideal: 10, max: 16),
        "p25": .flexible(min: 4, ideal: 8, max: 16), "median": .flexible(min: 6, ideal: 8, max: 16),
        "p75": .flexible(min: 4, ideal: 8, max: 16), "top": .flexible(min: 4, ideal: 10, max: 20),
        "topCount": .flexible(min: 5, ideal: 9, max: 12),
    ]

    /// The sparkline shown third, after the name and type (where a narrow screen still shows
    /// it), unless the view's columns were arranged by the user.
    static func sparklineAfterType(_ view: inout TableViewState) {
        guard let i = view.columns.firstIndex(where: { $0.id == "histogram" }), i > 2,
              view.columns.prefix(2).map(\.id) == ["column", "type"] else { return }
        let spark = view.columns.remove(at: i)
        view.columns.insert(spark, at: 2)
    }

    /// Rows of a describe view with their histograms drawn as sparklines.
    static func withSparklines(_ rows: [Row], columns: [ColumnSpec]) -> [Row] {
        guard let i = columns.firstIndex(where: { $0.id == "histogram" }) else { return rows }
        return rows.map { row in
            guard i < row.cells.count, case .string(let text) = row.cells[i] else { return row }
            var row = row
            row.cells[i] = .string(sparkline(text.split(separator: " ").compactMap { Int($0) }))
            return row
        }
    }

    /// Counts as a sparkline, one cell each: `▁`–`█` by the count against the largest, a space
    /// for none.
    public static func sparkline(_ counts: [Int]) -> String {
        let levels = Array("▁▂▃▄▅▆▇█")
        guard let top = counts.max(), top > 0 else { return String(repeating: " ", count: counts.count) }
        return String(counts.map { c in c <= 0 ? " " : levels[min(7, (c * 8 - 1) / top)] })
    }

    /// Enter on a row of a describe view: the frequency view of that column of the table it
    /// describes, one level down.
    mutating func openColumnFrequency(_ t: TableState, _ facts: DescribeFacts, _ a: inout ActiveCommand,
                                      _ effects: inout [Effect]) throws(CommandError) -> Step {
        let tab = a.tab
        if a.scanRowID == nil {
            switch fetch(tab, t.view.cursor..<(t.view.cursor + 1), &effects) {
            case .waiting: return .waiting
            case .unavailable(let r): return .failed(r)
            case .ready: break
            }
            guard let row = tabs[tab]!.table!.cache.row(at: t.view.cursor) else { throw CommandError("the table is empty") }
            a.scanRowID = row.id
        }
        return try runFreq([a.scanRowID!], bins: nil, source: facts.source, &a, &effects)
    }

    /// `sql QUERY`: a read-only query's result as a new table, one level down. A DuckDB tab's
    /// query also carries the other file tabs as `sources` (``QuerySources``), so it can join them.
    mutating func runQuery(_ sql: String, _ a: inout ActiveCommand, _ effects: inout [Effect]) throws(CommandError) -> Step {
        let tab = a.tab
        let t = tabs[tab]!.table!
        let query = QueryRequest(sql: sql, sources: QuerySources.sources(for: tab, in: config))
        if let reply = a.reply {
            switch reply {
            case .error(let message): return .failed(message)
            case .result(let value):
                let description: TableDescription
                do { description = try TableDescription(value).checked() } catch { return .failed("query returned a bad table: \(error)") }
                var view = makeTable(tab: tab, key: t.key + "/sql", description: description, label: "sql")
                view.view = TableViewState(columns: view.view.columns)  // a query's view starts afresh
                view.derived = .query(query)
                tabs[tab]!.stack.append(view)
                return .done(breadcrumbOutput(tab))
            }
        }
        if a.awaiting != nil { return .waiting }
        guard tabs[tab]!.capabilities?.query == true else {
            throw CommandError("\(tabName(tab)) cannot run SQL (its plugin does not take queries)")
        }
        guard !sql.trimmingWhitespace.isEmpty else {
            let names = query.sources.map(\.name)
            throw CommandError("usage: sql QUERY" + (names.isEmpty ? "" : " (other tabs' files: " + names.joined(separator: ", ") + ")"))
        }
        a.awaiting = request(tab, Method.query, query.json, .children(table: t.key, row: ""), &effects)
        return .waiting
    }

    /// `plot X [Y]`: a histogram of X, or Y against X, from the plugin's binned counts (never
    /// from the rows), one level down; the chart is the command's output and the view.
    mutating func runPlot(_ words: [String], _ a: inout ActiveCommand, _ effects: inout [Effect]) throws(CommandError) -> Step {
        let tab = a.tab
        if let facts = a.plot, case .plot? = tabs[tab]!.table?.derived {
            // Waits for every group (at most xBins × yBins), then draws.
            let t = tabs[tab]!.table!
            switch fetch(tab, 0..<max(1, t.total ?? 1), &effects) {
            case .waiting: return .waiting
            case .unavailable(let r): return .failed(r)
            case .ready: break
            }
            let rows = (0..<(t.total ?? 0)).compactMap { t.cache.row(at: $0) }
            let lines = Chart.lines(rows, facts, width: 80, height: 20)
            return .done(CommandOutput(text: lines.joined(separator: "\n"), json: ["chart": .array(lines.map { .string($0) })]))
        }
        let level = tabs[tab]!.stack.count - 1
        let t = tabs[tab]!.stack[level]
        if let reply = a.reply {
            switch reply {
            case .error(let message): return .failed(message)
            case .result(let value):
                guard var facts = a.plot else { return .failed("the plot request was lost") }
                do {
                    let result = try AggregateResult(value)
                    facts.rows = result.rows
                    facts.bins = result.bins
                    let description = try result.description.checkedOrError()
                    var view = makeTable(tab: tab, key: t.key + "/plot:" + words.joined(separator: ","), description: description,
                                         label: "plot " + words.joined(separator: " "))
                    view.derived = .plot(facts)
                    tabs[tab]!.stack.append(view)
                    a.plot = facts
                    a.reply = nil
                    return try runPlot(words, &a, &effects)
                } catch {
                    return .failed("aggregate returned a bad table: \(error)")
                }
            }
        }
        if a.awaiting != nil { return .waiting }
        guard tabs[tab]!.capabilities?.aggregate == true else {
            throw CommandError("\(tabName(tab)) cannot count groups (its plugin does not group rows), so it cannot plot")
        }
        guard (1...2).contains(words.count) else { throw CommandError("usage: plot X [Y]") }
        var columns: [ColumnSpec] = []
        for word in words {
            let id = try resolveColumn(word, in: t)
            let spec = t.description.columns.first { $0.id == id }!
            guard [ColumnType.integer, .decimal, .date].contains(spec.type) else {
                throw CommandError("column \(id) is \(spec.type.name): only numbers and dates can be plotted (freq \(id) counts its values)")
            }
            columns.append(spec)
        }
        let group = columns.enumerated().map { AggregateGroup($0.element.id, bins: $0.offset == 0 ? Chart.xBins : Chart.yBins) }
        let request = AggregateRequest(table: t.description.table, filter: wireFilter(t, tab), where: wireWhere(t, tab), group: group)
        a.plot = PlotFacts(request: request, source: level, rows: 0, bins: [:], columns: columns)
        a.awaiting = self.request(tab, Method.aggregate, request.json, .children(table: t.key, row: ""), &effects)
        return .waiting
    }
}
