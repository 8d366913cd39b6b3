@preconcurrency import CReadline
import Foundation

/// A GNU readline prompt with history kept in a file across sessions.
///
/// readline is process-global, so there is one editor per process.
public final class LineEditor {
    /// The history file.
    public let historyFile: String
    /// Entries kept in the history file.
    public let historyLimit: Int32

    /// Loads the history from `historyFile` (creating its folder).
    public init(historyFile: String, historyLimit: Int32 = 1000) {
        self.historyFile = historyFile
        self.historyLimit = historyLimit
        rl_catch_signals = 0
        rl_catch_sigwinch = 0
        using_history()
        stifle_history(historyLimit)
        try? FileManager.default.createDirectory(
            atPath: URL(fileURLWithPath: historyFile).deletingLastPathComponent().path, withIntermediateDirectories: true)
        _ = read_history(historyFile)
    }

    /// Reads one line with editing and history; nil at end of input (Ctrl-D).
    /// Non-blank lines that differ from the previous entry are added to the history and saved.
    public func readLine(prompt: String) -> String? {
        guard let raw = readline(prompt) else { return nil }
        defer { free(raw) }
        let line = String(cString: raw)
        if !line.trimmingCharacters(in: .whitespaces).isEmpty && line != lastEntry() {
            add_history(raw)
            _ = write_history(historyFile)
            _ = history_truncate_file(historyFile, historyLimit)
        }
        return line
    }

    func lastEntry() -> String? {
        guard history_length > 0, let entry = history_get(history_base + history_length - 1), let text = entry.pointee.line else {
            return nil
        }
        return String(cString: text)
    }
}
