import TabdeckCore
import TabdeckProtocol

/// A width × height grid of cells: what one frame of the screen shows.
///
/// Text goes in through ``set(x:y:_:style:maxWidth:)``, which sanitizes it (control characters
/// and escape sequences become visible escapes such as `\e[31m`) and honours display width:
/// wide characters take two cells, combining marks join the character before them.
public struct ScreenBuffer: Hashable, Sendable {
    /// Columns.
    public let width: Int
    /// Rows.
    public let height: Int
    /// Cells row by row (`y * width + x`).
    public private(set) var cells: [Cell]
    /// Where the renderer drew what (tabs, headers, rows, ...), for the mouse.
    public internal(set) var hits = HitMap()

    /// A blank buffer (negative sizes count as 0).
    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        cells = Array(repeating: .blank, count: self.width * self.height)
    }

    /// Makes every cell blank again, keeping the storage when it is not shared (a buffer
    /// reused frame after frame).
    public mutating func clear() {
        cells.withUnsafeMutableBufferPointer { $0.update(repeating: .blank) }
        hits.removeAll()
    }

    /// The cell at a position (which must be inside the buffer).
    public subscript(x: Int, y: Int) -> Cell {
        cells[y * width + x]
    }

    /// Writes `text` at (x, y) using at most `maxWidth` cells (and never past the right edge).
    ///
    /// A wide character that would not fit entirely is replaced by a blank; nothing is written
    /// outside the buffer. Returns the number of cells written.
    @discardableResult
    public mutating func set(x: Int, y: Int, _ text: String, style: Style = .plain, maxWidth: Int? = nil) -> Int {
        set(x: x, y: y, text, kind: nil, style: style, maxWidth: maxWidth)
    }

    /// ``set(x:y:_:style:maxWidth:)`` for text whose kind the caller knows already (from
    /// ``TextFit/placedText(_:_:alignment:)``): the checks are not made again.
    @discardableResult
    mutating func set(x: Int, y: Int, _ text: String, kind known: TextKind?, style: Style, maxWidth: Int?) -> Int {
        guard y >= 0, y < height, x >= 0, x < width else { return 0 }
        let limit = min(width, x + max(0, maxWidth ?? width))
        let kind = known ?? TextKind.of(text)
        if kind == .ascii {
            let n = min(text.utf8.count, limit - x)
            guard n > 0 else { return 0 }
            let start = y * width + x
            repairAround(start, count: n, x: x)
            var bytes = text
            bytes.withUTF8 { utf8 in
                cells.withUnsafeMutableBufferPointer { p in
                    for k in 0..<n { p[start + k] = Cell(ascii: utf8[k], style: style) }
                }
            }
            return n
        }
        if kind == .singleScalar {
            // One scalar, one cell: no grapheme clusters to find, nothing to sanitize.
            var n = 0
            for _ in text.unicodeScalars where n < limit - x { n += 1 }
            guard n > 0 else { return 0 }
            let start = y * width + x
            repairAround(start, count: n, x: x)
            cells.withUnsafeMutableBufferPointer { p in
                var i = start
                for scalar in text.unicodeScalars {
                    if i == start + n { break }
                    p[i] = Cell(scalar: scalar, style: style)
                    i += 1
                }
            }
            return n
        }
        var cx = x
        var last: Int?  // index of the last cell written, for joining zero-width characters
        for ch in Sanitizer.clean(text) {
            if cx >= limit { break }
            let w = Self.width(of: ch)
            if w == 0 {
                // A combining mark or joiner with no character before it in `text` is dropped.
                if let last { cells[last].symbol.append(contentsOf: String(ch)) }
                continue
            }
            if w == 2 && cx + 1 >= limit {
                put(cx, y, Cell(ascii: 0x20, style: style), wide: false)
                cx += 1
                break
            }
            put(cx, y, Cell(String(ch), style: style), wide: w == 2)
            last = y * width + cx
            cx += w
        }
        return cx - x
    }

    /// Fills `count` cells from (x, y) with blanks in `style`.
    public mutating func fill(x: Int, y: Int, count: Int, style: Style = .plain) {
        guard y >= 0, y < height else { return }
        for cx in max(0, x)..<max(max(0, x), min(width, x + count)) { put(cx, y, Cell(ascii: 0x20, style: style), wide: false) }
    }

    /// Changes the style of `count` cells from (x, y), keeping their text.
    public mutating func restyle(x: Int, y: Int, count: Int, _ change: (inout Style) -> Void) {
        guard y >= 0, y < height else { return }
        for cx in max(0, x)..<max(max(0, x), min(width, x + count)) { change(&cells[y * width + cx].style) }
    }

    /// Whether every scalar of `text` is its own grapheme cluster one cell wide that needs no
    /// escaping: printable ASCII, Latin, Greek and Cyrillic letters and signs (precomposed; no
    /// combining marks, no soft hyphen), dashes, quotes, bullets and `…`, arrows, math signs, box drawing, blocks and shapes (the
    /// frame's lines and marks). Such text is drawn one scalar per cell.
    static func isSingleScalarText(_ text: String) -> Bool {
        for s in text.unicodeScalars {
            let v = s.value
            if v >= 0x20 && v < 0x7F { continue }
            if v >= 0xA1 && v < 0x300 && v != 0xAD { continue }
            if (v >= 0x370 && v < 0x483) || (v >= 0x48A && v < 0x530) || (v >= 0x1E00 && v < 0x1F00) { continue }
            if v >= 0x2010 && v < 0x2028 { continue }
            if v >= 0x2190 && v < 0x2600 && DisplayWidth.of(s) == 1 { continue }
            return false
        }
        return true
    }

    /// Cells a character takes: 2 for wide characters, 0 for a lone combining mark, else 1.
    static func width(of ch: Character) -> Int {
        guard let first = ch.unicodeScalars.first else { return 0 }
        let w = DisplayWidth.of(first)
        if w == 0 && ch.unicodeScalars.count > 1 {
            return ch.unicodeScalars.dropFirst().map { DisplayWidth.of($0) }.max() ?? 0
        }
        return w
    }

    /// How text can be stored: byte per cell, scalar per cell, or the general way (grapheme
    /// clusters, wide characters, sanitizing).
    enum TextKind {
        case ascii, singleScalar, general

        static func of(_ text: String) -> TextKind {
            ASCII.isPrintable(text) ? .ascii : isSingleScalarText(text) ? .singleScalar : .general
        }
    }

    /// Before `count` one-cell-wide cells are stored from index `start` (column `x`): repairs
    /// the wide characters the run cuts at its edges, as ``put(_:_:_:wide:)`` cell by cell
    /// would (a wide character wholly inside the run is overwritten whole).
    @inline(__always) private mutating func repairAround(_ start: Int, count: Int, x: Int) {
        if cells[start].isContinuation && x > 0 {
            cells[start - 1] = Cell(ascii: 0x20, style: cells[start - 1].style)  // cut the left half of a wide character
        }
        let end = start + count
        if x + count < width && cells[end].isContinuation && !cells[end - 1].isContinuation {
            cells[end] = Cell(ascii: 0x20, style: cells[end].style)  // a wide character's first half was the last cell
        }
    }

    /// Stores one cell, repairing wide characters it overlaps.
    private mutating func put(_ x: Int, _ y: Int, _ cell: Cell, wide: Bool) {
        let i = y * width + x
        if cells[i].isContinuation && x > 0 {
            cells[i - 1] = Cell(ascii: 0x20, style: cells[i - 1].style)  // cut the left half of a wide character
        }
        if x + 1 < width && cells[i + 1].isContinuation && !cells[i].isContinuation {
            cells[i + 1] = Cell(ascii: 0x20, style: cells[i + 1].style)  // this was a wide character's first half
        }
        cells[i] = cell
        if wide && x + 1 < width {
            if x + 2 < width && cells[i + 2].isContinuation {
                cells[i + 2] = Cell(ascii: 0x20, style: cells[i + 2].style)  // the next cell was a wide character's first half
            }
            cells[i + 1] = .continuation(cell.style)
        }
    }
}

extension ScreenBuffer {
    /// Stores a cell as is (no sanitizing, no wide-character repair): for replaying diffs.
    mutating func replace(x: Int, y: Int, with cell: Cell) {
        guard x >= 0, x < width, y >= 0, y < height else { return }
        cells[y * width + x] = cell
    }
}
