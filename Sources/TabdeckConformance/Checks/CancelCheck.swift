import TabdeckProtocol

/// `cancel`: a `rows` request cancelled right after it was sent (and a cancel for an id that
/// was never sent, and the same cancel twice) are tolerated: the cancelled request may be
/// answered, answered with -32800, or not at all, and the plugin answers the next request.
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
            for target in [id.json, .int(987_654_321), id.json] {
                if let reason = ctx.session.send(.notification(method: Method.cancel, params: ["id": target])) {
                    throw CheckAbort(reason: "could not send $/cancel: \(reason)")
                }
            }
            let next: Int
            do throws(CheckAbort) {
                next = streams ? try ctx.stream(into: &f).ids.count : try ctx.page(offset: 0, limit: 5, into: &f).rows.count
            } catch {
                throw CheckAbort(reason: "after $/cancel, the next request failed: \(error.reason)", notes: error.notes)
            }
            let answered = ctx.session.droppedReplies > droppedBefore
            let fate = answered ? "the cancelled rows request was answered (the host drops that answer)"
                                : "the cancelled rows request was not answered"
            return "\(fate); the next request got \(next) rows"
        }
    }
}
