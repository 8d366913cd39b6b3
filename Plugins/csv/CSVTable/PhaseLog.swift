#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The engine's own phase timings, for the bench's breakdown of the sort task (issue 28,
/// `Scripts/bench --only breakdown`). Off unless the environment variable
/// `TABDECK_CSV_PHASES` names a file; then every phase appends one JSON line to it:
///
///     {"phase":"index","start":1764357000.123456,"end":1764357000.612345,"cpu":0.401,"rows":10000000}
///
/// `start` and `end` are wall-clock seconds since the epoch (`CLOCK_REALTIME`, the clock of the
/// host's trace and of the bench), `cpu` the CPU seconds of the threads doing the phase (its
/// own thread's, or the process's when the phase runs on several threads: see each caller).
/// One `write(2)` per line on a file opened with `O_APPEND`, so lines of threads never mix.
public enum PhaseLog {
    /// The log's file descriptor, or -1 when phase timings are off.
    nonisolated(unsafe) private static let fd: Int32 = {
        guard let path = getenv("TABDECK_CSV_PHASES"), path[0] != 0 else { return -1 }
        return open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
    }()

    /// Whether phases are logged.
    public static var enabled: Bool { fd >= 0 }

    /// Wall-clock seconds since the epoch.
    public static func now() -> Double { seconds(CLOCK_REALTIME) }

    /// CPU seconds of the calling thread.
    public static func threadCPU() -> Double { seconds(CLOCK_THREAD_CPUTIME_ID) }

    /// CPU seconds of the whole process (every thread).
    public static func processCPU() -> Double { seconds(CLOCK_PROCESS_CPUTIME_ID) }

    private static func seconds(_ clock: clockid_t) -> Double {
        var ts = timespec()
        clock_gettime(clock, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// Appends one phase: from `start` (``now()``) to now, `cpu` seconds of CPU, and any
    /// `extra` numbers (rows, column).
    public static func record(_ phase: String, start: Double, cpu: Double, extra: [String: Int] = [:]) {
        guard fd >= 0 else { return }
        var line = "{\"phase\":\"\(phase)\",\"start\":\(fixed(start)),\"end\":\(fixed(now())),\"cpu\":\(fixed(cpu))"
        for (k, v) in extra.sorted(by: { $0.key < $1.key }) { line += ",\"\(k)\":\(v)" }
        line += "}\n"
        var bytes = Array(line.utf8)
        _ = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress, $0.count) }
    }

    /// Runs `body` as the phase `phase`, timed by the wall clock and the calling thread's CPU.
    public static func measure<T>(_ phase: String, extra: [String: Int] = [:], _ body: () throws -> T) rethrows -> T {
        guard fd >= 0 else { return try body() }
        let start = now(), cpu = threadCPU()
        let value = try body()
        record(phase, start: start, cpu: threadCPU() - cpu, extra: extra)
        return value
    }

    /// Seconds with 6 decimals (microseconds), as JSON.
    private static func fixed(_ v: Double) -> String {
        let micros = Int64((v * 1e6).rounded())
        let sign = micros < 0 ? "-" : ""
        let m = abs(micros)
        let frac = String(m % 1_000_000)
        return sign + String(m / 1_000_000) + "." + String(repeating: "0", count: 6 - frac.count) + frac
    }
}
