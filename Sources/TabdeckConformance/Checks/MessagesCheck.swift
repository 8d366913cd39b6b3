import TabdeckProtocol

/// `messages`: everything the plugin sent besides answers: notifications with valid params
/// (unknown ones are warned about: the host ignores them), no requests, no replies to ids that
/// were not pending (never sent, or answered twice).
enum MessagesCheck {
    static func run(_ ctx: CheckContext) {
        ctx.check("messages", needs: .handshake) { (f) throws(CheckAbort) in
            let received = ctx.session.received
            var counts: [String: Int] = [:]
            var problems = Set<String>()
            for (method, params) in received.notifications {
                counts[method, default: 0] += 1
                if !Validate.pluginNotifications.contains(method) {
                    if problems.insert("unknown \(method)").inserted {
                        f.warn("unknown notification \(method) (the host ignores it)")
                    }
                } else if let problem = Validate.notification(method, params), problems.insert(problem).inserted {
                    f.fail(problem + " (PROTOCOL.md \(Validate.notificationSection[method] ?? "12"))")
                }
                if method == Method.badge, params["value"] == "!", problems.insert("badge !").inserted {
                    f.warn("badge \"!\": the host uses it for failed plugins")
                }
            }
            for method in Set(received.requests).sorted() {
                f.fail("the plugin sent a request (\(method)); plugins send none in protocol 1")
            }
            for error in received.nullIDErrors.prefix(3) {
                f.warn("an error response with id null (\(error.code): \(OrderCheck.clip(error.message, 60))) though every line sent was valid")
            }
            let unexpected = ctx.session.droppedReplies - ctx.expectedDrops
            if unexpected > 0 {
                f.fail("\(unexpected) repl\(unexpected == 1 ? "y" : "ies") to request ids that were not pending (never sent, timed out, or answered twice)")
            }
            let list = counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            return list.isEmpty ? "no notifications" : "notifications: " + list.joined(separator: ", ")
        }
    }
}
