import TabdeckProtocol

/// The largest row count the host takes from a plugin (2^48, some 281 trillion rows): beyond
/// it, offsets plus page sizes could overflow.
public let maxRowCount = 1 << 48

/// A row count from a plugin that the host will not use: negative, or beyond ``maxRowCount``.
public struct BadRowCount: Error, CustomStringConvertible, Sendable {
    /// Where the count was (`total`, `sections[1].count`).
    public var field: String
    public var value: Int
    public var description: String { "\(field): \(value) is not a row count (0 to \(formatCount(maxRowCount)))" }

    /// `count` if it is a usable row count.
    static func check(_ count: Int?, _ field: String) throws(BadRowCount) {
        if let count, !(0...maxRowCount).contains(count) { throw BadRowCount(field: field, value: count) }
    }
}

extension RowsResult {
    /// The result, if its `total` is a usable row count.
    func checked() throws(BadRowCount) -> RowsResult {
        try BadRowCount.check(total, "total")
        return self
    }
}

extension TableDescription {
    /// The description, if its `total` and its sections' counts are usable row counts.
    func checked() throws(BadRowCount) -> TableDescription {
        try BadRowCount.check(total, "total")
        for (i, section) in sections.enumerated() { try BadRowCount.check(section.count, "sections[\(i)].count") }
        return self
    }
}

extension TableState {
    /// The row count as people read it: `3,000,000`, an estimate as `≈ 3,000,000`, `?` while
    /// unknown. Every place that shows the count (status line, `show`, `goto`, `filter`) uses it.
    public var totalText: String {
        guard let total else { return "?" }
        return (totalIsEstimate ? "≈ " : "") + formatCount(total)
    }

    /// The count in a command's JSON (`"total"`): null while unknown.
    var totalJSON: JSONValue { total.map { .int(Int64($0)) } ?? .null }

    /// Adds `"totalIsEstimate": true` to a command's JSON when the count is an estimate.
    func markEstimate(_ o: inout JSONObject) {
        if totalIsEstimate { o["totalIsEstimate"] = .bool(true) }
    }
}
