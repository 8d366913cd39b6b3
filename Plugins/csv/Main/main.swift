import Foundation

if CommandLine.arguments.count == 3 && CommandLine.arguments[1] == "--bench" {
    do { try Bench.run(path: CommandLine.arguments[2]) } catch { FileHandle.standardError.write("\(error)\n".data(using: .utf8)!); exit(1) }
    exit(0)
}
