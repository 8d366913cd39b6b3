/// When a lone Esc becomes a key of its own.
///
/// An Esc byte may start a key sequence (arrows, function keys), so the key decoder holds it
/// until more bytes come; if none come within ``wait`` of when it was **read**, it is the Esc
/// key. The deadline is fixed when the byte was read: events from plugins that come meanwhile
/// do not move it (they once did, and a chatty plugin kept Esc unresolved until the next key).
/// Times are ``Runtime/now()`` seconds.
struct EscapeTimer {
    /// How long a lone Esc waits for the rest of a sequence.
    static let wait = 0.03
    /// When the pending bytes resolve, nil when nothing is pending.
    private(set) var deadline: Double?
    /// The last lone Esc resolved: when it was read and when it was resolved (for tests).
    private(set) var lastResolved: (read: Double, resolved: Double)?

    /// After typed bytes were decoded: `leftPending` says whether the decoder holds bytes. The
    /// deadline starts with the first byte held and stays until nothing is held.
    mutating func input(leftPending: Bool, now: Double) {
        if !leftPending { deadline = nil } else if deadline == nil { deadline = now + Self.wait }
    }

    /// Whether the held bytes are due to be resolved.
    func isDue(now: Double) -> Bool { deadline.map { now >= $0 } ?? false }

    /// The held bytes were resolved as keys.
    mutating func resolved(at now: Double) {
        if let deadline { lastResolved = (deadline - Self.wait, now) }
        deadline = nil
    }
}
