import Foundation

/// Line mode: one command per line from a reader, results on stdout, errors on stderr.
public enum LineMode {
    /// Runs commands from `nextLine` until it returns nil or `quit`, or stdout's reader goes
    /// away; returns the exit status (1 if any command failed, or stdout was gone).
    /// SIGINT stops the running command; SIGTERM, SIGHUP and SIGINT between commands quit
    /// (`prompt`: at the readline prompt Ctrl-C only empties the line).
    ///
    /// `wholeTables`: the commands start once every stream has ended (scripts: `-e`,
    /// `--commands`, and the first page printed without a terminal).
    public static func run(_ runtime: Runtime, prompt: Bool = false, wholeTables: Bool = false, nextLine: () -> String?) -> Int32 {
        let signals = SignalWatch(queue: runtime.queue)
        defer { signals.cancel() }
        runtime.launch()
        if wholeTables { runtime.waitForStreams() }
        nonisolated(unsafe) let blocked = runtime
        let quit: @Sendable (Int32) -> Void = { _ in
            // The main thread is blocked reading: every change is committed already.
            blocked.shutdown()
            exit(blocked.failures > 0 ? 1 : 0)
        }
        // A signal queued between commands (after one command's events were taken) ends the
        // session before the next read, as one that comes during the read does.
        let settle = { runtime.takeQueuedEvents(interruptQuits: !prompt); return !runtime.quitRequested }
        while !runtime.quitRequested, !runtime.outputGone,
              let line = signals.whileReading(ignoresInterrupt: prompt, quit: quit, settle: settle, nextLine) {
            runtime.run(line)
        }
        runtime.shutdown()
        return runtime.failures > 0 || runtime.outputGone ? 1 : 0
    }
}
