#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The changes from one frame to the next: runs of consecutive changed cells on a row (with
/// the unchanged cells between two changes when there are at most ``mergeGap`` of them).
///
/// When the size changed, every cell of the new frame is a change (``isFull``).
public struct Diff: Hashable, Sendable {
    /// Consecutive changed cells on one row, starting at (x, y).
    public struct Run: Hashable, Sendable {
        /// Where the run starts.
        public var x: Int
        public var y: Int
        /// The new cells, left to right (continuation cells included).
        public var cells: [Cell]
        /// A run of `cells` from (x, y).
        public init(x: Int, y: Int, cells: [Cell]) { self.x = x; self.y = y; self.cells = cells }
    }

    /// The changed runs, top to bottom, left to right.
    public var runs: [Run]
    /// The whole screen is redrawn (first frame, or a new size): clear it first.
    public var isFull: Bool

    /// A diff made of these runs.
    public init(runs: [Run], isFull: Bool) { self.runs = runs; self.isFull = isFull }

    /// The number of changed cells.
    public var cellCount: Int { runs.reduce(0) { $0 + $1.cells.count } }

    /// The cells of `next` that differ from `previous`; everything when there is no previous
    /// frame or its size differs.
    public static func between(_ previous: ScreenBuffer?, _ next: ScreenBuffer) -> Diff {
        guard let previous, previous.width == next.width, previous.height == next.height else {
            return full(next)
        }
        let w = next.width
        return previous.cells.withUnsafeBufferPointer { old in
            next.cells.withUnsafeBufferPointer { new in Diff(runs: changedRuns(old, new, width: w, height: next.height), isFull: false) }
        }
    }

    /// Unchanged cells between two changed runs of a row are sent again (one run) when there
    /// are at most this many: cheaper for the terminal than a cursor move (6 to 9 bytes).
    static let mergeGap = 6

    /// The runs of cells that differ between two frames of the same size.
    private static func changedRuns(_ old: UnsafeBufferPointer<Cell>, _ new: UnsafeBufferPointer<Cell>, width w: Int,
                                    height: Int) -> [Run] {
        var runs: [Run] = []
        // A cell is 8 bytes of plain data without padding, so equal rows compare as bytes.
        let bytewise = MemoryLayout<Cell>.size == MemoryLayout<Cell>.stride && _isPOD(Cell.self)
        for y in 0..<height {
            let row = y * w
            if bytewise, w > 0,
               memcmp(old.baseAddress! + row, new.baseAddress! + row, w * MemoryLayout<Cell>.stride) == 0 { continue }
            var x = 0
            while x < w {
                guard old[row + x] != new[row + x] else { x += 1; continue }
                var start = x
                // A run never starts inside a wide character: include its first half.
                if new[row + start].isContinuation && start > 0 { start -= 1 }
                var end = x + 1
                while end < w && old[row + end] != new[row + end] { end += 1 }
                // Nor ends between the halves of a wide character.
                if end < w && new[row + end].isContinuation { end += 1 }
                if let last = runs.last, last.y == y, last.x + last.cells.count + Self.mergeGap >= start {
                    runs[runs.count - 1].cells += UnsafeBufferPointer(rebasing: new[(row + last.x + last.cells.count)..<(row + end)])
                } else {
                    runs.append(Run(x: start, y: y, cells: Array(UnsafeBufferPointer(rebasing: new[(row + start)..<(row + end)]))))
                }
                x = end
            }
        }
        return runs
    }

    /// Every cell of `buffer`, one run per row.
    public static func full(_ buffer: ScreenBuffer) -> Diff {
        let runs = (0..<buffer.height).map { y in Run(x: 0, y: y, cells: (0..<buffer.width).map { buffer[$0, y] }) }
        return Diff(runs: buffer.width == 0 ? [] : runs, isFull: true)
    }
}
