import TabdeckProtocol

/// `open`: the root table's description is valid: a handle, unique columns of known types,
/// enum values, width hints, alignment, a total that is an integer or null.
enum OpenCheck {
    static func run(_ ctx: CheckContext) {
        ctx.check("open", needs: .ready) { (f) throws(CheckAbort) in
            let value: JSONValue
            switch try ctx.call(Method.open, ["args": ctx.options.args]) {
            case .success(let v): value = v
            case .failure(let error):
                throw CheckAbort(reason: "open answered error \(error.code): \(error.message)",
                                 notes: ["the args sent were \(JSONWriter.string(ctx.options.args)) (set them with --args JSON)"])
            }
            guard let table = Validate.table(value, capabilities: ctx.capabilities, into: &f) else {
                return "the table description is not valid"
            }
            ctx.table = table
            ctx.total = table.total
            let columns = table.columns.map { "\($0.id) \($0.type.name)\($0.sortable ? "" : " (not sortable)")" }
            let total = table.total.map { "total \($0)" } ?? "total unknown"
            return "table \(table.table): \(table.columns.count) columns (\(columns.joined(separator: ", "))), \(total)"
        }
    }
}
