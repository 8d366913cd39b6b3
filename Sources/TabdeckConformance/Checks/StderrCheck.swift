/// A plugin's stderr is its log (PROTOCOL.md 3.3). The host keeps it within bounds (rotated),
/// but a flood still costs it CPU and disk: more than ``limit`` bytes during the whole check is
/// a warning with the figures. The check's own line says how much there was in any case.
enum StderrCheck {
    /// Bytes of stderr during a check that draw a warning.
    static let limit = 1 << 20

    static func run(_ ctx: CheckContext) {
        ctx.check("stderr: volume", needs: .handshake) { (f) throws(CheckAbort) in
            let (bytes, lines) = ctx.session.stderrVolume
            if bytes > limit {
                f.warn("the plugin wrote \(Report.formatBytes(bytes)) to stderr in \(lines) lines during the check: "
                       + "its log (PROTOCOL.md 3.3) should say what a person needs, not every step")
            }
            return "\(lines) lines, \(Report.formatBytes(bytes))"
        }
    }
}
