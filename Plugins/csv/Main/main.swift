import CSVTable
import Foundation
import TabdeckPluginKit

PhaseLog.record("main", start: PhaseLog.now(), cpu: PhaseLog.processCPU())

let arguments = CommandLine.arguments
if arguments.count >= 3 && arguments[1] == "--bench" {
    do { try Bench.run(path: arguments[2], only: Array(arguments.dropFirst(3))) } catch {
        FileHandle.standardError.write("\(error)\n".data(using: .utf8)!)
        exit(1)
    }
    exit(0)
}
if arguments.count == 3 && arguments[1] == "--floors" {
    do { try Floors.run(path: arguments[2]) } catch {
        FileHandle.standardError.write("\(error)\n".data(using: .utf8)!)
        exit(1)
    }
    exit(0)
}
if arguments.count == 2 && arguments[1] == "--version" {
    print("tabdeck-csv \(CSVPlugin.version) (protocol 1)")
    exit(0)
}
if arguments.count > 1 {
    FileHandle.standardError.write("""
        usage: tabdeck-csv                 speak the Tabdeck plugin protocol on stdin/stdout
               tabdeck-csv --bench FILE [STEP...]
                                           time the engine on FILE (only the sorts whose
                                           label contains a STEP, if given)
               tabdeck-csv --floors FILE   time the floors of the sort task's breakdown on FILE
               tabdeck-csv --version

        """.data(using: .utf8)!)
    exit(2)
}

enum CSVPlugin { static let version = "1.0.0" }

PluginRunner(name: "csv", version: CSVPlugin.version, dataSource: CSVSource(), workers: 3, clock: SystemClock()).run()
