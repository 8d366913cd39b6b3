import Foundation
import Testing

/// `tabdeck --help` of the real binary (issue 13, point 4): the options people look for come
/// first, before the prose, the usage and the subcommands.
@Suite(.enabled(if: Bin.built, Comment(rawValue: Bin.missing)))
struct HelpTests {
    @Test func helpShowsSourcesThenTheOptionsFirst() throws {
        let run = try tool(Bin.tabdeck, ["--help"])
        #expect(run.status == 0, "\(run.out)")
        let lines = run.out.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let options = lines.compactMap { line -> String? in
            let t = line.trimmingCharacters(in: .whitespaces)
            return t.hasPrefix("-") ? String(t.prefix { $0 != " " }) : nil
        }
        #expect(Array(options.prefix(5)) == ["-e", "--commands", "--config", "--state-dir", "--line"], "\(run.out)")
        let synopsis = try #require(lines.firstIndex { $0.contains("tabdeck [OPTIONS] [SOURCE...]") })
        let firstOption = try #require(lines.firstIndex { $0.contains("--config <file>") })
        let usage = try #require(lines.firstIndex { $0.hasPrefix("USAGE:") })
        let subcommands = try #require(lines.firstIndex { $0.hasPrefix("SUBCOMMANDS:") })
        #expect(synopsis < firstOption && firstOption < usage && usage < subcommands)
        #expect(lines[usage].contains("tabdeck [OPTIONS] [SOURCE...]"), "\(lines[usage])")
        #expect(lines.allSatisfy { $0.count <= 80 }, "no option line wraps: \(run.out)")
    }

    @Test func theRunSubcommandStillParsesTheOptions() throws {
        let run = try tool(Bin.tabdeck, ["run", "--help"])
        #expect(run.status == 0)
        for option in ["--config <file>", "--state-dir <dir>", "--line", "--output <text|json>", "--trace <file>",
                       "-e <command>", "--commands <file>", "<source> ..."] {
            #expect(run.out.contains(option), "\(option) in \(run.out)")
        }
    }
}
