import TabdeckCore

/// The full-screen UI as a value: what only the screen knows (``UIState``), the terminal's
/// size, and whose output is shown. It changes only through ``update(_:workspace:)``; the
/// shell (`FullScreen`) feeds it keys, sizes and results and carries out its ``ScreenEffect``s.
public struct ScreenModel: Hashable, Sendable {
    /// What the renderer reads besides the core's state.
    public var ui: UIState
    /// The terminal's size in cells.
    public var width: Int
    public var height: Int
    /// Whether a command's output is shown: a command typed at the prompt shows its output,
    /// one run by a key only its error.
    public var showsOutput = false
    /// Whether the UI is still running (false once it asked to quit).
    public var running = true
    /// Whether the `:` prompt is open on the bottom line (from its ``ScreenEffect/prompt(typed:)``
    /// to ``ScreenInput/promptClosed(_:)``).
    public internal(set) var promptOpen = false
    /// The find last announced (text, start, direction, phase), so each outcome is announced once.
    var shownFind: [String]?
    /// The job Esc cancelled last (its "cancelled" is said once).
    var cancelledJob: String?
    /// Every timer of the screen (save, ticks, lone Esc, frame pacing).
    public internal(set) var timers = ScreenTimers()

    /// A model for a terminal of `width` × `height`, showing the table.
    public init(width: Int = 80, height: Int = 24, ui: UIState = UIState()) {
        self.width = width; self.height = height; self.ui = ui
    }

    /// The size as the renderer takes it.
    public var size: (width: Int, height: Int) { (width, height) }
}

/// An input to ``ScreenModel/update(_:workspace:)``.
public enum ScreenInput: Hashable, Sendable {
    /// A key press (decoded from the terminal's bytes).
    case key(Key)
    /// The terminal has a new size.
    case resize(width: Int, height: Int)
    /// The core's state changed (a plugin answered, a find moved on): announce what ended.
    case coreChanged
    /// A command finished with this output, or failed with this error.
    case output(String, isError: Bool)
    /// The `:` prompt closed with this line (nil: abandoned with Esc or Ctrl-C).
    case promptClosed(String?)
    /// The shell's clock, read when it is about to wait and when its wait ended (at
    /// ``ScreenModel/nextWake`` or on an event): what fell due comes back as effects.
    case timer(now: Double)
    /// The terminal's bytes read at `now` were decoded; `leftPending`: the decoder holds some
    /// (a lone Esc, perhaps, resolved at ``ScreenTimers/escapeWait`` after it was read).
    case bytesRead(leftPending: Bool, now: Double)
    /// The shell drew a frame for plugin events (not keys) at `now`: frames for events are paced.
    case eventFrameDrawn(at: Double)
    /// A mouse report read at `now` (the shell's clock), over the frame on screen, whose
    /// ``ScreenBuffer/hits`` say what is where (ScreenUpdate+Mouse.swift).
    case mouse(MouseEvent, now: Double, screen: HitMap)
}

/// What the UI asks its shell to do: data, carried out at the edge.
public enum ScreenEffect: Hashable, Sendable {
    /// Give this event to the core (typed commands as ``Event/run(_:)``, never as text).
    case core(Event)
    /// Open the readline prompt on the bottom line with this text typed.
    case prompt(typed: String)
    /// Redraw the whole screen (Ctrl-L), not only what changed.
    case redraw
    /// The terminal was resized while the prompt is open: draw the workspace at the new size,
    /// then the prompt's line (its text and cursor) on the new bottom line.
    case redrawPrompt
    /// Leave full screen.
    case quit
    /// Turn the terminal's mouse reporting on or off (modes 1000, 1002, 1006).
    case mouseReporting(Bool)
    /// Stop the process as Ctrl-Z does in a shell (terminal restored; `fg` brings it back).
    case suspend
    /// The bytes the key decoder holds are keys as they are (a lone Esc): flush them as keys.
    case resolveHeldKeys
    /// What is drawn changed with time alone (the job's progress): a frame is due.
    case frameDue
}
