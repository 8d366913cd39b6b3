import TabdeckProtocol

/// `children` and `close` (PROTOCOL.md 11.4, 11.5): a row with `hasChildren` opens a valid child
/// table whose pages conform like the root's (down to `maxDepth` levels), with a title for the
/// breadcrumb; `close` of a child handle makes later requests about it fail with -32001, and
/// `close` of a handle the plugin does not know is ignored.
enum ChildrenCheck {
    static let maxDepth = 2

    static func run(_ ctx: CheckContext) {
        guard ctx.capabilities.children else {
            ctx.record(CheckResult(name: "children", status: .skipped, summary: "not run: the plugin does not declare children"))
            closeUnknown(ctx)
            return
        }
        var opened: TableDescription?
        ctx.check("children", needs: .rows) { (f) throws(CheckAbort) in
            guard let root = ctx.table else { throw CheckAbort(reason: "there is no table", skip: true) }
            let first = try ctx.page(offset: 0, limit: 100, into: &f)
            guard let parent = first.rows.first(where: \.hasChildren) else {
                throw CheckAbort(reason: "not run: no row of the first 100 has hasChildren", skip: true)
            }
            var path = [root.title ?? root.table]
            let child = try open(ctx, table: root, row: parent, depth: 1, path: &path, into: &f)
            opened = child
            return !f.failures.isEmpty ? "row \(parent.id) opened table \(child.table): the child tables do not conform" : "row \(parent.id) opened table \(child.table) (\(path.joined(separator: " › "))); every level's pages conform"
        }
        guard let opened else {
            closeUnknown(ctx)
            return
        }
        ctx.check("close", needs: .rows) { (f) throws(CheckAbort) in
            try sendClose(ctx, opened.table)
            let request = RowsRequest(table: opened.table, offset: 0, limit: 10, generation: ctx.nextGeneration())
            switch try ctx.call(Method.rows, request.json) {
            case .success(let value):
                // A plugin that serves any handle (one it never gave too) breaks another rule,
                // said once by `errors: unknown table`: its answer here tells nothing about close.
                let never = RowsRequest(table: "conformance-never-opened", offset: 0, limit: 1, generation: ctx.nextGeneration())
                if case .success = try ctx.call(Method.rows, never.json) {
                    throw CheckAbort(reason: "not run: the plugin answers rows of a handle it never gave too (errors: unknown table), so a closed one cannot be told apart", skip: true)
                }
                f.fail("after close of table \(opened.table), rows of it were answered (\(OrderCheck.clip(JSONWriter.string(value), 80))); requests about a closed handle get error -32001 (PROTOCOL.md 11.5)")
            case .failure(let error) where error.code != RPCError.unknownTable:
                f.warn("after close of table \(opened.table), rows of it got error \(error.code), expected -32001 (PROTOCOL.md 11.5)")
            case .failure: break
            }
            try closeUnknownBody(ctx, into: &f)
            return !f.failures.isEmpty ? "the closed table \(opened.table) was still served" : "rows of the closed table \(opened.table) were refused; a close of an unknown handle was ignored"
        }
    }

    /// Asks for the children of `row`, checks the child table and its first pages, and goes one
    /// level deeper when a child row has children too.
    static func open(_ ctx: CheckContext, table: TableDescription, row: Row, depth: Int, path: inout [String],
                     into f: inout Findings) throws(CheckAbort) -> TableDescription {
        let params: JSONValue = ["table": .string(table.table), "row": .string(row.id)]
        let value: JSONValue
        switch try ctx.call(Method.children, params) {
        case .success(let v): value = v
        case .failure(let error):
            throw CheckAbort(reason: "children of row \(row.id) (table \(table.table)), which says hasChildren, answered error \(error.code): \(OrderCheck.clip(error.message, 80)); a row with hasChildren opens a child table (PROTOCOL.md 11.4)",
                             notes: ["request: children " + JSONWriter.string(params)])
        }
        var local = Findings()
        guard let child = Validate.table(value, capabilities: ctx.capabilities, into: &local) else {
            // The findings go with the abort (as its notes), not a second time as findings.
            throw CheckAbort(reason: "children of row \(row.id) answered an invalid table description (PROTOCOL.md 10.1, 11.4)",
                             notes: local.lines() + CheckContext.exchange(params, value))
        }
        f.merge(local)
        if child.table == table.table {
            f.fail("children of row \(row.id) answered the handle \(child.table) of its parent table: a child table has a handle of its own (PROTOCOL.md 11.4)")
        }
        if child.title == nil {
            f.warn("the child table of row \(row.id) has no title: the breadcrumb shows its handle \(child.table) (PROTOCOL.md 10.1)")
        }
        path.append(child.title ?? child.table)
        let page = try ctx.page(offset: 0, limit: 100, of: child, into: &f)
        if let total = page.total, page.totalSent, page.rows.count < min(100, total) {
            f.fail("child table \(child.table): \(page.rows.count) rows at offset 0 for a limit of 100, but its total is \(total) (PROTOCOL.md 11.3)")
        }
        var ids = Set<String>()
        for r in page.rows where !ids.insert(r.id).inserted {
            f.fail("child table \(child.table): id \(r.id) appears twice (PROTOCOL.md 10.5)")
        }
        // Past the end: at the total when it was sent, else beyond a first page that was not full
        // (a full first page with no total may well have more rows at any offset).
        let end: Int? = page.totalSent ? page.total : (page.rows.count < 100 ? page.rows.count + 1000 : nil)
        if !page.rows.isEmpty, let end {
            let past = try ctx.page(offset: end, limit: 10, of: child, into: &f)
            if !past.rows.isEmpty {
                f.fail("child table \(child.table): \(past.rows.count) rows past its end (offset \(end)); expected none (PROTOCOL.md 11.3)")
            }
        }
        if depth < maxDepth, let grandchild = page.rows.first(where: \.hasChildren) {
            let deeper = try open(ctx, table: child, row: grandchild, depth: depth + 1, path: &path, into: &f)
            try sendClose(ctx, deeper.table)
        }
        return child
    }

    static func sendClose(_ ctx: CheckContext, _ table: String) throws(CheckAbort) {
        if let reason = ctx.session.send(.notification(method: Method.close, params: ["table": .string(table)])) {
            throw CheckAbort(reason: "could not send close: \(reason)")
        }
    }

    /// `close` without children: a close of a handle the plugin never gave is ignored.
    static func closeUnknown(_ ctx: CheckContext) {
        ctx.check("close", needs: .rows) { (f) throws(CheckAbort) in
            try closeUnknownBody(ctx, into: &f)
            return "a close of an unknown handle was ignored"
        }
    }

    static func closeUnknownBody(_ ctx: CheckContext, into f: inout Findings) throws(CheckAbort) {
        try sendClose(ctx, "conformance-no-such-table")
        do throws(CheckAbort) {
            // Any answer will do (a streaming plugin refuses a plain rows request): it still answers.
            guard let table = ctx.table else { return }
            _ = try ctx.call(Method.rows, RowsRequest(table: table.table, offset: 0, limit: 1, generation: ctx.nextGeneration()).json)
        } catch {
            throw CheckAbort(reason: "after a close of a handle it never gave (conformance-no-such-table), the plugin no longer answers: \(error.reason); such a close is ignored (PROTOCOL.md 11.5)",
                             notes: error.notes.isEmpty ? ctx.stderrNotes() : error.notes)
        }
    }
}
