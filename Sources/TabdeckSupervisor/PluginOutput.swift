import Foundation
import TabdeckProtocol

/// What the reader threads do with the plugin's stdout and stderr lines.
extension PluginProcess {
    /// A stdout line: decoded here (on the reader thread), matched against the pending
    /// requests, and delivered; a malformed or over-long line is a protocol violation that
    /// kills the process group. An over-long line arrives here as soon as it crosses the limit
    /// (the reader stops reading there), so its byte count is what was read of it.
    func handleStdout(_ piece: LineSplitter.Piece) {
        state.lock()
        let ignore = violated || finished
        state.unlock()
        if ignore { return }

        let decoded: Result<Message, ViolationReason>
        switch piece {
        case .overlong(let byteCount):
            decoded = .failure(ViolationReason("line longer than the limit of \(settings.maxLineLength) bytes (cut off after \(byteCount) bytes)"))
        case .line(let bytes):
            if bytes.allSatisfy(isJSONWhitespace) { return }  // a stray blank line is harmless
            do {
                decoded = .success(try MessageCodec.decode(bytes))
            } catch {
                decoded = .failure(ViolationReason("malformed line: \(error.description)"))
            }
        }

        emitLock.lock()
        defer { emitLock.unlock() }
        state.lock()
        if violated || finished {
            state.unlock()
            return
        }
        switch decoded {
        case .failure(let reason):
            violated = true
            signalLocked(SIGKILL)
            state.unlock()
            emit(.protocolViolation(tab: spec.tab, reason: reason.text))
        case .success(let message):
            let deliver = admitLocked(message)
            state.unlock()
            switch deliver {
            case .deliver: emit(.message(tab: spec.tab, message))
            case .dropped:
                if case .response(let id, _) = message { onDroppedReply(id) }
                if case .failure(let id?, _) = message { onDroppedReply(id) }
            case .swallowed: break
            }
        }
    }

    /// Whether a message from the plugin is delivered; updates the pending requests.
    /// Caller holds `state`.
    private func admitLocked(_ message: Message) -> Admission {
        switch message {
        case .response(let id, _), .failure(let id?, _):
            if shutdownSent && id == Self.shutdownID { return .swallowed }
            // Without request tracking the sender's own ledger judges every answer.
            guard settings.tracksRequests else { return .deliver }
            if let entry = deadlines.answer(id) {
                // A late answer to a cancelled request settles it but is not delivered.
                return entry.cancel == nil ? .deliver : .dropped
            }
            return .dropped
        case .notification("progress", _), .notification("rows/chunk", _):
            // A chunk of a streamed `rows` answer is progress too (PROTOCOL.md section 5).
            deadlines.progress(now: settings.clock.now())
            return .deliver
        default:
            return .deliver
        }
    }

    /// A stderr line: logged with a timestamp and delivered as text, never parsed.
    func handleStderr(_ piece: LineSplitter.Piece, log: StderrLog?) {
        var bytes: [UInt8]
        switch piece {
        case .line(let line):
            bytes = line  // the splitter already removed a `\r` before the `\n`
        case .overlong(let byteCount):
            bytes = Array("[a stderr line of \(byteCount) bytes was left out]".utf8)
        }
        log?.append(bytes)
        let line = String(decoding: bytes, as: UTF8.self)
        emitLock.lock()
        defer { emitLock.unlock() }
        state.lock()
        let gone = finished
        state.unlock()
        if !gone {
            emit(.stderrLine(tab: spec.tab, line: line))
        }
    }

    func readerIsReading(_ reading: Bool, stdoutBytes: Int) {
        let now = settings.clock.now()
        state.lock()
        readersInRead += reading ? 1 : -1
        lastReadTransition = now
        stdoutBytesRead += stdoutBytes
        if leaderExited { state.broadcast() }  // the reaper watches for idle pipes
        state.unlock()
    }

    func readerEnded() {
        state.lock()
        readersRunning -= 1
        state.broadcast()
        state.unlock()
    }
}

/// Why a stdout line broke the protocol.
struct ViolationReason: Error {
    var text: String
    init(_ text: String) { self.text = text }
}

/// What happens to a message read from the plugin.
enum Admission {
    case deliver
    /// A reply whose id is not pending: counted, not delivered.
    case dropped
    /// The reply to the supervisor's own `shutdown`.
    case swallowed
}

private func isJSONWhitespace(_ byte: UInt8) -> Bool {
    byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A
}
