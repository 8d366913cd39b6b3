import Foundation
import Testing
import TabdeckProtocol
import TabdeckSupervisor
@testable import TabdeckConformance

/// Trace files hold what plugins sent, made safe to `cat` (issue #10, point 6): messages as
/// JSON whose C1 and bidi controls are `\uXXXX` escapes (the same value), notes and malformed
/// lines through the host's sanitizer.
@Suite struct TraceSanitizingTests {
    @Test func messagesAndNotesOfAHostilePluginAreTracedSafe() throws {
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let tracer = try ProtocolTracer(allTabsPath: folder + "/all.trace")
        let nasty = "\u{1B}]0;pwned\u{07} \u{9B}2J \u{202E}fdp.exe \u{2066}x\u{7F}"
        let message = Message.notification(method: "status", params: ["text": .string(nasty)])
        tracer.record(.message(tab: "t", message))
        tracer.record(.protocolViolation(tab: "t", reason: "malformed line: " + nasty))
        let lines = traceLines(folder + "/all.trace")
        #expect(lines.count == 2)
        for line in lines {
            #expect(!line.text.unicodeScalars.contains(where: Sanitizer.isUnsafe), "\(String(reflecting: line.text))")
        }
        #expect(try MessageCodec.decode(Array(lines[0].text.utf8)) == message)
        #expect(lines[1].text == "protocol violation: malformed line: " + Sanitizer.clean(nasty))
    }
}
