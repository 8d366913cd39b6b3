import TabdeckPluginKit
import TabdeckProtocol

/// Answering the core's `find` (PROTOCOL.md 11.15) from the complete spool.
extension SpoolRouter {
    /// Runs on the writer queue without the lock, once every row is in: materializes the
    /// order first when the view is sorted and unfiltered (as a deep page would), then looks
    /// through the view in the request's look order (``SpoolFile/find``). A `$/cancel` from
    /// the core stops the search.
    func answer(id: RequestID, find request: FindRequest, table: SpooledTable, route: TabRoute, tab: String) {
        let key = FindKey(tab: tab, id: id)
        let state = lock.withLock { () -> (file: SpoolFile?, order: String?)? in
            guard routes[tab] === route, route.tables[request.table] === table else { return nil }
            findsRunning.insert(key)
            return (route.file, table.orders[request.sort])
        }
        guard let state else { return }  // the plugin stopped or the table was closed meanwhile
        defer { lock.withLock { findsRunning.remove(key); findsCancelled.remove(key) } }
        beating(tab, "finding \"\(request.text)\"") { reply in
            guard let file = state.file else {
                reply(tab, .failure(id: id, error: RPCError(code: RPCError.internalError, message: "the spool of \(tab) is gone")))
                return
            }
            let keep = request.filter != nil || !request.where.isEmpty ? RowKeep(text: request.filter, where: request.where) : nil
            do {
                var order = state.order
                if order == nil, keep == nil, !request.sort.isEmpty {
                    let name = lock.withLock { () -> String in
                        nextOrderNumber += 1
                        return "\(table.schema.tableName)_o\(nextOrderNumber)"
                    }
                    try file.materialize(table.schema, request.sort, name: name)
                    lock.withLock { table.orders[request.sort] = name }
                    order = name
                }
                let found = try file.find(table.schema, request, orderTable: order, filter: keep) { [self] in
                    lock.withLock { findsCancelled.contains(key) }
                }
                let result = FindResult(generation: request.generation, offset: found?.offset, row: found.map { Self.idText($0.id) },
                                        wrapped: found?.wrapped ?? false)
                reply(tab, .response(id: id, result: result.json))
            } catch SpoolError.cancelled {
                reply(tab, .failure(id: id, error: RPCError(code: RPCError.requestCancelled, message: "cancelled")))
            } catch {
                let code = switch error as? SpoolError { case .unknownColumn?, .sourceOrder?: RPCError.invalidParams; default: RPCError.internalError }
                reply(tab, .failure(id: id, error: RPCError(code: code, message: "\(error)")))
            }
        }
    }

    /// A row id as text (the wire allows a string or an integer).
    static func idText(_ id: JSONValue) -> String {
        switch id {
        case .string(let s): s
        case .int(let n): String(n)
        default: JSONWriter.string(id)
        }
    }
}
