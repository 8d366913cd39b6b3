import TabdeckCore
import TabdeckProtocol

/// The status line's word on the running job: a progress bar with the count and the rate when
/// the plugin (or the host) counts, a spinner and the time taken in any case, and how to stop it:
/// `⠹ export all.csv ████░░░░░░ 42% 4,200/10,000 · 1,400/s · 3.0 s · Esc cancels`.
enum JobLine {
    /// The spinner's frames, one per ``frameTime`` seconds of the job.
    static let spinner = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
    static let frameTime = 0.1
    static let barWidth = 10

    static func text(_ p: JobProgress) -> String {
        let frame = spinner[Int((p.elapsed / frameTime).rounded(.down)) % spinner.count]
        var head = frame + " " + p.job.title
        var parts: [String] = []
        if let c = p.count {
            if let total = c.total, total > 0 {
                let fraction = min(1, max(0, c.done / total))
                head += " " + bar(fraction) + " \(Int(fraction * 100))% \(formatCount(Int(c.done)))/\(formatCount(Int(total)))"
            } else {
                head += " " + formatCount(Int(c.done))
            }
            if let rate = p.rate { parts.append(formatCount(Int(rate.rounded())) + "/s") }
        }
        if let message = p.reported?.message, !message.isEmpty { parts.append(Sanitizer.clean(message)) }
        parts.append(seconds(p.elapsed))
        parts.append("Esc cancels")
        return ([head] + parts).joined(separator: StatusLine.separator)
    }

    /// `████░░░░░░` for 0.4.
    static func bar(_ fraction: Double) -> String {
        let filled = Int(fraction * Double(barWidth))
        return String(repeating: "█", count: filled) + String(repeating: "░", count: barWidth - filled)
    }

    /// `3.2 s`, `1 min 05 s`.
    static func seconds(_ s: Double) -> String {
        let tenths = Int((s * 10).rounded(.down))
        if tenths < 600 { return "\(tenths / 10).\(tenths % 10) s" }
        let whole = tenths / 10
        return "\(whole / 60) min \(whole % 60 < 10 ? "0" : "")\(whole % 60) s"
    }
}
