/// What a page query selects and where each sort key's text is in its rows.
///
/// A keyset read needs the text of every sort key of a page's first and last rows. A key that
/// is a column whose cell is read as its own text (`"created"::text`) is taken from that cell;
/// only the others (`ctid`, `tableoid`, a column read another way, such as an `inet`) are
/// selected again before the cells. Converting a `timestamptz` to text is a good part of a
/// page's time on the server, so a key is never converted twice.
struct PGPageLayout: Equatable {
    /// The output expressions: the extra keys, then every column's cell.
    var select: [String]
    /// For each sort term, the position of its text in a fetched row.
    var keyPositions: [Int]
    /// Where the cells start in a fetched row.
    var cellStart: Int

    init(terms: [PGOrderTerm], columns: [PGColumn]) {
        var extra: [String] = []
        // A negative entry -1 - j: the cell of column j (placed once the extras are counted).
        var found: [Int] = []
        for t in terms {
            if let j = columns.firstIndex(where: { $0.sortExpression == t.expression && $0.valueExpression == "\(t.expression)::text" }) {
                found.append(-1 - j)
            } else {
                found.append(extra.count)
                extra.append("(\(t.expression))::text")
            }
        }
        cellStart = extra.count
        keyPositions = found.map { $0 < 0 ? extra.count + (-1 - $0) : $0 }
        select = extra + columns.map(\.valueExpression)
    }

    /// The sort-key texts of a fetched row.
    func key(_ row: [String?]) -> [String?] { keyPositions.map { row[$0] } }
}
