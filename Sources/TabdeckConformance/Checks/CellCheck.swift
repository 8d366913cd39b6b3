import TabdeckProtocol

/// `cell`, for plugins that declare `cells` (PROTOCOL.md 10.5 `cut`, 11.10): the first cut cell
/// of the first pages is fetched whole, part by part; the parts join up (offsets echoed, no part
/// past `size`), the size is the row's `cut` size, and the value starts with the page's cut
/// part. Without a cut cell in those pages the check is skipped.
enum CellCheck {
    static let pages = 5
    static let pageSize = 200

    static func run(_ ctx: CheckContext) {
        guard ctx.capabilities.cells, ctx.capabilities.paging, ctx.table != nil else { return }
        ctx.check("cell", needs: .rows, retryOnChange: true) { (f) throws(CheckAbort) in
            guard let table = ctx.table else { throw CheckAbort(reason: "there is no table", skip: true) }
            var found: (row: Row, column: String, index: Int, size: Int)?
            for n in 0..<pages where found == nil {
                var scratch = Findings()
                let page = try ctx.page(offset: n * pageSize, limit: pageSize, into: &scratch)
                scratch.failures.forEach { f.fail($0) }
                for row in page.rows {
                    guard let (column, size) = row.cut.sorted(by: { $0.key < $1.key }).first else { continue }
                    guard let index = table.columns.firstIndex(where: { $0.id == column }) else {
                        f.fail("row \(row.id): cut names \(column), which is not a column (PROTOCOL.md 10.5)")
                        continue
                    }
                    found = (row, column, index, size)
                    break
                }
                if page.rows.count < pageSize { break }
            }
            guard let found else {
                throw CheckAbort(reason: "no cut cell in the first \(pages * pageSize) rows: nothing to fetch", skip: true)
            }
            guard case .string(let part)? = found.index < found.row.cells.count ? found.row.cells[found.index] : nil else {
                f.fail("row \(found.row.id): the cut cell \(found.column) is not text (PROTOCOL.md 10.5: only string cells are cut)")
                return "a cut cell that is not text"
            }
            if part.utf8.count > CutCell.limit {
                f.fail("row \(found.row.id): the cut part of \(found.column) is \(part.utf8.count) bytes, more than 65,536 (PROTOCOL.md 10.5)")
            }
            var whole = ""
            var bytes = 0
            var parts = 0
            while parts < 64 {
                let request = CellRequest(table: table.table, row: found.row.id, column: found.column, offset: bytes)
                let result: CellResult
                switch try ctx.call(Method.cell, request.json) {
                case .failure(let error):
                    f.fail("cell of row \(found.row.id), column \(found.column) at byte \(bytes) answered error \(error.code) (\(OrderCheck.clip(error.message, 60))), though the plugin declares cells (PROTOCOL.md 11.10)")
                    return "the whole value could not be fetched"
                case .success(let value):
                    do throws(JSONFieldError) { result = try CellResult(value) } catch {
                        f.fail("invalid cell answer: \(error.description) (PROTOCOL.md 11.10)")
                        f.notes += CheckContext.exchange(request.json, value)
                        return "an invalid cell answer"
                    }
                }
                parts += 1
                if result.offset != bytes { f.fail("cell answered offset \(result.offset) for \(bytes) (PROTOCOL.md 11.10: echoed)") }
                if result.size != found.size {
                    f.fail("cell says the value is \(result.size) bytes, the row's cut said \(found.size) (PROTOCOL.md 10.5)")
                }
                whole += result.text
                bytes += result.text.utf8.count
                if bytes >= result.size || result.text.isEmpty { break }
            }
            if !whole.hasPrefix(part) {
                f.fail("the whole value of row \(found.row.id), column \(found.column) does not start with the page's cut part (PROTOCOL.md 10.5)")
            }
            if bytes != found.size { f.fail("the parts hold \(bytes) bytes, the row's cut said \(found.size)") }
            if !f.failures.isEmpty { return "the whole value did not match the cut cell" }
            return "row \(found.row.id), column \(found.column): \(found.size) bytes in \(parts) parts, starting with the page's part"
        }
    }
}
