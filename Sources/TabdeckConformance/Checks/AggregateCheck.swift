import Foundation
import TabdeckProtocol

/// `aggregate: …` (PROTOCOL.md 11.12), for a plugin that declares `aggregate`, against the
/// checker's own count of the rows it read (``GroupBins``):
/// - `aggregate: counts`: the groups of one column and of two, and (with `where`) under a
///   condition: every group and its count, `rows`, `largest`, `total`, the columns, the natural
///   order (count descending, then the group cells ascending), `percent` and `cumulative`; an
///   unknown column or `bins` on a text column is -32602;
/// - `aggregate: bins`: a number column (and a date column) in bins: the bin starts, their
///   counts and the `bins` member;
/// - `aggregate: paging and close`: small pages of the aggregate table join up to the whole,
///   a page past its end is empty, and after `close` its rows are refused with -32001.
enum AggregateCheck {
    static func run(_ ctx: CheckContext) {
        guard ctx.capabilities.aggregate, ctx.capabilities.paging, ctx.table != nil, ctx.skipReason(.rows) == nil else { return }
        ctx.check("aggregate: counts", needs: .rows, retryOnChange: true) { (f) throws(CheckAbort) in
            let (table, natural) = try source(ctx, into: &f)
            let groupable = groupColumns(table, natural)
            guard let first = groupable.first else {
                throw CheckAbort(reason: "not run: no enum, bool or text column with few distinct values", skip: true)
            }
            var asked: [String] = []
            var requests = [AggregateRequest(table: table.table, group: [AggregateGroup(table.columns[first].id)])]
            if groupable.count > 1 {
                requests.append(AggregateRequest(table: table.table, group: groupable.prefix(2).map { AggregateGroup(table.columns[$0].id) }))
            }
            if ctx.capabilities.where, let c = table.columns.indices.lazy.compactMap({ i -> WhereCondition? in
                let column = table.columns[i]
                guard [.integer, .decimal, .date].contains(column.type) else { return nil }
                return WhereCheck.conditions(column, natural.rows.map { i < $0.cells.count ? $0.cells[i] : .null })
                    .first { $0.op == .less }
            }).first {
                requests.append(AggregateRequest(table: table.table, where: [c], group: [AggregateGroup(table.columns[first].id)]))
            }
            for request in requests {
                let made = try aggregate(ctx, request, table: table, into: &f)
                try verify(ctx, made, request: request, table: table, natural: natural, into: &f)
                close(ctx, made.description.table)
                asked.append(text(request))
            }
            try badRequests(ctx, table: table, into: &f)
            return f.failures.isEmpty ? "counted right: \(asked.joined(separator: "; "))" : "the counts differ from the rows read"
        }
        ctx.check("aggregate: bins", needs: .rows, retryOnChange: true) { (f) throws(CheckAbort) in
            let (table, natural) = try source(ctx, into: &f)
            let bins = 5
            var asked: [String] = []
            for type in [ColumnType.integer, .decimal, .date] {
                // A column whose values a double cannot tell apart (digits past 17) is left out:
                // the checker cuts bins in doubles, an exact engine finer.
                guard let i = table.columns.indices.first(where: { i in
                    table.columns[i].type == type && distinct(natural, i, table.columns[i].type) > bins
                        && distinct(natural, i, table.columns[i].type) == distinctDoubles(natural, i, table.columns[i].type)
                }) else { continue }
                let request = AggregateRequest(table: table.table, group: [AggregateGroup(table.columns[i].id, bins: bins)])
                let made = try aggregate(ctx, request, table: table, into: &f)
                try verify(ctx, made, request: request, table: table, natural: natural, into: &f)
                close(ctx, made.description.table)
                asked.append(text(request))
            }
            guard !asked.isEmpty else {
                throw CheckAbort(reason: "not run: no integer, decimal or date column with more than \(bins) distinct values", skip: true)
            }
            return f.failures.isEmpty ? "binned right: \(asked.joined(separator: "; "))" : "the bins differ from the rule of PROTOCOL.md 11.12"
        }
        ctx.check("aggregate: paging and close", needs: .rows) { (f) throws(CheckAbort) in
            let (table, natural) = try source(ctx, into: &f)
            guard let first = groupColumns(table, natural).first ?? table.columns.indices.first else {
                throw CheckAbort(reason: "not run: no column", skip: true)
            }
            let request = AggregateRequest(table: table.table, group: [AggregateGroup(table.columns[first].id)])
            let made = try aggregate(ctx, request, table: table, into: &f)
            let whole = try readAll(ctx, made.description, into: &f)
            let size = 2
            var joined: [Row] = []
            while joined.count < whole.count && joined.count < 20 {
                let page = try ctx.page(offset: joined.count, limit: size, of: made.description, into: &f)
                if page.rows.isEmpty { break }
                joined += page.rows
            }
            let compared = Array(whole.prefix(joined.count))
            if joined.map(\.id) != compared.map(\.id) || joined.map(\.cells) != compared.map(\.cells) {
                f.fail("pages of \(size) rows of aggregate table \(made.description.table) differ from one page of 1,000 at offset \(mismatch(joined, compared)) (PROTOCOL.md 11.3, 11.12)")
            } else if joined.count < min(whole.count, 20) {
                f.fail("pages of \(size) rows of aggregate table \(made.description.table) ended after \(joined.count) rows, but it has \(whole.count) (PROTOCOL.md 11.3)")
            }
            let past = try ctx.page(offset: whole.count, limit: 10, of: made.description, into: &f)
            if !past.rows.isEmpty {
                f.fail("aggregate table \(made.description.table): \(past.rows.count) rows past its end (offset \(whole.count)); expected none (PROTOCOL.md 11.3)")
            }
            close(ctx, made.description.table)
            let after = RowsRequest(table: made.description.table, offset: 0, limit: 10, generation: ctx.nextGeneration())
            switch try ctx.call(Method.rows, after.json) {
            case .success:
                f.fail("after close of aggregate table \(made.description.table), rows of it were answered; later requests naming a closed handle get -32001 (PROTOCOL.md 11.5, 11.12)")
            case .failure(let error) where error.code != RPCError.unknownTable:
                f.warn("after close of aggregate table \(made.description.table), rows of it answered error \(error.code), expected -32001 (PROTOCOL.md 11.5)")
            case .failure:
                break
            }
            return f.failures.isEmpty ? "\(whole.count) groups paged \(size) at a time, none past the end; refused after close"
                : "aggregate table \(made.description.table) does not page or close right"
        }
    }

    /// The root table and its rows, read whole.
    static func source(_ ctx: CheckContext, into f: inout Findings) throws(CheckAbort) -> (TableDescription, TableRead) {
        guard let table = ctx.table else { throw CheckAbort(reason: "there is no table", skip: true) }
        let natural = try ctx.naturalOrder(into: &f)
        guard natural.complete else {
            throw CheckAbort(reason: "not run: the table has more than \(ctx.options.wholeTableLimit) rows", skip: true)
        }
        return (table, natural)
    }

    /// Columns good to group by: enum, bool, then text in the protocol's order, with at most
    /// 200 distinct values.
    static func groupColumns(_ table: TableDescription, _ natural: TableRead) -> [Int] {
        func rank(_ c: ColumnSpec) -> Int? {
            switch c.type {
            case .enumeration: 0
            case .bool: 1
            case .text where c.order == .protocol: 2
            default: nil
            }
        }
        return table.columns.indices.filter { rank(table.columns[$0]) != nil && distinct(natural, $0, table.columns[$0].type) <= 200 }
            .sorted { (rank(table.columns[$0])!, $0) < (rank(table.columns[$1])!, $1) }
    }

    static func distinct(_ natural: TableRead, _ i: Int, _ type: ColumnType) -> Int {
        var values: [JSONValue] = []
        for row in natural.rows where i < row.cells.count && row.cells[i] != .null {
            let cell = row.cells[i]
            if !values.contains(where: { same($0, cell, type) }) { values.append(cell) }
            if values.count > 1000 { break }
        }
        return values.count
    }

    /// How many distinct values the column has as doubles (dates: as instants), up to 1,001.
    static func distinctDoubles(_ natural: TableRead, _ i: Int, _ type: ColumnType) -> Int {
        var values = Set<Double>()
        for row in natural.rows where i < row.cells.count && row.cells[i] != .null {
            switch row.cells[i] {
            case .int(let n): values.insert(Double(n))
            case .double(let d): values.insert(d)
            case .string(let s):
                if type == .date, let t = ISODateTime(s) { values.insert(Double(t.millis)) } else if let d = Double(s) { values.insert(d) }
            default: break
            }
            if values.count > 1000 { break }
        }
        return values.count
    }

    static func text(_ request: AggregateRequest) -> String {
        var s = "group " + request.group.map { g in g.column + (g.bins.map { " in \($0) bins" } ?? "") }.joined(separator: ", ")
        if !request.where.isEmpty { s += " where " + JSONWriter.string(Where.json(request.where)) }
        return s
    }

    /// Sends `aggregate` and reads its answer as an aggregate table's description.
    static func aggregate(_ ctx: CheckContext, _ request: AggregateRequest, table: TableDescription,
                          into f: inout Findings) throws(CheckAbort) -> AggregateResult {
        let value: JSONValue
        switch try ctx.call(Method.aggregate, request.json) {
        case .success(let v): value = v
        case .failure(let error):
            throw CheckAbort(reason: "aggregate (\(text(request))) answered error \(error.code): \(OrderCheck.clip(error.message, 80)) (PROTOCOL.md 11.12)")
        }
        var local = Findings()
        let described = Validate.table(value, capabilities: ctx.capabilities, into: &local)
        let result: AggregateResult
        do { result = try AggregateResult(value) } catch {
            local.fail("\(error)")
            f.merge(local)
            throw CheckAbort(reason: "aggregate (\(text(request))) answered an invalid result (PROTOCOL.md 11.12)",
                             notes: local.lines() + CheckContext.exchange(request.json, value))
        }
        f.merge(local)
        guard described != nil else {
            throw CheckAbort(reason: "aggregate (\(text(request))) answered an invalid table description (PROTOCOL.md 10.1, 11.12)",
                             notes: CheckContext.exchange(request.json, value))
        }
        if result.description.table == table.table {
            f.fail("aggregate (\(text(request))) answered the handle \(table.table) of its source table: the groups are a new table (PROTOCOL.md 11.12)")
        }
        return result
    }

    /// Every row of an aggregate table, in its natural order.
    static func readAll(_ ctx: CheckContext, _ table: TableDescription, into f: inout Findings) throws(CheckAbort) -> [Row] {
        var rows: [Row] = []
        while true {
            let page = try ctx.page(offset: rows.count, limit: CheckContext.readPageSize, of: table, into: &f)
            rows += page.rows
            if page.rows.count < CheckContext.readPageSize || rows.count > 100_000 { return rows }
        }
    }

    /// The aggregate against the checker's own count of the rows read.
    static func verify(_ ctx: CheckContext, _ made: AggregateResult, request: AggregateRequest, table: TableDescription,
                       natural: TableRead, into f: inout Findings) throws(CheckAbort) {
        let what = "aggregate (\(text(request)))"
        let indexes = request.group.compactMap { g in table.columns.firstIndex { $0.id == g.column } }
        let specs = indexes.map { table.columns[$0] }
        // The columns: the group columns as in the table, then count, percent, cumulative.
        let ids = made.description.columns.map(\.id)
        let wanted = specs.map(\.id) + AggregateResult.countColumns.map(\.id)
        if ids != wanted {
            f.fail("\(what): the columns are \(ids.joined(separator: ", ")), expected \(wanted.joined(separator: ", ")) (PROTOCOL.md 11.12)")
            return
        }
        for (k, spec) in specs.enumerated() where made.description.columns[k].type != spec.type {
            f.fail("\(what): column \(spec.id) is \(made.description.columns[k].type.name), but \(spec.type.name) in the table (PROTOCOL.md 11.12)")
        }
        // The checker's count.
        let kept = natural.rows.filter { Where.matches($0.cells, columns: table.columns, request.where) }.map(\.cells)
        let counted = GroupBins.count(kept, indexes: indexes)
        let (expected, sizes) = GroupBins.apply(counted, columns: specs, bins: request.group.map(\.bins))
        for (column, size) in sizes where !sameSize(made.bins[column], size) {
            f.fail("\(what): bins of \(column) are \(made.bins[column].map { JSONWriter.string($0.json) } ?? "missing"), expected \(JSONWriter.string(size.json)) (PROTOCOL.md 11.12)")
        }
        for column in made.bins.keys where sizes[column] == nil {
            f.fail("\(what): says column \(column) is in bins, but it has no more distinct values than asked (PROTOCOL.md 11.12)")
        }
        if made.rows != kept.count { f.fail("\(what): rows is \(made.rows), but \(kept.count) rows are counted (PROTOCOL.md 11.12)") }
        let largest = expected.map(\.count).max() ?? 0
        if made.largest != largest { f.fail("\(what): largest is \(made.largest), but the largest group has \(largest) rows (PROTOCOL.md 11.12)") }
        let rows = try readAll(ctx, made.description, into: &f)
        if let total = made.description.total, total != rows.count {
            f.fail("\(what): total is \(total), but the table has \(rows.count) groups (PROTOCOL.md 11.12)")
        }
        // Every group, with its count.
        let k = specs.count
        var unmatched = expected
        var reported = 0
        for row in rows {
            let cells = Array(row.cells.prefix(k)) + Array(repeating: JSONValue.null, count: max(0, k - row.cells.count))
            let count = k < row.cells.count ? number(row.cells[k]) : nil
            guard let i = unmatched.firstIndex(where: { g in zip(g.cells, cells).enumerated().allSatisfy { same($1.0, $1.1, specs[$0].type) } }) else {
                if reported < 3 { f.fail("\(what): group \(JSONWriter.string(.array(cells))) (row \(row.id)) has no rows, or came twice (PROTOCOL.md 11.12)") }
                reported += 1
                continue
            }
            let group = unmatched.remove(at: i)
            if count != Double(group.count) {
                if reported < 3 { f.fail("\(what): group \(JSONWriter.string(.array(cells))) counts \(k < row.cells.count ? JSONWriter.string(row.cells[k]) : "nothing"), but \(group.count) rows are in it (PROTOCOL.md 11.12)") }
                reported += 1
            }
        }
        for g in unmatched.prefix(3) {
            f.fail("\(what): group \(JSONWriter.string(.array(g.cells))) of \(g.count) rows is missing (PROTOCOL.md 11.12)")
        }
        // The natural order, percent and cumulative.
        var running = 0.0
        for (j, row) in rows.enumerated() where row.cells.count >= k + 3 {
            let count = number(row.cells[k]) ?? 0
            running += count
            let percent = kept.isEmpty ? 0 : count * 100 / Double(kept.count)
            let cumulative = kept.isEmpty ? 0 : running * 100 / Double(kept.count)
            if let p = number(row.cells[k + 1]), abs(p - percent) > 0.01 {
                f.fail("\(what): row \(row.id): percent is \(JSONWriter.string(row.cells[k + 1])), expected \(Bins.text(percent)) (count × 100 / rows, PROTOCOL.md 11.12)")
                break
            }
            if let c = number(row.cells[k + 2]), abs(c - cumulative) > 0.01 {
                f.fail("\(what): row \(row.id): cumulative is \(JSONWriter.string(row.cells[k + 2])), expected \(Bins.text(cumulative)) (PROTOCOL.md 11.12)")
                break
            }
            if j > 0, !before(rows[j - 1], row, k: k, specs: specs) {
                f.fail("\(what): row \(row.id) (position \(j)) comes after row \(rows[j - 1].id) out of the natural order: count descending, then the group cells ascending (PROTOCOL.md 11.12)")
                break
            }
        }
    }

    /// Whether `a` may come before `b` in an aggregate's natural order.
    static func before(_ a: Row, _ b: Row, k: Int, specs: [ColumnSpec]) -> Bool {
        let x = number(a.cells[k]) ?? 0, y = number(b.cells[k]) ?? 0
        if x != y { return x > y }
        for (i, spec) in specs.enumerated() {
            let c = compare(a.cells[i], b.cells[i], spec.type)
            if c != 0 { return c < 0 }
        }
        return true
    }

    /// Cells by the protocol's order: nulls smallest (PROTOCOL.md 11.3).
    static func compare(_ a: JSONValue, _ b: JSONValue, _ type: ColumnType) -> Int {
        switch (a, b) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        default: return Where.compare(a, b, type: type) ?? 0
        }
    }

    static func same(_ a: JSONValue, _ b: JSONValue, _ type: ColumnType) -> Bool {
        if a == .null || b == .null { return a == b }
        if let c = Where.compare(a, b, type: type) { return c == 0 }
        return a == b
    }

    static func sameSize(_ a: BinSize?, _ b: BinSize) -> Bool {
        switch (a, b) {
        case (.width(let x)?, .width(let y)): return Double(x).flatMap { x in Double(y).map { abs(x - $0) <= 1e-9 * max(1, abs($0)) } } ?? false
        case (.unit(let x)?, .unit(let y)): return x == y
        default: return false
        }
    }

    static func number(_ cell: JSONValue) -> Double? {
        switch cell {
        case .int(let i): Double(i)
        case .double(let d): d
        case .string(let s): Double(s)
        default: nil
        }
    }

    static func mismatch(_ a: [Row], _ b: [Row]) -> Int {
        (0..<min(a.count, b.count)).first { a[$0].id != b[$0].id || a[$0].cells != b[$0].cells } ?? min(a.count, b.count)
    }

    static func close(_ ctx: CheckContext, _ handle: String) {
        _ = ctx.session.send(.notification(method: Method.close, params: ["table": .string(handle)]))
    }

    /// An unknown group column and `bins` on a text column are -32602.
    static func badRequests(_ ctx: CheckContext, table: TableDescription, into f: inout Findings) throws(CheckAbort) {
        var bad = [AggregateRequest(table: table.table, group: [AggregateGroup("tabdeck-check-no-such-column")])]
        if let text = table.columns.first(where: { $0.type == .text }) {
            bad.append(AggregateRequest(table: table.table, group: [AggregateGroup(text.id, bins: 3)]))
        }
        for request in bad {
            switch try ctx.call(Method.aggregate, request.json) {
            case .success(let value):
                f.fail("aggregate (\(text(request))) was answered with a result; expected error -32602 (PROTOCOL.md 11.12)")
                if case .string(let handle)? = value.objectValue?["table"] { close(ctx, handle) }
            case .failure(let error) where error.code != RPCError.invalidParams:
                f.fail("aggregate (\(text(request))) answered error \(error.code); expected -32602 (PROTOCOL.md 11.12)")
            case .failure:
                break
            }
        }
    }
}
