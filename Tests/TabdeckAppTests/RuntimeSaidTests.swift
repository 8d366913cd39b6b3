import Testing
import TabdeckTime
@testable import TabdeckApp

/// What the runtime says reaches the full screen as data it takes (``Runtime/takeSaid()``), in
/// order, not through callbacks the screen rebinds; line mode prints it at once.
@Suite struct RuntimeSaidTests {
    func runtime(_ dir: TempDir) throws -> Runtime {
        let config = try writeConfig(dir, [TabSpec(id: "a", command: ["true"])])
        return try Runtime(configPath: config, stateDirectory: dir.file("state"), clock: ManualClock())
    }

    @Test func theFullScreenTakesResultsAndErrorsInOrder() throws {
        let dir = TempDir()
        let runtime = try runtime(dir)
        defer { runtime.shutdown() }
        var printed: [String] = []
        runtime.write = { printed.append($0) }
        runtime.writeError = { printed.append($0) }
        runtime.keepsSaid = true
        runtime.submit("tabs")
        runtime.submit("nosuchcommand")
        #expect(runtime.say(.clipboard([0x1b])), "kept clipboard bytes reach the screen's terminal")
        let said = runtime.takeSaid()
        #expect(printed.isEmpty, "nothing printed behind the full screen: \(printed)")
        #expect(said.count == 3, "\(said)")
        guard said.count == 3, case .output(let tabs) = said[0], case .error(let error) = said[1] else { return }
        #expect(tabs.contains("a"))
        #expect(error.hasPrefix("error: ") && error.contains("nosuchcommand"), "\(error)")
        #expect(said[2] == .clipboard([0x1b]))
        #expect(runtime.takeSaid().isEmpty, "taken once")
    }

    @Test func lineModePrintsAtOnce() throws {
        let dir = TempDir()
        let runtime = try runtime(dir)
        defer { runtime.shutdown() }
        var out: [String] = [], err: [String] = []
        runtime.write = { out.append($0) }
        runtime.writeError = { err.append($0) }
        runtime.submit("tabs")
        runtime.submit("nosuchcommand")
        #expect(out.count == 1 && err.count == 1, "\(out) \(err)")
        #expect(runtime.takeSaid().isEmpty)
    }
}
