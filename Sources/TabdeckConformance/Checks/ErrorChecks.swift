import TabdeckProtocol

/// `errors: …`: requests the plugin cannot serve get error responses, and the plugin keeps
/// running: an unknown method (-32601, a MUST), invalid `rows` params (-32602 or another
/// error), an unknown table (an error; -32001 is expected), an unknown sort column.
enum ErrorChecks {
    static func run(_ ctx: CheckContext) {
        ctx.check("errors: unknown method", needs: .ready) { (f) throws(CheckAbort) in
            switch try ctx.call("conformance/noSuchMethod", ["probe": true]) {
            case .failure(let error) where error.code == RPCError.methodNotFound:
                return "error -32601 (\(OrderCheck.clip(error.message, 50)))"
            case .failure(let error):
                f.fail("answered error \(error.code), expected -32601 (method not found; PROTOCOL.md 4.4)")
                return "error \(error.code)"
            case .success(let value):
                f.fail("answered a result (\(OrderCheck.clip(JSONWriter.string(value), 50))), expected error -32601 (PROTOCOL.md 4.4)")
                return "a result"
            }
        }
        guard let table = ctx.table else {
            for name in ["errors: invalid params", "errors: unknown table"] {
                ctx.check(name, needs: .rows) { _ in "" }
            }
            return
        }
        ctx.check("errors: invalid params", needs: .rows) { (f) throws(CheckAbort) in
            let params: JSONValue = ["table": .string(table.table), "offset": "zero", "limit": -5, "sort": [],
                                     "filter": nil, "generation": .int(Int64(ctx.nextGeneration()))]
            let what = "rows with offset \"zero\" and limit -5"
            return expectError(try call(ctx, params, what), usual: RPCError.invalidParams,
                               what: what, resultIsFailure: true, request: params, into: &f)
        }
        ctx.check("errors: unknown table", needs: .rows) { (f) throws(CheckAbort) in
            let request = RowsRequest(table: "conformance-no-such-table", offset: 0, limit: 10, generation: ctx.nextGeneration())
            let what = "rows of a table that was never opened"
            return expectError(try call(ctx, request.json, what), usual: RPCError.unknownTable,
                               what: what, resultIsFailure: true, request: request.json, into: &f)
        }
        if ctx.capabilities.sort {
            ctx.check("errors: unknown sort column", needs: .rows) { (f) throws(CheckAbort) in
                let request = RowsRequest(table: table.table, offset: 0, limit: 10,
                                          sort: [SortKey("conformance-no-such-column")], generation: ctx.nextGeneration())
                let what = "rows sorted by a column that does not exist"
                let answer = try call(ctx, request.json, what)
                // Rows (the sort ignored) only warn: the host never asks for them. A result that
                // is not a rows answer at all (an error object sent as a result) fails.
                if case .success(let value) = answer, let failure = notRows(value, request, table, ctx) {
                    f.fail("\(what) was answered with a result that is not a rows answer (\(failure)): "
                           + "a refusal is an error response, {\"error\": {\"code\", \"message\"}} in place of \"result\" (PROTOCOL.md 4.1, 14.1)")
                    f.notes += CheckContext.exchange(request.json, value)
                    return "a result that is not rows"
                }
                return expectError(answer, usual: RPCError.invalidParams,
                                   what: what, resultIsFailure: false, request: request.json, into: &f)
            }
        }
    }

    /// Sends a `rows` request; a timeout, an exit or a bad line aborts the check naming the request.
    static func call(_ ctx: CheckContext, _ params: JSONValue, _ what: String) throws(CheckAbort) -> Result<JSONValue, RPCError> {
        do throws(CheckAbort) {
            return try ctx.call(Method.rows, params)
        } catch {
            throw CheckAbort(reason: "\(what): \(error.reason)",
                             notes: ["request: " + OrderCheck.clip(JSONWriter.string(params), 160)] + error.notes)
        }
    }

    /// Why a `rows` result is not a valid rows answer to `request`, or nil when it is one.
    static func notRows(_ value: JSONValue, _ request: RowsRequest, _ table: TableDescription, _ ctx: CheckContext) -> String? {
        var local = Findings()
        var warnings: [String: String] = [:]
        if Validate.rowsResult(value, request: request, table: table, capabilities: ctx.capabilities,
                               into: &local, warnings: &warnings) != nil { return nil }
        return local.failures.first ?? "not a rows answer"
    }

    /// An error is what we want; another code than the usual one is a warning only when the
    /// protocol names the code; a result fails (or warns).
    static func expectError(_ answer: Result<JSONValue, RPCError>, usual: Int, what: String,
                            resultIsFailure: Bool, request: JSONValue, into f: inout Findings) -> String {
        switch answer {
        case .failure(let error) where error.code == usual:
            return "error \(error.code) (\(OrderCheck.clip(error.message, 50)))"
        case .failure(let error):
            if usual == RPCError.unknownTable {
                f.warn("\(what): error \(error.code), expected -32001 (unknown table)")
            } else {
                f.note("\(what): error \(error.code) (\(usual) is the usual)")
            }
            return "error \(error.code) (\(OrderCheck.clip(error.message, 50)))"
        case .success(let value):
            let text = "\(what) was answered with a result, expected an error (\(usual); PROTOCOL.md 14.1)"
            if resultIsFailure { f.fail(text) } else { f.warn(text) }
            f.notes += CheckContext.exchange(request, value)
            return "a result"
        }
    }
}
