import TabdeckProtocol

/// `cancel`: a `rows` request cancelled right after it was sent (and a cancel for an id that
/// was never sent, and the same cancel twice) are tolerated: the cancelled request may be
/// answered, answered with -32800, or not at all, and the plugin answers the next request.
/// A plugin that pages gets a request after each of the three cancels, so a failure says which
/// cancel it followed; a streaming one (paging: false) gets one stream after all three.
enum CancelCheck {
    static func run(_ ctx: CheckContext) {
        ctx.check("cancel", needs: .rows) { (f) throws(CheckAbort) in
            guard let table = ctx.table else { throw CheckAbort(reason: "there is no table", skip: true) }
            let sortable = table.columns.first(where: \.sortable)
            let sort = ctx.capabilities.sort ? sortable.map { [SortKey($0.id, .descending)] } ?? [] : []
            let limit = max(1, min(ctx.total ?? CheckContext.readPageSize, CheckContext.readPageSize))
            let droppedBefore = ctx.session.droppedReplies
            let id = ctx.session.makeID()
            let request = RowsRequest(table: table.table, offset: 0, limit: limit, sort: sort, generation: ctx.nextGeneration())
            // A streaming plugin (paging: false) gets a stream request cancelled, then streams again.
            let streams = !ctx.capabilities.paging
            let params = streams ? ctx.streamParams(table: table.table, generation: request.generation) : request.json
            if let reason = ctx.session.post(id: id, method: Method.rows, params: params) {
                throw CheckAbort(reason: "could not send rows: \(reason)")
            }
            ctx.expectedDrops += 1
            let cancels: [(JSONValue, String)] = [
                (id.json, "$/cancel of rows request \(id), sent right after it"),
                (.int(987_654_321), "$/cancel of id 987654321, which was never sent (PROTOCOL.md 6: ignore it)"),
                (id.json, "a second $/cancel of request \(id) (PROTOCOL.md 6: ignore the second one)"),
            ]
            var next = 0
            for (step, (target, what)) in cancels.enumerated() {
                if let reason = ctx.session.send(.notification(method: Method.cancel, params: ["id": target])) {
                    throw CheckAbort(reason: "could not send $/cancel: \(reason)")
                }
                // A streaming plugin streams once, after the three cancels; a paging one answers a small page after each.
                if streams && step < cancels.count - 1 { continue }
                let after = streams ? "after the three cancels (of request \(id), of an id never sent, of request \(id) again)" : "after \(what)"
                do throws(CheckAbort) {
                    next = streams ? try ctx.stream(into: &f).ids.count : try ctx.page(offset: 0, limit: 5, into: &f).rows.count
                } catch {
                    if error.reason.contains("error \(RPCError.requestCancelled)") {
                        throw CheckAbort(reason: "\(after), the next rows request, which was not cancelled, was answered error \(RPCError.requestCancelled) (request cancelled): "
                                         + "a $/cancel stops only the request it names (PROTOCOL.md 6: cancellation never affects other requests)",
                                         notes: [error.reason] + error.notes)
                    }
                    throw CheckAbort(reason: "\(after), the next request failed: \(error.reason)", notes: error.notes)
                }
            }
            let answered = ctx.session.droppedReplies > droppedBefore
            let fate = answered ? "the cancelled rows request was answered (the host drops that answer)"
                                : "the cancelled rows request was not answered"
            return "\(fate); \(streams ? "the next request" : "the request after each cancel") got \(next) rows"
        }
    }
}
