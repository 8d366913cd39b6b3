import Foundation
import Testing
import TabdeckTime
import TabdeckProtocol
@testable import TabdeckConformance

/// The repository's root folder.
let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().path

/// A path inside the repository.
func inRepo(_ path: String) -> String { repo + "/" + path }

/// The built `tabdeck-csv` and `tabdeck`, if `swift build` made them.
let csvBinary = inRepo(".build/debug/tabdeck-csv")
let tabdeckBinary = inRepo(".build/debug/tabdeck")
let csvIsBuilt = FileManager.default.isExecutableFile(atPath: csvBinary)
let tabdeckIsBuilt = FileManager.default.isExecutableFile(atPath: tabdeckBinary)

/// Runs the checker on a plugin (from the repository folder).
func check(_ command: [String], args: JSONValue = [:], environment: [String: String] = [:],
           timeout: Duration = .seconds(10), tracePath: String? = nil) throws -> Report {
    let options = CheckOptions(command: command, args: args, timeout: timeout, environment: environment,
                               workingDirectory: repo, tracePath: tracePath, clock: SystemClock())
    return try PluginChecker(options: options).run()
}

/// A fresh temporary folder.
func temporaryFolder() -> String {
    let path = NSTemporaryDirectory() + "tabdeck-conformance-" + UUID().uuidString
    try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// Writes a file and returns its path.
@discardableResult
func write(_ text: String, to path: String) -> String {
    try! text.write(toFile: path, atomically: true, encoding: .utf8)
    return path
}

/// Runs a program to the end with `input` on stdin; its status, stdout and stderr.
func run(_ argv: [String], input: String = "", in directory: String = repo) throws -> (status: Int32, out: String, err: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: argv[0])
    process.arguments = Array(argv.dropFirst())
    process.currentDirectoryURL = URL(fileURLWithPath: directory)
    let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    stdin.fileHandleForWriting.write(Data(input.utf8))
    try stdin.fileHandleForWriting.close()
    let out = stdout.fileHandleForReading.readDataToEndOfFile()
    let err = stderr.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
}
