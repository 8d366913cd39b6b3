/// What the runtime says as it runs (a command's result or error, a tab's notice, bytes for
/// the terminal's clipboard), kept for the full screen, which takes them after each event it
/// gave the runtime (``Runtime/takeSaid()``) and hands them to its model as inputs. Line mode
/// prints them instead, at once.
enum RuntimeSaid: Equatable {
    case output(String)
    case error(String)
    /// Said at once in line mode (a restart); the full screen's status line shows it already.
    case notice(String)
    /// An OSC 52 sequence, written to the terminal with the next frame.
    case clipboard([UInt8])
}
