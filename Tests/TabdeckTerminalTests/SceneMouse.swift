import TabdeckCore
@testable import TabdeckTerminal

/// Mouse reports for a ``ScreenScene``, hit-tested against the frame the renderer draws now
/// (the frame the shell has on screen), at virtual times.
extension ScreenScene {
    /// The frame on screen.
    var frame: ScreenBuffer { WorkspaceRenderer.render(workspace: scene.ws, size: model.size, ui: model.ui) }

    /// One report, `after` seconds after the previous one.
    mutating func mouse(_ event: MouseEvent, after: Double = 1) {
        clock += after
        input(.mouse(event, now: clock, screen: frame.hits))
    }

    /// A left click (press and release) on cell (`x`, `y`).
    mutating func click(x: Int, y: Int, after: Double = 1) {
        mouse(MouseEvent(.press, x: x, y: y), after: after)
        mouse(MouseEvent(.release, x: x, y: y), after: 0.05)
    }

    /// Two clicks 0.1 s apart.
    mutating func doubleClick(x: Int, y: Int) {
        click(x: x, y: y)
        click(x: x, y: y, after: 0.1)
    }

    /// `notches` of the wheel at (`x`, `y`).
    mutating func wheel(_ kind: MouseEvent.Kind, x: Int, y: Int, shift: Bool = false, notches: Int = 1) {
        for _ in 0..<notches { mouse(MouseEvent(kind, .unknown, x: x, y: y, shift: shift)) }
    }

    /// Press at `from`, drag through each cell of the way along the line to `to`, release there.
    mutating func drag(from: (x: Int, y: Int), to: (x: Int, y: Int)) {
        mouse(MouseEvent(.press, x: from.x, y: from.y))
        var (x, y) = from
        while (x, y) != to {
            x += (to.x > x ? 1 : to.x < x ? -1 : 0)
            y += (to.y > y ? 1 : to.y < y ? -1 : 0)
            mouse(MouseEvent(.drag, x: x, y: y), after: 0.02)
        }
        mouse(MouseEvent(.release, x: to.x, y: to.y), after: 0.02)
    }

    /// The first cell (x, y) on screen showing `text` (for clicking on what is drawn).
    func cell(of text: String, line: Int? = nil) -> (x: Int, y: Int)? {
        let lines = self.lines
        for (y, l) in lines.enumerated() where line == nil || line == y {
            if let r = l.range(of: text) { return (l.distance(from: l.startIndex, to: r.lowerBound), y) }
        }
        return nil
    }
}
