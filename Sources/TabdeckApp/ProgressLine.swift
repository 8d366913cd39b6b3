import Foundation
import TabdeckCore
import TabdeckProtocol

/// Line mode on a terminal: while a command waits and its tab's plugin reports progress, one line
/// on stderr says how far it is and how to stop it, redrawn in place and erased when the command
/// ends. Nothing is written when stderr is not a terminal (pipes, files, tests).
struct ProgressLine {
    /// What is on the line now ("" when nothing is shown).
    private var shown = ""
    private let write: (String) -> Void

    init(write: @escaping (String) -> Void) { self.write = write }

    /// The text for a tab's progress: `people: indexing 42% (1,204 of 2,866) · Ctrl-C stops it`.
    static func text(tab: String, _ p: PluginProgress) -> String {
        let what = Sanitizer.clean(p.message ?? "working")
        let amount: String
        if let total = p.total, total > 0 {
            let percent = Int(min(1, max(0, p.done / total)) * 100)
            amount = "\(percent)% (\(formatCount(Int(p.done))) of \(formatCount(Int(total))))"
        } else {
            amount = formatCount(Int(p.done))
        }
        return "\(tab): \(what) \(amount) · Ctrl-C stops it"
    }

    /// Erases the line (before a result or an error is printed).
    mutating func clear() {
        guard !shown.isEmpty else { return }
        shown = ""
        write("\r\u{1b}[K")
    }

    /// Shows the selected tab's progress while a command waits; erases the line otherwise.
    mutating func update(_ ws: Workspace) {
        let tab = ws.selectedTab
        let text = ws.isBusy ? tab.flatMap { id in ws.tabs[id]?.progress.map { Self.text(tab: id, $0) } } ?? "" : ""
        guard text != shown else { return }
        shown = text
        write("\r\u{1b}[K" + text)
    }
}
