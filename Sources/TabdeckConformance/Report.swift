import Foundation
import TabdeckProtocol

/// The outcome of one check.
public enum CheckStatus: String, Sendable, Equatable {
    case passed, failed, warning, skipped

    /// The mark in front of the check's line.
    public var symbol: String {
        switch self {
        case .passed: "✓"
        case .failed: "✗"
        case .warning: "!"
        case .skipped: "-"
        }
    }
}

/// One line of the report: a check, how it went, and how long it took.
public struct CheckResult: Sendable, Equatable {
    /// The check's name, e.g. `paging: first page` or `sort: age desc`.
    public var name: String
    public var status: CheckStatus
    /// One line saying what was seen (or why it failed).
    public var summary: String
    /// More lines: every failure and warning, stderr of a crashed plugin, ...
    public var notes: [String]
    /// Wall-clock time of the check.
    public var duration: Duration
    /// The slowest answer to a request of this check, if it sent any.
    public var slowestAnswer: Duration?

    public init(name: String, status: CheckStatus, summary: String, notes: [String] = [],
                duration: Duration = .zero, slowestAnswer: Duration? = nil) {
        self.name = name; self.status = status; self.summary = summary; self.notes = notes
        self.duration = duration; self.slowestAnswer = slowestAnswer
    }
}

/// What the plugin said about itself in `initialize`.
public struct PluginIdentity: Sendable, Equatable {
    public var name: String
    public var version: String
    public var protocolVersion: Int
    public var capabilities: [String]
}

/// The whole report of one conformance run.
public struct Report: Sendable, Equatable {
    public var command: [String]
    public var plugin: PluginIdentity?
    public var results: [CheckResult]

    public init(command: [String], plugin: PluginIdentity? = nil, results: [CheckResult] = []) {
        self.command = command; self.plugin = plugin; self.results = results
    }

    public var passed: Int { results.count { $0.status == .passed } }
    public var failed: Int { results.count { $0.status == .failed } }
    public var warnings: Int { results.count { $0.status == .warning } }
    public var skipped: Int { results.count { $0.status == .skipped } }

    /// The plugin conforms: at least one check ran and none failed (warnings are allowed).
    public var conforms: Bool { failed == 0 && passed + warnings > 0 }

    /// The result of the check with this name.
    public func result(_ name: String) -> CheckResult? { results.first { $0.name == name } }

    /// `N passed, N failed`, followed by `, N warnings` when there are any.
    public var summaryLine: String {
        var line = "\(passed) passed, \(failed) failed"
        if warnings > 0 { line += ", \(warnings) warnings" }
        return line
    }

    /// `(3 checks did not run)`.
    public var skippedLine: String { "(\(skipped) check\(skipped == 1 ? "" : "s") did not run)" }

    /// The readable report: a header, one line per check (notes indented below it), the
    /// number of checks that did not run, and the summary line last.
    public var text: String {
        var lines = ["tabdeck plugin check: \(Report.shellWords(command))"]
        if let plugin {
            let caps = plugin.capabilities.isEmpty ? "none" : plugin.capabilities.joined(separator: " ")
            lines.append("plugin \(Sanitizer.clean(plugin.name)) \(Sanitizer.clean(plugin.version)), protocol \(plugin.protocolVersion), capabilities: \(caps)")
        }
        let width = min(36, results.map(\.name.count).max() ?? 0)
        for result in results { lines.append(contentsOf: Report.lines(for: result, nameWidth: width)) }
        if skipped > 0 { lines.append(skippedLine) }
        lines.append(summaryLine)
        return lines.joined(separator: "\n")
    }

    /// The line (and indented notes) of one check: `✓ name  12 ms  summary`.
    public static func lines(for result: CheckResult, nameWidth: Int = 0) -> [String] {
        let name = result.name.padding(toLength: max(nameWidth, result.name.count), withPad: " ", startingAt: 0)
        let time = result.status == .skipped ? "" : formatDuration(result.duration)
        let timeColumn = time.padding(toLength: max(8, time.count), withPad: " ", startingAt: 0)
        // Summaries and notes quote what the plugin sent: shown with controls escaped.
        var first = "\(result.status.symbol) \(name)  \(timeColumn)  \(Sanitizer.clean(result.summary))"
        while first.hasSuffix(" ") { first.removeLast() }
        return [first] + result.notes.map { "    " + Sanitizer.clean($0) }
    }

    /// The machine-readable report.
    public var json: JSONValue {
        var o: JSONObject = ["command": .array(command.map { .string($0) }), "conforms": .bool(conforms)]
        if let plugin {
            o["plugin"] = ["name": .string(plugin.name), "version": .string(plugin.version),
                           "protocolVersion": .int(Int64(plugin.protocolVersion)),
                           "capabilities": .array(plugin.capabilities.map { .string($0) })]
        }
        o["passed"] = .int(Int64(passed))
        o["failed"] = .int(Int64(failed))
        o["warnings"] = .int(Int64(warnings))
        o["skipped"] = .int(Int64(skipped))
        o["checks"] = .array(results.map { r in
            var c: JSONObject = ["name": .string(r.name), "status": .string(r.status.rawValue),
                                 "ms": .double(Report.milliseconds(r.duration)), "summary": .string(r.summary)]
            if let slowest = r.slowestAnswer { c["slowestAnswerMs"] = .double(Report.milliseconds(slowest)) }
            if !r.notes.isEmpty { c["notes"] = .array(r.notes.map { .string($0) }) }
            return .object(c)
        })
        return .object(o)
    }

    /// `0.4 ms`, `12 ms`, `1.25 s`.
    public static func formatDuration(_ d: Duration) -> String {
        let ms = milliseconds(d)
        if ms < 1 { return String(format: "%.1f ms", ms) }
        if ms < 1000 { return "\(Int(ms.rounded())) ms" }
        return String(format: "%.2f s", ms / 1000)
    }

    /// `512 B`, `12.3 KiB`, `4.0 MiB`.
    static func formatBytes(_ n: Int) -> String {
        if n < 1024 { return "\(n) B" }
        if n < 1 << 20 { return String(format: "%.1f KiB", Double(n) / 1024) }
        return String(format: "%.1f MiB", Double(n) / Double(1 << 20))
    }

    static func milliseconds(_ d: Duration) -> Double {
        let c = d.components
        return (Double(c.seconds) * 1000 + Double(c.attoseconds) / 1e15).rounded(toPlaces: 3)
    }

    /// The command as a shell would show it (words with spaces or quotes are quoted).
    static func shellWords(_ words: [String]) -> String {
        words.map { w in
            if !w.isEmpty && w.unicodeScalars.allSatisfy({ $0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_./=:,+@%".unicodeScalars.contains($0) }) { return w }
            return "'" + w.replacingScalar("'", with: "'\\''") + "'"
        }.joined(separator: " ")
    }
}

extension Double {
    func rounded(toPlaces places: Int) -> Double {
        let factor = pow(10, Double(places))
        return (self * factor).rounded() / factor
    }
}
