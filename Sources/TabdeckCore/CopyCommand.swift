import TabdeckProtocol

extension Command {
    /// What `copy` puts on the clipboard.
    public enum CopyTarget: String, Hashable, Sendable, CaseIterable {
        /// The cursor row (no header line).
        case row
        /// The selected rows, with a header line (every row of the table is read for them).
        case selection
        /// The cursor row's cell in one column.
        case cell
        /// One column of every row, with a header line.
        case column
    }

    /// The text format of `copy`.
    public enum CopyFormat: String, Hashable, Sendable, CaseIterable { case tsv, csv, json }
}

extension CommandParser {
    /// `copy row|selection|cell [COL]|column [COL] [--format tsv|csv|json]`.
    static func parseCopy(_ w: [String], bare: [String?]) throws(CommandError) -> Command {
        var words: [String] = []
        var format: Command.CopyFormat?
        var i = 0
        while i < w.count {
            if let word = bare[i], word == "--format" || word.hasPrefix("--format=") {
                let value: String
                if word == "--format" {
                    guard i + 1 < w.count else { throw usage("copy") }
                    value = w[i + 1]; i += 1
                } else { value = String(word.dropFirst("--format=".count)) }
                guard let f = Command.CopyFormat(rawValue: value) else {
                    throw CommandError("unknown copy format \"\(value)\"", suggestion: suggest(value, among: Command.CopyFormat.allCases.map(\.rawValue)))
                }
                format = f
            } else {
                words.append(w[i])
            }
            i += 1
        }
        guard let first = words.first else { throw usage("copy") }
        guard let target = Command.CopyTarget(rawValue: first) else {
            throw CommandError("unknown copy target \"\(first)\"", suggestion: suggest(first, among: Command.CopyTarget.allCases.map(\.rawValue)))
        }
        switch (target, words.count) {
        case (_, 1): return .copy(target, column: nil, format: format)
        case (.cell, 2), (.column, 2): return .copy(target, column: words[1], format: format)
        default: throw usage("copy")
        }
    }
}
