import TabdeckCore

/// What is at a place on the screen, as the renderer drew it.
public enum HitTarget: Hashable, Sendable {
    /// A tab's entry in the sidebar or the tab bar (in tab edit mode, hidden tabs too).
    case tab(String)
    /// A section's header in the sidebar (a tab dragged onto it goes to that section).
    case section(String)
    /// The sidebar: `top` is its first line shown of `lines`, `height` lines fit.
    case sidebar(top: Int, lines: Int, height: Int)
    /// A column's header: its index among the visible columns, its id and width on screen.
    case header(column: Int, id: String, width: Int)
    /// The cell right of a column's header (its right edge), where a drag resizes it.
    case headerEdge(column: Int, id: String, width: Int)
    /// A line of the table showing a row (a placeholder too): see ``RowHit``.
    case row(RowHit)
    /// The table (header and body), for the wheel.
    case table
    /// A level of the breadcrumb (0: the tab's root table).
    case crumb(level: Int)
    /// The box of the actions menu, the question or the form.
    case overlay
    /// An entry of the actions menu.
    case menuEntry(Int)
    /// A field of an action's form.
    case formField(Int)
    /// The question's answer: Yes or No.
    case answer(Bool)
    /// A line of help: what clicking it does (nil: nothing but closing help).
    case help(HelpEntry?)
}

/// One line of the table showing a row, as hit-tested.
public struct RowHit: Hashable, Sendable {
    /// Which part of the line.
    public enum Part: Hashable, Sendable {
        /// The cells.
        case body
        /// The selection mark's column.
        case mark
        /// The ▸ or ▾ before a row with children.
        case expander
    }
    /// The row (top-level index and path into expanded rows).
    public var position: OutlinePosition
    /// Its id once loaded.
    public var id: String?
    /// The row lines counted from the top of the table on screen, in the order the cursor
    /// steps through them (header, footer and detail lines do not count).
    public var ordinal: Int
    public var part: Part
}

/// What clicking a line of help does.
public enum HelpEntry: Hashable, Sendable {
    /// Run this key's action.
    case action(Action)
    /// Open the command line with this command's name typed.
    case command(String)
}

/// Where things are on the screen: regions the renderer records while it draws a frame (the
/// one source of truth for the mouse; nothing computes the geometry a second time).
public struct HitMap: Hashable, Sendable {
    struct Region: Hashable, Sendable {
        var x: Int, y: Int, width: Int, height: Int
        var target: HitTarget
        func contains(_ px: Int, _ py: Int) -> Bool { px >= x && px < x + width && py >= y && py < y + height }
    }

    private(set) var regions: [Region] = []

    /// An empty map.
    public init() {}

    /// Records `target` over `rect` (later regions lie on top of earlier ones).
    mutating func add(_ target: HitTarget, _ rect: Rect) {
        guard !rect.isEmpty else { return }
        regions.append(Region(x: rect.x, y: rect.y, width: rect.width, height: rect.height, target: target))
    }

    /// Records `target` over `width` cells of line `y` from `x`.
    mutating func add(_ target: HitTarget, x: Int, y: Int, width: Int) {
        add(target, Rect(x: x, y: y, width: width, height: 1))
    }

    mutating func removeAll() { regions.removeAll(keepingCapacity: true) }

    /// Every target at (`x`, `y`), topmost first.
    public func targets(x: Int, y: Int) -> [HitTarget] {
        regions.reversed().filter { $0.contains(x, y) }.map(\.target)
    }

    /// The topmost target at (`x`, `y`).
    public func target(x: Int, y: Int) -> HitTarget? {
        regions.last { $0.contains(x, y) }?.target
    }

    /// The first region of `target`'s kind matching `match`, as (x, y, width).
    func first(where match: (HitTarget) -> Bool) -> (x: Int, y: Int, width: Int)? {
        regions.first { match($0.target) }.map { ($0.x, $0.y, $0.width) }
    }
}
