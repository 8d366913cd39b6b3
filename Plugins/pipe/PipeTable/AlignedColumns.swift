/// Columns aligned with spaces under a header line (`ps aux`, `df -h`, `docker ps`): where each
/// column starts, found from the header and a sample of lines, and the splitting of a line.
///
/// A column starts after the last position, between two header words, that is blank in the
/// header and in every sample line (so a right-aligned value wider than its header, as `ps`'s
/// `VSZ`, stays whole). Two header words with no such position between them are one column
/// (`CONTAINER ID` once an id crosses the space); so is a word whose whole column is blank in
/// every sample line (`df`'s `Mounted on`). The last column runs to the end of the line, so it
/// may hold spaces (`ps`'s `COMMAND`).
public struct AlignedColumns: Equatable, Sendable {
    /// Column names: the header words of each column, joined by a space.
    public let names: [String]
    /// Where each column starts, in characters; the first is 0.
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
        var seen: [String: Int] = [:]
        names = groups.map { group in
            let name = group.words.joined(separator: " ")
            seen[name, default: 0] += 1
            return seen[name]! == 1 ? name : "\(name)_\(seen[name]!)"
        }
        starts = groups.map(\.start)
    }

    /// The cells of `line`, one per column, with surrounding spaces trimmed (nil when empty).
    /// A value that crosses the start of a column (a right-aligned number grown wider than the
    /// sample's) moves that start back to where the value begins.
    public func split(_ line: String) -> [String?] {
        let chars = Array(line)
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
