import Foundation
import Logging
import TabdeckCore
import TabdeckProtocol
import TabdeckSpool
import TabdeckStore
import TabdeckSupervisor
import TabdeckTerminal
import TabdeckTime

/// What the runtime says: a command's result or error (text or JSON), and the tabs' logs.
extension Runtime {
    enum Outcome { case success(CommandOutput), failure(String) }

    func report(_ outcome: Outcome) {
        finished = true
        progressLine?.clear()
        switch (outcome, output) {
        case (.success(let out), .text):
            if !out.text.isEmpty { say(.output(Sanitizer.cleanLines(out.text))) }  // the edge guard: every line safe
        case (.success(let out), .json):
            if currentLine.trimmingCharacters(in: .whitespaces).isEmpty || currentLine.trimmingCharacters(in: .whitespaces).hasPrefix("#") { return }
            say(.output(JSONWriter.string(["command": .string(currentLine), "ok": true, "result": out.json], terminalSafe: true)))
        case (.failure(let message), _):
            failures += 1
            say(.error("error: \(Sanitizer.clean(message))"))
            if output == .json {
                say(.output(JSONWriter.string(["command": .string(currentLine), "ok": false, "error": .string(message)], terminalSafe: true)))
            }
        }
    }

    /// Appends one of the host's own lines to a tab's log through the host's one logger
    /// (``LogFileHandler``: timestamped, sanitized, as the plugin's stderr lines).
    func appendLog(_ tab: String, _ line: String) {
        guard let logger = tabLogger(tab) else { return }
        logger.info("\(line)")
    }

    /// How big the tabs' logs grow (config.json's `logs`).
    var logRotation: LogRotation { LogRotation(maxBytes: workspace.config.logMaxBytes, files: workspace.config.logFiles) }

    /// The logger of a tab's log file, opened on first use.
    private func tabLogger(_ tab: String) -> Logger? {
        if let logger = tabLoggers[tab] { return logger }
        guard let logger = try? LogFileHandler.logger(label: "tabdeck.\(tab)", path: logFile(tab: tab), rotation: logRotation) else { return nil }
        tabLoggers[tab] = logger
        return logger
    }

    func tailOfLog(_ tab: String, lines: Int) -> String {
        guard let data = FileManager.default.contents(atPath: logFile(tab: tab)) else { return "" }
        let text = String(decoding: data, as: UTF8.self)
        return text.split(separator: "\n", omittingEmptySubsequences: false).suffix(lines + 1)
            .map { Sanitizer.clean(String($0)) }.joined(separator: "\n").trimmingCharacters(in: .newlines)
    }
}
