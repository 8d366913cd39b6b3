import Foundation
import Testing
@testable import TabdeckConformance

/// The documentation holds what it promises: the quickstart's plugin passes the checker, every
/// relative link (and its anchor) resolves, and ARCHITECTURE.md lists the package's targets and
/// their dependencies as Package.swift declares them.
@Suite struct DocsTests {
    // MARK: Quickstart

    /// The first ```sh block of docs/QUICKSTART.md.
    static func quickstartPlugin() throws -> String {
        let text = try String(contentsOfFile: inRepo("docs/QUICKSTART.md"), encoding: .utf8)
        let lines = text.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex(of: "```sh"))
        let end = try #require(lines[(start + 1)...].firstIndex(of: "```"))
        return lines[(start + 1)..<end].joined(separator: "\n") + "\n"
    }

    @Test func theQuickstartPluginIsShortAndPassesTheChecker() throws {
        let source = try Self.quickstartPlugin()
        #expect(source.components(separatedBy: "\n").count - 1 < 40, "the quickstart promises under 40 lines")
        let folder = temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = write(source, to: folder + "/squares.sh")
        let report = try check(["sh", path])
        #expect(report.conforms, "\(report.text)")
        #expect(report.failed == 0 && report.warnings == 0, "\(report.text)")
        #expect(report.result("paging: last page")?.status == .passed, "\(report.text)")
    }

    // MARK: Links

    /// Markdown files whose links are checked.
    static func markdownFiles() throws -> [String] {
        let docs = try FileManager.default.contentsOfDirectory(atPath: inRepo("docs")).filter { $0.hasSuffix(".md") }
        return ["README.md"] + docs.sorted().map { "docs/" + $0 }
    }

    /// `[text](target)` links outside code blocks and code spans.
    static func links(in text: String) -> [String] {
        var out: [String] = []
        var inFence = false
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("```") { inFence.toggle(); continue }
            if inFence { continue }
            // Drop code spans: a link inside backticks is an example, not a link.
            let parts = line.components(separatedBy: "`")
            let prose = parts.enumerated().filter { $0.offset % 2 == 0 }.map(\.element).joined(separator: " ")
            var rest = Substring(prose)
            while let open = rest.range(of: "](") {
                let after = rest[open.upperBound...]
                guard let close = after.firstIndex(of: ")") else { break }
                out.append(String(after[..<close]))
                rest = after[close...]
            }
        }
        return out
    }

    /// GitHub's anchors of a markdown file's headings (outside code blocks).
    static func anchors(in text: String) -> Set<String> {
        var out = Set<String>()
        var inFence = false
        for line in text.components(separatedBy: "\n") {
            if line.hasPrefix("```") { inFence.toggle(); continue }
            guard !inFence, line.hasPrefix("#") else { continue }
            let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)
            let kept = title.lowercased().unicodeScalars.filter {
                $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == " " || $0 == "-" || $0 == "_"
            }
            out.insert(String(String.UnicodeScalarView(kept)).replacingOccurrences(of: " ", with: "-"))
        }
        return out
    }

    @Test func everyRelativeLinkInTheDocsResolves() throws {
        var broken: [String] = []
        var checked = 0
        for file in try Self.markdownFiles() {
            let text = try String(contentsOfFile: inRepo(file), encoding: .utf8)
            let folder = (file as NSString).deletingLastPathComponent
            for link in Self.links(in: text) {
                if link.contains("://") || link.hasPrefix("mailto:") { continue }
                checked += 1
                let parts = link.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let target = parts[0].isEmpty ? file : (folder.isEmpty ? parts[0] : folder + "/" + parts[0])
                let path = (inRepo(target) as NSString).standardizingPath
                guard FileManager.default.fileExists(atPath: path) else {
                    broken.append("\(file): \(link) (no file \(target))")
                    continue
                }
                if parts.count == 2, path.hasSuffix(".md") {
                    let anchors = Self.anchors(in: try String(contentsOfFile: path, encoding: .utf8))
                    if !anchors.contains(parts[1]) { broken.append("\(file): \(link) (no heading #\(parts[1]) in \(target))") }
                }
            }
        }
        #expect(broken.isEmpty, "\(broken.joined(separator: "\n"))")
        #expect(checked > 20, "the docs link to each other (\(checked) links)")
    }

    @Test func linksAndAnchorsAreReadLikeGitHub() {
        #expect(Self.links(in: "see [a](b.md#c) and `[x](y)`\n```\n[p](q)\n```\n[d](e)") == ["b.md#c", "e"])
        #expect(Self.anchors(in: "## 11.3 `rows`\n### 9.2 Plugin capabilities (`initialize` result)\n```\n# not a heading\n```")
                == ["113-rows", "92-plugin-capabilities-initialize-result"])
    }

    // MARK: Sizes and section references

    /// Each document stays within its size (issue 26): the contract, the map, the decisions
    /// and the figures, each rule once.
    @Test func theDocsStayWithinTheirSizes() throws {
        let limits = ["docs/PROTOCOL.md": 60, "docs/ARCHITECTURE.md": 25, "docs/DECISIONS.md": 30, "docs/PERFORMANCE.md": 20]
        for (file, kb) in limits.sorted(by: { $0.key < $1.key }) {
            let bytes = try #require(FileManager.default.attributesOfItem(atPath: inRepo(file))[.size] as? Int)
            #expect(bytes <= kb * 1024, "\(file) is \(bytes) bytes, over \(kb) KB")
        }
    }

    /// The section numbers of PROTOCOL.md's headings (`## 11.` gives "11", `### 11.3.1` "11.3.1").
    static func protocolSections() throws -> Set<String> {
        let text = try String(contentsOfFile: inRepo("docs/PROTOCOL.md"), encoding: .utf8)
        let heading = try NSRegularExpression(pattern: #"^#{2,5} (\d+(?:\.\d+)*)\.? "#, options: .anchorsMatchLines)
        return Set(heading.matches(in: text, range: NSRange(text.startIndex..., in: text)).map {
            String(text[Range($0.range(at: 1), in: text)!])
        })
    }

    /// Files that cite PROTOCOL.md's sections: the code (the checker's messages among it), the
    /// plugins, the docs and the schema.
    static func citingFiles() throws -> [String] {
        let fm = FileManager.default
        var out = ["README.md", "docs/protocol.schema.json"]
        out += try fm.contentsOfDirectory(atPath: inRepo("docs")).filter { $0.hasSuffix(".md") }.map { "docs/" + $0 }
        for root in ["Sources", "Plugins"] {
            guard let walk = fm.enumerator(atPath: inRepo(root)) else { continue }
            for case let path as String in walk where !path.contains(".venv") && !path.contains("__pycache__") {
                if [".swift", ".py", ".md", ".sh"].contains(where: { path.hasSuffix($0) }) { out.append(root + "/" + path) }
            }
        }
        return out.sorted()
    }

    /// Every `PROTOCOL.md 11.3` (or `PROTOCOL 11.3`, `PROTOCOL.md §6`, `PROTOCOL.md, section 17`), and every `§11.3` inside
    /// PROTOCOL.md, names a section that exists.
    @Test func everyProtocolSectionCitedExists() throws {
        let sections = try Self.protocolSections()
        #expect(sections.contains("11.3") && sections.contains("5"), "headings read: \(sections.sorted())")
        let cite = try NSRegularExpression(pattern: #"PROTOCOL(?:\.md)?,? (?:section |§ ?)?(\d+(?:\.\d+)*)"#)
        let section = try NSRegularExpression(pattern: #"§ ?(\d+(?:\.\d+)*)"#)
        var dangling: [String] = []
        var cited = 0
        for file in try Self.citingFiles() {
            let text = try String(contentsOfFile: inRepo(file), encoding: .utf8)
            var patterns = [cite]
            if file == "docs/PROTOCOL.md" { patterns.append(section) }
            for pattern in patterns {
                for match in pattern.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                    let number = String(text[Range(match.range(at: 1), in: text)!])
                    cited += 1
                    if !sections.contains(number) {
                        let line = text[..<Range(match.range, in: text)!.lowerBound].filter { $0 == "\n" }.count + 1
                        dangling.append("\(file):\(line): section \(number)")
                    }
                }
            }
        }
        #expect(dangling.isEmpty, "cited sections PROTOCOL.md does not have:\n\(dangling.joined(separator: "\n"))")
        #expect(cited > 100, "the code and docs cite the protocol's sections (\(cited) citations)")
    }

    // MARK: Architecture

    /// The package's targets (tests left out) and the names each depends on, from Package.swift.
    static func packageTargets() throws -> [(name: String, dependencies: [String])] {
        let source = try String(contentsOfFile: inRepo("Package.swift"), encoding: .utf8)
        let body = try #require(source.range(of: "targets: [")).upperBound
        var out: [(String, [String])] = []
        let text = String(source[body...])
        let pattern = try NSRegularExpression(pattern: #"\.(target|executableTarget|systemLibrary|testTarget)\(name: "([^"]+)""#)
        let matches = pattern.matches(in: text, range: NSRange(text.startIndex..., in: text))
        for (i, match) in matches.enumerated() {
            let kind = String(text[Range(match.range(at: 1), in: text)!])
            let name = String(text[Range(match.range(at: 2), in: text)!])
            guard kind != "testTarget" else { continue }
            let end = i + 1 < matches.count ? Range(matches[i + 1].range, in: text)!.lowerBound : text.endIndex
            var declaration = String(text[Range(match.range, in: text)!.upperBound..<end])
            var dependencies: [String] = []
            if let open = declaration.range(of: "dependencies: [") {
                declaration = String(declaration[open.upperBound...])
                let list = declaration[..<(declaration.range(of: "]")?.lowerBound ?? declaration.endIndex)]
                let products = try NSRegularExpression(pattern: #"\.product\(name: "([^"]+)", package: "[^"]+"\)"#)
                let plain = products.stringByReplacingMatches(in: String(list), range: NSRange(list.startIndex..., in: list),
                                                              withTemplate: "\"$1\"")
                dependencies = plain.components(separatedBy: "\"").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
            }
            out.append((name, dependencies))
        }
        return out
    }

    /// The rows of the markdown table that follows `heading` in ARCHITECTURE.md, as cells.
    static func architectureTable(after heading: String) throws -> [[String]] {
        let text = try String(contentsOfFile: inRepo("docs/ARCHITECTURE.md"), encoding: .utf8)
        let lines = text.components(separatedBy: "\n")
        let start = try #require(lines.firstIndex(of: heading))
        let rows = lines[start...].drop { !$0.hasPrefix("|") }.prefix { $0.hasPrefix("|") }.dropFirst(2)
        return rows.map { row in row.split(separator: "|", omittingEmptySubsequences: false).dropFirst().dropLast()
            .map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    /// The `code` names in a table cell.
    static func names(_ cell: String) -> [String] {
        cell.components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }.map(\.element)
    }

    @Test func architectureMatchesThePackage() throws {
        let targets = try Self.packageTargets()
        #expect(targets.count > 15, "parsed \(targets.map(\.name))")
        let graph = try Self.architectureTable(after: "## Dependency graph")
        let documented = graph.map { (Self.names($0[0]).first ?? "", Self.names($0[1])) }
        #expect(documented.map(\.0) == targets.map(\.name), "the dependency table lists the targets in Package.swift's order")
        for (name, dependencies) in targets {
            let row = documented.first { $0.0 == name }
            #expect(row?.1 == dependencies, "\(name): ARCHITECTURE.md says \(row?.1 ?? []), Package.swift \(dependencies)")
        }
        let listed = Set(try Self.architectureTable(after: "## Targets").flatMap { Self.names($0[0]) })
        for (name, _) in targets {
            #expect(listed.contains(name), "the targets table of ARCHITECTURE.md has no row for \(name)")
        }
    }
}
