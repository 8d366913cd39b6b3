/// Columns aligned with spaces under a header line (`ps aux`, `df -h`, `docker ps`): where each
/// column starts, found from the header and a sample of lines, and the splitting of a line.
///
/// Two ways, the first that fits the sample:
/// - **Words.** When every sample line has at least as many words as there are columns and each
///   word lies under its column (`ps aux`, whose values hold no spaces but the last, and which
///   lets a wide value push the rest of its line to the right), a line's words are its cells and
///   the last column takes the rest of the line. Header words past the count of words in every
///   line join the last column's name (`df`'s `Mounted on`).
/// - **Positions.** Otherwise (values with spaces, empty cells: `docker ps`) a column starts
///   after the last position, between two header words, that is blank in the header and in
///   every sample line (so a right-aligned value wider than its header stays whole). Two header
///   words with no such position between them are one column (`CONTAINER ID` once an id crosses
///   the space); so is a word whose whole column is blank in every sample line. The last column
///   runs to the end of the line, so it may hold spaces.
public struct AlignedColumns: Equatable, Sendable {
    /// Column names: the header words of each column, joined by a space.
    public let names: [String]
    /// Where each column starts, in characters; the first is 0. Empty when lines split by words.
    public let starts: [Int]

    public init(header: String, sample: [String]) {
        let head = Array(header)
        let lines = sample.map(Array.init)
        let words = Self.words(head)
        guard !words.isEmpty else {
            names = ["column 1"]
            starts = [0]
            return
        }
        if let names = Self.byWords(head: head, words: words, lines: lines) {
            self.names = Self.unique(names)
            starts = []
            return
        }
        func blank(_ p: Int) -> Bool {
            (p >= head.count || head[p] == " ") && lines.allSatisfy { p >= $0.count || $0[p] == " " || $0[p] == "\t" }
        }
        // Columns as runs of header words, with the position each starts at.
        var groups: [(words: [String], start: Int)] = [([String(head[words[0]])], 0)]
        for k in 1..<words.count {
            let gap = (words[k - 1].upperBound)..<(words[k].lowerBound)
            if let last = gap.reversed().first(where: blank) {
                groups.append(([String(head[words[k]])], last + 1))
            } else {
                groups[groups.count - 1].words.append(String(head[words[k]]))
            }
        }
        // A column with nothing under it in the sample belongs to the one before, when its
        // header word is only one space away ("Mounted on").
        var k = 1
        while k < groups.count {
            let end = k + 1 < groups.count ? groups[k + 1].start : Int.max
            let empty = lines.allSatisfy { line in
                line.count <= groups[k].start || line[groups[k].start..<min(end, line.count)].allSatisfy { $0 == " " || $0 == "\t" }
            }
            let previousEnd = words[groups[..<k].reduce(0) { $0 + $1.words.count } - 1].upperBound
            if empty && !lines.isEmpty && groups[k].start - previousEnd <= 1 {
                groups[k - 1].words += groups[k].words
                groups.remove(at: k)
            } else {
                k += 1
            }
        }
        names = Self.unique(groups.map { $0.words.joined(separator: " ") })
        starts = groups.map(\.start)
    }

    /// The column names when the sample splits by words (see the type's notes), else nil.
    private static func byWords(head: [Character], words: [Range<Int>], lines: [[Character]]) -> [String]? {
        guard !lines.isEmpty else { return nil }
        let counts = lines.map { Self.words($0).count }
        let count = min(words.count, counts.min()!)
        guard count >= 2 else { return nil }
        // Each of a line's first count-1 words lies under its column: it overlaps the stretch
        // from the end of the header word before to the start of the header word after.
        for line in lines {
            let cells = Self.words(line)
            for i in 0..<(count - 1) {
                let low = i == 0 ? 0 : words[i - 1].upperBound
                let high = words[i + 1].lowerBound
                guard cells[i].lowerBound < high, cells[i].upperBound > low else { return nil }
            }
        }
        var names = words.prefix(count - 1).map { String(head[$0]) }
        names.append(words[(count - 1)...].map { String(head[$0]) }.joined(separator: " "))
        return names
    }

    private static func unique(_ names: [String]) -> [String] {
        var seen: [String: Int] = [:]
        return names.map { name in
            seen[name, default: 0] += 1
            return seen[name]! == 1 ? name : "\(name)_\(seen[name]!)"
        }
    }

    /// The cells of `line`, one per column, with surrounding spaces trimmed (nil when empty).
    /// A value that crosses the start of a column (a right-aligned number grown wider than the
    /// sample's) moves that start back to where the value begins.
    public func split(_ line: String) -> [String?] {
        let chars = Array(line)
        if starts.isEmpty {
            let words = Self.words(chars)
            return names.indices.map { i in
                guard i < words.count else { return nil }
                if i == names.count - 1 {
                    // The rest of the line; carriage returns and spaces alone are no cell.
                    let rest = String(chars[words[i].lowerBound...]).trimmingSpaces
                    return rest.isEmpty ? nil : rest
                }
                return String(chars[words[i]])
            }
        }
        var cuts = starts.map { min($0, chars.count) }
        for i in cuts.indices.dropFirst() {
            var c = cuts[i]
            if c > 0, c < chars.count, !Self.isSpace(chars[c - 1]), !Self.isSpace(chars[c]) {
                while c > cuts[i - 1], !Self.isSpace(chars[c - 1]) { c -= 1 }
                if c > cuts[i - 1] { cuts[i] = c }
            }
        }
        return cuts.indices.map { i in
            let end = i + 1 < cuts.count ? cuts[i + 1] : chars.count
            guard cuts[i] < end else { return nil }
            let text = String(chars[cuts[i]..<end]).trimmingSpaces
            return text.isEmpty ? nil : text
        }
    }

    private static func isSpace(_ c: Character) -> Bool { c == " " || c == "\t" }

    /// The runs of non-space characters of a line.
    private static func words(_ chars: [Character]) -> [Range<Int>] {
        var result: [Range<Int>] = []
        var i = 0
        while i < chars.count {
            if isSpace(chars[i]) { i += 1; continue }
            let start = i
            while i < chars.count, !isSpace(chars[i]) { i += 1 }
            result.append(start..<i)
        }
        return result
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    var trimmingSpaces: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\r" { s = s.dropLast() }
        return String(s)
    }
}
