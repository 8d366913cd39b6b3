import TabdeckProtocol
import TabdeckSupervisor

/// `handshake`: the process starts, answers `initialize` within the handshake timeout with
/// protocol version 1 and well-formed capabilities (unknown ones are ignored); one slower than
/// ``slow`` is a warning.
enum HandshakeCheck {
    /// An answer to `initialize` slower than this is a warning (with the figure).
    static let slow = Duration.seconds(2)

    static func run(_ ctx: CheckContext) {
        ctx.check("handshake", needs: .process) { (f) throws(CheckAbort) in
            let o = ctx.options
            do throws(SupervisorError) {
                try ctx.session.start(command: o.command, environment: o.environment, workingDirectory: o.workingDirectory)
            } catch {
                ctx.startFailure = "the plugin did not start"
                throw CheckAbort(reason: "cannot start the plugin: \(error.description)")
            }
            let params = InitializeParams(hostVersion: o.hostVersion).json
            let value: JSONValue
            let asked = o.clock.now()
            switch try ctx.call(Method.initialize, params) {
            case .success(let v): value = v
            case .failure(let error):
                throw CheckAbort(reason: "initialize answered error \(error.code): \(error.message)")
            }
            let took = o.clock.since(asked)
            if took > slow {
                f.warn("initialize was answered after \(Report.formatDuration(took)) (the handshake timeout is \(Report.formatDuration(o.handshakeTimeout))): "
                       + "the tab shows nothing until then; load expensive things later, lazily or with progress (PROTOCOL.md 7.1)")
            }
            let parsed = Validate.initializeResult(value, into: &f)
            ctx.identity = parsed ?? (try? InitializeResult(value))
            if let parsed {
                ctx.capabilities = parsed.capabilities
                ctx.handshakeOK = true
            }
            guard let id = ctx.identity else { return "the initialize result is not usable" }
            return "\(id.name) \(id.version), protocol \(id.protocolVersion)"
        }
    }
}
