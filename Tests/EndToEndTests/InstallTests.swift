import Foundation
import Testing

/// `Scripts/install` puts a tabdeck that finds its own plugins: run from a folder that has
/// nothing of Tabdeck's, it opens a CSV there with the plugins of the install.
@Suite(.enabled(if: Bin.built, Comment(rawValue: Bin.missing)))
struct InstallTests {
    let dir = TempDir()

    @Test func anInstalledTabdeckOpensACSVFromAnotherFolder() async throws {
        let prefix = dir.file("prefix")
        // The binaries of this build (a release build takes as long again), installed as a release would be.
        let install = try tool(Bin.root + "/Scripts/install", ["--from", Bin.root + "/.build/debug", prefix])
        #expect(install.status == 0, "\(install.out)")
        let installed = prefix + "/bin/tabdeck"
        #expect(FileManager.default.isExecutableFile(atPath: installed))
        #expect(FileManager.default.isExecutableFile(atPath: prefix + "/lib/tabdeck/Plugins/csv/tabdeck-csv"))
        #expect(!FileManager.default.fileExists(atPath: prefix + "/lib/tabdeck/Plugins/csv/CSVTable"), "no Swift sources")

        let work = dir.file("elsewhere")
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        try "city,people\nOslo,709000\nLima,9750000\n".write(toFile: work + "/cities.csv", atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: installed)
        process.arguments = ["cities.csv", "-e", "sort people desc", "-e", "show 1", "--state-dir", dir.file("state")]
        process.currentDirectoryURL = URL(fileURLWithPath: work)
        // Nothing points at the repository: no config, no bin folder of a build; and the folders
        // above the install hold no Plugins/ either, so only the install's own can serve the tab.
        var env = childEnvironment(["HOME": dir.path, "XDG_CONFIG_HOME": dir.file("xdg")])
        env["TABDECK_BIN_DIR"] = nil
        process.environment = env
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let output = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errors = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(output)\n\(errors)")
        #expect(output.contains("Lima"), "\(output)")
        #expect(!output.contains("Oslo"), "one row, the biggest: \(output)")
    }
}
