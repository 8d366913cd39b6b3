import TabdeckProtocol

/// What a plot view knows beyond its table of binned counts: the request (asked again after a
/// restart or an `invalidate`), the stack level of the table it plots, and the columns' types
/// and bins (for the axes).
public struct PlotFacts: Hashable, Sendable {
    public var request: AggregateRequest
    public var source: Int
    public var rows: Int
    public var bins: [String: BinSize]
    /// The plotted columns (x, then y for a scatter plot).
    public var columns: [ColumnSpec]

    public init(request: AggregateRequest, source: Int, rows: Int, bins: [String: BinSize], columns: [ColumnSpec]) {
        self.request = request; self.source = source; self.rows = rows; self.bins = bins; self.columns = columns
    }
}

/// Charts drawn from binned counts in braille cells (2 × 4 dots a cell), with labelled axes:
/// a histogram of one column, or the density of two columns as a scatter plot. Pure: the
/// screen and line mode draw the same lines.
public enum Chart {
    /// Bins asked for on each axis.
    public static let xBins = 60
    public static let yBins = 30

    /// One group of the counts: its x (and y) bin start and count.
    public struct Point: Hashable, Sendable {
        public var x: Double
        public var y: Double?
        public var count: Int
    }

    /// The points of a plot table's rows (group cells first, then count); rows whose cells
    /// are not numbers or dates (nulls) are left out and counted in `skipped`.
    public static func points(_ rows: [Row], _ facts: PlotFacts) -> (points: [Point], skipped: Int) {
        var points: [Point] = []
        var skipped = 0
        let n = facts.columns.count
        for row in rows where row.cells.count > n {
            guard let x = value(row.cells[0], facts.columns[0].type), let count = row.cells[n].intValue else {
                skipped += row.cells[n].intValue.map(Int.init) ?? 0
                continue
            }
            var y: Double?
            if n > 1 {
                guard let v = value(row.cells[1], facts.columns[1].type) else { skipped += Int(count); continue }
                y = v
            }
            points.append(Point(x: x, y: y, count: Int(count)))
        }
        return (points, skipped)
    }

    /// A cell as a number on its axis: numbers as themselves, dates as milliseconds.
    static func value(_ cell: JSONValue, _ type: ColumnType) -> Double? {
        switch cell {
        case .int(let i): return Double(i)
        case .double(let d): return d
        case .string(let s):
            if type == .date { return ISODateTime(s).map { Double($0.millis) } }
            return ExactNumber(s, type: type) != nil ? Double(s) : nil
        default: return nil
        }
    }

    /// The width of a bin on an axis (0: values, not bins).
    static func step(_ column: ColumnSpec, _ facts: PlotFacts, at value: Double) -> Double {
        switch facts.bins[column.id] {
        case .width(let w)?: return Double(w) ?? 0
        case .unit(let u)?: return Double(Bins.next(Int64(value), u)) - value
        case nil: return 0
        }
    }

    /// A value's label on an axis.
    static func label(_ v: Double, _ column: ColumnSpec) -> String {
        if column.type == .date { return Bins.text(Int64(v), .day, dateOnly: true) }
        if abs(v) >= 1e15 || (v != v.rounded() && abs(v) < 1e-6) { return "\(v)" }
        return Bins.text((v * 1e6).rounded() / 1e6)
    }

    /// The chart's lines, `width` × `height` cells in all (title, plot, axis and labels).
    public static func lines(_ rows: [Row], _ facts: PlotFacts, width: Int, height: Int) -> [String] {
        let (points, skipped) = points(rows, facts)
        let x = facts.columns[0]
        let title = facts.columns.count == 1
            ? "histogram of \(x.title): \(formatCount(facts.rows)) rows"
            : "\(facts.columns[1].title) by \(x.title): \(formatCount(facts.rows)) rows"
        var out = [title + (skipped > 0 ? " (\(formatCount(skipped)) without a value)" : "")]
        guard !points.isEmpty, width >= 20, height >= 6 else { return out + ["(nothing to plot)"] }
        let xs = points.map(\.x)
        let xMin = xs.min()!
        let xLast = xs.max()!
        let xMax = max(xLast + step(x, facts, at: xLast), xMin + 1e-9)
        let plotHeight = height - 3  // title, axis, labels
        // The y axis: counts (histogram) or the second column.
        let yColumn = facts.columns.count > 1 ? facts.columns[1] : nil
        let yMin: Double, yMax: Double
        if let yColumn {
            let ys = points.compactMap(\.y)
            yMin = ys.min()!
            let yLast = ys.max()!
            yMax = max(yLast + step(yColumn, facts, at: yLast), yMin + 1e-9)
        } else {
            yMin = 0
            yMax = Double(points.map(\.count).max()!)
        }
        let top = yColumn.map { label(yMax, $0) } ?? formatCount(Int(yMax))
        let bottom = yColumn.map { label(yMin, $0) } ?? "0"
        let margin = max(top.count, bottom.count)
        let plotWidth = width - margin - 2
        guard plotWidth >= 8 else { return out + ["(too narrow to plot)"] }
        var canvas = Braille(width: plotWidth, height: plotHeight)
        let dotsX = Double(plotWidth * 2), dotsY = Double(plotHeight * 4)
        func px(_ v: Double) -> Int { min(plotWidth * 2 - 1, max(0, Int((v - xMin) / (xMax - xMin) * dotsX))) }
        func py(_ v: Double) -> Int { min(plotHeight * 4 - 1, max(0, Int((v - yMin) / (yMax - yMin) * dotsY))) }
        for p in points {
            if let yColumn, let y = p.y {
                let cx = p.x + step(x, facts, at: p.x) / 2, cy = y + step(yColumn, facts, at: y) / 2
                canvas.set(px(cx), py(cy))
            } else {
                let from = px(p.x)
                let end = p.x + step(x, facts, at: p.x)
                let to = end >= xMax ? plotWidth * 2 - 1 : max(from, px(end) - 1)
                let h = max(1, Int((Double(p.count) / yMax * dotsY).rounded()))
                for dx in from...to { for dy in 0..<min(h, plotHeight * 4) { canvas.set(dx, dy) } }
            }
        }
        let rowsText = canvas.lines()
        for (i, line) in rowsText.enumerated() {
            let tick = i == 0 ? top : (i == rowsText.count - 1 ? bottom : "")
            out.append(String(repeating: " ", count: margin - tick.count) + tick + (tick.isEmpty ? " │" : " ┤") + line)
        }
        out.append(String(repeating: " ", count: margin) + " └" + String(repeating: "─", count: plotWidth))
        let left = label(xMin, x), right = label(xMax, x)
        let gap = max(1, plotWidth - left.count - right.count)
        out.append(String(repeating: " ", count: margin + 2) + left + String(repeating: " ", count: gap) + right)
        return out
    }
}

/// A grid of braille cells, each 2 dots wide and 4 high; (0, 0) is the bottom left dot.
struct Braille {
    let width: Int, height: Int
    private var bits: [UInt8]

    init(width: Int, height: Int) {
        self.width = width; self.height = height
        bits = Array(repeating: 0, count: width * height)
    }

    mutating func set(_ x: Int, _ y: Int) {
        guard x >= 0, y >= 0, x < width * 2, y < height * 4 else { return }
        let row = height - 1 - y / 4, dy = 3 - y % 4, dx = x % 2
        let bit: UInt8 = dy == 3 ? (dx == 0 ? 0x40 : 0x80) : UInt8(1 << (dy + dx * 3))
        bits[row * width + x / 2] |= bit
    }

    /// The rows of cells; an empty cell is a space (and a row ends at its last dot).
    func lines() -> [String] {
        (0..<height).map { r in
            let cells = (0..<width).map { c in bits[r * width + c] == 0 ? " " : Unicode.Scalar(0x2800 + UInt32(bits[r * width + c]))! }
            var line = String(String.UnicodeScalarView(cells))
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }
    }
}
