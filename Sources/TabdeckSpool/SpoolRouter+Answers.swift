import Foundation
import TabdeckPluginKit
import TabdeckProtocol

/// Answering the core from the spool: pages, sorted and filtered pages, the rows so far,
/// aggregates and statistics, invalidation.
extension SpoolRouter {
    /// Answers the waiting requests that can be answered now, in order.
    func answerWaiting(_ table: SpooledTable, route: TabRoute, tab: String) {
        switch table.fill {
        case .complete:
            for (id, question) in table.waitingWhole { answerLater(id: id, question, tab: tab) }
            table.waitingWhole = []
        case .failed(let message):
            for (id, _) in table.waitingWhole {
                deliver(tab, .failure(id: id, error: RPCError(code: RPCError.internalError, message: message)))
            }
            table.waitingWhole = []
        case .idle, .filling:
            break
        }
        guard !table.waiting.isEmpty else { return }
        var still: [(id: RequestID, request: RowsRequest)] = []
        for (id, request) in table.waiting {
            switch PageRoute.decide(request, pluginPages: pluginPages(table, route: route), fill: table.fill,
                                    arrived: table.arrived, soFar: viewsSoFar) {
            case .answer: answerLater(id: id, .rows(request), tab: tab)
            case .answerSoFar: answerSoFar(id: id, request: request, table: table, tab: tab)
            case .fail(let message): deliver(tab, .failure(id: id, error: RPCError(code: RPCError.internalError, message: message)))
            case .wait, .forward: still.append((id, request))
            }
        }
        table.waiting = still
    }

    /// Answers a page of the first screens from the rows received so far; a sorted or
    /// filtered one says so in the tab's status. The view is refreshed as more rows arrive
    /// (``refreshSoFar``).
    func answerSoFar(id: RequestID, request: RowsRequest, table: SpooledTable, tab: String) {
        if table.viewedSoFar == nil { table.viewedSoFar = table.arrived }
        if !request.sort.isEmpty || RowKeep(request) != nil, !table.saidSoFar {
            table.saidSoFar = true
            reportSoFar(table, tab: tab)
        }
        answerLater(id: id, .rows(request), tab: tab)
    }

    func reportSoFar(_ table: SpooledTable, tab: String) {
        deliver(tab, .notification(method: Method.status, params: [
            "text": .string("sorted and filtered: the \(table.arrived) rows received so far")]))
    }

    /// While a sorted or filtered view shows part of a stream, more rows refresh it: after
    /// every arrival while the table is small, then each time it has grown by a tenth.
    func refreshSoFar(_ table: SpooledTable, tab: String) {
        guard let shown = table.viewedSoFar, table.arrived < 10_000 || table.arrived >= shown + shown / 10 else { return }
        table.viewedSoFar = table.arrived
        if table.saidSoFar { reportSoFar(table, tab: tab) }
        deliver(tab, .notification(method: Method.invalidate, params: ["table": .string(table.handle)]))
    }

    /// Answers a core `rows` request from the spool, on the writer queue: after the rows
    /// already handed to it are stored, and off the runtime's thread, which draws the screen
    /// (the first deep page of a 1,000,000-row order builds an order table: a second or two).
    /// Called with the lock held; returns at once. The answer runs after the writer-queue
    /// block that is running now, if any (``later(_:_:)``), or in a block of its own.
    func answerLater(id: RequestID, _ question: Question, tab: String) {
        deferredAnswers.append((tab, id, question))
        work.async { [self] in runDeferredAnswers() }
    }

    /// Answers what ``answerLater(id:_:tab:)`` queued. On the writer queue, without the lock.
    func runDeferredAnswers() {
        while let next = lock.withLock({ () -> (String, RequestID, Question)? in
            deferredAnswers.isEmpty ? nil : deferredAnswers.removeFirst()
        }) {
            let (tab, id, question) = next
            // Looked up again: the plugin may have stopped or the table closed meanwhile.
            guard let (route, table) = lock.withLock({ () -> (TabRoute, SpooledTable)? in
                guard let route = routes[tab], let table = route.tables[question.table] else { return nil }
                return (route, table)
            }) else {
                switch question {
                case .rows: break
                case .aggregate, .describe, .find:
                    deliver(tab, .failure(id: id, error: RPCError(code: RPCError.unknownTable, message: "unknown table \(question.table)")))
                }
                continue
            }
            switch question {
            case .rows(let request): answer(id: id, request: request, table: table, route: route, tab: tab)
            case .aggregate(let request): answer(id: id, aggregate: request, table: table, route: route, tab: tab)
            case .describe(let request): answer(id: id, describe: request, table: table, route: route, tab: tab)
            case .find(let request): answer(id: id, find: request, table: table, route: route, tab: tab)
            }
        }
    }

    /// Runs `work` with "still working" beats (``Heartbeat``) on the tab's progress bar; the
    /// `reply` it is given ends the beats' progress before it delivers the answer, so that the
    /// core never sees a bar after it.
    func beating(_ tab: String, _ what: String, _ work: (_ reply: @escaping Deliver) -> Void) {
        let end: Message = .notification(method: Method.progress, params: ["done": 1, "total": 1])
        let heartbeat = Heartbeat(every: Self.heartbeatInterval) { [deliver] in
            deliver(tab, .notification(method: Method.progress, params: ["done": 0, "message": .string(what)]))
        }
        let reply: Deliver = { [deliver] tab, message in
            if heartbeat.stop() { deliver(tab, end) }
            deliver(tab, message)
        }
        work(reply)
        if heartbeat.stop() { deliver(tab, end) }
    }

    /// Runs on the writer queue without the lock; takes it only to read and update the
    /// table's state, so that the runtime's thread never waits for a sort.
    func answer(id: RequestID, request: RowsRequest, table: SpooledTable, route: TabRoute, tab: String) {
        let state = lock.withLock { () -> (file: SpoolFile?, fill: SpoolFill, arrived: Int, order: String?,
                                            head: (sort: [SortKey], rows: [JSONValue])?)? in
            guard routes[tab] === route, route.tables[request.table] === table else { return nil }
            return (route.file, table.fill, table.arrived, table.orders[request.sort], table.head)
        }
        guard let state else { return }  // the plugin stopped or the table was closed meanwhile
        beating(tab, "sorting rows") { reply in
            guard let file = state.file else {
                reply(tab, .failure(id: id, error: RPCError(code: RPCError.internalError, message: "the spool of \(tab) is gone")))
                return
            }
            if let filter = RowKeep(request) {
                do {
                    try Where.check(request.where, columns: table.schema.columns)
                } catch {
                    reply(tab, .failure(id: id, error: RPCError(code: RPCError.invalidParams, message: "\(error)")))
                    return
                }
                answerFiltered(id: id, request: request, filter: filter, table: table, file: file, tab: tab, reply: reply)
                return
            }
            do {
                var orderTable = state.order
                if orderTable == nil, state.fill == .complete, !request.sort.isEmpty,
                   OrderPolicy.materialize(offset: request.offset, rows: state.arrived) {
                    let name = lock.withLock { () -> String in
                        nextOrderNumber += 1
                        return "\(table.schema.tableName)_o\(nextOrderNumber)"
                    }
                    try file.materialize(table.schema, request.sort, name: name)
                    lock.withLock { table.orders[request.sort] = name }
                    orderTable = name
                }
                let rows: [JSONValue]
                if orderTable == nil, state.fill == .complete, !request.sort.isEmpty,
                   request.offset + request.limit <= Self.headRows {
                    // The first screens of a sorted order come from one top-N query, kept.
                    var head = state.head
                    if head?.sort != request.sort {
                        head = (request.sort, try file.page(table.schema, sort: request.sort, offset: 0, limit: Self.headRows))
                        lock.withLock { table.head = head }
                    }
                    let all = head!.rows
                    rows = Array(all[min(request.offset, all.count)..<min(request.offset + request.limit, all.count)])
                } else {
                    rows = try file.page(table.schema, sort: request.sort, offset: request.offset, limit: request.limit,
                                         orderTable: orderTable)
                }
                var result: JSONObject = ["generation": .int(Int64(request.generation)), "offset": .int(Int64(request.offset)),
                                          "rows": .array(rows)]
                if state.fill == .complete { result["total"] = .int(Int64(state.arrived)) }
                reply(tab, .response(id: id, result: .object(result)))
            } catch {
                let code = switch error as? SpoolError { case .unknownColumn?, .sourceOrder?: RPCError.invalidParams; default: RPCError.internalError }
                reply(tab, .failure(id: id, error: RPCError(code: code, message: "\(error)")))
            }
        }
    }

    /// A filtered page, from the complete spool (``PageRoute`` waits for every row): the rows
    /// whose cells contain the text, in the order asked for, and how many there are. Deep
    /// filtered pages go through `OFFSET` (no materialized order: a filter usually keeps few rows).
    func answerFiltered(id: RequestID, request: RowsRequest, filter: RowKeep, table: SpooledTable,
                                file: SpoolFile, tab: String, reply: Deliver) {
        do {
            let rows = try file.page(table.schema, sort: request.sort, offset: request.offset, limit: request.limit,
                                     filter: filter)
            var total = lock.withLock { table.filteredCounts[filter] }
            if total == nil {
                let counted = try file.count(table.schema, filter: filter)
                // While rows arrive the count is of the rows so far, and not kept.
                lock.withLock { if table.fill == .complete { table.filteredCounts[filter] = counted } }
                total = counted
            }
            let result: JSONObject = ["generation": .int(Int64(request.generation)), "offset": .int(Int64(request.offset)),
                                      "rows": .array(rows), "total": .int(Int64(total!))]
            reply(tab, .response(id: id, result: .object(result)))
        } catch {
            let code = switch error { case .unknownColumn, .sourceOrder: RPCError.invalidParams; default: RPCError.internalError }
            reply(tab, .failure(id: id, error: RPCError(code: code, message: error.description)))
        }
    }

    /// Answers an `aggregate` from the complete spool, on the writer queue without the lock:
    /// counts the rows the filters keep by the group columns' cells (one pass, memory for the
    /// groups only), cuts bins (``GroupBins/apply(_:columns:bins:)``), orders the groups
    /// naturally and stores them as a table of the spool's own (`spool-agg-N`, complete at once),
    /// whose pages, sorts, filters and `close` are the spool's like any other table's.
    func answer(id: RequestID, aggregate request: AggregateRequest, table: SpooledTable, route: TabRoute, tab: String) {
        let file = lock.withLock { () -> SpoolFile?? in
            guard routes[tab] === route, route.tables[request.table] === table else { return nil }
            return .some(route.file)
        }
        guard let file else { return }  // the plugin stopped meanwhile
        beating(tab, "counting rows") { reply in
            guard let file else {
                reply(tab, .failure(id: id, error: RPCError(code: RPCError.internalError, message: "the spool of \(tab) is gone")))
                return
            }
            let columns = table.schema.columns
            let indexes: [Int]
            do {
                indexes = try GroupBins.check(request, columns: columns)
                try Where.check(request.where, columns: columns)
            } catch {
                reply(tab, .failure(id: id, error: RPCError(code: RPCError.invalidParams, message: "\(error)")))
                return
            }
            let keep = request.filter != nil || !request.where.isEmpty ? RowKeep(text: request.filter, where: request.where) : nil
            let specs = indexes.map { ColumnSpec(id: columns[$0].id, title: columns[$0].title, type: columns[$0].type) }
            do {
                let counted = try file.groups(table.schema, filter: keep, indexes: indexes)
                let (groups, sizes) = GroupBins.apply(counted.groups, columns: specs, bins: request.group.map(\.bins))
                let made = GroupTable.rows(groups, groupColumns: specs)
                let (handle, schema) = lock.withLock { () -> (String, SpoolSchema) in
                    nextAggregateNumber += 1
                    let schema = SpoolSchema(tableName: "t\(nextTableNumber)", columns: specs + AggregateResult.countColumns)
                    nextTableNumber += 1
                    return ("spool-agg-\(nextAggregateNumber)", schema)
                }
                try file.create(schema)
                _ = try file.insert(made.rows, into: schema)
                try file.commit()
                let groupsTable = SpooledTable(handle: handle, schema: schema, announcedTotal: made.rows.count, own: true)
                groupsTable.fill = .complete
                groupsTable.arrived = made.rows.count
                let title = ([table.title ?? table.handle] + specs.map(\.title)).joined(separator: " › ")
                let registered = lock.withLock { () -> Bool in
                    guard routes[tab] === route else { return false }
                    route.tables[handle] = groupsTable
                    return true
                }
                guard registered else { file.drop(schema); return }
                let result = AggregateResult(
                    description: TableDescription(table: handle, title: title, columns: schema.columns, total: made.rows.count),
                    rows: made.counted, largest: made.largest, bins: sizes)
                reply(tab, .response(id: id, result: result.json))
            } catch {
                let code = switch error as? SpoolError { case .unknownColumn?: RPCError.invalidParams; default: RPCError.internalError }
                reply(tab, .failure(id: id, error: RPCError(code: code, message: "\(error)")))
            }
        }
    }

    /// Answers a `describe` from the complete spool, on the writer queue without the lock: one
    /// pass over the rows the filters keep through ``TableSummary`` (bounded memory), stored as a
    /// table of the spool's own (`spool-desc-N`, complete at once) with `estimates`.
    func answer(id: RequestID, describe request: DescribeRequest, table: SpooledTable, route: TabRoute, tab: String) {
        let file = lock.withLock { () -> SpoolFile?? in
            guard routes[tab] === route, route.tables[request.table] === table else { return nil }
            return .some(route.file)
        }
        guard let file else { return }  // the plugin stopped meanwhile
        let limits = describeLimits
        beating(tab, "describing columns") { reply in
            guard let file else {
                reply(tab, .failure(id: id, error: RPCError(code: RPCError.internalError, message: "the spool of \(tab) is gone")))
                return
            }
            let keep = request.filter != nil || !request.where.isEmpty ? RowKeep(text: request.filter, where: request.where) : nil
            do {
                try Where.check(request.where, columns: table.schema.columns)
                let summary = try file.describe(table.schema, filter: keep, limits: limits)
                let rows = summary.rows
                let (handle, schema) = lock.withLock { () -> (String, SpoolSchema) in
                    nextDescribeNumber += 1
                    let schema = SpoolSchema(tableName: "t\(nextTableNumber)", columns: DescribeRequest.columns)
                    nextTableNumber += 1
                    return ("spool-desc-\(nextDescribeNumber)", schema)
                }
                try file.create(schema)
                _ = try file.insert(rows, into: schema)
                try file.commit()
                let described = SpooledTable(handle: handle, schema: schema, announcedTotal: rows.count, own: true)
                described.fill = .complete
                described.arrived = rows.count
                let registered = lock.withLock { () -> Bool in
                    guard routes[tab] === route else { return false }
                    route.tables[handle] = described
                    return true
                }
                guard registered else { file.drop(schema); return }
                let result = DescribeResult(
                    description: TableDescription(table: handle, title: "\(table.title ?? table.handle) › describe",
                                                  columns: schema.columns, total: rows.count),
                    estimates: summary.estimates)
                reply(tab, .response(id: id, result: result.json))
            } catch let error as JSONFieldError {
                reply(tab, .failure(id: id, error: RPCError(code: RPCError.invalidParams, message: "\(error)")))
            } catch {
                reply(tab, .failure(id: id, error: RPCError(code: RPCError.internalError, message: "\(error)")))
            }
        }
    }

    func invalidate(_ params: JSONValue, route: TabRoute, tab: String) {
        guard case .object(let o) = params else { return }
        let handle: String? = if case .string(let s)? = o["table"] { s } else { nil }
        for table in route.tables.values where handle == nil || table.handle == handle {
            guard table.fill != .idle, !table.own else { continue }
            // The plugin's data changed: refill on the next request that needs the spool.
            for id in table.inflight.keys { send(tab, .notification(method: Method.cancel, params: ["id": id.json])) }
            table.inflight = [:]
            let orders = Array(table.orders.values)
            onWriter(route.file) { file in for name in orders { file.dropTable(named: name) } }
            table.orders = [:]
            table.head = nil
            table.filteredCounts = [:]
            table.fill = .idle
            table.viewedSoFar = nil
            table.saidSoFar = false
            table.arrived = 0
            if table.hasWaiting { startFilling(table, route: route, tab: tab) }
        }
    }
}
