import TabdeckProtocol

/// Which columns a table shows at a given width, where, and how wide.
///
/// The first visible column stays in place; the others scroll horizontally. Every column starts
/// at its minimum width (the user's width, the plugin's fixed width or `min`, or a default from
/// its title); space left over first grows columns toward their `ideal`, then is shared equally
/// among columns below their `max`. When the columns do not all fit, the layout is *compact*:
/// the first column plus what fits (the first alone when no other fits at its minimum), and the
/// table shows the cursor row's other values on a detail line under it.
public struct ColumnLayout: Hashable, Sendable {
    /// One column on screen.
    public struct Placed: Hashable, Sendable {
        /// Index into the table's visible columns.
        public var column: Int
        /// Offset from the start of the column area.
        public var x: Int
        /// Cells the column takes.
        public var width: Int
    }

    /// The columns shown, left to right (the first column, then the scrolled ones).
    public var placed: [Placed]
    /// Some visible columns are not placed: the table shows the cursor row's values of those
    /// (``hidden(count:)``) on a detail line.
    public var compact: Bool
    /// The first scrolled column shown (index into the visible columns).
    public var scroll: Int
    /// Columns are cut off on the left (after the first column) or on the right.
    public var cutLeft: Bool
    /// See ``cutLeft``.
    public var cutRight: Bool

    /// The space between columns.
    public static let gap = 1

    /// A width below which a column without hints is not shrunk.
    static let defaultMinimum = 8

    /// The width bounds of a column.
    struct Bounds: Hashable {
        var min: Int
        var ideal: Int?
        var max: Int?
    }

    static func bounds(_ spec: ColumnSpec, userWidth: Int?, titleWidth: Int) -> Bounds {
        if let u = userWidth { return Bounds(min: max(1, u), ideal: max(1, u), max: max(1, u)) }
        let natural = min(defaultMinimum, max(3, titleWidth))
        switch spec.width {
        case .fixed(let n)?:
            return Bounds(min: max(1, n), ideal: max(1, n), max: max(1, n))
        case .flexible(let lo, let ideal, let hi)?:
            let low = max(1, lo ?? min(natural, ideal ?? natural, hi ?? natural))
            let high = hi.map { max(low, $0) }
            // The ideal width leaves room for the title and its sort mark, as far as `max` allows.
            let wanted = ideal.map { Swift.max($0, titleWidth) }
            return Bounds(min: low, ideal: wanted.map { Swift.min(Swift.max(low, $0), high ?? Int.max) }, max: high)
        case nil:
            return Bounds(min: natural, ideal: nil, max: nil)
        }
    }

    /// Lays out `columns` (the visible ones, in order) in `width` cells.
    ///
    /// - Parameters:
    ///   - userWidths: the user's width for each column (nil = the plugin's hint).
    ///   - titleWidths: each title's display width (with its sort mark), for columns without hints.
    ///   - scroll: the wanted first scrolled column (moved to show `cursor`).
    ///   - cursor: the column under the cursor.
    public static func make(columns: [ColumnSpec], userWidths: [Int?], titleWidths: [Int], width: Int,
                            scroll: Int, cursor: Int) -> ColumnLayout {
        let n = columns.count
        guard n > 0, width > 0 else { return ColumnLayout(placed: [], compact: false, scroll: 1, cutLeft: false, cutRight: false) }
        let b = (0..<n).map { i in
            bounds(columns[i], userWidth: i < userWidths.count ? userWidths[i] : nil, titleWidth: i < titleWidths.count ? titleWidths[i] : 3)
        }
        let firstMin = min(b[0].min, width)
        if n == 1 {
            return ColumnLayout(placed: [Placed(column: 0, x: 0, width: grow([b[0]], [firstMin], width - firstMin)[0])],
                                compact: false, scroll: 1, cutLeft: false, cutRight: false)
        }
        let narrowest = b[1...].map(\.min).min()!
        if firstMin + gap + narrowest > width {
            // The first column alone, and a cell for the `>` mark when there is room for it.
            let room = width > 1 ? width - 1 : width
            let first = grow([b[0]], [min(b[0].min, room)], room - min(b[0].min, room))[0]
            return ColumnLayout(placed: [Placed(column: 0, x: 0, width: first)], compact: true, scroll: 1, cutLeft: false, cutRight: width > 1)
        }
        let right = width - firstMin - gap  // room for scrolled columns
        /// The scrolled columns shown from `s`, within `room` cells.
        func window(_ s: Int, _ room: Int) -> [Int] {
            var shown: [Int] = []
            var used = 0
            for i in s..<n {
                let need = (shown.isEmpty ? 0 : gap) + b[i].min
                if used + need > room { break }
                shown.append(i); used += need
            }
            return shown.isEmpty ? [s] : shown  // a column too wide for the room is shown cut
        }
        func fitted(_ s: Int) -> (shown: [Int], cutRight: Bool) {
            let all = window(s, right)
            if all.last == n - 1 { return (all, false) }
            return (window(s, right - 1), true)  // keep a cell for the `>` mark
        }
        var s = min(max(1, scroll), n - 1)
        let c = min(max(0, cursor), n - 1)
        if c >= 1 && c < s { s = c }
        var (shown, cut) = fitted(s)
        while c >= 1 && !shown.contains(c) && s < c {
            s += 1
            (shown, cut) = fitted(s)
        }
        // Scroll back while columns on the left still fit (no space wasted at the end).
        while s > 1 && fitted(s - 1).shown.contains(shown.last!) && (c == 0 || fitted(s - 1).shown.contains(c)) {
            s -= 1
            (shown, cut) = fitted(s)
        }
        let indices = [0] + shown
        let room = width - (cut ? 1 : 0)
        var widths = indices.map { min(b[$0].min, room) }
        let used = widths.reduce(0, +) + gap * (indices.count - 1)
        if used > room { widths[widths.count - 1] -= used - room }
        widths = grow(indices.map { b[$0] }, widths, max(0, room - used))
        var placed: [Placed] = []
        var x = 0
        for (k, i) in indices.enumerated() {
            placed.append(Placed(column: i, x: x, width: widths[k]))
            x += widths[k] + gap
        }
        return ColumnLayout(placed: placed, compact: s > 1 || cut, scroll: s, cutLeft: s > 1, cutRight: cut)
    }

    /// The columns not placed (indices into the `count` visible columns), in order: what the
    /// compact layout's detail line shows.
    public func hidden(count: Int) -> [Int] {
        let shown = Set(placed.map(\.column))
        return (0..<count).filter { !shown.contains($0) }
    }

    /// Shares `extra` cells: first toward each column's ideal, then equally up to each max.
    static func grow(_ bounds: [Bounds], _ widths: [Int], _ extra: Int) -> [Int] {
        var w = widths
        var left = extra
        for phase in 0..<2 {
            var progressed = true
            while left > 0 && progressed {
                progressed = false
                for i in w.indices where left > 0 {
                    let limit = phase == 0 ? (bounds[i].ideal ?? 0) : (bounds[i].max ?? Int.max)
                    if w[i] < limit { w[i] += 1; left -= 1; progressed = true }
                }
            }
        }
        return w
    }
}
