import Foundation
import TabdeckPluginKit

/// tabdeck-pipe: a table from a stream (`cmd | tabdeck`): CSV, TSV, JSON lines or columns
/// aligned with spaces, read as it arrives. Args: `fd` (a descriptor the host handed over) or
/// `path` (a file or FIFO), and an optional `title`.
if CommandLine.arguments.count == 2 && CommandLine.arguments[1] == "--version" {
    print("tabdeck-pipe 1.0.0 (protocol 1)")
    exit(0)
}
PluginRunner(name: "pipe", version: "1.0.0", dataSource: PipeSource(), workers: 2, clock: SystemClock()).run()
