import TabdeckProtocol

/// A table on the stack that the host made from another one rather than the plugin's
/// `children`: a frequency view (an `aggregate` table), the rows of one of its groups (the
/// source table's own handle under more conditions), a describe view, a query's result.
public enum DerivedTable: Hashable, Sendable {
    case frequency(FrequencyFacts)
    /// The table at stack level `source` under the conditions of a group: it shares that
    /// level's handle (nothing to close, nothing to open again after a restart).
    case group(source: Int)
    case describe(DescribeFacts)
    /// The result of `sql QUERY` (asked again after a restart).
    case query(QueryRequest)
    /// A chart of binned counts (`plot X [Y]`), drawn instead of rows.
    case plot(PlotFacts)

    /// The stack level of the table this one was made from (nil for a query's result, made
    /// from no table).
    public var source: Int? {
        switch self {
        case .frequency(let f): f.source
        case .group(let source): source
        case .describe(let d): d.source
        case .plot(let p): p.source
        case .query: nil
        }
    }

    /// Whether it shares its source's handle (nothing to close).
    public var sharesHandle: Bool { if case .group = self { true } else { false } }
}

/// What a describe view knows beyond its table: the request (asked again after a restart or an
/// `invalidate`) and the stack level of the table it describes.
public struct DescribeFacts: Hashable, Sendable {
    public var request: DescribeRequest
    public var source: Int
}

extension FrequencyFacts {
    /// The bar of a row of the view drawn `width` cells wide (the screen fits it to the
    /// column; the cell holds it at ``Workspace/barWidth`` for copies and exports).
    public func bar(_ row: Row, columnCount: Int, width: Int) -> String {
        let i = columnCount - 4  // count, percent, cumulative, bar
        guard i >= 0, i < row.cells.count, let count = row.cells[i].intValue else { return "" }
        return Workspace.bar(count, largest: largest, width: width)
    }
}

/// What a frequency view knows beyond its table: the request that made it (asked again after a
/// restart), the rows counted, the largest count (the bars' scale) and how binned columns were
/// cut (the drill-down's bounds).
public struct FrequencyFacts: Hashable, Sendable {
    public var request: AggregateRequest
    /// The stack level of the table it counts.
    public var source: Int
    public var rows: Int
    public var largest: Int
    public var bins: [String: BinSize]
    /// The id of the bar column the host adds after the plugin's columns.
    public var barColumn: String
}

extension Workspace {
    /// Bins asked for numbers and dates when the command gives no `--bins`.
    static let defaultBins = 20
    /// Cells a full bar takes.
    static let barWidth = 20

    /// `freq COL [COL…] [--bins N]` (key F): the group counts of the current table under its
    /// filters, one level down.
    /// `source`: the stack level counted (default: the top; a describe view's Enter counts the
    /// table below it).
    mutating func runFreq(_ words: [String], bins: Int?, source: Int? = nil, _ a: inout ActiveCommand,
                          _ effects: inout [Effect]) throws(CommandError) -> Step {
        let tab = a.tab
        let level = source ?? (tabs[tab]!.stack.count - 1)
        let t = tabs[tab]!.stack[level]
        if let reply = a.reply {
            switch reply {
            case .error(let message): return .failed(message)
            case .result(let value):
                guard let request = a.aggregate else { return .failed("the frequency request was lost") }
                do {
                    let result = try AggregateResult(value)
                    let view = try Self.frequencyTable(result, request: request, source: level)
                    let label = "freq " + request.group.map(\.column).joined(separator: " ")
                    var level = makeTable(tab: tab, key: t.key + "/freq:" + request.group.map(\.column).joined(separator: ","),
                                          description: view.description, label: label)
                    level.derived = .frequency(view.facts)
                    tabs[tab]!.stack.append(level)
                    return .done(breadcrumbOutput(tab))
                } catch {
                    return .failed("aggregate returned a bad table: \(error)")
                }
            }
        }
        if a.awaiting != nil { return .waiting }
        guard tabs[tab]!.capabilities?.aggregate == true else {
            throw CommandError("\(tabName(tab)) cannot count groups (its plugin does not group rows)")
        }
        if let bins, bins < 1 { throw CommandError("--bins must be at least 1") }
        var group: [AggregateGroup] = []
        for word in words {
            let id = try resolveColumn(word, in: t)
            let spec = t.description.columns.first { $0.id == id }!
            let binnable = [ColumnType.integer, .decimal, .date].contains(spec.type)
            if bins != nil && !binnable { throw CommandError("column \(id) is \(spec.type.name): only numbers and dates have bins") }
            group.append(AggregateGroup(id, bins: binnable ? (bins ?? Self.defaultBins) : nil))
        }
        let request = AggregateRequest(table: t.description.table, filter: wireFilter(t, tab), where: wireWhere(t, tab), group: group)
        a.aggregate = request
        a.awaiting = self.request(tab, Method.aggregate, request.json, .children(table: t.key, row: ""), &effects)
        return .waiting
    }

    /// The description of a frequency view: the plugin's, with the bar column after its own
    /// (host-drawn: not sortable, not sent to the plugin).
    static func frequencyTable(_ result: AggregateResult, request: AggregateRequest, source: Int) throws(CommandError) -> (description: TableDescription, facts: FrequencyFacts) {
        var description = try result.description.checkedOrError()
        // The last three columns are the counts (their ids may differ where a group column took one).
        let n = description.columns.count
        guard n >= request.group.count + 3 else {
            throw CommandError("it has \(n) columns, fewer than its \(request.group.count) group column(s) and the 3 counts")
        }
        for i in (n - 2)..<n where description.columns[i].decimals == nil { description.columns[i].decimals = 1 }
        // Room for 100.0 and the titles; the bar takes what is left.
        if description.columns[n - 2].width == nil { description.columns[n - 2].width = .fixed(5) }
        if description.columns[n - 1].width == nil { description.columns[n - 1].width = .fixed(12) }
        var bar = "bar"
        while description.columns.contains(where: { $0.id == bar }) { bar += "_" }
        description.columns.append(ColumnSpec(id: bar, title: "", type: .text, width: .flexible(min: 4, ideal: barWidth, max: 40),
                                              sortable: false))
        let facts = FrequencyFacts(request: request, source: source, rows: result.rows, largest: result.largest, bins: result.bins,
                                   barColumn: bar)
        return (description, facts)
    }

    /// Rows of a frequency view with their bar cell: the count against the largest, in eighths
    /// of a cell (`█▉▊▋▌▍▎▏`).
    static func withBars(_ rows: [Row], _ facts: FrequencyFacts, columns: [ColumnSpec]) -> [Row] {
        let countIndex = columns.count - 4  // the bar, after cumulative and percent
        guard countIndex >= 0 else { return rows }
        return rows.map { row in
            var row = row
            let count = countIndex < row.cells.count ? (row.cells[countIndex].intValue ?? 0) : 0
            row.cells = Array(row.cells.prefix(columns.count - 1)) + Array(repeating: .null, count: max(0, columns.count - 1 - row.cells.count))
            row.cells.append(.string(bar(count, largest: facts.largest, width: barWidth)))
            return row
        }
    }

    /// A bar of `count` against `largest` over `width` cells, in eighths.
    public static func bar(_ count: Int64, largest: Int, width: Int) -> String {
        guard largest > 0, count > 0 else { return "" }
        let eighths = max(1, Int((Double(count) / Double(largest) * Double(width * 8)).rounded()))
        let partial = ["", "▏", "▎", "▍", "▌", "▋", "▊", "▉"]
        return String(repeating: "█", count: eighths / 8) + partial[eighths % 8]
    }

    /// Enter on a group of a frequency view: the source table (the level below) under the
    /// group's conditions, one level down.
    mutating func openGroup(_ t: TableState, _ facts: FrequencyFacts, _ tab: String, _ effects: inout [Effect]) throws(CommandError) -> Step {
        let stack = tabs[tab]!.stack
        guard stack.count >= 2 else { throw CommandError("the frequency view has no table below it") }
        let source = stack[facts.source]
        switch fetch(tab, t.view.cursor..<(t.view.cursor + 1), &effects) {
        case .waiting: return .waiting
        case .unavailable(let r): return .failed(r)
        case .ready: break
        }
        guard let row = tabs[tab]!.table!.cache.row(at: t.view.cursor) else { throw CommandError("the table is empty") }
        var conditions: WhereClause = []
        for (i, g) in facts.request.group.enumerated() {
            guard let spec = source.description.columns.first(where: { $0.id == g.column }) else { continue }
            let cell = i < row.cells.count ? row.cells[i] : .null
            conditions += Self.groupConditions(spec, cell, bin: facts.bins[g.column])
        }
        var level = source
        level.derived = .group(source: facts.source)
        level.view.where = facts.request.where + conditions
        level.view.filter = facts.request.filter
        level.view.selection = []
        level.view.cursor = 0
        level.view.scrollOffset = 0
        level.view.expanded = []
        level.outline = [:]
        level.cursorPath = []
        level.label = conditions.isEmpty ? "all" : WhereText.text(conditions)
        level.key = source.key + "/group"
        startGeneration(&level, tab, &effects)
        level.total = nil
        level.forgetSectionCounts()
        tabs[tab]!.stack.append(level)
        return .done(breadcrumbOutput(tab))
    }

    /// A table under a frequency or describe view changed (`invalidate`): the view counts
    /// again, keeping its sort and cursor (``recountReply``).
    mutating func recountDerived(_ tab: String, table: String?, _ effects: inout [Effect]) {
        let stack = tabs[tab]!.stack
        for level in stack.indices.dropFirst() {
            guard let derived = stack[level].derived, let source = derived.source, !derived.sharesHandle,
                  table == nil || stack[source].description.table == table,
                  let (method, params) = derivedRequest(derived, on: stack[source].description.table) else { continue }
            _ = request(tab, method, params, .recount(level: level, handle: stack[level].description.table), &effects)
        }
    }

    /// The request that makes a derived level, asked of the table with handle `handle`.
    func derivedRequest(_ derived: DerivedTable, on handle: String) -> (String, JSONValue)? {
        switch derived {
        case .frequency(let f):
            var r = f.request
            r.table = handle
            return (Method.aggregate, r.json)
        case .describe(let d):
            var r = d.request
            r.table = handle
            return (Method.describe, r.json)
        case .plot(let p):
            var r = p.request
            r.table = handle
            return (Method.aggregate, r.json)
        case .query(let q): return (Method.query, q.json)
        case .group: return nil
        }
    }

    /// A derived level's table made again (`describe`, `aggregate`, `query` answered anew): its
    /// description and facts, for level `level` of `tab`.
    func remade(_ tab: String, level: Int, _ value: JSONValue) throws(CommandError) -> (TableDescription, DerivedTable?) {
        let stack = tabs[tab]!.stack
        switch stack[level].derived {
        case .frequency(let facts)?:
            var request = facts.request
            request.table = stack[facts.source].description.table
            let result: AggregateResult
            do { result = try AggregateResult(value) } catch { throw CommandError("\(error)") }
            let view = try Self.frequencyTable(result, request: request, source: facts.source)
            return (view.description, .frequency(view.facts))
        case .plot(var facts)?:
            facts.request.table = stack[facts.source].description.table
            let result: AggregateResult
            do { result = try AggregateResult(value) } catch { throw CommandError("\(error)") }
            facts.rows = result.rows
            facts.bins = result.bins
            return (try result.description.checkedOrError(), .plot(facts))
        case .describe(var facts)?:
            facts.request.table = stack[facts.source].description.table
            return (try Self.describeTable(value), .describe(facts))
        default:
            let d: TableDescription
            do { d = try TableDescription(value) } catch { throw CommandError("\(error)") }
            return (try d.checkedOrError(), stack[level].derived)
        }
    }

    /// A derived view's new table: it replaces the old one (closed), with the view kept; an
    /// error leaves the old one and says why in the log.
    mutating func recountReply(_ tab: String, level: Int, handle: String, _ outcome: ReplyOutcome, _ effects: inout [Effect]) {
        guard level < tabs[tab]!.stack.count, tabs[tab]!.stack[level].description.table == handle else { return }
        switch outcome {
        case .error(let message):
            effects.append(.log(tab: tab, "tabdeck: counting \(tabs[tab]!.stack[level].label) again failed: \(message)"))
        case .result(let value):
            do {
                let (description, derived) = try remade(tab, level: level, value)
                var t = tabs[tab]!.stack[level]
                effects.append(.send(tab: tab, .notification(method: Method.close, params: ["table": .string(handle)])))
                t.description = description
                t.derived = derived
                startGeneration(&t, tab, &effects)
                t.total = description.total
                tabs[tab]!.stack[level] = t
            } catch {
                effects.append(.log(tab: tab, "tabdeck: counting \(tabs[tab]!.stack[level].label) again: \(error)"))
            }
        }
    }

    /// The conditions that keep exactly the rows of one group: its value (or null), or its bin.
    static func groupConditions(_ spec: ColumnSpec, _ cell: JSONValue, bin: BinSize?) -> WhereClause {
        if cell == .null { return [WhereCondition(spec.id, .null)] }
        switch bin {
        case .width(let width)?:
            let startText: String? = switch cell { case .string(let t): t; case .int(let i): String(i); case .double(let d): Bins.text(d); default: nil }
            guard let start = startText.flatMap(Double.init), let w = Double(width) else {
                return [WhereCondition(spec.id, .equal, [cell])]
            }
            let end = Bins.text(start + w)
            return [WhereCondition(spec.id, .greaterOrEqual, [cell]),
                    WhereCondition(spec.id, .less, [spec.type == .integer ? (Int64(end).map { .int($0) } ?? .string(end)) : .string(end)])]
        case .unit(let unit)?:
            guard case .string(let s) = cell, let millis = ISODateTime(s)?.millis else { return [WhereCondition(spec.id, .equal, [cell])] }
            let next = Bins.next(millis, unit)
            let dateOnly = !s.contains("T") && !s.contains(" ")
            return [WhereCondition(spec.id, .greaterOrEqual, [cell]),
                    WhereCondition(spec.id, .less, [.string(Bins.text(next, unit, dateOnly: dateOnly))])]
        case nil:
            return [WhereCondition(spec.id, .equal, [cell])]
        }
    }
}

extension TableDescription {
    /// ``checked()`` with its error as a command error.
    func checkedOrError() throws(CommandError) -> TableDescription {
        do { return try checked() } catch { throw CommandError("\(error)") }
    }
}
