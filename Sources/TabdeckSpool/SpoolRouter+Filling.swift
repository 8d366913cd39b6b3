import Foundation
import TabdeckPluginKit
import TabdeckProtocol

/// Filling a table's spool: the plugin's rows pulled or streamed in, progress, completion.
extension SpoolRouter {
    // MARK: Filling

    /// `announce`: report progress at once (a core request waits for the rows); a stream started
    /// with its description reports once rows arrive for a request.
    func startFilling(_ table: SpooledTable, route: TabRoute, tab: String, announce: Bool = true) {
        let file: SpoolFile
        do {
            file = try route.file ?? SpoolFile(path: spoolPath(tab: tab), owner: work)
            route.file = file
        } catch {
            fail(table, "could not create the spool: \(error)", route: route, tab: tab)
            return
        }
        let (schema, handle) = (table.schema, table.handle)
        onWriter(file) { [self] file in
            do { try file.create(schema) } catch {
                lock.withLock {
                    guard let route = routes[tab], let table = route.tables[handle], table.schema == schema else { return }
                    fail(table, "could not create the spool: \(error)", route: route, tab: tab)
                }
            }
        }
        table.fill = .filling
        table.arrived = 0
        table.reported = 0
        table.progressShown = false
        if announce { reportProgress(table, tab: tab) }
        if route.capabilities?.paging == false {
            let id = ids.allocate()
            table.inflight[id] = -1
            send(tab, .request(id: id, method: Method.rows, params: StreamMessages.streamParams(table: table.handle)))
        } else {
            table.nextPull = 0
            table.pullEnded = false
            table.early = [:]
            pull(table, tab: tab)
        }
    }

    /// Keeps `pullInflight` natural-order pages on their way until the end has been seen.
    func pull(_ table: SpooledTable, tab: String) {
        while !table.pullEnded && table.inflight.count < Self.pullInflight {
            let id = ids.allocate()
            table.inflight[id] = table.nextPull
            send(tab, .request(id: id, method: Method.rows,
                               params: StreamMessages.pageParams(table: table.handle, offset: table.nextPull, limit: Self.pullPage)))
            table.nextPull += Self.pullPage
        }
    }

    func chunk(_ params: JSONValue, route: TabRoute, tab: String) {
        guard let id = StreamMessages.requestID(params),
              let table = route.tables.values.first(where: { $0.inflight[id] == -1 }) else {
            return  // a chunk of a request no longer wanted (cancelled, table closed)
        }
        do {
            append(try StreamMessages.chunk(params).rows, to: table, route: route, tab: tab)
        } catch {
            fail(table, "\(SpoolError.badRows(tab: tab, table: table.handle, reason: "rows/chunk \(error)"))", route: route, tab: tab)
        }
    }

    func ownReply(id: RequestID, _ outcome: Result<JSONValue, RPCError>, route: TabRoute, tab: String) {
        guard let table = route.tables.values.first(where: { $0.inflight[id] != nil }),
              let offset = table.inflight.removeValue(forKey: id) else { return }
        let parsed: (rows: [Row], total: Int?)
        switch outcome {
        case .failure(let error):
            fail(table, "plugin \(tab) could not send the rows of \(table.handle): \(error.message) (code \(error.code))", route: route, tab: tab)
            return
        case .success(let result):
            do { parsed = try StreamMessages.result(result) } catch {
                fail(table, "\(SpoolError.badRows(tab: tab, table: table.handle, reason: "\(error)"))", route: route, tab: tab)
                return
            }
        }
        if offset < 0 {  // the end of a stream
            append(parsed.rows, to: table, route: route, tab: tab)
            complete(table, route: route, tab: tab)
            return
        }
        table.early[offset] = parsed.rows
        while let rows = table.early.removeValue(forKey: table.arrived) {
            if rows.count < Self.pullPage { table.pullEnded = true }
            append(rows, to: table, route: route, tab: tab)
            if table.fill != .filling { return }
            if table.pullEnded { break }
        }
        if table.pullEnded {
            // Pages asked for past the end are not needed.
            for id in table.inflight.keys { send(tab, .notification(method: Method.cancel, params: ["id": id.json])) }
            table.inflight = [:]
            table.early = [:]
            complete(table, route: route, tab: tab)
        } else {
            pull(table, tab: tab)
        }
    }

    func append(_ rows: [Row], to table: SpooledTable, route: TabRoute, tab: String) {
        guard table.fill == .filling, let file = route.file, !rows.isEmpty else { return }
        do {
            table.arrived += try file.insert(rows, into: table.schema)
        } catch {
            fail(table, "\(error)", route: route, tab: tab)
            return
        }
        // While the core waits for these rows its requests live on progress (the core's ledger
        // times out a request that hears nothing): every arrival counts then. Once a bar shows,
        // every arrival updates it (the stream may pause next); before, every `progressStep` rows.
        if table.progressShown || table.arrived - table.reported >= Self.progressStep || table.hasWaiting {
            reportProgress(table, tab: tab)
        }
        refreshSoFar(table, tab: tab)
        answerWaiting(table, route: route, tab: tab)
    }

    func complete(_ table: SpooledTable, route: TabRoute, tab: String) {
        do { try route.file?.commit() } catch { fail(table, "\(error)", route: route, tab: tab); return }
        table.fill = .complete
        table.viewedSoFar = nil
        if table.saidSoFar {
            table.saidSoFar = false
            deliver(tab, .notification(method: Method.status, params: ["text": ""]))
        }
        // The total before the final progress (see CSVSource.report).
        deliver(tab, .notification(method: Method.invalidate, params: [
            "table": .string(table.handle), "total": .int(Int64(table.arrived))]))
        deliver(tab, .notification(method: Method.progress, params: [
            "done": .int(Int64(table.arrived)), "total": .int(Int64(table.arrived)), "message": "rows received"]))
        answerWaiting(table, route: route, tab: tab)
    }

    func fail(_ table: SpooledTable, _ message: String, route: TabRoute, tab: String) {
        table.fill = .failed(message)
        for id in table.inflight.keys { send(tab, .notification(method: Method.cancel, params: ["id": id.json])) }
        table.inflight = [:]
        deliver(tab, .notification(method: Method.log, params: ["level": "error", "message": .string(message)]))
        deliver(tab, .notification(method: Method.progress, params: ["done": 1, "total": 1]))
        answerWaiting(table, route: route, tab: tab)
    }

    func reportProgress(_ table: SpooledTable, tab: String) {
        table.reported = table.arrived
        table.progressShown = true
        deliver(tab, .notification(method: Method.progress, params: [
            "done": .int(Int64(table.arrived)), "total": table.announcedTotal.map { .int(Int64($0)) } ?? .null,
            "message": "receiving rows"]))
    }
}
