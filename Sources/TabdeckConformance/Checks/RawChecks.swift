import TabdeckProtocol

/// On a second process, over bare pipes: `errors: malformed line` (a line that is not JSON
/// and one that is JSON but not an object get -32700/-32600 or are ignored; the plugin does not
/// die and answers the next request) and `exit at end of input` (stdin closed without
/// `shutdown`: the plugin exits within 2 s).
enum RawChecks {
    static func run(_ ctx: CheckContext) {
        var channel: RawChannel?
        defer { channel?.kill() }
        ctx.check("errors: malformed line", needs: .handshake) { (f) throws(CheckAbort) in
            let o = ctx.options
            let raw: RawChannel
            do throws(RawChannelError) {
                raw = try RawChannel(command: o.command, environment: o.environment,
                                     workingDirectory: o.workingDirectory, clock: o.clock, tracer: ctx.tracer)
            } catch {
                throw CheckAbort(reason: "cannot start a second process: \(error.description)")
            }
            channel = raw
            ctx.tracer?.note("a second process, for malformed lines", tab: PluginSession.tab)
            raw.send(.request(id: .int(1), method: Method.initialize, params: InitializeParams(hostVersion: o.hostVersion).json))
            guard raw.answer(to: .int(1), before: o.clock.now() + o.handshakeTimeout.seconds).answer != nil else {
                throw CheckAbort(reason: "the second process did not answer initialize")
            }
            raw.writeLine(Array("{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"rows\",\"params\":{oops".utf8))
            raw.writeLine(Array("[1,2,3]".utf8))
            raw.send(.request(id: .int(3), method: "conformance/noSuchMethod", params: [:]))
            let (answer, others) = raw.answer(to: .int(3), before: o.clock.now() + o.timeout.seconds)
            var codes: [String] = []
            var misanswered: [String] = []
            var bad: [[UInt8]] = []
            for line in others {
                guard let message = try? MessageCodec.decode(line) else {
                    bad.append(line)
                    continue
                }
                switch message {
                case .failure(nil, let error):
                    codes.append(String(error.code))
                    if ![RPCError.parseError, RPCError.invalidRequest].contains(error.code) { misanswered.append(String(error.code)) }
                case .failure(let id?, let error):
                    codes.append("\(error.code) (id \(id))")
                    misanswered.append("\(error.code) (id \(id))")
                default: break
                }
            }
            guard answer != nil else {
                if let exit = raw.waitForExit(limit: .milliseconds(100)) {
                    throw CheckAbort(reason: "the plugin \(ctx.describe(exit)) after a malformed line (it must keep running)")
                }
                throw CheckAbort(reason: "after malformed lines, the next request got no answer within \(Report.formatDuration(o.timeout))")
            }
            if let first = bad.first {
                f.fail("wrote \(bad.count) line\(bad.count == 1 ? "" : "s") that \(bad.count == 1 ? "is" : "are") not a JSON message, e.g. \(MessageCodec.preview(first))")
            }
            if !misanswered.isEmpty {
                f.warn("answered a line it could not read with error \(misanswered.joined(separator: " and ")): "
                       + "PROTOCOL.md 3.4 asks for -32700 (a line that is not JSON) or -32600 with \"id\": null")
            }
            let reaction = codes.isEmpty ? "ignored both lines" : "answered error \(codes.joined(separator: " and "))"
            return bad.isEmpty ? "\(reaction); the next request was answered" : "wrote lines that are not JSON (the host would kill it)"
        }
        guard let raw = channel else {
            ctx.check("exit at end of input", needs: .handshake) { _ throws(CheckAbort) in
                throw CheckAbort(reason: "the second process did not start", skip: true)
            }
            return
        }
        ctx.check("exit at end of input", needs: .handshake) { (f) throws(CheckAbort) in
            if let exit = raw.exited() {
                throw CheckAbort(reason: "the second process had already \(ctx.describe(exit))", skip: true)
            }
            let closed = ctx.options.clock.now()
            raw.closeInput()
            guard let exit = raw.waitForExit(limit: ShutdownCheck.grace) else {
                throw CheckAbort(reason: "still running 2 s after stdin closed without shutdown (it must exit at end of input)")
            }
            let took = Report.formatDuration(ctx.options.clock.since(closed))
            if exit != .exited(0) { f.warn("\(ctx.describe(exit)) (status 0 is customary)") }
            return "stdin closed without shutdown: \(ctx.describe(exit)) within \(took)"
        }
    }
}
