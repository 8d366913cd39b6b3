/// A key press (or a paste) decoded from terminal input.
public enum Key: Hashable, Sendable {
    /// A printable character, including space.
    case char(Character)
    /// Ctrl with a letter (`.ctrl("c")`), or Ctrl-Space as `.ctrl(" ")`.
    case ctrl(Character)
    /// Alt (Meta) with a character: ESC followed by it.
    case alt(Character)
    case up, down, left, right
    case pageUp, pageDown, home, end
    case insert, delete
    case enter, tab, backTab, backspace, escape
    /// A function key, F1 to F12.
    case function(Int)
    /// Text pasted with bracketed paste mode on.
    case paste(String)
    /// A mouse report (``MouseDecoder``): a click, a drag, a notch of the wheel.
    case mouse(MouseEvent)
    /// An escape sequence Tabdeck does not use (modified keys, ...).
    case unknown([UInt8])

    /// How the key is written in help: `↓`, `PgUp`, `Shift-Tab`, `Ctrl-C`, `Space`, `j`.
    public var name: String {
        switch self {
        case .char(" "): "Space"
        case .char(let c): String(c)
        case .ctrl(" "): "Ctrl-Space"
        case .ctrl(let c): "Ctrl-" + c.uppercased()
        case .alt(let c): "Alt-" + String(c)
        case .up: "↑"
        case .down: "↓"
        case .left: "←"
        case .right: "→"
        case .pageUp: "PgUp"
        case .pageDown: "PgDn"
        case .home: "Home"
        case .end: "End"
        case .insert: "Insert"
        case .delete: "Delete"
        case .enter: "Enter"
        case .tab: "Tab"
        case .backTab: "Shift-Tab"
        case .backspace: "Backspace"
        case .escape: "Esc"
        case .function(let n): "F\(n)"
        case .paste: "paste"
        case .mouse: "mouse"
        case .unknown: "unknown"
        }
    }
}
