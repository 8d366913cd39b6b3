import Foundation
import Testing

/// `tabdeck plugin new` (issue 27): each language's starter passes `tabdeck plugin check` as
/// written, its config.json opens it, and a bad name or an existing folder is refused.
@Suite(.serialized) struct PluginNewTests {
    /// The starter's command as its config.json has it (run from the starter's folder).
    func configCommand(_ folder: String) throws -> [String] {
        let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/config.json"))
        let document = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        let tab = (document?["tabs"] as? [[String: Any]])?.first
        return tab?["command"] as? [String] ?? []
    }

    @Test(arguments: ["python", "node", "sh"])
    func aStarterPassesTheCheckerAndShowsItsRows(lang: String) async throws {
        try #require(Bin.built, "\(Bin.missing)")
        let dir = TempDir()
        let made = try await tabdeck(["plugin", "new", "my-\(lang)", "--lang", lang], input: "", cwd: dir.path)
        #expect(made.status == 0, "\(made)")
        let folder = dir.path + "/my-\(lang)"
        #expect(made.out.contains("\"command\": ["), "the tab entry is printed: \(made)")
        #expect(made.out.contains(folder), "\(made)")
        let command = try configCommand(folder)
        try #require(!command.isEmpty, "config.json names the command")
        let check = try await tabdeck(["plugin", "check", "--"] + command, input: "", cwd: folder, timeout: 300)
        #expect(check.status == 0, "plugin check of the \(lang) starter:\n\(check)")
        #expect(check.out.contains(" 0 failed"), "\(check)")
        let shown = try await tabdeck(["--config", folder + "/config.json", "--state-dir", dir.state, "--line", "-e", "show 5"],
                                      input: "", cwd: dir.path)
        #expect(shown.status == 0, "\(shown)")
        #expect(shown.out.contains("apple") && shown.out.contains("rows 1–5 of 8"), "\(shown)")
    }

    @Test func aBadNameAnExistingFolderAndAnUnknownLanguageAreRefused() async throws {
        try #require(Bin.built, "\(Bin.missing)")
        let dir = TempDir()
        for bad in ["Bad", "a/b", "x!", "9lives", "_x", String(repeating: "a", count: 41)] {
            let refused = try await tabdeck(["plugin", "new", bad, "--lang", "sh"], input: "", cwd: dir.path)
            #expect(refused.status == 64 && refused.err.contains("bad plugin name"), "\(bad): \(refused)")
        }
        try FileManager.default.createDirectory(atPath: dir.file("taken"), withIntermediateDirectories: false)
        let taken = try await tabdeck(["plugin", "new", "taken", "--lang", "python"], input: "", cwd: dir.path)
        #expect(taken.status == 1 && taken.err.contains("already exists"), "\(taken)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.file("taken")).isEmpty, "nothing written into it")
        let ruby = try await tabdeck(["plugin", "new", "gem", "--lang", "ruby"], input: "", cwd: dir.path)
        #expect(ruby.status == 64 && ruby.err.contains("--lang must be one of"), "\(ruby)")
        let outside = try await tabdeck(["plugin", "new", "kit", "--lang", "swift"], input: "", cwd: dir.path)
        #expect(outside.status == 1 && outside.err.contains("inside"), "a Swift starter outside the checkout: \(outside)")
    }

    @Test func aSwiftStarterInsideTheCheckoutTypeChecksAgainstTheKit() async throws {
        try #require(Bin.built, "\(Bin.missing)")
        let parent = Bin.root + "/.build/plugin-new-test-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: parent) }
        let made = try await tabdeck(["plugin", "new", "kitty", "--lang", "swift", "--directory", parent], input: "", cwd: Bin.root)
        #expect(made.status == 0, "\(made)")
        #expect(made.out.contains(".executableTarget(name: \"kitty\""), "the Package.swift line is printed: \(made)")
        let modules = Bin.root + "/.build/debug/Modules"
        let swiftc = ["/usr/bin/swiftc", "/opt/swift/usr/bin/swiftc"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let swiftc, FileManager.default.fileExists(atPath: modules + "/TabdeckPluginKit.swiftmodule") else { return }
        let typecheck = try tool(swiftc, ["-typecheck", "-I", modules, parent + "/kitty/main.swift"])
        #expect(typecheck.status == 0, "main.swift type-checks: \(typecheck.out)")
    }
}
