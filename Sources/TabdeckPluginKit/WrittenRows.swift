import TabdeckProtocol

/// The answer to a `rows` request from ``TableDataSource/writtenRows(_:cancel:)``: a page whose
/// rows the data source wrote as JSON itself (`json`: each row as ``Row/write(into:)`` writes
/// it, joined by commas; `result.rows` empty), or, where it could not, the page as usual
/// (`json` nil, the rows in `result`).
public struct WrittenRows: Sendable {
    public var result: RowsResult
    public var json: [UInt8]?

    /// The most bytes of rows a written page may hold: well inside the 4 MiB line, so it is
    /// never cut short (a longer page is answered with its rows, which the kit shortens).
    public static let maxBytes = 3 << 20

    public init(result: RowsResult, json: [UInt8]?) {
        self.result = result; self.json = json
    }
}
