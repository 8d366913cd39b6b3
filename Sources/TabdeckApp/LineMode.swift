import Foundation

/// Line mode: one command per line from a reader, results on stdout, errors on stderr.
public enum LineMode {
    /// Runs commands from `nextLine` until it returns nil or `quit`; returns the exit status
    /// (1 if any command failed).
    public static func run(_ runtime: Runtime, nextLine: () -> String?) -> Int32 {
        runtime.launch()
        while !runtime.quitRequested, let line = nextLine() {
            runtime.run(line)
        }
        runtime.shutdown()
        return runtime.failures > 0 ? 1 : 0
    }
}
