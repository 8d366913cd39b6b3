import Foundation
import TabdeckProtocol
import TabdeckSupervisor

/// `shutdown`: the host's quit sequence. `shutdown` is answered with `null`, stdin is closed
/// right after it, and the plugin exits with status 0 within 2 s (the host sends SIGTERM then).
enum ShutdownCheck {
    static let grace: Duration = .seconds(2)

    static func run(_ ctx: CheckContext) {
        ctx.check("shutdown", needs: .process) { (f) throws(CheckAbort) in
            let session = ctx.session
            let id = RequestID.string("shutdown")
            if let reason = session.post(id: id, method: Method.shutdown, params: .null) {
                throw CheckAbort(reason: "could not send shutdown: \(reason)")
            }
            let closed = ctx.options.clock.now()
            session.supervisor.stop(PluginSession.tab, grace: grace)
            var answer = "no answer"
            switch session.wait(for: id, limit: ctx.options.timeout) {
            case .result(.null, _): answer = "answered null"
            case .result(let value, _):
                f.warn("shutdown answered \(OrderCheck.clip(JSONWriter.string(value), 40)), expected null")
                answer = "answered a result"
            case .error(let error, _):
                f.fail("shutdown answered error \(error.code): \(error.message) (it never fails: answer null)")
                answer = "answered an error"
            case .timedOut, .notSent:
                f.fail("shutdown was not answered")
            case .exited:
                f.fail("the plugin exited without answering shutdown")
            case .violation(let reason):
                f.fail("the plugin wrote a line the host cannot accept: \(reason)")
            case .misaddressed(let got):
                f.fail("shutdown (id \(id)) was answered with id \(got)\(CheckContext.idHint(sent: id, got: got)) (PROTOCOL.md 4.2)")
            }
            guard session.waitForExit(limit: grace * 2 + .seconds(3)), let exit = session.exitStatus else {
                throw CheckAbort(reason: "\(answer); the plugin did not exit, not even after SIGKILL")
            }
            let took = Duration.seconds((session.exitTime ?? ctx.options.clock.now()) - closed)
            let when = "within \(Report.formatDuration(took)) of stdin closing"
            switch exit {
            case .exited(0):
                if took > grace { f.fail("exited only after \(Report.formatDuration(took)) (at most 2 s; PROTOCOL.md 7.4)") }
                return "\(answer); exited with status 0 \(when)"
            case .exited(let code):
                f.fail("exited with status \(code), expected 0 (PROTOCOL.md 7.4)")
                return "\(answer); exited with status \(code) \(when)"
            case .signalled(let signal):
                let name = signal == SIGTERM ? "SIGTERM" : signal == SIGKILL ? "SIGKILL" : "signal \(signal)"
                f.fail("did not exit within 2 s after stdin closed: stopped by \(name)")
                return "\(answer); stopped by \(name) after \(Report.formatDuration(took))"
            }
        }
    }
}
