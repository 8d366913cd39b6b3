import Glibc

/// What standard input is for one run of `tabdeck`: the mode rule of docs/COMMANDS.md, stated
/// once here.
///
/// - With `--line`, `-e` or `--commands`, commands come from there (`--line`: standard input),
///   and standard input is data only when `-` is among the sources.
/// - Otherwise a standard input that is not a terminal is data (`cmd | tabdeck`), and `-` says
///   the same explicitly.
/// - Keys then come from the controlling terminal (`/dev/tty`), as less, fzf and VisiData do;
///   with no terminal at all (cron, CI) Tabdeck prints the first page and exits.
public enum StandardInputRole: Equatable, Sendable {
    /// The terminal: keys for the full screen, or the readline prompt of `--line`.
    case terminal
    /// Command lines, one per line (`--line` with standard input not a terminal).
    case commands
    /// A table's data, read by the pipe plugin.
    case data
    /// Not read (`-e`/`--commands` with standard input not a source).
    case unused

    public static func decide(isTerminal: Bool, dashSource: Bool, lineMode: Bool, scripted: Bool) -> StandardInputRole {
        if dashSource { return .data }
        if scripted { return .unused }
        if lineMode { return isTerminal ? .terminal : .commands }
        return isTerminal ? .terminal : .data
    }
}

/// Moving a pipe's data off descriptor 0, so that the terminal can be read there instead.
public enum StandardInputData {
    /// Where the data went and whether a terminal took its place.
    public struct Handover: Sendable {
        /// A close-on-exec duplicate of the old standard input, numbered 10 or more; the pipe
        /// plugin gets it as its descriptor 3.
        public var data: Int32
        /// True when `/dev/tty` opened and is now descriptor 0 (and the full screen can run).
        public var terminal: Bool
    }

    /// Duplicates standard input out of the way and opens the controlling terminal on
    /// descriptor 0. Nil when standard input cannot be duplicated.
    public static func handOver() -> Handover? {
        let data = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 10)
        guard data >= 0 else { return nil }
        let tty = Glibc.open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard tty >= 0 else {
            // No terminal: descriptor 0 reads nothing from now on, so nothing else takes the data.
            let null = Glibc.open("/dev/null", O_RDONLY)
            if null >= 0 { dup2(null, STDIN_FILENO); Glibc.close(null) }
            return Handover(data: data, terminal: false)
        }
        dup2(tty, STDIN_FILENO)
        Glibc.close(tty)
        return Handover(data: data, terminal: true)
    }
}
