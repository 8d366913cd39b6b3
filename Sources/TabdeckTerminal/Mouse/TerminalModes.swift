/// The terminal's mouse reporting modes (xterm "Mouse Tracking"): 1000 reports presses and
/// releases, 1002 drags too, 1006 writes them in the SGR form (any column, releases that name
/// their button). Turned on and off together.
public enum MouseModes {
    /// Turns reporting on.
    public static let on = "\u{1b}[?1000h\u{1b}[?1002h\u{1b}[?1006h"
    /// Turns reporting off (harmless when it was not on): part of every restoration of the terminal.
    public static let off = "\u{1b}[?1006l\u{1b}[?1002l\u{1b}[?1000l"
}
