/// A mouse report from the terminal, decoded by ``KeyDecoder`` (SGR mode 1006, urxvt mode
/// 1015, or the legacy X10 form of mode 1000, ``MouseDecoder``).
public struct MouseEvent: Hashable, Sendable {
    /// The button a press, drag or release is about.
    public enum Button: Hashable, Sendable {
        case left, middle, right
        /// A legacy X10 release, which does not say which button was released.
        case unknown
    }

    /// What happened.
    public enum Kind: Hashable, Sendable {
        case press, release
        /// The pointer moved with the button held (mode 1002).
        case drag
        /// One notch of the wheel (horizontal wheels: left and right).
        case wheelUp, wheelDown, wheelLeft, wheelRight
    }

    public var kind: Kind
    public var button: Button
    public var shift: Bool
    public var alt: Bool
    public var ctrl: Bool
    /// The cell, 0-based from the top left corner.
    public var x: Int
    public var y: Int

    /// A report at cell (`x`, `y`), 0-based.
    public init(_ kind: Kind, _ button: Button = .left, x: Int, y: Int, shift: Bool = false, alt: Bool = false, ctrl: Bool = false) {
        self.kind = kind; self.button = button; self.x = x; self.y = y
        self.shift = shift; self.alt = alt; self.ctrl = ctrl
    }

    /// Whether this is a notch of the wheel.
    public var isWheel: Bool {
        switch kind {
        case .wheelUp, .wheelDown, .wheelLeft, .wheelRight: true
        case .press, .release, .drag: false
        }
    }
}
