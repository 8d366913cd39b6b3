import TabdeckCore
import TabdeckProtocol

/// The status line's word on the running job: a progress bar with the count and the rate when
/// the plugin (or the host) counts, a spinner and the time taken in any case, and how to stop it:
/// `⠹ export all.csv ████░░░░░░ 42% 4,200/10,000 · 1,400/s · 3.0 s · Esc cancels` (the
/// plugin's message, when it sends one, after the time).
enum JobLine {
    /// The spinner's frames, one per ``frameTime`` seconds of the job.
    static let spinner = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
    static let frameTime = 0.1
    static let barWidth = 10

    /// The job's text for a status line `width` cells wide (narrower than 80: a shorter bar).
    static func text(_ p: JobProgress, width: Int = 80) -> String {
        // (A tick's time is a sum of floats: 100.3 - 100 is 0.29999…; a millionth of slack.)
        let frame = spinner[Int((p.elapsed / frameTime + 1e-6).rounded(.down)) % spinner.count]
        // Narrow, a long title (an export's path) leaves room for the count.
        var head = frame + " " + (width < 80 ? TextFit.cut(p.job.title, 16).text : p.job.title)
        var parts: [String] = []
        if let c = p.count {
            if let total = c.total, total > 0 {
                let fraction = min(1, max(0, c.done / total))
                head += " " + bar(fraction, cells: width < 80 ? barWidth / 2 : barWidth)
                    + " \(Int(fraction * 100))% \(formatCount(Int(c.done)))/\(formatCount(Int(total)))"
            } else {
                head += " " + formatCount(Int(c.done))
            }
            if let rate = p.rate { parts.append(formatCount(Int(rate.rounded())) + "/s") }
        }
        parts.append(seconds(p.elapsed))
        if let message = p.reported?.message, !message.isEmpty { parts.append(Sanitizer.clean(message)) }
        parts.append("Esc cancels")
        return ([head] + parts).joined(separator: StatusLine.separator)
    }

    /// `████░░░░░░` for 0.4 in 10 cells.
    static func bar(_ fraction: Double, cells: Int) -> String {
        let filled = Int(fraction * Double(cells))
        return String(repeating: "█", count: filled) + String(repeating: "░", count: cells - filled)
    }

    /// `3.2 s`, `1 min 05 s`.
    static func seconds(_ s: Double) -> String {
        let tenths = Int((s * 10 + 1e-6).rounded(.down))
        if tenths < 600 { return "\(tenths / 10).\(tenths % 10) s" }
        let whole = tenths / 10
        return "\(whole / 60) min \(whole % 60 < 10 ? "0" : "")\(whole % 60) s"
    }
}
