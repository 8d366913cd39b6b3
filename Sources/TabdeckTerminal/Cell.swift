import Foundation

/// One terminal cell: the text drawn in it and its style.
///
/// `symbol` is one grapheme cluster (a character with any combining marks joined to it).
/// A wide character (CJK, emoji) is stored in its first cell; the cell after it is a
/// *continuation* cell (empty symbol) that the terminal fills on its own.
///
/// A cell is plain data (no reference, nothing to retain or release): a cluster of one
/// Unicode scalar, by far the common case, is stored as the scalar's value; a cluster of
/// several scalars (a letter with combining marks, an emoji sequence) is stored as its number
/// in ``ClusterTable``. Filling, copying and comparing whole frames is then plain memory work.
public struct Cell: Hashable, Sendable {
    /// 0: continuation (empty); below ``clusterBase``: one scalar's value; from ``clusterBase``:
    /// ``clusterBase`` + the cluster's number in ``ClusterTable``.
    var code: UInt32
    /// How it is drawn.
    public var style: Style

    /// Codes from here on name multi-scalar clusters.
    static let clusterBase: UInt32 = 0x8000_0000

    /// A cell showing `symbol` (one grapheme cluster) in `style`.
    public init(_ symbol: String = " ", style: Style = .plain) {
        self.code = Self.code(of: symbol); self.style = style
    }

    /// A cell showing one printable ASCII byte (the hot path: no string at all).
    @inline(__always) init(ascii byte: UInt8, style: Style) {
        self.code = UInt32(byte); self.style = style
    }

    /// A cell showing one scalar that is a grapheme cluster on its own (not NUL).
    @inline(__always) init(scalar: Unicode.Scalar, style: Style) {
        self.code = scalar.value; self.style = style
    }

    /// A blank cell.
    public static let blank = Cell()

    /// The second half of a wide character.
    public static func continuation(_ style: Style) -> Cell { Cell(code: 0, style: style) }

    private init(code: UInt32, style: Style) { self.code = code; self.style = style }

    /// The grapheme cluster drawn (empty for a continuation cell).
    public var symbol: String {
        get {
            if code == 0 { return "" }
            if code < Self.clusterBase { return String(Character(Unicode.Scalar(code)!)) }
            return ClusterTable.shared.cluster(Int(code - Self.clusterBase))
        }
        set { code = Self.code(of: newValue) }
    }

    /// Whether this is the second half of a wide character.
    public var isContinuation: Bool { code == 0 }

    /// Appends the UTF-8 bytes of the symbol to `out` (no intermediate string for one scalar).
    @inline(__always) func appendUTF8(to out: inout [UInt8]) {
        if code < 0x80 {
            if code != 0 { out.append(UInt8(code)) }
        } else if code < Self.clusterBase {
            for b in UTF8.encode(Unicode.Scalar(code)!)! { out.append(b) }
        } else {
            out.append(contentsOf: symbol.utf8)
        }
    }

    static func code(of symbol: String) -> UInt32 {
        let scalars = symbol.unicodeScalars
        guard let first = scalars.first else { return 0 }
        if first.value != 0 && scalars.index(after: scalars.startIndex) == scalars.endIndex { return first.value }
        return Self.clusterBase + UInt32(ClusterTable.shared.number(of: symbol))
    }
}

/// The multi-scalar grapheme clusters cells have shown, each numbered once, for the life of
/// the process (a terminal shows few distinct ones; lookups are rare: only cells that hold one).
final class ClusterTable: @unchecked Sendable {
    static let shared = ClusterTable()
    private let lock = NSLock()
    private var numbers: [String: Int] = [:]
    private var clusters: [String] = []

    /// The number of `cluster`, given one the first time it is seen.
    func number(of cluster: String) -> Int {
        lock.lock(); defer { lock.unlock() }
        if let n = numbers[cluster] { return n }
        clusters.append(cluster)
        numbers[cluster] = clusters.count - 1
        return clusters.count - 1
    }

    /// The cluster numbered `n`.
    func cluster(_ n: Int) -> String {
        lock.lock(); defer { lock.unlock() }
        return clusters[n]
    }
}
