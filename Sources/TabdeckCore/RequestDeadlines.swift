import TabdeckProtocol

extension Workspace {
    /// Gives up the requests whose deadline passed on the core's clock (``PendingRequests``).
    /// A request still running at its tab's `requestLimit` (progress kept it alive) fails as if
    /// the plugin had answered with an error, and gets `$/cancel`: the plugin is stopped only if
    /// it then ignores the cancel. A plugin that answered nothing in time, or ignored a cancel
    /// for the grace, is stopped, and the reason becomes the tab's error once its process is gone.
    mutating func expireRequests(_ effects: inout [Effect]) {
        guard let earliest = pending.earliest, earliest <= now else { return }
        for (tab, request) in pending.overLimit(now: now, grace: settings.cancelGrace) {
            guard case .limitReached(let seconds) = request.expiry, tabs[tab] != nil, !tabs[tab]!.terminating else { continue }
            let message = "plugin did not finish \"\(request.method)\" (request \(request.id)) within \(Self.durationText(seconds)); cancelled"
            effects.append(.log(tab: tab, "tabdeck: request \(request.id) (\(request.method)) reached the request limit; cancelling it"))
            effects.append(.send(tab: tab, .notification(method: Method.cancel, params: ["id": request.id.json])))
            tabs[tab]!.progress = nil  // the plugin's report was about the work given up
            reply(PendingRequest(tab: tab, purpose: request.purpose), id: request.id, .error(message), &effects)
        }
        for (tab, request) in pending.expire(now: now) {
            guard tabs[tab] != nil, !tabs[tab]!.terminating else { continue }
            let reason: String
            switch request.expiry {
            case .timedOut(let seconds):
                reason = "plugin did not answer \"\(request.method)\" (request \(request.id)) within \(Self.secondsText(seconds)); it was stopped"
                effects.append(.log(tab: tab, "tabdeck: request \(request.id) (\(request.method)) timed out; killing the plugin"))
            case .cancelIgnored(let seconds):
                reason = "plugin ignored the cancel of \"\(request.method)\" (request \(request.id)) for \(Self.secondsText(seconds)); it was stopped"
                effects.append(.log(tab: tab, "tabdeck: request \(request.id) (\(request.method)) was cancelled and never ended; killing the plugin"))
            case .limitReached:
                continue  // never: ``PendingRequests/overLimit(now:grace:)`` took them above
            }
            tabs[tab]!.exitReason = reason
            tabs[tab]!.terminating = true
            noteLostRequest(tab, request.purpose)
            effects.append(.killPlugin(tab: tab))
        }
    }

    /// Asks the runtime to wake the core when the earliest request deadline comes, unless an
    /// earlier wake-up is already on its way (the runtime keeps the earliest one asked for; a
    /// `.wake` forgets what was asked, see ``update(_:now:)``).
    mutating func scheduleRequestWake(_ effects: inout [Effect]) {
        if let asked = requestWake, asked <= now { requestWake = nil }
        guard let earliest = pending.earliest else { return }
        if let asked = requestWake, asked <= earliest { return }
        requestWake = earliest
        effects.append(.wake(at: earliest))
    }

    /// A long duration as people read it: whole minutes as `30 min`, others as `90 s`.
    static func durationText(_ seconds: Double) -> String {
        seconds >= 60 && seconds.truncatingRemainder(dividingBy: 60) == 0 && seconds < 1e15
            ? "\(Int64(seconds / 60)) min" : secondsText(seconds)
    }

    /// A duration as people read it: `10 s`, `1.5 s`.
    static func secondsText(_ seconds: Double) -> String {
        seconds == seconds.rounded() && abs(seconds) < 1e15 ? "\(Int64(seconds)) s" : "\(String(format2: seconds)) s"
    }
}
