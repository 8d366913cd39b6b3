import Foundation
import Logging
import Testing
import TabdeckProtocol
@testable import TabdeckSupervisor

/// The plugin log file stores plugin text with controls made visible (issue #10, point 6):
/// `cat` or `tail -f` of a log cannot drive the terminal.
@Suite(hangGuard) struct StderrLogTests {
    /// Bytes no log line may hold raw: C0 (the record's own `\n` aside), DEL, and the UTF-8 of
    /// C1 and bidi controls.
    static func unsafeScalars(_ line: String) -> [Unicode.Scalar] { line.unicodeScalars.filter(Sanitizer.isUnsafe) }

    @Test func controlsBidiAndBadUTF8AreStoredVisible() throws {
        let path = temporaryDirectory() + "/logs/t.log"
        let log = try StderrLog(path: path, rotation: .standard)
        let lines: [[UInt8]] = [
            Array("\u{1B}]0;pwned\u{07}title \u{1B}[31mred".utf8),
            Array("c1 \u{9B}2J bidi \u{202E}cod\u{2066}x\u{2069} del\u{7F} nul\u{0} cr\rend".utf8),
            [0x62, 0x61, 0x64, 0xFF, 0xC3, 0x20, 0x1B, 0x5B, 0x32, 0x4A],  // invalid UTF-8 and ESC [2J
            Array("plain ascii line".utf8),
        ]
        for line in lines { log.append(line) }
        log.closeFile()
        let stored = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map { String($0.dropFirst(25)) }
        #expect(stored == [
            "\\e]0;pwned\\x07title \\e[31mred",
            "c1 \\x9b2J bidi \\u202ecod\\u2066x\\u2069 del\\x7f nul\\x00 cr\\rend",
            "bad\\xff\\xc3 \\e[2J",
            "plain ascii line",
        ])
        for line in stored { #expect(Self.unsafeScalars(line).isEmpty) }
    }

    /// A log cannot fill a disk (issue 27, point 4): past its size it becomes `NAME.1`, the
    /// older ones move up to `files` and the oldest goes, with two writers on one path (the
    /// plugin's stderr and the host's own lines) rotating it once.
    @Test func logsAreRotatedAndCapped() throws {
        let path = temporaryDirectory() + "/logs/t.log"
        let rotation = LogRotation(maxBytes: 4096, files: 2)
        let stderr = try StderrLog(path: path, rotation: rotation)
        let host = try LogFileHandler(path: path, rotation: rotation)
        let line = Array(String(repeating: "x", count: 100).utf8)
        for n in 0..<500 {
            if n % 2 == 0 { stderr.append(line) } else { host.log(event: LogEvent(level: .info, message: "host line \(n)", metadata: nil, source: "t", file: "", function: "", line: 0)) }
        }
        stderr.closeFile(); host.close()
        let fm = FileManager.default
        #expect(fm.fileExists(atPath: path) && fm.fileExists(atPath: path + ".1") && fm.fileExists(atPath: path + ".2"))
        #expect(!fm.fileExists(atPath: path + ".3"), "only two older logs are kept")
        for file in [path, path + ".1", path + ".2"] {
            let size = try #require(fm.attributesOfItem(atPath: file)[.size] as? Int)
            #expect(size <= 4096, "\(file) is \(size) bytes")
            let text = try String(contentsOfFile: file, encoding: .utf8)
            #expect(text.split(separator: "\n").allSatisfy { $0.count > 25 }, "whole lines only in \(file)")
        }
        // The newest lines are in the current log.
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains("host line 499"))
    }

    @Test func aPluginsStderrReachesTheLogSafe() async throws {
        let folder = temporaryDirectory()
        let logFile = folder + "/logs/tab.log"
        let (supervisor, log) = makeSupervisor()
        try supervisor.start(pluginSpec("err", logFile: logFile))
        let lines = ["\u{1B}[2J\u{1B}[Hcleared", "osc \u{1B}]8;;http://x\u{1B}\\link", "rtl \u{202E}fdp.exe", "c1 \u{9B}31m"]
        try supervisor.send(request(2, "stderr", .array(lines.map { .string($0) })), to: "err")
        await log.wait { events in lines.allSatisfy { events.contains(.stderrLine(tab: "err", line: $0)) } }
        await supervisor.stopAllOffThePool(grace: .milliseconds(500))
        let written = try String(contentsOfFile: logFile, encoding: .utf8).split(separator: "\n").map { String($0.dropFirst(25)) }
        #expect(written == lines.map(Sanitizer.clean))
        for line in written { #expect(Self.unsafeScalars(line).isEmpty, "\(String(reflecting: line))") }
    }
}
