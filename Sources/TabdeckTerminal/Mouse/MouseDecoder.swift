/// Mouse reports in terminal input, as xterm documents them ("Mouse Tracking" in ctlseqs):
///
/// - SGR (mode 1006): `CSI < b ; x ; y M` for a press, drag or wheel, `m` for a release;
///   decimal numbers, so any column.
/// - urxvt (mode 1015): `CSI b ; x ; y M`, decimal, `b` offset by 32.
/// - X10 / normal (mode 1000): `CSI M b x y`, each a byte offset by 32, so up to column 223;
///   past it, a terminal in UTF-8 mode (1005) writes the value as a two-byte UTF-8 character,
///   which is read here too (a lead byte followed by a continuation byte).
///
/// `b`'s low two bits are the button (3: release in X10), +4 Shift, +8 Alt, +16 Ctrl, +32 a
/// motion (drag), +64 the wheel (up, down, left, right). Other buttons (+128: back, forward)
/// and motion without a button are not reported: the decoder passes over them.
enum MouseDecoder {
    /// The event for button code `code` (offset removed) at 1-based `x`, `y`; `release`: an
    /// SGR `m` (nil: the form has no release final). Nil for what Tabdeck does not use.
    static func event(code: Int, x: Int, y: Int, release: Bool) -> MouseEvent? {
        guard x >= 1, y >= 1, code >= 0 else { return nil }
        let shift = code & 4 != 0, alt = code & 8 != 0, ctrl = code & 16 != 0
        let motion = code & 32 != 0
        let base = code & ~(4 | 8 | 16 | 32)
        let kind: MouseEvent.Kind
        var button = MouseEvent.Button.unknown
        switch base {
        case 0, 1, 2:
            button = [.left, .middle, .right][base]
            kind = release ? .release : motion ? .drag : .press
        case 3:
            guard !motion else { return nil }  // motion without a button (mode 1003)
            kind = .release
        case 64, 65, 66, 67:
            guard !release else { return nil }
            kind = [.wheelUp, .wheelDown, .wheelLeft, .wheelRight][base - 64]
        default:
            return nil  // buttons 8 to 11 and beyond
        }
        return MouseEvent(kind, button, x: x - 1, y: y - 1, shift: shift, alt: alt, ctrl: ctrl)
    }

    /// An SGR report's parameters (after `<`) with its final `M` or `m`; nil when it is not one
    /// Tabdeck uses (the caller passes over it).
    static func sgr(_ params: Substring, final: UInt8) -> MouseEvent? {
        let n = params.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) }
        guard n.count == 3, let b = n[0], let x = n[1], let y = n[2] else { return nil }
        return event(code: b, x: x, y: y, release: final == UInt8(ascii: "m"))
    }

    /// A urxvt report `CSI b;x;y M` (params as typed); nil when the params are not three numbers.
    static func urxvt(_ params: String) -> MouseEvent?? {
        let n = params.split(separator: ";", omittingEmptySubsequences: false).map { Int($0) }
        guard n.count == 3, let b = n[0], let x = n[1], let y = n[2] else { return nil }
        return .some(event(code: b - 32, x: x, y: y, release: false))
    }

    /// The X10 report whose three values start at `start` (just after `CSI M`): the event (nil:
    /// passed over) and the bytes taken from `start`; nil when more bytes are needed. With
    /// `final`, a report cut short takes what is there.
    static func x10(_ b: [UInt8], _ start: Int, final: Bool) -> (MouseEvent?, Int)? {
        var values: [Int] = []
        var i = start
        while values.count < 3 {
            guard i < b.count else { return final ? (nil, i - start) : nil }
            let c = b[i]
            if (0xC2...0xDF).contains(c) {
                // A two-byte UTF-8 value (mode 1005, past column 223), or a raw byte.
                guard i + 1 < b.count else {
                    if !final { return nil }
                    values.append(Int(c)); i += 1; continue
                }
                if (0x80...0xBF).contains(b[i + 1]) {
                    values.append((Int(c & 0x1F) << 6) | Int(b[i + 1] & 0x3F)); i += 2; continue
                }
            }
            values.append(Int(c)); i += 1
        }
        return (event(code: values[0] - 32, x: values[1] - 32, y: values[2] - 32, release: false), i - start)
    }
}
